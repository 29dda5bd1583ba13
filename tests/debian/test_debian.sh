#!/bin/sh
# tests/debian/test_debian.sh BUILDDIR -- the Debian image (make debian)
# booted by capinit in QEMU, checked from the host through the forwarded
# ports (issue 16):
#
#   boot       a copy of build/debian/disk.ext4, init=/usr/sbin/capinit, QEMU's
#              user network with restrict=on; capinit says every service
#              is ready; capctl status exits 0
#   ssh        a login with the tests' key runs a command
#   smtp       a mail from the host to port 25 (postfix's own card,
#              10.0.2.25, through QEMU's forward) for root@localhost lands in
#              /var/mail/root (local delivery as root), and one for a
#              user added for the test lands in /var/mail/USER, owned by
#              that user: local switched to the recipient
#   http       nginx answers 200 with Debian's page; apache2 answers 200
#              with Debian's page on its own card (10.0.2.80)
#   cards      postfix's master and apache2's see the links lo and eth0
#              alone (/proc/PID/net/dev), eth0 with their file's address;
#              the guest's own network has neither address (the control:
#              10.0.2.15 is there, and each address is in its service's
#              namespace)
#   pidns      postfix's pid file says 2, the master's pid in its own PID
#              namespace; ps inside postfix's namespaces lists exactly the
#              processes the kernel puts in that namespace, capinit's
#              reaper, the master and its daemons, and the same ps in the
#              machine's lists sshd (the control); ip link inside
#              postfix's and apache2's network lists lo and the macvlan
#              eth0 alone; a uid 0 without root's power in postfix's
#              namespaces gets ESRCH from kill -0 on sshd's pid, where the
#              same uid 0 in capinit's PID namespace reaches it
#              (tests/debian/pidns.sh)
#   chrony     chronyd runs as _chrony with cap_sys_time alone, as its
#              file declares, and serves its local clock (chronyc)
#   verify     capctl verify passes, the cards' links, address and route
#              included: sshd, postfix and apache2 "dropped" (sshd's
#              cleared groups, postfix's children as postfix, apache2's
#              as www-data), the others "ok"
#   processes  every process of every daemon, read from /proc in the guest
#              and told apart by its program: none holds a capability
#              outside its service file's declaration (CapPrm, CapEff
#              within `capabilities`, CapBnd within the bounding set),
#              each with its service's user; none but sshd's and the
#              getty's holds full root; the processes capinit counts as
#              each service's (verify -p) are those; each listed (uid,
#              CapEff, CapBnd)
#   chroot     postfix's chroot copies are current at boot, and the
#              postfix-chroot oneshot ran no configure-instance.sh; after a
#              change of /etc/hosts (the copy then differs: the control)
#              it runs it, and the copy is current
#   syslog     /dev/log links to rsyslog's socket (/var/lib/rsyslog/log),
#              in capinit's /dev and in postfix's own; logger reaches
#              /var/log/syslog from postfix's tree, from a read-only
#              capexec and on postfix's chroot socket, before and after
#              capctl restart rsyslog, and postfix's pickup, chrooted
#              since the boot, logs after it; rsyslog's /dev is a tmpfs
#              without block devices, kmsg or console, capinit's has them
#              (tests/debian/syslog.sh)
#   read-only  from each contained daemon's mount namespace (postfix,
#              apache2, rsyslog, chrony), its file's read-write paths are
#              writable, every other path tried is not (EROFS), and the
#              same paths are writable in the machine's tree
#              (tests/debian/rofs.sh)
#   restart    capctl restart postfix: a new card (another MAC), which the
#              host's forward reaches at once (it announces its address)
#   power off  Debian's own poweroff (systemctl, which without systemd
#              writes runlevel 0 to /run/initctl): QEMU exits 0, and
#              e2fsck -fn on the host finds the disk clean
#
# Runs as root (the copy of the disk is root's).  About 3 minutes under
# TCG; every wait is bounded (BOOT_TIMEOUT, 600 s, for the boot).
B=${1:-build}
. tests/lib.sh
. tests/debian/guest.sh
guest_setup debian
guest_boot

