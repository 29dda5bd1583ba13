#!/bin/busybox sh
# /usr/libexec/demo/inside.sh -- what this service sees of the machine,
# by trying, one line each (make demo shows them): run by sandbox.svc in
# a container of its own (its / is /var/lib/ct/sandbox, where this script
# is /inside.sh) and by open.svc, the same credentials without one.
b=/bin/busybox
n=0
others=
for d in /proc/[0-9]*; do
  n=$((n + 1))
  # the program's name: busybox's applets are its first argument
  c=$($b cat "$d/cmdline" 2>&1 | $b tr '\0' ' ')
  case $c in
    "/bin/busybox syslogd "*) others="${others}syslogd " ;;
    "/bin/busybox httpd "*) others="${others}httpd " ;;
    "/usr/sbin/pinger "*) others="${others}pinger " ;;
  esac
done
# one name each, sorted
others=$(for c in $others; do echo "$c"; done | $b sort -u | $b tr '\n' ' ')
echo "processes: $n${others:+ (syslogd, httpd, pinger among them: $others)}"
if e=$( { : > /demo-write-test; } 2>&1 ); then
  $b rm -f /demo-write-test
  echo "write /: ok"
else
  echo "write /: ${e##*: }"
fi
if [ -e /etc/capinit/services ]; then
  echo "other services' files: /etc/capinit/services is there"
else
  echo "other services' files: none (no /etc/capinit)"
fi
echo "network: $($b awk 'NR > 2 { sub(":", "", $1); print $1 }' /proc/net/dev | $b sort | $b tr '\n' ' ')"
echo "hostname: $($b hostname)"
