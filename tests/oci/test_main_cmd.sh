#!/bin/sh
# tests/oci/test_main_cmd.sh BUILDDIR -- capinit's main-command mode in the
# image, under runc and crun: `capinit --container -c /etc/capinit --
# CMD ARGS` supervises the services and runs CMD; the container's exit
# status is CMD's (0, 1, 255; a signal's death as 128 + its number: TERM
# 143, HUP 129, KILL 137), and a signal the runtime sends capinit reaches
# CMD.  Skipped as a whole while capinit has no such mode (its --help does
# not name ' -- CMD').
B=${1:-build}
. tests/lib.sh
if ! "$B/bin/capinit" --help 2>&1 | grep -qF ' -- CMD'; then
  echo "1..0 # SKIP capinit has no main-command mode (its --help does not name ' -- CMD')"
  exit 0
fi

RT=runc
. tests/oci/oci_lib.sh
for RT in runc crun; do
  oci_require
  main() { # NAME CMD...: a bundle whose process is the entrypoint -- CMD
    n=$1
    shift
    bundle "$n"
    edit "$n" --argjson c "$(printf '%s\n' "$@" | jq -R . | jq -sc .)" '.process.args += ["--"] + $c'
  }
  ends() { # NAME WANT WHAT: run it to its end; its status is WANT
    start "$1"
    wait "$run_pid"
    t_eq "$?" "$2" "$RT main command: $3"
  }
  for s in 0 1 255; do
    main "$RT-exit$s" /bin/sh -c "exit $s"
    ends "$RT-exit$s" "$s" "exit $s passes through"
  done
  for sig in TERM:143 HUP:129 KILL:137; do
    main "$RT-sig${sig%:*}" /bin/sh -c "kill -${sig%:*} \$\$"
    ends "$RT-sig${sig%:*}" "${sig#*:}" "death by SIG${sig%:*} is ${sig#*:}"
  done
  # the services run beside the main command, as without it
  main "$RT-services" /bin/sleep 1000
  start "$RT-services"
  settled "$RT-services"
  t_eq "$(state_of "$RT-services" httpd) $(state_of "$RT-services" health)" "up up" "$RT main command: the services run beside it"
  stop_and_wait "$RT-services" TERM
  t_eq "$rc" 143 "$RT main command: kill TERM reaches sleep, which dies of it: 143"
  # forwarding: the command's own handler decides its status
  main "$RT-trap" /bin/sh -c 'trap "exit 42" TERM; while :; do /bin/sleep 0.1; done'
  start "$RT-trap"
  settled "$RT-trap"
  stop_and_wait "$RT-trap" TERM
  t_eq "$rc" 42 "$RT main command: SIGTERM forwarded to it; its handler's exit 42 passes through"
done
t_done