# ------------------------------------------------ ssh
token=capinit-$$-$(ms)
t_eq "$(gssh echo "$token" '$(id -un)' 2>&1)" "$token root" "ssh: a login with the tests' key runs a command, as root"
gssh capctl status > "$out/status.txt" 2>&1
t_eq "$?" 0 "capctl status: every service up (exit 0)"
sed 's/^/#   /' "$out/status.txt"

# ------------------------------------------------ smtp
gssh useradd -m capinit-mail
subject="capinit test $token"
$PROBE mail "$SMTP_PORT" tester@qemu-host.localdomain root@localhost "$subject" > "$out/mail-root.txt" 2>&1
t_eq "$(cut -c1-3 "$out/mail-root.txt")" 250 "smtp: the mail for root@localhost is accepted ($(cat "$out/mail-root.txt"))"
$PROBE mail "$SMTP_PORT" tester@qemu-host.localdomain capinit-mail@localhost "$subject" > "$out/mail-user.txt" 2>&1
t_eq "$(cut -c1-3 "$out/mail-user.txt")" 250 "smtp: the mail for capinit-mail@localhost is accepted"
delivered root "$subject"
t_ok $? "... it arrives in /var/mail/root"
delivered capinit-mail "$subject"
t_ok $? "... the other in /var/mail/capinit-mail"
t_eq "$(gssh stat -c '%U:%G_%a' /var/mail/root /var/mail/capinit-mail | tr '\n' ' ')" \
  "root:mail_600 capinit-mail:mail_600 " \
  "the mailboxes are their recipients' (local delivered as root to root, as capinit-mail to capinit-mail)"
t_eq "$(gssh grep -c "'postfix/local.*status=sent (delivered to mailbox)'" /var/log/mail.log)" 2 \
  "postfix's log: local delivered both to the mailbox"

# ------------------------------------------------ http
# Debian's nginx and apache2 share /var/www/html, where apache2's
# index.html (its page) comes first: nginx's own page by its name, and
# the Server header says who answers
$PROBE http "$HTTP_PORT" /index.nginx-debian.html > "$out/http.txt" 2>&1
t_eq "$(head -n 1 "$out/http.txt") $(grep -c '<title>Welcome to nginx!</title>' "$out/http.txt") $($PROBE server "$HTTP_PORT")" "200 1 200 nginx" \
  "http: nginx answers 200 with Debian's page (index.nginx-debian.html; Server: nginx)"
$PROBE http "$APACHE_PORT" > "$out/apache.txt" 2>&1
t_eq "$(head -n 1 "$out/apache.txt") $(grep -c '<title>Apache2 Debian Default Page: It works</title>' "$out/apache.txt") $($PROBE server "$APACHE_PORT")" "200 1 200 Apache" \
  "http: apache2 answers 200 with Debian's page, on its own card (QEMU forwards the port to 10.0.2.80:80)"

# ------------------------------------------------ the cards
# postfix's master and apache2's: capctl status names the process capinit
# started, by its pid in capinit's namespace (each has a PID namespace of
# its own, where it is 2; postfix's pid file says 2)
gssh capctl status > "$out/status2.txt"
ppid_postfix=$(awk '$1 == "postfix" { print $3 }' "$out/status2.txt")
ppid_apache=$(awk '$1 == "apache2" { print $3 }' "$out/status2.txt")
t_eq "$(gssh cat /var/spool/postfix/pid/master.pid | tr -d ' ') $(gssh "awk '\$1 == \"NSpid:\" { print \$2, \$3 }' /proc/$ppid_postfix/status")" \
  "2 $ppid_postfix 2" "postfix's pid file says 2, the master's pid in its own PID namespace ($ppid_postfix in capinit's)"
