#!/bin/sh
# capinit's /etc/fstab code (init/fstab.c, conf/fstab.c) on the real
# kernel, outside PID 1 (build/tests/fstab_try), each run in a mount
# namespace of its own (unshare --mount: the host's mounts are never
# touched; only tmpfs and bind mounts, never / or swap):
#
#   1. the same fstab mounted by util-linux's mount -a --fstab and by
#      capinit: the kernel shows the same mounts (per-mount options,
#      propagation, type, source, file system options), line by line;
#      with a changed option the comparison fails (the control);
#   2. /proc/self/mountinfo as capinit reads it and as findmnt (util-linux)
#      reads it, with a space, a tab and a backslash in mount points;
#   3. failures: a missing mount point, an unknown type, a bad line are
#      reported as FILE:LINE and the next lines are mounted; a nofail
#      device that is not there is a note; _netdev and noauto are left;
#      what is mounted already is not mounted again; an entry marked
#      x-capinit.required that fails is fatal (exit 1, its line);
#   4. a line whose mount point is mounted already adds its restrictions
#      (ro, nosuid, nodev, noexec, nosymfollow) to that mount and keeps
#      its other flags: the kernel shows what util-linux's
#      mount -o remount,bind with the union of both makes.
B=${1:-build}
. tests/lib.sh
TRY=$B/tests/fstab_try
[ -x "$TRY" ] || { echo "Bail out! $TRY is missing (make check builds it)"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
M=$T/m
mkdir -p "$M/a" "$M/b" "$M/c" "$M/d" "$M/e" "$M/f" "$M/g" "$M/h" "$M/with space" "$M/tab	here" "$M/back\\slash" "$T/src"

# the mounts below $M, one a line: mount point, per-mount options, the
# kinds of optional fields (shared, master: their numbers differ between
# namespaces), type, source, file system options
mounts_below() {
  awk -v t="$M" 'index($5, t) == 1 {
    o = ""
    for (i = 7; $i != "-"; i++) { f = $i; sub(/:[0-9]+$/, "", f); o = o " " f }
    print $5, $6, "[" o " ]", $(i + 1), $(i + 2), $(i + 3)
  }'
}
in_ns() { unshare --mount --propagation private sh -c "$1" 2>"$T/ns.err"; }

# ---------------------------------------------------------------- 1. util-linux
cat > "$T/fstab" <<EOF
# every kind of option capinit reads, on tmpfs and bind mounts
tmpfs $M/a tmpfs ro,nosuid,nodev,noexec,noatime,size=1m,mode=0750 0 0
tmpfs $M/b tmpfs nodiratime,strictatime,sync,dirsync,uid=65534,gid=65534 0 0
tmpfs $M/c tmpfs user,exec 0 0
tmpfs $M/d tmpfs lazytime,nosymfollow,x-systemd.automount,comment=foo 0 0
$T/src $M/e none bind,ro,nosuid 0 0
tmpfs $M/f tmpfs shared 0 0
tmpfs $M/g tmpfs size=1m 0 0
tmpfs $M/g tmpfs size=2m,relatime,mand,nomand 0 0
tmpfs $M/h tmpfs noauto 0 0
tmpfs $M/with\\040space tmpfs mode=1777,rw,defaults 0 0
tmpfs $M/tab\\011here tmpfs nr_inodes=100 0 0
tmpfs $M/back\\134slash tmpfs silent,loud 0 0
EOF
in_ns "mount -a --fstab '$T/fstab' && cat /proc/self/mountinfo" | mounts_below > "$T/util-linux"
t_eq "$(wc -l < "$T/util-linux")" 11 "util-linux mount -a: 11 mounts (noauto left)"
[ -s "$T/ns.err" ] && sed 's/^/#   /' "$T/ns.err"
in_ns "'$TRY' mount '$T/fstab' && cat /proc/self/mountinfo" | mounts_below > "$T/capinit"
t_eq "$(cat "$T/ns.err")" "capinit: fstab: 11 of 11 mounted" "capinit: 11 of 11 mounted, nothing else said"
n=0
while IFS= read -r want; do
  n=$((n + 1))
  got=$(sed -n "${n}p" "$T/capinit")
  t_eq "$got" "$want" "the kernel shows the same mount from util-linux and capinit: ${want%% *}"
