#!/bin/sh
# tests/qemu/test_boot.sh BUILDDIR -- capinit as PID 1 of a real Linux
# system: Debian's stock kernel (unpacked in BUILDDIR/debs, never installed)
# booted in QEMU (TCG) on a minimal busybox initramfs, one boot per
# scenario (tests/qemu/scenarios/), and capinit --container as PID 1 of a
# PID namespace on the host.
#
#   main       every kind of service; the in-guest runner checks the live
#              credentials, capctl verify, the filecaps manifest, setuid in
#              a noroot tree, the module, the refused file, 10 000 signals
#              and 10 000 orphans, issue 33's attacks on the 6.1 kernel
#              (no SO_PEERPIDFD: the control socket's pidfd fallback),
#              issue 34's on a contained uid 0, each with its control
#              (the filter, another service's processes, /dev, set-id
#              files, a link at /run/netns/NAME, keyrings), then
#              capctl poweroff; the host checks QEMU's exit, capinit's
#              lines for each signal it ignored, the shutdown order and
#              the stop-timeout SIGKILL
#   reboot     busybox reboot (SIGTERM to PID 1): QEMU exits (-no-reboot)
#   initctl    /run/initctl, sysvinit's FIFO that Debian's systemctl poweroff
#              writes to without systemd: a FIFO of mode 0000 that a uid 0
#              in a noroot tree cannot open (legacy root can); a runlevel
#              capinit has not (Z) is refused, runlevel 0 powers off
#   halt       busybox halt (SIGUSR1): the kernel halts, QEMU is killed
#   poweroff, pwr, cad
#              busybox poweroff (SIGUSR2), kill -PWR 1, kill -INT 1 (as
#              Ctrl-Alt-Del): power off, power off, reboot
#   emergency  no /etc/capinit: the emergency shell, run again when it
#              exits; busybox poweroff from it
#   fstab-root /etc/fstab's root entry cannot be applied (an option the
#              root's tmpfs refuses): fatal, the emergency shell, the
#              lines before it mounted, none after, no service
#   container  capinit --container in unshare --pid --fork: SIGTERM and
#              SIGINT stop every service, capinit exits 0
#
# Each boot must end by itself (within BOOT_TIMEOUT, 300 s of wall time:
# a bound a loaded machine meets; the time is a figure).  A boot that ends without
# the guest's DONE marker fails (with panic=-1 a dying PID 1 also makes
# QEMU exit 0).
B=${1:-build}
. tests/lib.sh

summary=
# this run's files (kept when a test fails); other runs may go on at once
mkdir -p "$B/qemu"
out=$(mktemp -d "$B/qemu/run.XXXXXX")

# boot SCENARIO: sets $dir, $con (console.txt), $end, $rc, $wall, $ready
boot() {
  dir=$out/$1
  con=$dir/console.txt
  line=$(QEMU_OUT=$dir sh tests/qemu/boot.sh "$B" "$1" 2>"$out/$1.err")
  status=$?
  end=$(echo "$line" | sed -n 's/.* end=\([a-z]*\) .*/\1/p')
  rc=$(echo "$line" | sed -n 's/.* qemu_rc=\([0-9]*\) .*/\1/p')
  wall=$(echo "$line" | sed -n 's/.* wall_ms=\([0-9]*\).*/\1/p')
  t_ok $status "$1: booted and ended by itself ($line)"
  if [ $status != 0 ] || [ -s "$out/$1.err" ]; then
    sed 's/^/#   /' "$out/$1.err"
    [ -f "$con" ] && tail -n 20 "$con" | sed 's/^/#   console: /'
  fi
  ready=$(sed -n 's/^capinit: all \([0-9]*\) services ready \([0-9]*\) ms after capinit started.*/\2 ms (\1 services)/p' \
    "$con" 2>/dev/null | head -n 1)
  summary="$summary$1: boot-to-ready ${ready:-not reached}, QEMU wall $(awk "BEGIN { printf \"%.1f\", ${wall:-0} / 1000 }") s
"
}

has() { # WHAT PATTERN: the console shows a line matching PATTERN (grep -E)
  grep -Eq "$2" "$con"
  t_ok $? "$1"
}

