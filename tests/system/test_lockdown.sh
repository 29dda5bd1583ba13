#!/bin/sh
# The appliance's lockdown (rootfs/lockdown.c) on the real kernel, each
# run in a mount namespace of its own (unshare --mount): what it mounts
# is read back from the kernel (/proc/self/mountinfo, and a write that
# must fail with EROFS), never from the program's own words.
#   1. a machine whose fstab did nothing: lockdown mounts /tmp and makes
#      /proc/sys, /proc/sysrq-trigger, /proc/irq and /sys read-only;
#   2. one whose fstab did it all (the appliance's): it mounts nothing;
#   3. without cap_sys_admin it cannot: exit 1, the step named, and the
#      control is 1.
#   4. the user-namespace knob, in a user namespace of the test's (where
#      user.max_user_namespaces is that namespace's own, and the host's is
#      never written): on a kernel without Debian's sysctl, lockdown sets
#      user.max_user_namespaces to 0 and the kernel then refuses a user
#      namespace (ENOSPC; the control: one is made before); without
#      cap_sys_resource it cannot: exit 1, the knob named.
# In 1-3 the knob lockdown uses (Debian's kernel.unprivileged_userns_clone
# where the kernel has it, which is global, else user.max_user_namespaces)
# is a file of the test's that says 0, bound over it, so that the host's
# is never written.  On a Debian kernel, 4 has a file of the test's that
# says 1 bound over Debian's knob, and checks lockdown wrote 0 into it;
# the appliance's boots check the real one (tests/qemu/test_appliance.sh:
# lockdown up).
B=${1:-build}
. tests/lib.sh
[ -x "$B/rootfs/lockdown" ] || { echo "Bail out! $B/rootfs/lockdown is missing (make check builds it)"; exit 1; }
# lockdown mounts a tmpfs on /tmp, which would hide a checkout (and a
# scratch directory) below /tmp: the program and the files are under /run
T=$(mktemp -d /run/capinit-lockdown.XXXXXX) || { echo "Bail out! unable to make a directory under /run"; exit 1; }
trap 'rm -rf "$T"' EXIT
cp "$B/rootfs/lockdown" "$T/lockdown"
LD=$T/lockdown
US=/proc/sys/kernel/unprivileged_userns_clone
MAX=/proc/sys/user/max_user_namespaces
echo 0 > "$T/userns"
if [ -e "$US" ]; then
  knob=$US said="no unprivileged user namespaces (kernel.unprivileged_userns_clone = 0)"
else
  knob=$MAX said="no user namespaces (user.max_user_namespaces = 0)"
fi
guard="mount --bind '$T/userns' $knob"
in_ns() { unshare --mount --propagation private sh -c "$guard && $1" 2>"$T/ns.err"; }
# point, per-mount options and type of the mounts lockdown deals with,
# the last of each
view='awk '\''$5 == "/tmp" || $5 == "/sys" || $5 == "/proc/sys" || $5 == "/proc/sysrq-trigger" || $5 == "/proc/irq" {
  o = $6; for (i = 7; $i != "-"; i++) ; v[$5] = o " " $(i + 1) }
  END { n = split("/tmp /sys /proc/sys /proc/sysrq-trigger /proc/irq", p, " "); for (j = 1; j <= n; j++) print p[j], v[p[j]] }'\'' /proc/self/mountinfo'
erofs='for f in /proc/sys/kernel/core_pattern /proc/sysrq-trigger /proc/irq/default_smp_affinity /sys/kernel/uevent_helper; do
  [ -e "$f" ] || continue; if (: >> "$f") 2>/dev/null; then echo "$f writable"; else echo "$f refused"; fi; done'
# a machine whose fstab did nothing: no mount on /tmp, /proc/sys,
# /proc/sysrq-trigger, /proc/irq (whatever the host has there is
# detached, in the namespace only), /sys read-write
fresh="for p in /tmp /proc/sys /proc/sysrq-trigger /proc/irq; do while mountpoint -q \$p; do umount -l \$p; done; done &&
  mount -o remount,bind,rw /sys"
eff=$(sed -n 's/^CapEff:\t//p' /proc/self/status)

# ---------------------------------------------------------------- 1.
in_ns "$fresh && '$LD'; echo \"exit \$?\"; $view; $erofs" > "$T/1"
if [ -e /proc/sysrq-trigger ]; then checked="/proc/sys /proc/sysrq-trigger /proc/irq /sys read-only"
else checked="/proc/sys /proc/irq /sys read-only (the kernel has no /proc/sysrq-trigger)"; fi
t_eq "$(sed -n 1p "$T/1")" "lockdown: $checked, /tmp a tmpfs, $said (CapEff:	$eff)" \
  "nothing done before: its line, what it checked and what it held"
t_eq "$(sed -n 2p "$T/1")" "exit 0" "nothing done before: exit 0"
# a kernel without magic SysRq has no /proc/sysrq-trigger: nothing to do
sysrq="ro proc"
[ -e /proc/sysrq-trigger ] || sysrq=" "
t_eq "$(sed -n '3,7p' "$T/1" | awk '{ print $1, substr($2, 1, 2), $3 }')" "/tmp rw tmpfs
/sys ro sysfs
/proc/sys ro proc
/proc/sysrq-trigger $sysrq
/proc/irq ro proc" "nothing done before: the kernel shows /tmp a tmpfs, the others read-only"
t_eq "$(sed -n '8,$p' "$T/1" | grep -c writable)" 0 "nothing done before: every write refused ($(sed -n '8,$p' "$T/1" | tr '\n' ' '))"
t_eq "$(cat "$T/ns.err")" "" "nothing done before: nothing on standard error"