done < "$T/util-linux"
t_eq "$(wc -l < "$T/capinit")" "$n" "capinit: no other mount"
# the control: one option changed, one line differs
sed 's/nr_inodes=100/nr_inodes=200/' "$T/fstab" > "$T/fstab.changed"
in_ns "'$TRY' mount '$T/fstab.changed' && cat /proc/self/mountinfo" | mounts_below > "$T/changed"
t_eq "$(diff "$T/util-linux" "$T/changed" | grep -c '^>')" 1 "control: nr_inodes=200 instead of 100: the comparison sees it"

# ---------------------------------------------------------------- 2. findmnt
in_ns "mount -a --fstab '$T/fstab' && '$TRY' mountinfo > '$T/ours' && findmnt --kernel --list -J -o ID,PARENT,MAJ:MIN,FSROOT,TARGET,FSTYPE,SOURCE,VFS-OPTIONS,FS-OPTIONS > '$T/findmnt.json'"
python3 - "$T/findmnt.json" > "$T/theirs" <<'EOF'
import json, sys
def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
for f in json.load(open(sys.argv[1]))["filesystems"]:
    src = f["source"] or ""
    # findmnt writes a bind mount's source as DEVICE[FSROOT]
    if f["fsroot"] != "/" and src.endswith("[" + f["fsroot"] + "]"):
        src = src[: -len(f["fsroot"]) - 2]
    print("\t".join([str(f["id"]), str(f["parent"]), f["maj:min"], esc(f["fsroot"]), esc(f["target"]),
                     f["fstype"], esc(src), f["vfs-options"], f["fs-options"]]))
EOF
t_eq "$(wc -l < "$T/ours")" "$(wc -l < "$T/theirs")" "mountinfo: as many mounts as findmnt reads ($(wc -l < "$T/theirs"))"
t_eq "$(diff "$T/theirs" "$T/ours" | head -n 6)" "" "mountinfo: every field of every mount as findmnt reads it"
grep -q "	$M/tab\\\\there	" "$T/ours"
t_ok $? "mountinfo: a tab in a mount point (\\011) read back"
grep -q "	$M/with space	" "$T/ours"
t_ok $? "mountinfo: a space in a mount point (\\040) read back"

# ---------------------------------------------------------------- 3. failures
cat > "$T/fstab.bad" <<EOF
tmpfs $M/a tmpfs size=1m
tmpfs $M/nowhere tmpfs defaults
tmpfs $M/b nosuchfs defaults
/dev/capinit-no-such-disk $M/c ext4 nofail
tmpfs $M/d tmpfs size=1m 0 0 # a comment
srv:/export $M/e nfs _netdev
tmpfs $M/f tmpfs noauto
tmpfs $M/g tmpfs size=3m
EOF
in_ns "mount -t tmpfs -o size=5m tmpfs '$M/g' && '$TRY' mount '$T/fstab.bad'; echo \"exit \$?\"; cat /proc/self/mountinfo" > "$T/bad.out"
t_eq "$(sed -n 's/^exit //p' "$T/bad.out")" 0 "failures: the boot goes on (exit 0)"
t_eq "$(cat "$T/ns.err")" "capinit: $T/fstab.bad:5: error: more than 6 fields (a comment must be a line of its own)
capinit: $T/fstab.bad:2: error: mount point $M/nowhere: No such file or directory
capinit: $T/fstab.bad:3: error: unable to mount tmpfs on $M/b (nosuchfs): No such device
capinit: $T/fstab.bad:4: warning: /dev/capinit-no-such-disk is not there (nofail): $M/c not mounted
capinit: $T/fstab.bad:6: warning: $M/e needs the network (_netdev), which services bring up: not mounted at boot
capinit: fstab: 2 of 5 mounted" "failures: each with its FILE:LINE, then 2 of 5 (/a, and /g that was there)"
t_eq "$(mounts_below < "$T/bad.out" | awk '{ print $1, $NF }')" "$M/g rw,size=5120k
$M/a rw,size=1024k" "failures: /a mounted, /g left as it was (size=5m), nothing else"