# line number of the first console line matching PATTERN (fixed string), or 0
at() { grep -nF "$1" "$con" | head -n 1 | cut -d: -f1 | sed 's/^$/0/'; }
before() { # A B WHAT: the first line with A comes before the first with B
  a=$(at "$1")
  b=$(at "$2")
  [ "${a:-0}" -gt 0 ] && [ "${b:-0}" -gt 0 ] && [ "$a" -lt "$b" ]
  t_ok $? "$3"
  [ "${a:-0}" -gt 0 ] && [ "${b:-0}" -gt 0 ] && [ "$a" -lt "$b" ] ||
    printf '#   "%s" at line %s, "%s" at line %s\n' "$1" "${a:-0}" "$2" "${b:-0}"
}
last_capinit_line() { grep '^capinit: ' "$con" | tail -n 1; }
results_done() { # SCENARIO: the guest's explicit end marker
  grep -qx DONE "$dir/results.txt" 2>/dev/null
  t_ok $? "$1: the guest wrote DONE"
}

guest_tap() { # SCENARIO: the guest's own tests, one by one, and its whole plan
  tr -d '\r' < "$dir/results.txt" > "$dir/results.tap" 2>/dev/null
  guest_plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$dir/results.tap")
  guest_n=0
  while IFS= read -r l; do
    case $l in
      "ok "*) guest_n=$((guest_n + 1)); t_ok 0 "$1 (guest): ${l#ok [0-9]* - }" ;;
      "not ok "*) guest_n=$((guest_n + 1)); t_ok 1 "$1 (guest): ${l#not ok [0-9]* - }" ;;
      "#"*) echo "$l" ;;
    esac
  done < "$dir/results.tap"
  t_eq "$guest_n" "${guest_plan:-none}" "$1: the guest ran its whole plan"
}

# ---------------------------------------------------------------- main
boot main
t_eq "$end $rc" "exit 0" "main: QEMU exited 0 by itself (capctl poweroff)"
results_done main
guest_tap main
has "main: kernel support line" '^capinit: kernel [^ ]*: securebits yes, ambient capabilities yes, last capability [0-9]+$'
has "main: the modules (dummy, loop) were loaded by capinit" '^capinit: modules: 2 of 2 loaded$'
has "main: the filecaps manifest was applied where it could be" '^capinit: filecaps: 1 of 2 files as the manifest says$'
has "main: a manifest line that cannot be applied is reported" \
  '^capinit: warning: unable to set the file capabilities of /test/not-shipped \(/etc/capinit/filecaps:5\): No such file or directory$'
has "main: and the service whose command it is is refused" \
  '^capinit: service ghost: refused: its command.s file capabilities do not match the filecaps manifest$'
has "main: the file with an error is reported with FILE:LINE" "^capinit: /etc/capinit/services/broken.svc:3: error: unknown key 'colour'"
has "main: and the boot went on: all services ready (capinit's clock)" '^capinit: all 8 services ready [0-9]+ ms after capinit started$'
# issue 33: the signals of a uid 0 noroot service (the guest's signaller)
# and a SIGHUP queued in the runner's name, each ignored and said
spid=$(sed -n 's/^runner: attack pids: signaller \([0-9]*\), runner [0-9]*$/\1/p' "$con" | head -n 1)
rpid=$(sed -n 's/^runner: attack pids: signaller [0-9]*, runner \([0-9]*\)$/\1/p' "$con" | head -n 1)
t_ok "$([ "${spid:-0}" -gt 1 ] && [ "${rpid:-0}" -gt 1 ]; echo $?)" "main: the runner named the signaller (pid $spid) and itself (pid $rpid)"
for s in HUP TERM INT USR1 USR2 PWR; do
  power=" or the power group"
  [ $s = HUP ] && power=
  has "main: capinit ignored SIG$s from the uid 0 noroot signaller (pid $spid), and said so" \
    "^capinit: warning: ignored SIG$s from pid $spid \(uid 0\): only the kernel, capinit's own power$power may order it \(capinit\(8\), SIGNALS\)\$"
