# /etc/profile.d/demo.sh -- the console's part of the demo (demo image
# only), read by the console shell itself (sh -l) at its first start:
# once the demo runner says go, this shell -- uid 0, locked noroot tree,
# empty bounding set -- tries what root could do, and says what happened,
# one line each ("console: ..."), and writes the exit statuses for the
# runner to /tmp/demo/console.results.
if [ -e /etc/capinit/services/demo.svc ] && [ ! -e /tmp/demo/console.done ]; then
  mkdir -p /tmp/demo
  demo_i=0
  while [ ! -e /tmp/demo/go ] && [ $demo_i -lt 3000 ]; do sleep 0.1; demo_i=$((demo_i + 1)); done
  demo_try() { # KEY WHAT WHY COMMAND...: run it, say what happened
    demo_key=$1 demo_what=$2 demo_why=$3
    shift 3
    demo_out=$("$@" 2>&1 </dev/null)
    demo_rc=$?
    demo_out=$(echo "$demo_out" | tail -n 1 | sed 's|^/bin/sh: /etc/profile.d/demo.sh: ||')
    echo "$demo_key $demo_rc $demo_out" >> /tmp/demo/console.results
    if [ $demo_rc = 0 ]; then demo_res="WORKED"; else demo_res="refused: ${demo_out##*: }"; fi
    printf 'console:    %-38s %-36s -> %s\n' "$demo_what" "($demo_why)" "$demo_res"
  }
  : > /tmp/demo/console.results
  echo "self $(id -u) $(awk '/^Cap(Prm|Eff|Bnd)/ { printf " %s", $2 }' /proc/$$/status)" >> /tmp/demo/console.results
  # (the test image has the credentials probe: securebits too)
  [ ! -x /test/probe ] || echo "probe $(/test/probe 2>&1 | tr -d ' \n')" >> /tmp/demo/console.results
  printf 'console:    %-38s %-36s -> %s\n' "id -u; grep Cap /proc/self/status" "(what this shell is)" \
    "uid $(id -u), CapEff $(awk '/^CapEff/ { print $2 }' /proc/$$/status), CapBnd $(awk '/^CapBnd/ { print $2 }' /proc/$$/status)"
  demo_try mount "mount -t tmpfs demo /mnt" "needs cap_sys_admin" mount -t tmpfs demo /mnt
  demo_try insmod "insmod dummy.ko" "needs cap_sys_module" insmod "$(find /lib/modules -name dummy.ko | head -n 1)"
  demo_try bind80 "nc -l -p 80" "needs cap_net_bind_service" timeout 2 nc -l -p 80
  demo_try pinger "/usr/sbin/pinger -c 1 10.0.2.2" "its file cap: not in bounding set" /usr/sbin/pinger -c 1 10.0.2.2
  demo_try etc "echo >> /etc/capinit/services/*.svc" "uid 0 owns it: its tree is ro" sh -c 'echo "user = root" >> /etc/capinit/services/httpd.svc'
  demo_try sysctl "echo > /proc/sys/kernel/core_pattern" "uid 0's sysctl: ro" sh -c 'echo "|/tmp/x" > /proc/sys/kernel/core_pattern'
  demo_pid=$(capctl status --json httpd | sed -n 's/^ *"pid": \([0-9]*\),$/\1/p')
  [ "${demo_pid:-0}" -gt 0 ] || demo_pid=none  # never kill -9 0: the shell's own group
  # httpd's pid is capinit's view of it; in this shell's own PID namespace
  # the same number may be one of its own processes (pids count up from 1
  # in each namespace): then it is not killed, and the record says whose
  # (busybox timeout's watcher, for one, outlives the nc it timed by up
  # to a second).  The name is read by the shell itself, once, and the
  # kill is the shell's own: nothing here forks, so no process made for
  # the attempt can take that number first, and none can end between a
  # look and a read.
  demo_comm=
  [ "$demo_pid" = none ] || read -r demo_comm 2>/dev/null < "/proc/$demo_pid/comm"
  if [ -n "$demo_comm" ]; then
    demo_out="pid $demo_pid is this namespace's own ($demo_comm): httpd is not in it"
    demo_rc=2
  else
    kill -9 "$demo_pid" 2>/tmp/demo/kill.err
    demo_rc=$?
    demo_out="sh: $(sed -n 's/.*\(can.t kill\)/\1/p' /tmp/demo/kill.err | tail -n 1)"
  fi
  echo "kill $demo_rc $demo_out" >> /tmp/demo/console.results
  if [ $demo_rc = 0 ]; then demo_res="WORKED"; else demo_res="refused: ${demo_out##*: }"; fi
  printf 'console:    %-38s %-36s -> %s\n' "kill -9 <httpd's pid>" "(its own PID namespace)" "$demo_res"
  demo_try stop "capctl stop httpd" "power-group: it may power off only" capctl stop httpd
  : > /tmp/demo/console.done
  unset demo_i demo_pid demo_comm demo_key demo_what demo_why demo_out demo_rc demo_res
  unset -f demo_try
fi
