#!/bin/busybox sh
# /test/runner.sh -- the in-guest test runner of the main QEMU scenario,
# run by capinit (runner.svc: legacy root, after every other service).
# Writes TAP to /dev/ttyS1 (the host's results.txt), then DONE, then asks
# capinit to power the machine off.  The host checks the rest (the
# shutdown order on the console, QEMU's exit status).
. /test/tap.sh
diag() { sed 's/^/# /' >&3; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# "UID INH PRM EFF BND AMB NNP" as the kernel shows them for PID
creds() { # PID
  awk '/^Uid:/ { u = $2 } /^Cap(Inh|Prm|Eff|Bnd|Amb):/ { c = c " " $2 }
       /^NoNewPrivs:/ { nnp = $2 } END { print u c " " nnp }' "/proc/$1/status"
}
# the same from the probe's JSON
probe_creds() { # FILE
  awk -F'"' '/"uid":/ { split($3, a, /[ ,:]+/); u = a[2] }
    /"cap_(inh|prm|eff|bnd|amb)":/ { c = c " " $4 }
    /"no_new_privs":/ { nnp = ($3 ~ /true/) ? 1 : 0 } END { print u c " " nnp }' "$1"
}
json() { # FILE KEY: a number or a string of the probe's JSON
  sed -n "s/^  \"$2\": \(.*\)\$/\1/p" "$1" | sed -e 's/,$//' -e 's/^"//' -e 's/"$//'
}

echo "runner started at $(uptime_ms) ms guest uptime" | diag
# capinit answers (the runner starts once the others are up); every wait
# in here is bounded generously (a minute): TCG on a loaded host is slow
i=0
until capctl status runner >/dev/null 2>&1 || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done

# -- PID 1's own boot work
t_eq "$(awk '$2 ~ /^\/(proc|sys|dev|dev\/pts|dev\/shm|run)$/ { print $2 "=" $3 }' /proc/mounts | sort | tr '\n' ' ')" \
  "/dev/pts=devpts /dev/shm=tmpfs /dev=devtmpfs /proc=proc /run=tmpfs /sys=sysfs " "mounted /proc /sys /dev /dev/pts /dev/shm /run"
t_eq "$(readlink /proc/1/fd/0) $(readlink /proc/1/fd/1) $(readlink /proc/1/fd/2)" "/dev/console /dev/console /dev/console" \
  "PID 1's stdio is the console"
t_eq "$(hostname)" capinit-main "hostname from /etc/hostname"
t_eq "$(cat /proc/sys/kernel/ctrl-alt-del)" 0 "Ctrl-Alt-Del is a SIGINT to PID 1 (RB_DISABLE_CAD)"

# -- every service as its file says
for s in syslogd net www fcap stubborn victim victim0 runner; do
  t_eq "$(field $s state)" up "$s is up"
done
t_eq "$(field broken state)" failed "broken.svc (an unknown key) is refused"
t_eq "$(field broken failure)" "invalid service file (capctl check)" "broken: the reason is the file"
t_eq "$(field ghost state) $(field ghost failure)" \
  "failed its command's file capabilities do not match the filecaps manifest" \
  "ghost (command in the manifest, but not applied) is refused"

FULL=$(awk '/^CapBnd:/ { print $2 }' /proc/1/status)
Z=0000000000000000
t_eq "$FULL" 000001ffffffffff "PID 1 holds the whole bounding set (last cap 40)"
# expected sets, written from the service files by hand (UID INH PRM EFF BND AMB NNP):
#  syslogd  legacy root: full root
#  www      user www, noroot, capabilities = bounding = net_bind_service (bit 10), nnp
#  fcap     user nobody, legacy, no capabilities: the file's cap_net_raw+ep (bit 13) only
#  stubborn user nobody, noroot, no capabilities: nothing, bounding empty
#  runner   legacy root
#  net      (oneshot, gone: its probe's report) uid 0, noroot, net_admin (bit 12), nnp
expect_syslogd="0 $Z $FULL $FULL $FULL $Z 0"
B10=0000000000000400
expect_www="80 $B10 $B10 $B10 $B10 $B10 1"
B13=0000000000002000
expect_fcap="65534 $Z $B13 $B13 $FULL $Z 0"
expect_stubborn="65534 $Z $Z $Z $Z $Z 0"
expect_runner="0 $Z $FULL $FULL $FULL $Z 0"
B12=0000000000001000
expect_net="0 $B12 $B12 $B12 $B12 $B12 1"
for s in syslogd www fcap stubborn runner; do
  pid=$(field $s pid)
  eval "want=\$expect_$s"
  t_eq "$(creds "$pid")" "$want" "$s (pid $pid): /proc/PID/status uid and capability sets as its file says"
done
t_eq "$(probe_creds /run/net.probe)" "$expect_net" "net (oneshot): its probe saw the sets its file says"
t_eq "$(json /run/net.probe securebits)" 47 "net: securebits 0x2f (locked noroot tree)"
t_eq "$(cat /proc/$(field runner pid)/cmdline | tr '\0' ' ')" "/bin/busybox sh /test/runner.sh " "status pid is the command itself"

out=$(capctl verify 2>&1)
rc=$?
t_eq "$rc" 0 "capctl verify: every running service matches its prediction"
[ "$rc" = 0 ] || echo "$out" | diag

# -- network: the oneshot brought lo up with cap_net_admin; httpd bound port 80
ip link show lo | grep -q '[<,]UP[,>]'
t_ok $? "net: lo is up"
# (httpd is up at its exec; it may bind port 80 a little later)
i=0
until page=$(timeout 5 wget -q -O - http://127.0.0.1/ 2>&1) || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "$page" capinit-www-ok "www: busybox httpd answers on port 80"

# -- file capabilities from the manifest, on the tmpfs root
t_eq "$(awk '$2 == "/" { print $3 }' /proc/mounts | head -n 1)" rootfs "the root is the initramfs (rootfs)"
t_eq "$(/test/tool getcap /test/fcap-svc)" 0100000200200000000000000000000000000000 \
  "filecaps: /test/fcap-svc has security.capability rev 2, cap_net_raw+ep"
t_eq "$(/test/tool getcap /test/svc_helper)" none "filecaps: a file not in the manifest has no xattr"

# -- a setuid-root binary in a noroot tree gains nothing
out=$(capexec -k user=nobody -k mode=noroot -- /test/setuid-probe 2>&1)
t_ok $? "setuid-probe in a noroot tree runs (probe cross-check passes)"
printf '%s\n' "$out" > /run/suid.noroot
t_eq "$(json /run/suid.noroot uid) $(json /run/suid.noroot euid)" "65534 0" "setuid-probe: uid nobody, euid 0"
t_eq "$(probe_creds /run/suid.noroot)" "65534 $Z $Z $Z $Z $Z 0" "setuid-probe in a noroot tree: no capability at all"
# the control: the same file, same user, without noroot is full root
out=$(capexec -k user=nobody -- /test/setuid-probe 2>&1)
printf '%s\n' "$out" > /run/suid.legacy
t_eq "$(json /run/suid.legacy euid) $(json /run/suid.legacy cap_eff)" "0 $FULL" \
  "control: the same setuid-probe in legacy mode is full root"

# -- the module
[ -d /sys/module/dummy ]
t_ok $? "module dummy loaded at boot (/sys/module/dummy)"

echo "checks before the burst done at $(uptime_ms) ms" | diag
# -- 10 000 signals in a burst: nothing changes
snapshot() { # "NAME STATE PID RESTARTS" of every service, from one status request
  capctl status --json 2>/dev/null | awk -F'"' '
    $2 == "name" { name = $4 } $2 == "state" { state = $4 }
    $2 == "pid" || $2 == "restarts" { v = $3; gsub(/[^0-9]/, "", v); a[$2] = v }
    /^  }/ { print name, state, a["pid"], a["restarts"] }'
}
before=$(snapshot)
t_eq "$(echo "$before" | wc -l) $(echo "$before" | grep -c ' up [1-9][0-9]* 0$')" "31 7" \
  "before: 31 services, 7 running (pid > 0), none restarted"
t0=$(uptime_ms)
# every signal with no action (all but KILL STOP, the faults ILL TRAP ABRT
# BUS FPE SEGV SYS and the shutdown signals INT USR1 USR2 TERM PWR), and HUP
sigs= lo=0 hi=0
s=1
while [ $s -le 64 ]; do
  case " 2 4 5 6 7 8 9 10 11 12 15 19 30 31 " in
    *" $s "*) ;;
    *) sigs="$sigs $s"
       # blocked by capinit (/proc/1/status SigBlk): all of these but PIPE
       if [ $s != 13 ]; then if [ $s -le 32 ]; then lo=$((lo | (1 << (s - 1)))); else hi=$((hi | (1 << (s - 33)))); fi; fi ;;
  esac
  s=$((s + 1))