for sp in postfix:$ppid_postfix:10.0.2.25 apache2:$ppid_apache:10.0.2.80; do
  s=${sp%%:*} p=${sp#*:}; a=${p#*:}; p=${p%%:*}
  t_eq "$(gssh readlink /proc/$p/exe)" "$([ $s = postfix ] && echo /usr/lib/postfix/sbin/master || echo /usr/sbin/apache2)" \
    "$s: its master is pid $p"
  t_eq "$(gssh "awk -F: 'NR > 2 { gsub(/ /, \"\", \$1); print \$1 }' /proc/$p/net/dev" | sort | tr '\n' ' ')" "eth0 lo " \
    "$s: its network has the links lo and eth0 alone (/proc/$p/net/dev)"
  t_eq "$(gssh nsenter -t "$p" -n ip -4 -o addr show dev eth0 | awk '{ print $4 }')" "$a/24" \
    "... its eth0 has its file's address, $a/24 (the control for the next)"
  t_eq "$(gssh ip -4 -o addr | grep -c "inet $a/")" 0 "... which the guest's own network does not have"
done
t_eq "$(gssh ip -4 -o addr show dev eth0 | awk '{ print $4 }')" 10.0.2.15/24 \
  "the guest's own eth0 has its own address, 10.0.2.15/24 (the control: the same command sees addresses)"

# ------------------------------------------------ postfix's container
# ps inside postfix's namespaces sees postfix alone; ip link inside each
# card's namespace sees lo and the card alone; a uid 0 without root's
# power in there cannot reach sshd, which it can from capinit's PID
# namespace (tests/debian/pidns.sh, in the guest)
gssh sh -s "$ppid_postfix" "$ppid_apache" < tests/debian/pidns.sh > "$out/pidns.txt" 2>&1
found() { sed -n "s/^$1 //p" "$out/pidns.txt"; }
set -- $(found ps-postfix)
t_eq "${1:-none}" same "postfix's container: ps lists exactly the processes the kernel puts in its PID namespace (/proc/PID/ns/pid): $(found kernel-postfix)"
shift
t_eq "$(echo "$@" | tr ' ' '\n' | sed -n '1,2p' | tr '\n' ' ')" "1:capinit 2:master " \
  "... capinit's reaper as 1, the master as 2"
t_eq "$(echo "$@" | tr ' ' '\n' | grep -vc -e '^1:capinit$' -e '^2:master$' -e ':\(pickup\|qmgr\|smtpd\|proxymap\|anvil\|cleanup\|trivial-rewrite\|local\|bounce\|tlsmgr\|scache\|showq\|postdrop\|flush\)$')" 0 \
  "... and else only postfix's daemons ($*)"
set -- $(found ps-machine)
t_eq "${1:-none} ${2:-none}" "sshd master" "... the same ps in the machine's namespaces lists sshd and postfix's master (the control: $3 processes)"
t_eq "$(found links-postfix)" "lo:- eth0:macvlan" "postfix's container: ip link lists lo and its card eth0 (a macvlan) alone"
t_eq "$(found links-apache2)" "lo:- eth0:macvlan" "apache2's container: ip link lists lo and its card eth0 (a macvlan) alone"
t_eq "$(found links-machine)" "lo:- eth0:-" "... the machine's own: lo and its virtio eth0 (the control: the same command tells the kinds)"
set -- $(found sshd-in-postfix)
t_eq "${1:-none}" no "sshd's pid ($2) names no process in postfix's PID namespace"
t_eq "$(found kill-inside)" "1 No such process" \
  "a uid 0 without root's power in postfix's namespaces: kill -0 on sshd's pid fails, ESRCH"
t_eq "$(found kill-outside)" "0 0000000000000000" \
  "... the same uid 0 in capinit's PID namespace (no capability: CapEff 0) reaches sshd (the control: what private-pids takes away)"
sed 's/^/#   /' "$out/pidns.txt"

# ------------------------------------------------ declarations (the service files)
capmask() { # NAMES...: the mask of these capabilities, from the kernel's header
  python3 - "$@" <<'EOF'
import re, sys
nums = {m.group(1).lower(): int(m.group(2)) for m in
        re.finditer(r'#define\s+CAP_([A-Z_]+)\s+(\d+)\b', open('/usr/include/linux/capability.h').read())}
mask = 0
for n in sys.argv[1:]:
    n = n.lower().strip(',')
    if n:
        mask |= 1 << nums[n[4:] if n.startswith('cap_') else n]
print('%016x' % mask)
EOF
}
svcdir=rootfs/debian/overlay/etc/capinit/services
key() { sed -n "s/^$2 = //p" "$svcdir/$1.svc"; }
full=$(gssh sed -n 's/^CapBnd:[[:space:]]*//p' /proc/1/status)
for s in postfix nginx chrony rsyslog apache2; do
  eval "caps_$s=$(capmask $(key $s capabilities | tr ',' ' '))"
done
t_eq "$caps_chrony" 0000000002000000 "chrony.svc declares cap_sys_time alone"
t_eq "$caps_apache2" 00000000000004c0 "apache2.svc declares cap_setgid, cap_setuid and cap_net_bind_service alone"
t_eq "$caps_nginx $(key nginx listen)" "0000000000000000 0.0.0.0:80 [::]:80" \
  "nginx.svc declares no capability: capinit binds its port 80 (listen), IPv4 and IPv6"

# ------------------------------------------------ chrony
gssh chronyc -n tracking > "$out/chronyc.txt" 2>&1
t_eq "$?:$(sed -n 's/^Stratum *: *//p' "$out/chronyc.txt")" "0:10" "chronyc: chronyd answers on its socket, with its local clock (stratum 10)"
gssh 'for p in $(pidof chronyd); do sed -n "s/^\(Uid\|CapPrm\|CapEff\|CapBnd\|NoNewPrivs\):[[:space:]]*//p" /proc/$p/status | tr "\t\n" "  "; echo; done' > "$out/chronyd.txt"
t_ok $([ -s "$out/chronyd.txt" ] && echo 0 || echo 1) "chronyd runs ($(wc -l < "$out/chronyd.txt") processes)"
t_eq "$(sort -u "$out/chronyd.txt")" "100 100 100 100 $caps_chrony $caps_chrony $caps_chrony 1 " \
  "each chronyd process: uid _chrony (100), cap_sys_time in CapPrm, CapEff and CapBnd, no_new_privs"

# ------------------------------------------------ verify
gssh capctl verify > "$out/verify.txt" 2>&1
rc=$?
t_eq "$rc:$(sed -n 's/^name=\([^\t]*\)\tresult=\([a-z]*\).*/\1=\2/p' "$out/verify.txt" | tr '\n' ' ')" \
  "0:apache2=dropped chrony=ok getty=ok network=skipped nginx=ok postfix=dropped postfix-chroot=skipped rsyslog=ok rundirs=skipped sshd=dropped " \
  "capctl verify passes (the cards of postfix and apache2 as their files say): sshd, postfix and apache2 hold less than predicted (dropped), the others exactly it"
sed 's/^/#   /' "$out/verify.txt"

# ------------------------------------------------ blame
gssh capctl blame --json > "$out/blame.json"
t_eq "$?:$(python3 -c 'import json, sys; print(" ".join(p["name"] for p in json.load(open(sys.argv[1]))["phases"]))' "$out/blame.json")" \
  "0:mounts console modules fstab filecaps services" "capctl blame --json: PID 1's boot phases, in order"
t_eq "$(python3 - "$out/blame.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
last, bad = 0, []
for p in d["phases"]:
    if not (last <= p["start_ms"] <= p["end_ms"]):
        bad.append(p["name"])
    last = p["end_ms"]
for s in d["services"]:
    if s["spawned_ms"] is None or s["ready_ms"] is None or s["ready_ms"] < s["spawned_ms"] or s["ready_ms"] > d["ready_ms"]:
        bad.append(s["name"])
print(" ".join(bad) or "none")
EOF
)" none "... one after the other; every service spawned, then ready, no later than the boot's ready_ms"
gssh capctl blame | sed 's/^/#   /'

