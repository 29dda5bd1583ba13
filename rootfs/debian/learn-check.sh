#!/bin/bash
# rootfs/debian/learn-check.sh DAEMON -- run in the Debian image, as
# capctl learn's --check for one daemon (rootfs/debian/learn.sh): the
# image's end-to-end check of that daemon, made from inside the guest.
# Exit 0 when the daemon did its work.  bash, for /dev/tcp: the image has
# no other network client but ssh's.
#
#   postfix  an SMTP session with smtpd (in the master's network: its
#            card), a mail for root@localhost, found in /var/mail/root
#   apache2  GET / on port 80 in the master's network (its card): 200, and
#            Debian's page, twice 3 s apart with the same master, and
#            children as www-data
#   nginx    GET /index.nginx-debian.html on 127.0.0.1:80: 200, nginx's
#            page, and workers as www-data
#   chrony   chronyc -n tracking answers on its socket: stratum 10
#   rsyslog  a logger line reaches /var/log/syslog, and a message of the
#            kernel's own reaches /var/log/kern.log (imklog, the kernel's
#            log: drop_caches logs "COMM (PID): drop_caches: 1" at each
#            write of 1; a line written to /dev/kmsg would not do, the
#            kernel gives it the facility user, which imklog leaves out)
#   sshd     a login with a key of the guest's own runs id -u: 0
set -u
tok=learn-$$-$(date +%s%N)

# a command in the network namespace of the newest process of PROGRAM
in_net_of() { # PROGRAM CMD...
  local pid
  pid=$(pgrep -n -x "$1") || return 1
  shift
  nsenter -t "$pid" -n "$@"
}

http() { # HOST PATH TITLE: 200 and TITLE in the page
  exec 3<>"/dev/tcp/$1/80" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$2" >&3
  timeout 20 cat <&3 > /tmp/$tok.http
  exec 3<&-
  head -n 1 /tmp/$tok.http | grep -q '^HTTP/1\.[01] 200 ' && grep -q "<title>$3</title>" /tmp/$tok.http
  local rc=$?
  rm -f /tmp/$tok.http
  return $rc
}

smtp() { # the session, with 127.0.0.1:25
  exec 3<>/dev/tcp/127.0.0.1/25 || return 1
  say() { printf '%s\r\n' "$1" >&3; }
  want() { # CODE: the reply's last line
    local l
    while IFS= read -r -t 30 l <&3; do
      l=${l%$'\r'}
      case $l in "$1 "*) return 0 ;; "$1-"*) ;; *) echo "smtp: $l" >&2; return 1 ;; esac
    done
    return 1
  }
  want 220 && say "EHLO learn.localdomain" && want 250 &&
    say "MAIL FROM:<learn@localhost>" && want 250 &&
    say "RCPT TO:<root@localhost>" && want 250 && say DATA && want 354 &&
    say "Subject: $tok" && say "" && say "capctl learn's check" && say "." && want 250 && say QUIT
}

case ${1:-} in
  postfix)
    in_net_of master bash -c "$(declare -f smtp); tok=$tok; smtp" || exit 1
    for _ in $(seq 60); do
      grep -q "^Subject: $tok\$" /var/mail/root 2>/dev/null && exit 0
      sleep 1
    done
    exit 1 ;;
  apache2)
    # the same master before and after two requests 3 s apart, and its
    # children as www-data: a 200 alone was not enough (without
    # cap_setuid and cap_setgid, the children die and the master with
    # them, yet one request was answered: the first learn proposed
    # net_bind_service alone, and under capinit apache2 restarted 31
    # times in 40 s)
    m=$(pgrep -o -x apache2) || exit 1
    in_net_of apache2 bash -c "$(declare -f http); tok=$tok; http 127.0.0.1 / 'Apache2 Debian Default Page: It works'" || exit 1
    sleep 3
    in_net_of apache2 bash -c "$(declare -f http); tok=$tok; http 127.0.0.1 / 'Apache2 Debian Default Page: It works'" || exit 1
    [ "$(pgrep -o -x apache2)" = "$m" ] && pgrep -u www-data -x apache2 > /dev/null ;;
  nginx)
    # and its workers as www-data
    http 127.0.0.1 /index.nginx-debian.html 'Welcome to nginx!' && pgrep -u www-data -x nginx > /dev/null ;;
  chrony)
    [ "$(timeout 20 chronyc -n tracking | sed -n 's/^Stratum *: *//p')" = 10 ] ;;
  rsyslog)
    logger -t capctl-learn "$tok user"
    kpid=$(bash -c 'echo $$; echo 1 > /proc/sys/vm/drop_caches')
    for _ in $(seq 30); do
      grep -q "$tok user" /var/log/syslog 2>/dev/null &&
        grep -q " ($kpid): drop_caches: 1\$" /var/log/kern.log 2>/dev/null && exit 0
      sleep 1
    done
    exit 1 ;;
  sshd)
    [ -f /root/.ssh/learn ] || { ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/learn && cat /root/.ssh/learn.pub >> /root/.ssh/authorized_keys; }
    [ "$(timeout 30 ssh -i /root/.ssh/learn -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
      -o LogLevel=ERROR root@127.0.0.1 id -u)" = 0 ] ;;
  *) echo "usage: learn-check.sh postfix|apache2|nginx|chrony|rsyslog|sshd" >&2; exit 100 ;;
esac
