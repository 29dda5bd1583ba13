#!/bin/sh
# capinit as PID 1 loses no data at shutdown: the appliance booted in QEMU
# from its ext4 root, mounted read-write by /etc/fstab, with a second
# virtio disk (ext4, made here with mke2fs) that /etc/fstab mounts on
# /data, a swap file and a loop device on it (tests/qemu/appliance-disks).
# A service appends numbered records to a file on each disk, fsync(2)
# after each, and acknowledges each on the result port; once 100 are on
# disk, capctl poweroff.  Then, on the host: QEMU exited by itself,
# e2fsck -fn finds both file systems clean (no needs_recovery, no error),
# and each disk holds exactly the records acknowledged (debugfs, no
# mount), numbered on from the cycle before.  ROBUST_SHUTDOWN_CYCLES such
# cycles on the same two disks (1; make robustness runs 20).
#
# The first cycle also checks the boot: every fstab line's fate on the
# console (a nofail disk that is not there, a missing mount point, noauto,
# an API file system already mounted), the options the kernel shows for
# each mount, the swap area's priority; and the shutdown: swapoff, the
# loop device detached before its file's /data can be unmounted, every
# file system unmounted newest first, the root remounted read-only, sync,
# power off.  Two more boots run beside the first cycle:
#
#   1. the power cut, the negative control: the same disks, and QEMU
#      killed once the records flow; both file systems then need
#      recovery (the check above would fail), and after e2fsck replays the
#      journal every acknowledged record is there (fsync(2) held);
#   2. a hung disk: a third disk, /slow, whose writes QEMU throttles to
#      one byte a second after a first megabyte, with 4 MB written to it
#      and never synced, and unmount-timeout = 4s (a copy of the root disk
#      with its capinit.conf and two services changed by debugfs): its
#      unmount and the last sync make no progress, PID 1 gives each 4 s,
#      detaches /slow and powers off; the root and /data are clean all
#      the same.
#
# About 40 s in make check (an image, then three boots at once).
B=${1:-build}
. tests/lib.sh
if [ -n "${CAPINIT_SAN:-}" ]; then
  # a sanitizer build is dynamic, for glibc: it does not run in the image
  t_ok 0 "PID 1's shutdown in QEMU # SKIP sanitizer build"
  t_done
  exit
fi
case ${ROBUST_SHUTDOWN_CYCLES:-} in '' | *[!0-9]*) cycles=1 ;; *) cycles=$ROBUST_SHUTDOWN_CYCLES ;; esac
[ "$cycles" -ge 1 ] || cycles=1
for f in "$B/tests/qemu_tool" "$B/bin/capinit" "$B/rootfs/pinger"; do
  [ -x "$f" ] || { echo "Bail out! $f is missing (make check builds it)"; exit 1; }
done
for t in mke2fs e2fsck dumpe2fs debugfs resize2fs tune2fs mkswap qemu-system-x86_64; do
  command -v $t >/dev/null || { echo "Bail out! $t is missing (make check installs it)"; exit 1; }
done
mkdir -p "$B/qemu"
out=$(mktemp -d "$B/qemu/robust-shutdown.XXXXXX")
out=$(cd "$out" && pwd)
. rootfs/qemu_common.sh
qemu_kernel "$B" || { echo "Bail out! no kernel"; exit 1; }
ms() { date +%s%3N; }
t0=$(ms)

# ---------------------------------------------------------------- images
# the appliance and its overlay, plus what git cannot hold or the test
# makes: the mount points, the in-guest tool, the loop module
ov=$out/overlay
mkdir -p "$ov"
cp -R tests/qemu/appliance-disks/. "$ov/"
mkdir -p "$ov/data" "$ov/data-auto" "$ov/scratch" "$ov/slow" "$ov/test"
cp "$B/tests/qemu_tool" "$ov/test/tool"
{ cat rootfs/skel/etc/capinit/modules; echo "# loop devices (hold.svc)"; echo loop; } > "$ov/etc/capinit/modules"
sh rootfs/build.sh -f ext4 -o "$ov" "$B" "$out/img" > "$out/build.out" 2>&1
st=$?
t_ok $st "the appliance with two disks is built (rootfs/build.sh -f ext4 -o tests/qemu/appliance-disks)"
[ $st = 0 ] || { sed 's/^/#   /' "$out/build.out"; echo "# files kept in $out"; t_done; exit 1; }