# ------------------------------------------------ every process
gssh capctl verify -p > "$out/verify-a.txt" 2>&1
gssh sh -s < tests/debian/procs.sh > "$out/procs.txt"
gssh capctl verify -p > "$out/verify-c.txt" 2>&1
service_of() { # EXE: the service whose program it is
  case $1 in
    /usr/lib/postfix/sbin/*) echo postfix ;;
    /usr/sbin/nginx) echo nginx ;;
    /usr/sbin/apache2) echo apache2 ;;
    /usr/sbin/chronyd) echo chrony ;;
    /usr/sbin/rsyslogd) echo rsyslog ;;
    /usr/sbin/sshd) echo sshd ;;
    /usr/sbin/agetty) echo getty ;;
    /usr/sbin/capinit) echo capinit ;;
    *) echo other ;;
  esac
}
# the user of each service's processes: fixed by Debian's packages
uid_ok() { # SERVICE EXE UIDS PID
  case $1:$3 in
    nginx:33,33,33,33 | chrony:100,100,100,100 | rsyslog:0,0,0,0 | apache2:33,33,33,33) return 0 ;;
    apache2:0,0,0,0) [ "$4" = "$ppid_apache" ] ;;  # its master alone
    postfix:0,0,0,0) [ "$2" = /usr/lib/postfix/sbin/master ] ;;
    postfix:102,102,102,102) [ "$2" != /usr/lib/postfix/sbin/master ] ;;
    postfix:0,*,0,*) [ "$2" = /usr/lib/postfix/sbin/local ] ;;  # between two deliveries
    *) return 1 ;;
  esac
}
bad=0
seen=
while read -r pid ppid uid prm eff bnd exe; do
  s=$(service_of "$exe")
  case $s in other|capinit) continue ;; esac
  seen="$seen $s"
  echo "#   $s pid $pid ($exe): uid $uid CapEff $eff CapBnd $bnd"
  case $s in
    sshd|getty) continue ;;  # legacy root, declared
  esac
  eval "want=\$caps_$s"
  w=$((0x$want))
  if [ $((0x$prm & ~w)) != 0 ] || [ $((0x$eff & ~w)) != 0 ] || [ $((0x$bnd & ~w)) != 0 ]; then
    echo "#     ^ holds more than $s.svc declares ($want)"
    bad=$((bad + 1))
  fi
  if [ "$eff" = "$full" ]; then
    echo "#     ^ holds full root"
    bad=$((bad + 1))
  fi
  if ! uid_ok "$s" "$exe" "$uid" "$pid"; then
    echo "#     ^ not the user $s runs as"
    bad=$((bad + 1))
  fi
done < "$out/procs.txt"
t_eq "$bad" 0 "no process of postfix, nginx, apache2, chrony or rsyslog holds a capability outside its declaration, full root, or another user"
t_eq "$(echo $seen | tr ' ' '\n' | sort -u | tr '\n' ' ')" "apache2 chrony getty nginx postfix rsyslog sshd " "... processes of each daemon were seen"
t_ok $([ "$(awk '$7 ~ /^\/usr\/lib\/postfix\/sbin\// { n++ } END { print n + 0 }' "$out/procs.txt")" -ge 3 ] && echo 0 || echo 1) \
  "postfix: its master and at least two daemons (qmgr, pickup...) were looked at"
t_eq "$(awk '$7 == "/usr/sbin/nginx" { n++ } END { print n + 0 }' "$out/procs.txt")" 3 "nginx: its master and its two workers were looked at"
t_ok $([ "$(awk '$7 == "/usr/sbin/apache2" { n++ } END { print n + 0 }' "$out/procs.txt")" -ge 3 ] && echo 0 || echo 1) \
  "apache2: its master and at least two children were looked at"
# what capinit counts as each service's: the same processes
mismatch=0
for s in postfix nginx apache2 chrony rsyslog sshd getty; do
  for snap in a c; do
    sed -n "s/^process=\([0-9]*\)\tname=$s\t.*/\1/p" "$out/verify-$snap.txt"
  done | sort -u > "$out/pids.$s"
done
while read -r pid ppid uid prm eff bnd exe; do
  s=$(service_of "$exe")
  case $s in other|capinit) continue ;; esac
  # in either of capinit's snapshots: it must be under this service
  if cat "$out"/pids.* | grep -qx "$pid" && ! grep -qx "$pid" "$out/pids.$s"; then
    echo "#   pid $pid ($exe) is counted under another service by capinit"
    mismatch=$((mismatch + 1))
  fi
