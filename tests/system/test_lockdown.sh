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
# The user-namespace sysctl (Debian's kernel.unprivileged_userns_clone)
# is global: where the kernel has it, a file of the test's is bound over
# it first, so that the host's is never written.  The appliance's boots
# check the real one (tests/qemu/test_appliance.sh).
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
guard=:
if [ -e "$US" ]; then
  echo 0 > "$T/userns"
  guard="mount --bind '$T/userns' $US"
fi
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
t_eq "$(sed -n 1p "$T/1")" "lockdown: /sys /proc/sys /proc/sysrq-trigger /proc/irq read-only, /tmp a tmpfs, no unprivileged user namespaces (CapEff:	$eff)" \
  "nothing done before: its line, with what it held"
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
done_before="$fresh && mount -t tmpfs -o nosuid,nodev tmpfs /tmp && mount -o remount,bind,ro /sys &&
  for p in /proc/sys /proc/sysrq-trigger /proc/irq; do [ ! -e \$p ] || { mount --bind \$p \$p && mount -o remount,bind,ro \$p; }; done"
in_ns "$done_before && cat /proc/self/mountinfo > '$T/2.before' && '$LD' > /dev/null; echo \"exit \$?\"; cat /proc/self/mountinfo > '$T/2.after'" > "$T/2"
t_eq "$(cat "$T/2")" "exit 0" "all done by the fstab: exit 0"
t_eq "$(diff "$T/2.before" "$T/2.after")" "" "all done by the fstab: no mount made or changed"

# ---------------------------------------------------------------- 3.
in_ns "$fresh && setpriv --inh-caps=-all --bounding-set=-sys_admin '$LD'; echo \"exit \$?\"; $view" > "$T/3"
t_eq "$(sed -n 1p "$T/3")" "exit 1" "without cap_sys_admin: exit 1"
t_eq "$(cat "$T/ns.err")" "lockdown: fatal: unable to mount /tmp: Operation not permitted" "without cap_sys_admin: the step and the kernel's reason"
t_eq "$(sed -n '2,$p' "$T/3" | awk '{ print $1, substr($2, 1, 2) }' | tr '\n' ' ')" "/tmp  /sys rw /proc/sys  /proc/sysrq-trigger  /proc/irq  " \
  "without cap_sys_admin: nothing mounted (the control is 1: the same machine, with it)"
t_eq "$("$LD" --help; echo "exit $?")" "usage: $LD (no arguments: run once at boot by lockdown.svc)
exit 0" "--help: the usage on standard output, exit 0"
t_eq "$("$LD" extra 2>&1 >/dev/null; echo "exit $?")" "usage: $LD (no arguments: run once at boot by lockdown.svc)
exit 100" "an argument: the usage on standard error, exit 100"
t_done