# ---------------------------------------------------------------- 2.
# (the bind of /proc/sys hides the knob's file of the test's: bound again after it)
done_before="$fresh && mount -t tmpfs -o nosuid,nodev tmpfs /tmp && mount -o remount,bind,ro /sys &&
  for p in /proc/sys /proc/sysrq-trigger /proc/irq; do [ ! -e \$p ] || { mount --bind \$p \$p && mount -o remount,bind,ro \$p; }; done"
in_ns "$done_before && $guard && cat /proc/self/mountinfo > '$T/2.before' && '$LD' > /dev/null; echo \"exit \$?\"; cat /proc/self/mountinfo > '$T/2.after'" > "$T/2"
t_eq "$(cat "$T/2")" "exit 0" "all done by the fstab: exit 0"
t_eq "$(diff "$T/2.before" "$T/2.after")" "" "all done by the fstab: no mount made or changed"

# ---------------------------------------------------------------- 3.
in_ns "$fresh && setpriv --inh-caps=-all --bounding-set=-sys_admin '$LD'; echo \"exit \$?\"; $view" > "$T/3"
t_eq "$(sed -n 1p "$T/3")" "exit 1" "without cap_sys_admin: exit 1"
t_eq "$(cat "$T/ns.err")" "lockdown: fatal: unable to mount /tmp: Operation not permitted" "without cap_sys_admin: the step and the kernel's reason"
t_eq "$(sed -n '2,$p' "$T/3" | awk '{ print $1, substr($2, 1, 2) }' | tr '\n' ' ')" "/tmp  /sys rw /proc/sys  /proc/sysrq-trigger  /proc/irq  " \
  "without cap_sys_admin: nothing mounted (the control is 1: the same machine, with it)"
# ---------------------------------------------------------------- 4.
host=$(cat $MAX)
# a user namespace of the test's, as on a fresh machine: one where
# make check-cross has run has binfmt_misc mounted on /proc/sys/fs, a
# child mount that a user namespace may not leave behind in a bind of
# /proc/sys (EINVAL): gone first, in a mount namespace of the test's
in_userns() {
  unshare --mount --propagation private sh -c 'umount /proc/sys/fs/binfmt_misc 2>/dev/null
    exec unshare --user --map-root-user --mount --propagation private sh -c "$1"' sh "$1" 2>"$T/ns.err"
}
t_eq "$(in_userns 'unshare --user true; echo "unshare $?"')" "unshare 0" \
  "control: a user namespace of the test's makes one"
if [ ! -e "$US" ]; then
  in_userns "'$LD'; echo \"exit \$?\"; cat $MAX; unshare --user true; echo \"unshare \$?\"" > "$T/4"
  t_eq "$(sed 1d "$T/4")" "exit 0
0
unshare 1" "no Debian sysctl: lockdown sets user.max_user_namespaces to 0 (the kernel's), and no user namespace can be made"
  t_eq "$(sed -n 1p "$T/4" | sed -e 's/.*read-only[^,]*, //' -e 's/ (CapEff:.*//')" "/tmp a tmpfs, no user namespaces (user.max_user_namespaces = 0)" \
    "no Debian sysctl: its line names the knob it checked"
  t_eq "$(cat "$T/ns.err")" "unshare: unshare failed: No space left on device" "no Debian sysctl: the kernel's refusal (ENOSPC)"
  in_userns "setpriv --inh-caps=-all --bounding-set=-sys_resource '$LD'; echo \"exit \$?\"; cat $MAX" > "$T/4b"
  t_eq "$(cat "$T/4b") $(cat "$T/ns.err")" "exit 1
$(in_userns "cat $MAX") lockdown: fatal: unable to write $MAX (user.max_user_namespaces = $(in_userns "cat $MAX")): Permission denied: add sysctl.user.max_user_namespaces=0 to the kernel's command line" \
    "no Debian sysctl, without cap_sys_resource: exit 1, the knob unchanged and named (the control is the check above)"
else
  in_userns "echo 1 > '$T/userns' && mount --bind '$T/userns' $US && '$LD' >/dev/null; echo \"exit \$?\"; cat $US" > "$T/4"
  t_eq "$(cat "$T/4")" "exit 0
0" "Debian's sysctl (a file of the test's that said 1): lockdown wrote 0 into it and read it back"
fi
t_eq "$(cat $MAX)" "$host" "the host's user.max_user_namespaces is unchanged ($host)"

t_eq "$("$LD" --help; echo "exit $?")" "usage: $LD (no arguments: run once at boot by lockdown.svc)
exit 0" "--help: the usage on standard output, exit 0"
t_eq "$("$LD" extra 2>&1 >/dev/null; echo "exit $?")" "usage: $LD (no arguments: run once at boot by lockdown.svc)
exit 100" "an argument: the usage on standard error, exit 100"
t_done