# root DISK IMAGE: the builder's root (no journal: read-only at run time)
# with room and a journal, as a writable root has
root_disk() {
  cp "$2" "$1" &&
    e2fsck -fy "$1" >/dev/null 2>&1 &&
    resize2fs "$1" 32M >/dev/null 2>&1 &&
    tune2fs -O has_journal -J size=4 "$1" >/dev/null 2>&1
}
# data DISK: 32 MB of ext4 with 4 KB blocks, a 1 MB swap file without
# holes (filled before mkswap, so that mke2fs -d writes every block) and
# a 1 MB file for the loop device
data_disk() {
  d=$out/data-tree
  rm -rf "$d"
  mkdir -p "$d"
  head -c 1048576 /dev/zero | tr '\0' '\252' > "$d/swapfile" && chmod 600 "$d/swapfile" &&
    mkswap "$d/swapfile" >/dev/null 2>&1 &&
    head -c 1048576 /dev/zero | tr '\0' '\1' > "$d/loop.img" &&
    mke2fs -q -t ext4 -b 4096 -L data -E root_owner=0:0 -d "$d" "$1" 32M >/dev/null
}
root_disk "$out/root.img" "$out/img/rootfs.ext4" && data_disk "$out/data.img"
t_ok $? "the disks: the root with a journal (tune2fs), the data disk (mke2fs -d)"
cp "$out/root.img" "$out/root-cut.img"
cp "$out/data.img" "$out/data-cut.img"
cp "$out/root.img" "$out/root-slow.img"
cp "$out/data.img" "$out/data-slow.img"
mke2fs -q -t ext4 -b 4096 -L slow "$out/slow.img" 32M >/dev/null
# the hung disk's root: a short bound, and a oneshot writing 4 MB to
# /slow that the power-off waits for
s=$out/slow-files
mkdir -p "$s"
{ cat rootfs/skel/etc/capinit/capinit.conf; echo "unmount-timeout = 4s"; } > "$s/capinit.conf"
printf '%s\n' "description = 4 MB on /slow, never synced" "type = oneshot" \
  "command = /bin/busybox dd if=/dev/zero of=/slow/junk bs=65536 count=64" > "$s/dirty.svc"
sed 's/^depends = writer hold$/depends = writer hold dirty/' tests/qemu/appliance-disks/etc/capinit/services/trigger.svc \
  > "$s/trigger.svc"
chmod 644 "$s"/*
grep -qx 'depends = writer hold dirty' "$s/trigger.svc"
t_ok $? "the hung disk's trigger waits for the 4 MB on /slow"
C=/etc/capinit
printf 'rm %s\nwrite %s %s\nrm %s\nwrite %s %s\nwrite %s %s\n' "$C/capinit.conf" "$s/capinit.conf" "$C/capinit.conf" \
  "$C/services/trigger.svc" "$s/trigger.svc" "$C/services/trigger.svc" "$s/dirty.svc" "$C/services/dirty.svc" > "$s/cmds"
debugfs -w -f "$s/cmds" "$out/root-slow.img" >/dev/null 2>&1
for f in capinit.conf services/trigger.svc services/dirty.svc; do
  debugfs -R "cat $C/$f" "$out/root-slow.img" 2>/dev/null | cmp -s - "$s/${f#services/}"
  t_ok $? "the hung disk's root: $C/$f written (debugfs)"
done

# ---------------------------------------------------------------- boots
# boot NAME ROOT DATA [QEMU ARGS...]: the appliance from ROOT, DATA as
# /dev/vdb; files in $out/NAME; sets end rc wall as qemu_watch does
boot() {
  b_dir=$out/$1 b_root=$2 b_data=$3
  shift 3
  qemu_watch "$b_dir" 600 0 -kernel "$kernel" -initrd "$out/img/stage1.cpio.gz" \
    -drive "file=$b_root,format=raw,if=virtio" -drive "file=$b_data,format=raw,if=virtio" "$@"
  tr -d '\r' < "$b_dir/results.txt" > "$b_dir/results" 2>/dev/null
  echo "$end $rc $wall" > "$b_dir/end"
}
# no_timer_check: under a heavy load, TCG's timer interrupt can miss the
# kernel's early IO-APIC check, which then panics ("IO-APIC + timer
# doesn't work!", seen with three boots at once on a loaded machine)
append="console=ttyS0 quiet panic=-1 no_timer_check root=/dev/vda rootfstype=ext4"

# clean IMAGE WHAT: no needs_recovery, state clean, e2fsck -fn finds nothing
clean() {
  feats=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Filesystem features:[[:space:]]*//p')
  state=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Filesystem state:[[:space:]]*//p')
  case " $feats " in *" needs_recovery "*) rec=needs_recovery ;; *) rec=no-recovery ;; esac
  t_eq "$rec $state" "no-recovery clean" "$2: dumpe2fs -h: no needs_recovery, state clean"
  e2fsck -fn "$1" > "$out/e2fsck.out" 2>&1
  st=$?
  t_eq "$st" 0 "$2: e2fsck -fn finds no error"
  [ $st = 0 ] || sed 's/^/#   /' "$out/e2fsck.out" | head -n 20
}
# records IMAGE FILE: "N" when FILE holds exactly records 1..N, else why not
records() {
  debugfs -R "cat $2" "$1" 2>/dev/null |
    awk '$0 != sprintf("record %08d", NR) { print "line " NR ": " $0; bad = 1; exit }
         END { if (!bad) print NR }'
}
last_ack() { sed -n 's/^ack \([0-9]*\)$/\1/p' "$1/results" | tail -n 1; }
first() { sed -n "s/^$2 \([0-9]*\)$/\1/p" "$1/results" | head -n 1; }