done
has "main: capinit ignored the SIGHUP that named itself the runner (pid $rpid), and said so" \
  "^capinit: warning: ignored SIGHUP from a sender that named itself pid $rpid \(uid 0, code -1\): only the kernel, capinit's own power may order it"
# issue 33: the log files an attacker made links: the lines go to the console
has "main: capinit did not write talker's lines through the symbolic link planted at its log file, and said so" \
  "^capinit: service talker: warning: unable to log to /var/log/capinit/talker.log: a symbolic link \(not followed\): its lines go to the console\$"
has "main: nor talker2's through the hard link, and said so" \
  "^capinit: service talker2: warning: unable to log to /var/log/capinit/talker2.log: a file with another name \(a hard link\?\): its lines go to the console\$"
t_eq "$(grep -c '^talker: talk [1-5]$' "$con") $(grep -c '^talker2: talk [1-5]$' "$con")" "5 5" \
  "main: talker's and talker2's five lines each on the console instead"
# issue 34: a link planted at /run/netns/NAME is never joined
has "main: netns-link (network = netns:q34-link, a link to /proc/self/ns/net) failed at stage network, and capinit said so" \
  '^capinit: service netns-link: fatal: start failed at stage network: unable to join the network namespace /run/netns/q34-link: Symbolic link loop$'
t_eq "$(grep -c 'stopping every service$' "$con")" 1 "main: one stop, the runner's capctl poweroff"
has "main: the runner asked for the power off" '^capinit: capctl poweroff: stopping every service$'
# shutdown in reverse dependency order: what depends on (or comes after) a
# service is stopped before that service's stop begins
before "service runner: stopped" "service stubborn: stopping" "main: runner (after all) stopped before stubborn stops"
before "service runner: stopped" "service fcap: stopping" "main: runner stopped before fcap stops"
before "service stubborn: stopping" "warning: still running 1000 ms after SIGTERM: sending SIGKILL" \
  "main: stubborn ignores SIGTERM"
has "main: stubborn is SIGKILLed after its 1 s stop-timeout" \
  '^capinit: service stubborn: warning: still running 1000 ms after SIGTERM: sending SIGKILL to its process group$'
before "sending SIGKILL to its process group" "service stubborn: stopped" "main: stubborn stopped after the SIGKILL"
before "service stubborn: stopped" "service www: stopping" "main: stubborn (depends www) stopped before www stops"
before "service www: stopped" "service net: stopping (stop-command)" "main: www (depends net) stopped before net's stop-command"
before "service www: stopped" "service syslogd: stopping" "main: www (after syslogd) stopped before syslogd stops"
before "service fcap: stopped" "service syslogd: stopping" "main: fcap (after syslogd) stopped before syslogd stops"
before "service net: stopped" "capinit: every service is down" "main: net's stop-command ran to its end"
before "capinit: every service is down" "capinit: sending SIGTERM to every process left" "main: then SIGTERM to what is left"
before "capinit: sending SIGTERM to every process left" "capinit: sending SIGKILL to every process left" "main: then SIGKILL"
t_eq "$(last_capinit_line)" "capinit: power off" "main: capinit's last word is 'power off'"
has "main: the kernel powered down" 'reboot: Power down$'

# ---------------------------------------------------------------- reboot
boot reboot
t_eq "$end $rc" "exit 0" "reboot: QEMU exited 0 (-no-reboot turns the reset into an exit)"
results_done reboot
has "reboot: busybox reboot is SIGTERM to PID 1" '^capinit: SIGTERM \(reboot\): stopping every service$'
before "service trigger: stopped" "service sleeper: stopping" "reboot: services stopped in reverse order"
t_eq "$(last_capinit_line)" "capinit: reboot" "reboot: capinit's last word is 'reboot'"
has "reboot: the kernel restarted" 'reboot: Restarting system$'