done
for s in 2 10 12 15 30; do lo=$((lo | (1 << (s - 1)))); done
t_eq "$(sed -n 's/^Sig\(Blk\|Ign\|Cgt\):[[:space:]]*//p' /proc/1/status | tr '\n' ' ')" \
  "$(printf '%08x%08x' $hi $lo) 0000000000001000 0000000000000000 " \
  "PID 1 blocks every signal but KILL STOP PIPE and the faults (its signalfd reads them), ignores only PIPE"
t_eq "$(/test/tool sigburst 1 10000 $sigs)" 10000 "sent 10000 signals to PID 1 ($(echo $sigs | wc -w) kinds: every one without an action, HUP)"
capctl status runner >/dev/null 2>&1
t_ok $? "capinit answers after the burst"
echo "signal burst: $(( $(uptime_ms) - t0 )) ms guest time" | diag
after=$(snapshot)
t_eq "$after" "$before" "after the burst: every service in the same state, same pid, no restart"
t_eq "$(readlink /proc/1/exe)" /sbin/init "PID 1 is still capinit"

# -- 10 000 orphans, all reaped
t0=$(uptime_ms)
t_eq "$(/test/tool orphans 10000)" 10000 "made 10000 orphans"
echo "10000 orphans: $(( $(uptime_ms) - t0 )) ms guest time" | diag
i=0
z=$(/test/tool zombies)
while [ "${z%% *}" != 0 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); z=$(/test/tool zombies); done
t_eq "$z" 0 "no zombie left in /proc/*/stat"
t_eq "$(snapshot)" "$before" "after the orphans: every service in the same state, same pid"

# -- issue 33: no service borrows capinit's power
. /test/attacks.sh

echo "runner done at $(uptime_ms) ms" | diag
echo "1..$n" >&3
echo DONE >&3
exec 3>&-
echo "done, powering off"
capctl poweroff
exec sleep 60
