#!/bin/busybox sh
# /usr/libexec/demo/inside.sh -- what this service sees of the machine,
# by trying, one line each (make demo shows them): run by sandbox.svc in
# a container of its own (its / is /var/lib/ct/sandbox, where this script
# is /inside.sh) and by open.svc, the same credentials without one; its
# argument is the service's name.
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
# issue 34: the ways out of a container that need no capability, each
# tried (the demo runner, legacy root, checks the machine's side)
if e=$($b unshare -U $b true 2>&1); then echo "userns: ok"; else echo "userns: ${e##*: }"; fi
# /dev (without the syslog socket /dev/log, which may come a moment later)
echo "dev: $($b ls /dev | $b grep -vx log | $b tr '\n' ' ')"
echo "block devices: $($b find /dev -type b | $b sort | $b tr '\n' ' ')"
disk=$($b find /dev -type b | $b sort | $b head -n 1)
echo "disk read: $([ -n "$disk" ] && $b head -c 512 "$disk" | $b wc -c || echo none)"
echo "ttys: $($b ls /dev | $b grep -c '^tty.')"
for d in kmsg console; do
  e=$($b stat -c %F /dev/$d 2>&1)
  echo "$d: ${e##*: }"
done
# a write opens as the shell does (O_CREAT): where the node is missing,
# it makes a file in a /dev of the service's own
e=$( { echo "demo: kmsg from $1" > /dev/kmsg; } 2>&1 ) && echo "kmsg write: ok" || echo "kmsg write: ${e##*: }"
e=$( { : > /dev/demo-$1; } 2>&1 ) && echo "dev create: ok" || echo "dev create: ${e##*: }"
e=$( { : > /dev/shm/demo-$1; } 2>&1 ) && echo "shm create: ok" || echo "shm create: ${e##*: }"
# a set-user-ID file where it may write (/tmp), and the mode it got
: > /tmp/demo-suid-$1
e=$($b chmod 4755 /tmp/demo-suid-$1 2>&1) && e=ok
echo "suid: ${e##*: }, mode $($b stat -c %a /tmp/demo-suid-$1)"
$b rm -f /tmp/demo-suid-$1
