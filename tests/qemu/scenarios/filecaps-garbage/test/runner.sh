#!/bin/busybox sh
# /test/runner.sh -- the in-guest runner of the filecaps-garbage scenario
# (tests/robust/test_qemu_filecaps.sh): capinit booted with a manifest full of
# garbage; what it applied, what it did not, that a command named on a bad
# line is refused (fail closed), and that it runs as usual.
# TAP to /dev/ttyS1, then DONE, then capctl poweroff.
. /test/tap.sh
i=0
until capctl status runner >/dev/null 2>&1 || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done

t_eq "$(readlink /proc/1/exe)" /sbin/init "PID 1 is capinit"
t_eq "$(/test/tool getcap /test/svc_helper)" 0100000200200000000000000000000000000000 \
  "the good line was applied: /test/svc_helper has cap_net_raw+ep (revision 2)"
t_eq "$(/test/tool getcap /test/tool)" 0000000200000000000000000000000000000000 \
  "'/test/tool =' was applied: an xattr with no capability"
t_eq "$(/test/tool getcap /test/probe)" none \
  "/test/probe, named only on bad lines (6 of them), got nothing"
t_eq "$(field fcap state) $(field fcap cap_prm) $(field fcap cap_eff)" "up 0000000000002000 0000000000002000" \
  "fcap (nobody) runs with cap_net_raw from its file, as the good line says"
t_eq "$(field garbled state) $(field garbled failure)" \
  "failed its command is named on a bad line of the filecaps manifest" \
  "garbled (the probe, named on bad lines with a valid path) is refused: its file capabilities are unknown"
t_eq "$(cat /var/log/capinit/garbled.log 2>/dev/null | grep -c '"cap_prm"')" 0 \
  "... and never ran (no probe record in its log; fcap, on a good line, did run)"
t_eq "$(capctl status >/dev/null; echo $?) $(field runner state)" "3 up" \
  "capctl status exits 3 (garbled is failed); the runner is up"

echo "1..$n" >&3
echo DONE >&3
exec 3>&-
echo "done, powering off"
capctl poweroff
exec sleep 60