done < "$out/procs.txt"
for s in postfix nginx apache2 chrony rsyslog getty; do
  while read -r pid; do
    exe=$(awk -v p="$pid" '$1 == p { print $7 }' "$out/procs.txt")
    [ -z "$exe" ] && continue  # gone since
    # a private-pids service's reaper runs capinit's code (rsyslog,
    # apache2, postfix: a contained uid 0 gets a PID namespace of its own)
    [ "$(service_of "$exe")" = capinit ] && { [ $s = rsyslog ] || [ $s = apache2 ] || [ $s = postfix ]; } && continue
    if [ "$(service_of "$exe")" != $s ]; then
      echo "#   pid $pid ($exe) is counted under $s by capinit"
      mismatch=$((mismatch + 1))
    fi
  done < "$out/pids.$s"
done
t_eq "$mismatch" 0 "the processes capctl verify -p counts as each daemon's are the ones that run its program"

# ------------------------------------------------ read-only trees
# Each contained daemon's tree, from its own mount namespace: a write in
# each path its file declares read-write succeeds, in every other tried
# (/, /etc, /usr/lib, /root, /home, /var/www/html, /var/lib/dpkg,
# /var/lib/capinit and the other daemons' read-write paths) the mount
# refuses it (EROFS), though the writer is this login's root; the same
# paths in the machine's tree are writable, the control
# (tests/debian/rofs.sh, in the guest)
# (19 paths: the 8 fixed and the 11 of the four files; each daemon tries
# those not its own nor below its own: 15 + 18 + 13 + 16)
ROFS_PATHS=19 ROFS_OTHERS=62
gssh sh -s postfix apache2 rsyslog chrony < tests/debian/rofs.sh > "$out/rofs.txt" 2>&1
sed 's/^/#   /' "$out/rofs.txt"
rofs() { awk -v k="$1" -v w="$2" '$2 == k && $4 != w { print $1 ":" $3 ":" $4 }' "$out/rofs.txt" | tr '\n' ' '; }
t_eq "$(awk '$2 == "declared" { print $1 ":" $3 }' "$out/rofs.txt" | tr '\n' ' ')" \
  "postfix:/var/spool/postfix postfix:/var/lib/postfix postfix:/var/mail apache2:/var/log/apache2 rsyslog:/var/log rsyslog:/var/spool/rsyslog rsyslog:/var/lib/rsyslog rsyslog:/var/spool/postfix/dev chrony:/run chrony:/var/lib/chrony chrony:/var/log/chrony " \
  "read-only trees: each daemon's declared read-write paths, tried in its own mount namespace"