# ----------------------------------------- the other shutdown signals
# busybox poweroff (SIGUSR2), a power event (SIGPWR), Ctrl-Alt-Del (SIGINT)
for sc in poweroff:USR2:"power off":"power off":"Power down" pwr:PWR:"power off":"power off":"Power down" \
          cad:INT:reboot:reboot:"Restarting system"; do
  name=${sc%%:*} rest=${sc#*:}
  sig=${rest%%:*} rest=${rest#*:}
  what=${rest%%:*} rest=${rest#*:}
  last=${rest%%:*} kernel=${rest#*:}
  boot "$name"
  t_eq "$end $rc" "exit 0" "$name: QEMU exited 0"
  results_done "$name"
  has "$name: SIG$sig to PID 1 stops every service ($what)" "^capinit: SIG$sig \\($what\\): stopping every service\$"
  before "service trigger: stopped" "service sleeper: stopping" "$name: services stopped in reverse order"
  t_eq "$(last_capinit_line)" "capinit: $last" "$name: capinit's last word is '$last'"
  has "$name: the kernel: $kernel" "reboot: $kernel\$"
done

# ---------------------------------------------------------------- initctl
boot initctl
t_eq "$end $rc" "exit 0" "initctl: QEMU exited 0 (runlevel 0 on /run/initctl, as Debian's systemctl poweroff writes it)"
results_done initctl
guest_tap initctl
has "initctl: a runlevel capinit has not is refused, and nothing stops" \
  '^capinit: warning: /run/initctl: runlevel Z: capinit has none \(0 powers off, 6 reboots\)$'
before "runlevel Z: capinit has none" "capinit: /run/initctl: runlevel 0 (power off): stopping every service" \
  "initctl: runlevel 0 is the stop's reason, after the refusal"
t_eq "$(grep -c 'stopping every service$' "$con")" 1 "initctl: one stop, the runlevel 0 one"
before "service trigger: stopped" "service sleeper: stopping" "initctl: services stopped in reverse order"
t_eq "$(last_capinit_line)" "capinit: power off" "initctl: capinit's last word is 'power off'"

# ---------------------------------------------------------------- halt
boot halt
t_eq "$end" halted "halt: the kernel halted (QEMU left running, then killed by the harness)"
results_done halt
has "halt: busybox halt is SIGUSR1 to PID 1" '^capinit: SIGUSR1 \(halt\): stopping every service$'
before "service trigger: stopped" "service sleeper: stopping" "halt: services stopped in reverse order"
t_eq "$(last_capinit_line)" "capinit: halt" "halt: capinit's last word is 'halt'"
has "halt: the kernel says System halted" 'reboot: System halted$'

# ---------------------------------------------------------------- emergency
boot emergency
t_eq "$end $rc" "exit 0" "emergency: QEMU exited 0 (poweroff from the emergency shell)"
has "emergency: no configuration is fatal in phase 1" \
  '^capinit: fatal: no configuration: /etc/capinit/services: No such file or directory$'
has "emergency: the default emergency shell /bin/sh is started" '^capinit: starting the emergency shell /bin/sh '
grep -qx EMERGENCY "$dir/results.txt" 2>/dev/null
t_ok $? "emergency: the emergency shell ran (EMERGENCY on the result port)"
results_done emergency
before "emergency shell: first run, exiting" "emergency shell: second run" "emergency: a shell that exits is started again"
has "emergency: busybox poweroff (SIGUSR2) works from the emergency shell" '^capinit: power off$'
has "emergency: the kernel powered down" 'reboot: Power down$'

# ---------------------------------------------------------------- fstab-root
boot fstab-root
t_eq "$end $rc" "exit 0" "fstab-root: QEMU exited 0 (poweroff from the emergency shell)"
has "fstab-root: the root's entry failing is reported with its FILE:LINE" \
  '^capinit: /etc/fstab:3: error: unable to remount / \(rw,capinit-bogus\): Invalid argument$'
has "fstab-root: ... and it is fatal" '^capinit: fatal: unable to remount / as /etc/fstab:3 says$'
has "fstab-root: the emergency shell of capinit.conf is started" '^capinit: starting the emergency shell /bin/busybox '
tr -d '\r' < "$dir/results.txt" > "$dir/results.tap" 2>/dev/null
while IFS= read -r l; do
  case $l in
    "ok "*) t_ok 0 "fstab-root (guest): ${l#ok [0-9]* - }" ;;
    "not ok "*) t_ok 1 "fstab-root (guest): ${l#not ok [0-9]* - }" ;;
  esac
done < "$dir/results.tap"
t_eq "$(sed -n 's/^1\.\.//p' "$dir/results.tap")" 3 "fstab-root: the guest ran its 3 checks"
results_done fstab-root
has "fstab-root: shutdown: what the fstab mounted is unmounted" '^capinit: unmounted /srv \(tmpfs\)$'
t_eq "$(last_capinit_line)" "capinit: power off" "fstab-root: capinit's last word is 'power off'"

# ---------------------------------------------------------------- container
# capinit --container as PID 1 of a PID namespace: no mounts, no reboot;
# SIGTERM (and SIGINT) stop every service in order and it exits 0
. tests/supervise_lib.sh
sv_init
svc base <<EOF
command = $HELPER stamp $T/stamps
EOF
svc top <<EOF
command = $HELPER stamp $T/stamps
depends = base
EOF
svc stubborn <<EOF
command = $HELPER ignore-term
stop-timeout = 1s
after = top
EOF
svc setup <<EOF
type = oneshot
command = $HELPER exit 0
stop-command = $HELPER exit 0 $T/stopped
EOF
t0=$(date +%s%3N)
sv_start
t_ok $? "container: capinit --container started in unshare --pid --fork"
for s in base top stubborn setup; do
  sv_wait $s up
  t_ok $? "container: $s is up"
done
t_eq "$(sed -n 's/^NSpid:.*[[:space:]]\([0-9]*\)$/\1/p' /proc/"$(sv_pid)"/status)" 1 "container: capinit is PID 1 of its namespace"
sv_stop
t_eq "$sv_rc" 0 "container: SIGTERM: capinit stopped everything and exited 0"
con=$T/capinit.out
has "container: SIGTERM starts the stop (no talk of a reboot)" '^capinit: SIGTERM: stopping every service$'
before "service stubborn: stopped" "service top: stopping" "container: stubborn (after top) stopped before top"
before "service top: stopped" "service base: stopping" "container: top (depends base) stopped before base"
has "container: stubborn SIGKILLed after its stop-timeout" 'service stubborn: warning: still running 1000 ms after SIGTERM'
t_eq "$(cut -d' ' -f1 "$T/stopped" 2>/dev/null)" setup "container: the oneshot's stop-command ran"
has "container: every service is down" '^capinit: every service is down$'
grep -Eq 'sending SIG(TERM|KILL) to every process|capinit: (reboot|power off|halt)$|unable to mount' "$con"
t_ok $((!$?)) "container: no kill-everything, no reboot(2)"
# SIGINT, the Ctrl-Alt-Del of a container, stops it too
sv_start
sv_wait base up
kill -INT "$(sv_pid)"
n=0
while kill -0 "$sv_unshare" 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
if kill -0 "$sv_unshare" 2>/dev/null; then rc=timeout; else wait "$sv_unshare"; rc=$?; fi
sv_unshare=
sv_nspid=
t_eq "$rc" 0 "container: SIGINT: capinit stopped everything and exited 0"
# capctl halt (reboot, poweroff): in a container, a stop and exit 0
sv_start
sv_wait base up
sv_ctl halt >/dev/null
t_ok $? "container: capctl halt is accepted"
n=0
while kill -0 "$sv_unshare" 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
if kill -0 "$sv_unshare" 2>/dev/null; then rc=timeout; else wait "$sv_unshare"; rc=$?; fi
sv_unshare=
sv_nspid=
t_eq "$rc" 0 "container: capctl halt: capinit stopped everything and exited 0"
has "container: capctl halt stopped the services" '^capinit: service base: stopped$'
summary="${summary}container: $(($(date +%s%3N) - t0)) ms for three runs (stubborn's 1 s stop-timeout included)
"

printf '%s' "$summary" | sed 's/^/# summary: /'
if [ "$t_failed" = 0 ]; then rm -rf "$out"; else echo "# the consoles and results are kept in $out"; fi
t_done