# x-capinit.required: fatal, with the line, nothing after it mounted
cat > "$T/fstab.required" <<EOF
tmpfs $M/a tmpfs size=1m
tmpfs $M/nowhere tmpfs x-capinit.required
tmpfs $M/b tmpfs size=1m
EOF
in_ns "'$TRY' mount '$T/fstab.required'; echo \"exit \$?\"; cat /proc/self/mountinfo" > "$T/req.out"
t_eq "$(sed -n 's/^exit //p' "$T/req.out")" 1 "x-capinit.required: its failure is fatal"
t_eq "$(cat "$T/ns.err")" "capinit: $T/fstab.required:2: error: mount point $M/nowhere: No such file or directory
capinit: fatal: unable to mount $M/nowhere as $T/fstab.required:2 requires (x-capinit.required)" \
  "x-capinit.required: its error (FILE:LINE and the reason), then the fatal line"
t_eq "$(mounts_below < "$T/req.out" | cut -d' ' -f1)" "$M/a" "x-capinit.required: the lines before it mounted, none after"
sed 's/x-capinit.required/defaults/' "$T/fstab.required" > "$T/fstab.notrequired"
in_ns "'$TRY' mount '$T/fstab.notrequired'; echo \"exit \$?\"" > "$T/notreq.out"
t_eq "$(cat "$T/notreq.out")" "exit 0" "control: the same line without x-capinit.required is not fatal"

# ---------------------------------------------------------------- 4. restrictions
# a: noatime,nodev before, the line asks ro,nosuid; b: strictatime before,
# the line asks noexec,nosymfollow and what it cannot take away (suid,
# dev: nothing is loosened); c: the line asks nothing (defaults); d: it
# asks what the mount has (nosuid): neither is remounted
before="mount -t tmpfs -o noatime,nodev,size=1m tmpfs '$M/a' && mount -t tmpfs -o strictatime,nodiratime tmpfs '$M/b' &&
  mount -t tmpfs -o nosuid,size=2m tmpfs '$M/c' && mount -t tmpfs -o nosuid tmpfs '$M/d'"
cat > "$T/fstab.tight" <<EOF
tmpfs $M/a tmpfs ro,nosuid,size=4m 0 0
tmpfs $M/b tmpfs suid,dev,noexec,nosymfollow 0 0
proc $M/c proc defaults 0 0
tmpfs $M/d tmpfs nosuid 0 0
EOF
in_ns "$before && mount -o remount,bind,ro,nosuid,nodev,noatime '$M/a' &&
  mount -o remount,bind,noexec,nosymfollow,strictatime,nodiratime '$M/b' && cat /proc/self/mountinfo" | mounts_below > "$T/tight.want"
t_eq "$(awk '{ print $1, $2 }' "$T/tight.want")" "$M/a ro,nosuid,nodev,noatime
$M/b rw,noexec,nodiratime,nosymfollow
$M/c rw,nosuid,relatime
$M/d rw,nosuid,relatime" "restrictions: util-linux's remounts give the union (the reference)"
in_ns "$before && '$TRY' mount '$T/fstab.tight'; echo \"exit \$?\" >&2; cat /proc/self/mountinfo" | mounts_below > "$T/tight.got"
t_eq "$(cat "$T/ns.err")" "capinit: fstab: 4 of 4 mounted
exit 0" "restrictions: every line done, nothing else said"
t_eq "$(diff "$T/tight.want" "$T/tight.got")" "" "restrictions: the kernel shows the same mounts (flags added, the others kept, size=1m and 2m left)"
# the control: without the lines' restrictions the mounts differ from the union
in_ns "$before && cat /proc/self/mountinfo" | mounts_below > "$T/tight.before"
t_eq "$(diff "$T/tight.want" "$T/tight.before" | grep -c '^>')" 2 "control: /a and /b before the fstab differ from the reference"
# a restriction that cannot be added (no cap_sys_admin: the remount is
# refused) is an error of its line, and the boot goes on
in_ns "$before && setpriv --inh-caps=-all --bounding-set=-sys_admin '$TRY' mount '$T/fstab.tight'; echo \"exit \$?\" >&2; cat /proc/self/mountinfo" | mounts_below > "$T/tight.denied"
t_eq "$(cat "$T/ns.err")" "capinit: $T/fstab.tight:1: error: unable to add ro,nosuid to the mount on $M/a: Operation not permitted
capinit: $T/fstab.tight:2: error: unable to add noexec,nosymfollow to the mount on $M/b: Operation not permitted
capinit: fstab: 2 of 4 mounted
exit 0" "restrictions refused (no cap_sys_admin): each line's error, the boot goes on"
t_eq "$(diff "$T/tight.before" "$T/tight.denied")" "" "restrictions refused: the mounts are as they were"
t_done