# cycle N DIR: the checks every cycle makes; $prev is what the disks held
cycle_checks() {
  n=$1 d=$2
  set -- $(cat "$d/end")
  t_eq "$1 $2" "exit 0" "cycle $n: QEMU exited 0 by itself (capctl poweroff; $3 ms)"
  t_eq "$(grep '^capinit: ' "$d/console.txt" | tail -n 1)" "capinit: power off" "cycle $n: capinit's last word is 'power off'"
  ack=$(last_ack "$d")
  t_eq "$(first "$d" start)" "$((prev + 1))" "cycle $n: the writer went on from record $((prev + 1)) (the disks held $prev)"
  [ "${ack:-0}" -ge $((prev + 100)) ]
  t_ok $? "cycle $n: at least 100 records acknowledged (to ${ack:-none})"
  clean "$out/root.img" "cycle $n: the root"
  clean "$out/data.img" "cycle $n: /data"
  t_eq "$(records "$out/root.img" /records)" "${ack:-?}" "cycle $n: /records on the root holds exactly records 1 to ${ack:-?}, the last acknowledged"
  t_eq "$(records "$out/data.img" /records)" "${ack:-?}" "cycle $n: /data/records holds exactly records 1 to ${ack:-?}"
  # after the services: every line of the shutdown is a step, none a warning
  t_eq "$(sed -n '/^capinit: every service is down$/,$p' "$d/console.txt" | grep -c 'warning:')" 0 \
    "cycle $n: no warning from the shutdown's steps"
  prev=${ack:-$prev}
  records_total=$((records_total + ack - $(first "$d" start) + 1))
}

prev=0
records_total=0
# cycle 1, the power cut and the hung disk at once
# (a shell says "Killed" of the QEMU it waits for: into cut.err)
boot cycle1 "$out/root.img" "$out/data.img" -append "$append" &
pa=$!
QEMU_KILL_ON="powercut ready" boot cut "$out/root-cut.img" "$out/data-cut.img" -append "$append capinit_test=powercut" \
  2>"$out/cut.err" &
pb=$!
boot slow "$out/root-slow.img" "$out/data-slow.img" \
  -drive "file=$out/slow.img,format=raw,if=virtio,throttling.bps-write=1,throttling.bps-write-max=1048576,throttling.bps-write-max-length=1" \
  -append "$append" &
pc=$!
wait $pa
wait $pb
wait $pc

# ---------------------------------------------------------------- cycle 1
d=$out/cycle1
con=$d/console.txt
cycle_checks 1 "$d"
has() { grep -Eq "$2" "$con"; t_ok $? "cycle 1: $1"; }
has "the root was mounted read-only by stage 1" '^stage1: /dev/vda \(ext4\) mounted read-only'
line_of() { grep -n "$1" tests/qemu/appliance-disks/etc/fstab | head -n 1 | cut -d: -f1; }
l=$(line_of ' /slow ')
has "/etc/fstab:$l: a nofail disk that is not there is a note" \
  "^capinit: /etc/fstab:$l: warning: /dev/vdc is not there \\(nofail\\): /slow not mounted\$"