t_eq "$(rofs declared rw)" "" "... are writable there"
t_eq "$(awk '$2 == "other"' "$out/rofs.txt" | wc -l) $(rofs other ro)" "$ROFS_OTHERS " \
  "... and every other path tried is read-only there (EROFS)"
t_eq "$(awk '$2 == "control"' "$out/rofs.txt" | wc -l) $(rofs control rw)" "$ROFS_PATHS " \
  "... where the machine's tree has the same paths writable (the control)"

# ------------------------------------------------ postfix's chroot
# its copies are made when the image is built; at boot the postfix-chroot
# oneshot finds them current and runs no configure-instance.sh; a stale
# copy is refreshed when it runs again (after blame and verify, which
# look at the boot)
chroot_state() { # "same" when the copy of /etc/hosts is current, and how often the oneshot ran configure-instance.sh
  echo $(gssh 'cmp /etc/hosts /var/spool/postfix/etc/hosts && echo same; { capctl log postfix-chroot 2>/dev/null || :; } | grep -c "changed: configure-instance"')
}
t_eq "$(chroot_state)" "same 0" "postfix's chroot: its copy of /etc/hosts is current at boot, and configure-instance.sh did not run"
t_eq "$(gssh "echo '10.0.2.99 capinit-test-$token' >> /etc/hosts; cmp -s /etc/hosts /var/spool/postfix/etc/hosts; echo \$?")" 1 \
  "... /etc/hosts changed: the copy is stale (the control)"
gssh capctl restart postfix-chroot
n=0
until gssh cmp -s /etc/hosts /var/spool/postfix/etc/hosts || [ $n -ge 60 ]; do sleep 1; n=$((n + 1)); done
t_eq "$(chroot_state)" "same 1" "... the oneshot again: it saw the change, ran configure-instance.sh, and the copy is current"

# ------------------------------------------------ syslog
# rsyslog makes its socket in /var/lib/rsyslog, out of its own /dev;
# rundirs links capinit's /dev/log to it, and a /dev of its own copies the
# link: rsyslog's clients reach its next socket after a restart
# (tests/debian/syslog.sh, in the guest).  Last before the power off:
# blame and verify above look at the boot, not at a restart.
gssh sh -s "$token" < tests/debian/syslog.sh > "$out/syslog.txt" 2>&1
found() { sed -n "s/^$1 //p" "$out/syslog.txt"; }
t_eq "$(found link)" "/var/lib/rsyslog/log /var/lib/rsyslog/log" \
  "syslog: /dev/log is a link to rsyslog's socket, in capinit's /dev (rundirs made it) and in postfix's own (copied)"
