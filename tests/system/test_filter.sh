#!/bin/sh
# The system-call filter (stage filter; capinit.svc(5), System calls), as
# a contained service's code would meet it: build/tests/syscall_try makes
# each call in a child of its own and prints the kernel's answer (ok,
# EPERM, ENOSYS, killed SIGSYS).  Each attack fails from a contained
# service, under capexec and under capinit; the same call from a legacy
# service without the keys succeeds (the control).  The kernel's own
# view: Seccomp and Seccomp_filters in /proc/PID/status.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
CAPEXEC=$(pwd)/$B/bin/capexec
TRY=$(pwd)/$B/tests/syscall_try
sv_init

ATTACKS="unshare-user clone-user clone3 setns-any keyctl add-key file-handle io-uring userfaultfd ptrace"
CALLS="$ATTACKS getpid"
line() { tr '\n' ' ' | sed 's/ $//'; }
expect() { # ANSWER-OF-EACH-ATTACK: the line syscall_try prints for $CALLS
  for c in $ATTACKS; do
    case $1 in
      denied) case $c in clone3) printf '%s ENOSYS ' $c ;; *) printf '%s EPERM ' $c ;; esac ;;
      open) printf '%s ok ' $c ;;
    esac
  done
  printf 'getpid ok'
}
run_capexec() { # KEY=VALUE...: syscall_try $CALLS under capexec with those keys
  set -- "$@"
  args=
  for kv in "$@"; do args="$args -k $kv"; done
  # shellcheck disable=SC2086
  "$CAPEXEC" $args -- "$TRY" $CALLS 2>&1 | line
}

# --- capexec -----------------------------------------------------------------
# the control first: legacy root, no key: every call goes through (setns
# with nstype 0 into its own user namespace: EINVAL, the kernel's answer
# for joining the namespace one is in)
got=$(run_capexec mode=legacy)
t_eq "$got" "$(expect open | sed 's/setns-any ok/setns-any EINVAL/')" \
  "capexec, control: legacy root without the keys: every call reaches the kernel"
got=$(run_capexec mode=noroot)
t_eq "$got" "$(expect denied)" "capexec: mode = noroot: each attack is refused (EPERM; clone3 ENOSYS), getpid is not"
got=$(run_capexec read-only=yes)
t_eq "$got" "$(expect denied)" "capexec: legacy root with a container key (read-only): the same"
got=$(run_capexec user=nobody mode=noroot no-new-privileges=yes private-tmp=yes network=none)
t_eq "$got" "$(expect denied)" "capexec: uid 65534, noroot, no_new_privs, a container: the same"

# the keys: user namespaces allowed, one group allowed, one denied
got=$("$CAPEXEC" -k mode=noroot -k user-namespaces=yes -k system-calls=+@keyring -- "$TRY" unshare-user clone3 keyctl file-handle 2>&1 | line)
t_eq "$got" "unshare-user ok clone3 ok keyctl ok file-handle EPERM" \
  "capexec: user-namespaces = yes and +@keyring open just those; @file-handles stays denied"
got=$("$CAPEXEC" -k system-calls=-@keyring -- "$TRY" keyctl unshare-user io-uring 2>&1 | line)
t_eq "$got" "keyctl EPERM unshare-user ok io-uring ok" \
  "capexec: a legacy service with system-calls = -@keyring: only that group is denied"
# a group its capability asks for is not denied by default: cap_sys_admin
# keeps @mount (unshare of a mount namespace is no user namespace)
got=$("$CAPEXEC" -k mode=noroot -k capabilities=sys_admin -- "$TRY" unshare-user unshare-net 2>/dev/null | line)
t_eq "$got" "unshare-user EPERM unshare-net ok" \
  "capexec: noroot with cap_sys_admin: a network namespace, but no user namespace"

# chroot is cap_sys_chroot's alone (not in @mount): postfix's master
# chroots its daemons with it and no cap_sys_admin
"$CAPEXEC" -k mode=noroot -k capabilities=sys_chroot -- /usr/sbin/chroot / /bin/true
t_eq "$?" 0 "capexec: noroot with cap_sys_chroot only: chroot works under the filter"

# another ABI: x32's numbers on x86-64 (the kernel here has no x32: ENOSYS
# without the filter); the filter kills the caller
if [ "$(uname -m)" = x86_64 ]; then
  got=$("$CAPEXEC" -k mode=legacy -- "$TRY" x32 2>&1 | line)
  t_eq "$got" "x32 ENOSYS" "capexec, control: x32's getpid without the filter: the kernel's ENOSYS"
  got=$("$CAPEXEC" -k mode=noroot -- "$TRY" x32 getpid 2>&1 | line)
  t_eq "$got" "x32 killed SIGSYS getpid ok" "capexec: x32's getpid under the filter: killed (SIGSYS)"
fi

# the kernel's view of the command itself
seccomp_of() { grep '^Seccomp' | tr -s '\t ' ' ' | line; }
got=$("$CAPEXEC" -k mode=noroot -- /bin/cat /proc/self/status | seccomp_of)
own=$(seccomp_of </proc/self/status)
t_eq "$got" "Seccomp: 2 Seccomp_filters: $(($(echo "$own" | sed 's/.*Seccomp_filters: //') + 1))" \
  "capexec: /proc/self/status of a noroot command: filter mode, one filter more than its caller"