l=$(line_of ' /nowhere ')
has "/etc/fstab:$l: a missing mount point is reported, the boot goes on" \
  "^capinit: /etc/fstab:$l: error: mount point /nowhere: No such file or directory\$"
has "fstab: /, /data, /scratch, /proc (there already), /data-auto of 7, the swap file" \
  '^capinit: fstab: 5 of 7 mounted, 1 of 1 swap areas on$'
at() { grep -nF "$1" "$con" | head -n 1 | cut -d: -f1; }
before() { # A B WHAT
  a=$(at "$1")
  b=$(at "$2")
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
  t_ok $? "cycle 1: $3"
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] || printf '#   "%s" at line %s, "%s" at line %s\n' "$1" "${a:-none}" "$2" "${b:-none}"
}
before "capinit: fstab: " "capinit: filecaps: " "the fstab before the file capabilities"
before "capinit: modules: " "capinit: fstab: " "the modules (the disks' drivers) before the fstab"
mnt() { sed -n "s|^mount $1 ||p" "$d/results" | tail -n 1; }
t_eq "$(mnt /)" "rw,relatime ext4 /dev/vda rw" "cycle 1: / remounted read-write with its fstab options (the kernel's mountinfo)"
t_eq "$(mnt /data)" "rw,nosuid,nodev,noatime ext4 /dev/vdb rw,commit=7" \
  "cycle 1: /data: rw,nosuid,nodev,noatime as flags, commit=7 to ext4"
t_eq "$(mnt /data-auto)" "rw,relatime ext4 /dev/vdb rw,commit=7" "cycle 1: /data-auto: type auto found ext4 (the same file system as /data)"
t_eq "$(mnt /scratch)" "rw,nosuid,noexec,relatime tmpfs tmpfs rw,size=1024k,mode=700,inode64" \
  "cycle 1: /scratch: a tmpfs with nosuid,noexec and its size and mode"
t_eq "$(grep -c -e '^mount /slow ' -e '^mount /nowhere ' -e '^mount /later ' "$d/results")" 0 \
  "cycle 1: nothing on /slow (nofail, absent), /nowhere (failed), /later (noauto)"
t_eq "$(grep -c '^mount /proc ' "$d/results")" 1 "cycle 1: /proc mounted once (the fstab's line found it there)"
t_eq "$(sed -n 's/^swap //p' "$d/results")" "/data/swapfile 7" "cycle 1: the swap file is on, priority 7 (pri=7)"
t_eq "$(sed -n 's/^loop //p' "$d/results")" "/data/loop.img" "cycle 1: the loop device holds /data/loop.img"
before "capinit: every service is down" "capinit: sending SIGTERM to every process left" "every service stopped, then SIGTERM"
before "capinit: sending SIGKILL to every process left" "capinit: swapoff /data/swapfile" "every process killed before swapoff"
before "capinit: swapoff /data/swapfile" "capinit: unmounted /data (ext4)" "swapoff before /data is unmounted"
before "capinit: unmounted /tmp (tmpfs)" "capinit: unmounted /scratch (tmpfs)" "newest first: /tmp (lockdown's) before /scratch"
before "capinit: unmounted /data-auto (ext4)" "capinit: unmounted /scratch (tmpfs)" "newest first: /data-auto before /scratch"
before "capinit: unmounted /scratch (tmpfs)" "capinit: unmounted /data (ext4)" "newest first: /scratch before /data"
before "capinit: detached /dev/loop0 (/data/loop.img)" "capinit: unmounted /data (ext4)" \
  "the loop device detached, then its file's /data unmounted"
before "capinit: unmounted /data (ext4)" "capinit: remounted / read-only" "then / remounted read-only"
before "capinit: remounted / read-only" "capinit: synced" "then sync"
before "capinit: synced" "capinit: power off" "then power off"
t_eq "$(sed -n '/^capinit: every service is down$/,$p' "$con" | grep -c -e 'unmounted /proc' -e 'unmounted /sys' -e 'unmounted /dev' -e 'unmounted /run')" 0 \
  "the API file systems stay mounted (/proc, /sys, /dev, /run and below)"