t_eq "$(found before)" "capexec chroot postfix" \
  "... logger reaches /var/log/syslog from postfix's tree, from a read-only capexec, on postfix's chroot socket"
set -- $(found restart)
t_eq "${1:-none}" another "capctl restart rsyslog: up again, another process (pid ${2:-none}, then ${3:-none})"
t_eq "$(found after)" "capexec chroot postfix" "... then logger reaches the new rsyslog the same three ways"
t_eq "$(found pickup)" 1 "... and so does postfix's pickup, chrooted since the boot: it logs a mail sent after the restart"
t_eq "$(found dev-rsyslog)" "tmpfs 0 no-kmsg no-console" "rsyslog's /dev: a tmpfs of its own, no block device, no /dev/kmsg, no console"
t_eq "$(found dev-capinit)" "devtmpfs 1 kmsg console" "... capinit's: devtmpfs, with /dev/vda, /dev/kmsg and the console (the control)"
sed 's/^/#   /' "$out/syslog.txt"

# ------------------------------------------------ a card's next run
# capctl restart postfix: its next run's card is a new link with a MAC of
# its own, which announces its address as it comes up (arp_notify), so
# QEMU's network, which knew 10.0.2.25 at the first card's MAC, forwards
# the host's port to the new card at once (without the announcement the
# port got no answer until the card itself sent something out)
mac_of() { gssh 'p=$(capctl status | awk '"'"'$1 == "postfix" { print $3 }'"'"'); nsenter -t "$p" -n ip -o link show eth0' 2>/dev/null | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }
mac1=$(mac_of)
pid1=$(gssh capctl status | awk '$1 == "postfix" { print $3 }')
gssh capctl restart postfix
n=0
until pid2=$(gssh capctl status | awk '$1 == "postfix" && $2 == "up" { print $3 }') && [ -n "$pid2" ] && [ "$pid2" != "$pid1" ] || [ $n -ge 120 ]; do
  sleep 0.5
  n=$((n + 1))
done
mac2=$(mac_of)
t_eq "$([ -n "$mac1" ] && [ -n "$mac2" ] && [ "$mac1" != "$mac2" ] && echo new)" new \
  "capctl restart postfix: its next run has a new card (MAC $mac1, then $mac2)"
$PROBE answers "$SSH_PORT" "$SMTP_PORT" "$HTTP_PORT" --timeout 60 > "$out/answers2.txt"
t_eq "$?:$(grep -c '^smtp' "$out/answers2.txt")" "0:1" "... and the host's port reaches it: smtp's greeting through QEMU's forward"
$PROBE mail "$SMTP_PORT" tester@qemu-host.localdomain root@localhost "$subject again" > "$out/mail-again.txt" 2>&1
t_eq "$(cut -c1-3 "$out/mail-again.txt")" 250 "... and a mail is accepted there ($(cat "$out/mail-again.txt"))"

# ------------------------------------------------ power off
t1=$(ms)
gssh poweroff
n=0
while kill -0 "$qpid" 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
wait "$qpid"
rc=$?
qpid=
t_eq "$rc" 0 "Debian's poweroff (systemctl): QEMU exits 0 ($(( $(ms) - t1 )) ms)"
t_eq "$(console | grep -c '^capinit: /run/initctl: runlevel 0 (power off): stopping every service$')" 1 \
  "... through /run/initctl's runlevel 0 (sysvinit's FIFO, as systemctl writes it without systemd)"
t_eq "$(console | grep -c 'capinit: power off$')" 1 "... after capinit's 'power off'"
console | grep '^capinit: ' | tail -n 6 | sed 's/^/#   /'
e2fsck -fn "$out/disk.ext4" > "$out/e2fsck.txt" 2>&1
t_eq "$?" 0 "e2fsck -fn on the host: the disk is clean"
sed 's/^/#   /' "$out/e2fsck.txt"
echo "# summary: Debian 12 under capinit: ${ready#* } ms to every service ready on capinit's clock; from QEMU's start: $(tr '\n' ' ' < "$out/answers.txt")ms"
t_done