got=$("$CAPEXEC" -k mode=legacy -- /bin/cat /proc/self/status | seccomp_of)
t_eq "$got" "$own" "capexec, control: a legacy command has its caller's seccomp state ($own)"
# root loads it with cap_sys_admin: no no_new_privs implied
got=$("$CAPEXEC" -k mode=noroot -- /bin/grep NoNewPrivs /proc/self/status | line)
t_eq "$got" "$(printf 'NoNewPrivs:\t0')" "capexec as root: the filter needs no no_new_privs (file capabilities keep working)"
# a caller without cap_sys_admin: the kernel wants no_new_privs, set then
# (a legacy spec of its own ids: it changes nothing else)
got=$(setpriv --reuid=65534 --regid=65534 --groups=65534 --inh-caps=-all --bounding-set=-all \
  "$CAPEXEC" -k user=nobody -k group=nogroup -k user-namespaces=no -- /bin/grep -e NoNewPrivs -e '^Seccomp:' /proc/self/status | tr -s '\t' ' ' | line)
t_eq "$got" "NoNewPrivs: 1 Seccomp: 2" "capexec as uid 65534 without capabilities: no_new_privs is set so that the filter loads"
# CAPINIT_SECCOMP=if-available changes nothing where the kernel has seccomp
got=$(CAPINIT_SECCOMP=if-available "$CAPEXEC" -k mode=noroot -- "$TRY" unshare-user 2>&1 | line)
t_eq "$got" "unshare-user EPERM" "CAPINIT_SECCOMP=if-available: the filter is still loaded where the kernel has seccomp"

# the file's errors
got=$("$CAPEXEC" -k system-calls=@keyring -- /bin/true 2>&1 | head -n 1)
t_eq "$got" "capexec: -k:1: error: system-calls: expected -@GROUP or +@GROUP, not '@keyring' (the groups: @bpf,@debug,@file-handles,@io-uring,@keyring,@module,@mount,@reboot,@swap,@userfaultfd)" \
  "system-calls without - or +: refused, with the groups"
got=$("$CAPEXEC" -k system-calls=-@keyring,+@keyring -- /bin/true 2>&1 | head -n 1)
t_eq "$got" "capexec: -k:1: error: system-calls: @keyring is named twice" "a group named twice: refused"

# --- explain predicts it ------------------------------------------------------
got=$("$CAPCTL" explain --json -k mode=noroot -k capabilities=sys_ptrace -- /bin/true | grep '"filter"' | sed 's/^ *//')
t_eq "$got" '"filter": {"user_namespaces": false, "set_id_modes": false, "denied": ["@bpf", "@file-handles", "@io-uring", "@keyring", "@module", "@mount", "@reboot", "@swap", "@userfaultfd"]},' \
  "explain --json: the filter of a noroot service with cap_sys_ptrace (@debug allowed by its capability)"
got=$("$CAPCTL" explain --json -k mode=legacy -- /bin/true | grep '"filter"' | sed 's/^ *//')
t_eq "$got" '"filter": null,' "explain --json, control: a legacy service without the keys has no filter"
"$CAPCTL" explain -k read-only=yes -k user-namespaces=yes -k allow-suid=yes -k system-calls=+@bpf,+@debug,+@file-handles,+@io-uring,+@keyring,+@module,+@mount,+@reboot,+@swap,+@userfaultfd -- /bin/true | grep -q 'user-namespaces = yes and no system-call filter'
t_ok $? "explain warns about a contained service that opens everything"

# --- capinit ------------------------------------------------------------------
svc contained <<EOF
command = /bin/sh -c "$TRY $CALLS; exec sleep 100000"
mode = noroot
read-only = yes
EOF
svc legacy <<EOF
command = /bin/sh -c "$TRY $CALLS; exec sleep 100000"
mode = legacy
EOF
sv_start
sv_wait contained up
sv_wait legacy up
n=0
while [ "$(wc -l < "$T/log/legacy.log" 2>/dev/null)" != 11 ] || [ "$(wc -l < "$T/log/contained.log" 2>/dev/null)" != 11 ]; do
  [ $n -lt 600 ] || break
  sleep 0.1
  n=$((n + 1))
done
cut -d' ' -f2- "$T/log/contained.log" | line > "$T/got"
t_eq "$(cat "$T/got")" "$(expect denied)" "capinit: a noroot, read-only service: each attack is refused"
cut -d' ' -f2- "$T/log/legacy.log" | line > "$T/got"
t_eq "$(cat "$T/got")" "$(expect open | sed 's/setns-any ok/setns-any EINVAL/')" \
  "capinit, control: a legacy service: every call reaches the kernel"
pid=$(sv_field contained pid)
got=$(sv_in cat "/proc/$pid/status" | seccomp_of)
capinit_own=$(sv_in cat /proc/1/status | seccomp_of)
t_eq "$got" "Seccomp: 2 Seccomp_filters: $(($(echo "$capinit_own" | sed 's/.*Seccomp_filters: //') + 1))" \
  "capinit: the service's /proc/PID/status: filter mode, one filter more than capinit"
got=$(sv_in cat "/proc/$(sv_field legacy pid)/status" | seccomp_of)
t_eq "$got" "$capinit_own" "capinit, control: the legacy service has capinit's own seccomp state ($capinit_own)"
got=$(sv_ctl verify | sort | line)
t_eq "$got" "name=contained	result=ok	processes=2 name=legacy	result=ok	processes=1" \
  "capctl verify: both services match their files, the filter's mode included (the contained one: its reaper and command)"
sv_stop
t_done
