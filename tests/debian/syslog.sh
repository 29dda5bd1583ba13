#!/bin/sh
# tests/debian/syslog.sh TOKEN -- run in the guest (ssh ... sh -s TOKEN),
# in one login (each costs a second under TCG): rsyslog's clients before
# and after capctl restart rsyslog, and the /dev rsyslog sees beside
# capinit's.  One line per finding, a key and its values, which
# test_debian.sh compares with what it wants.
#   link      where /dev/log leads, in capinit's /dev and in postfix's own
#   before    which of the three loggers reached /var/log/syslog (capexec
#             chroot postfix: all three)
#   restart   another|same, rsyslogd's pid before and after the restart
#   after     as before, after the restart
#   pickup    how many lines postfix's pickup, chrooted since the boot,
#             logged for a mail sent after the restart (1)
#   dev-rsyslog, dev-capinit   the file system on /dev, its block devices,
#             whether kmsg and console are there
t=$1
mpid=$(pidof master)
wait_for() { # N PATTERN FILE: until FILE has N lines that match (20 s at most)
  i=0
  while [ "$(grep -c "$2" "$3")" -lt "$1" ] && [ $i -lt 100 ]; do
    sleep 0.2
    i=$((i + 1))
  done
}
# logger in postfix's mount namespace (its /dev of its own, made at boot),
# in one capexec makes (read-only, as nobody), and on the socket of
# postfix's chroot (/var/spool/postfix/dev/log, its chrooted daemons' way
# to rsyslog once their first connection is gone)
clients() { # WORD
  nsenter -t "$mpid" -m logger -t capinit-test "$t-$1-postfix"
  capexec -k mode=noroot -k user=nobody -k read-only=yes -k no-new-privileges=yes -- \
    /usr/bin/logger -t capinit-test "$t-$1-capexec"
  nsenter -t "$mpid" -m logger -u /var/spool/postfix/dev/log -t capinit-test "$t-$1-chroot"
  wait_for 3 "capinit-test: $t-$1-[a-z]*\$" /var/log/syslog
  echo "$1" $(sed -n "s/.*capinit-test: $t-$1-\([a-z]*\)\$/\1/p" /var/log/syslog | sort)
}
devview() { # PID
  r=/proc/$1/root/dev
  echo $(awk '$5 == "/dev" { for (i = 7; $i != "-"; i++); t = $(i + 1) } END { print t }' "/proc/$1/mountinfo") \
    $(find "$r/" -type b | wc -l) $([ -e "$r/kmsg" ] && echo kmsg || echo no-kmsg) \
    $([ -e "$r/console" ] && echo console || echo no-console)
}

echo link $(readlink /dev/log) $(readlink "/proc/$mpid/root/dev/log")
clients before
old=$(pidof rsyslogd)
# postfix logs each daemon's pid in its own PID namespace
pickup=$(awk '$1 == "NSpid:" { print $NF }' "/proc/$(pidof pickup)/status")
capctl restart rsyslog > /dev/null
i=0
while new=$(capctl status rsyslog > /dev/null && pidof rsyslogd); [ -z "$new" ] || [ "$new" = "$old" ]; do
  [ $i -lt 100 ] || break
  sleep 0.2
  i=$((i + 1))
done
echo restart $([ -n "$new" ] && [ "$new" != "$old" ] && echo another || echo same) "$old" "$new"
clients after
printf 'Message-ID: <%s@capinit-test>\nSubject: %s\n\nafter the restart of rsyslog\n' "$t" "$t" | /usr/sbin/sendmail -f root root
wait_for 1 "postfix/cleanup\[[0-9]*\]: [0-9A-F]*: message-id=<$t@capinit-test>\$" /var/log/mail.log
id=$(sed -n "s/.*postfix\/cleanup\[[0-9]*\]: \([0-9A-F]*\): message-id=<$t@capinit-test>\$/\1/p" /var/log/mail.log)
echo pickup $(grep -c "postfix/pickup\[$pickup\]: ${id:-none}: uid=0 from=<root>\$" /var/log/mail.log)
echo dev-rsyslog $(devview "${new:-$old}")
echo dev-capinit $(devview self)