# ---------------------------------------------------------------- the power cut
d=$out/cut
set -- $(cat "$d/end")
t_eq "$1" killed "power cut: QEMU killed once the records flowed ($3 ms)"
cut_ack=$(last_ack "$d")
[ "${cut_ack:-0}" -ge 100 ]
t_ok $? "power cut: at least 100 records acknowledged (to ${cut_ack:-none})"
for img in root-cut data-cut; do
  feats=$(dumpe2fs -h "$out/$img.img" 2>/dev/null | sed -n 's/^Filesystem features:[[:space:]]*//p')
  case " $feats " in *" needs_recovery "*) st=0 ;; *) st=1 ;; esac
  t_ok $st "power cut: $img: needs_recovery (the negative control: the clean check fails here)"
  e2fsck -fy "$out/$img.img" > "$out/e2fsck-$img.out" 2>&1
  st=$?
  [ $st -le 1 ]
  t_ok $? "power cut: $img: e2fsck -fy replays the journal (exit $st)"
  [ $st -le 1 ] || sed 's/^/#   /' "$out/e2fsck-$img.out" | head -n 20
  e2fsck -fn "$out/$img.img" >/dev/null 2>&1
  t_eq "$?" 0 "power cut: $img: clean after the replay"
done
for pair in "root-cut /records" "data-cut /records"; do
  set -- $pair
  got=$(records "$out/$1.img" "$2")
  case $got in *[!0-9]*|'') st=1 ;; *) [ "$got" -ge "${cut_ack:-1}" ] && [ "$got" -le $((${cut_ack:-0} + 1)) ]; st=$? ;; esac
  t_ok $st "power cut: $1:$2 holds records 1 to $got: every acknowledged one (${cut_ack:-?}), at most one more"
done

# ---------------------------------------------------------------- the hung disk
d=$out/slow
con=$d/console.txt
set -- $(cat "$d/end")
t_eq "$1 $2" "exit 0" "hung disk: QEMU exited 0 by itself: PID 1 did not hang ($3 ms)"
t_eq "$(grep '^capinit: ' "$con" | tail -n 1)" "capinit: power off" "hung disk: capinit's last word is 'power off'"
has() { grep -Eq "$2" "$con"; t_ok $? "hung disk: $1"; }
has "/slow mounted from the fstab" '^capinit: fstab: 6 of 7 mounted, 1 of 1 swap areas on$'
has "its unmount made no progress for 4 s: detached" \
  '^capinit: warning: unmounting /slow \(ext4\): no progress for 4000 ms: detaching it \(MNT_DETACH\), its data may be lost$'
has "the last sync made no progress for 4 s: PID 1 went on" '^capinit: warning: sync: no progress for 4000 ms: going on$'
has "/data was unmounted all the same" '^capinit: unmounted /data \(ext4\)$'
has "and / remounted read-only" '^capinit: remounted / read-only$'
clean "$out/root-slow.img" "hung disk: the root"
clean "$out/data-slow.img" "hung disk: /data"
slow_ack=$(last_ack "$d")
t_eq "$(records "$out/root-slow.img" /records) $(records "$out/data-slow.img" /records)" "${slow_ack:-?} ${slow_ack:-?}" \
  "hung disk: /records and /data/records hold exactly the records acknowledged (${slow_ack:-?})"

# ---------------------------------------------------------------- more cycles
n=2
while [ $n -le "$cycles" ]; do
  boot cycle$n "$out/root.img" "$out/data.img" -append "$append"
  cycle_checks $n "$out/cycle$n"
  [ "$t_failed" = 0 ] && rm -rf "$out/cycle$n"
  n=$((n + 1))
done
t_end=$(ms)

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) / 1000 }'; }
echo "# figure: cycles=$cycles records=$records_total last=$prev cut_ack=${cut_ack:-0} seconds=$(secs "$t0" "$t_end")"
echo "# summary: $cycles boot/write/power-off cycles on the same two ext4 disks: both clean after each (e2fsck -fn, no needs_recovery), $records_total fsync'd records written, every acknowledged one on disk; power cut (control): both need recovery, every acknowledged record there after the replay; a hung disk: PID 1 powered off after 4 s on each stuck step, the other disks clean ($(secs "$t0" "$t_end") s)"
if [ "$t_failed" = 0 ]; then rm -rf "$out"; else echo "# the images, consoles and results are kept in $out"; fi
t_done
