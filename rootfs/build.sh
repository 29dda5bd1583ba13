#!/bin/sh
# rootfs/build.sh -- build the root-free appliance image (make image).
#
#   sh rootfs/build.sh [-n] [-K] [-f cpio|ext4|squashfs] [-o OVERLAY]...
#                      [-m MODULE]... BUILDDIR OUTDIR
#
# The appliance is declared in rootfs/skel/ (users, hostname, motd,
# /etc/capinit: services, filecaps, modules) and made of Debian's
# busybox-static, capinit, capctl, capexec and pinger (rootfs/pinger.c),
# all from BUILDDIR, with the kernel modules that /etc/capinit/modules
# names taken from Debian's kernel package unpacked in BUILDDIR/debs.
# An image for another architecture (BUILDDIR/arch: make ARCH=arm64 or
# armhf image) gets rootfs/arch/arm/root/ over skel/ and the stage-1
# module lists of rootfs/arch/arm/stage1/ (virtio is built into those
# kernels), and the image's programs that run here (busybox --list,
# capctl check and explain) run under qemu-user.
# Each OVERLAY directory is copied over the tree (the demo adds its
# runner this way); -m ships one more module without loading it.  -n
# only checks: the tree is made and every check below runs, nothing is
# written.  The kernel modules are shipped without Debian's signatures
# (see unsign below); -K keeps them, for a kernel that requires them.
#
# Into OUTDIR it writes
#   initramfs.cpio.gz    the whole appliance (-f cpio, the default): the
#                        kernel runs capinit from it; cpio has no xattrs,
#                        so capinit writes the filecaps manifest at boot
#   rootfs.ext4 | rootfs.squashfs   (-f ext4 | squashfs) the appliance,
#                        with its file capabilities set here (setcap,
#                        revision 2), kept by mke2fs -d and mksquashfs
#   stage1.cpio.gz       (disk formats) the stage-1 initramfs: loads the
#                        virtio and file-system modules, mounts root=
#                        read-only and switch_roots to capinit on it
#   report.txt           every service's predicted privileges (capctl
#                        explain, run in the image with chroot), every
#                        file capability, the image sizes
#   report.json          capctl explain --json of every service
#   format               the format built
#
# It refuses (exit 1, nothing written but the message): a set-user-ID or
# set-group-ID file; a world-writable file, or a world-writable directory
# without the sticky bit; a filecaps line for a file the image does not
# have, or for a multi-call binary; a module whose dependencies are not
# listed before it; a configuration capctl check rejects.  Needs root
# (ownership, setcap, chroot).
set -eu
LC_ALL=C
export LC_ALL

usage() { echo "usage: rootfs/build.sh [-n] [-K] [-f cpio|ext4|squashfs] [-o OVERLAY]... [-m MODULE]... BUILDDIR OUTDIR" >&2; exit 100; }
die() { echo "rootfs/build.sh: fatal: $*" >&2; exit 111; }
refuse() { echo "rootfs/build.sh: refused: $*" >&2; refused=1; }

format=cpio
overlays=
extra_modules=
check_only=
keep_signatures=
while getopts nKf:o:m: opt; do
  case $opt in
    n) check_only=1 ;;
    K) keep_signatures=1 ;;
    f) format=$OPTARG ;;
    o) [ -d "$OPTARG" ] || die "no overlay directory $OPTARG"; overlays="$overlays $(cd "$OPTARG" && pwd)" ;;
    m) extra_modules="$extra_modules $OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || usage
case $format in cpio|ext4|squashfs) ;; *) usage ;; esac
B=$(cd "$1" && pwd)
OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || die "needs root (file ownership, setcap, chroot): run as root"

BUSYBOX=$B/debs/busybox-static/bin/busybox
arch=$(cat "$B/arch" 2>/dev/null || dpkg --print-architecture)
# the image's own programs, run here: natively, or by qemu-user
emu=
archdir=
case $arch in
  arm64) emu=qemu-aarch64-static archdir=$here/arch/arm ;;
  armhf) emu=qemu-arm-static archdir=$here/arch/arm ;;
esac
if [ "$arch" = "$(dpkg --print-architecture)" ]; then
  emu=
elif [ -n "$emu" ]; then
  command -v "$emu" >/dev/null || die "$emu is missing (make ARCH=$arch image installs qemu-user-static)"
else
  die "no image for the architecture $arch (arm64, armhf, or this machine's)"
fi
for f in "$BUSYBOX" "$B/bin/capinit" "$B/bin/capctl" "$B/bin/capexec" "$B/rootfs/pinger" "$B/rootfs/netup" "$B/rootfs/lockdown"; do
  [ -x "$f" ] || die "$f is missing (make image builds it)"
done
for t in cpio gzip setcap getcap unshare chroot strings; do
  command -v $t >/dev/null || die "$t is missing (make image installs it)"
done
case $format in
  ext4) command -v mke2fs >/dev/null || die "mke2fs is missing (e2fsprogs)" ;;
  squashfs) command -v mksquashfs >/dev/null || die "mksquashfs is missing (squashfs-tools)" ;;
esac
pkg=$(cat "$B/debs/linux-image.name" 2>/dev/null) || die "no kernel: run sh tests/qemu/kernel.sh $B"
kdir=$(echo "$B/debs/$pkg"/lib/modules/*)
[ -d "$kdir" ] || die "no lib/modules in $B/debs/$pkg"
krel=${kdir##*/}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "$OUT/.work.XXXXXX")
trap '[ -n "${KEEP_W:-}" ] || rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
R=$W/root
refused=0

# ---------------------------------------------------------------- the tree
mkdir -p "$R"
chmod 755 "$R"
for d in bin sbin etc etc/profile.d dev proc sys run tmp root mnt srv/www usr/sbin \
         usr/libexec var "lib/modules/$krel"; do
  mkdir -p "$R/$d"
done
chmod 1777 "$R/tmp"
chmod 700 "$R/root"
# the logs are on /run (capinit.conf): the root is read-only at run time
ln -s ../run/log "$R/var/log"
cp "$BUSYBOX" "$R/bin/busybox"
for a in $($emu "$BUSYBOX" --list); do
  case $a in
    busybox|init|linuxrc) ;;  # capinit is the init
    *) ln -s busybox "$R/bin/$a" ;;
  esac
done
cp "$B/bin/capinit" "$R/sbin/init"
ln -s sbin/init "$R/init"
cp "$B/bin/capctl" "$B/bin/capexec" "$R/sbin/"
cp "$B/rootfs/pinger" "$R/usr/sbin/pinger"
cp "$B/rootfs/netup" "$R/usr/sbin/netup"
mkdir -p "$R/usr/libexec/appliance"
cp "$B/rootfs/lockdown" "$R/usr/libexec/appliance/lockdown"
# the kernel's console before devtmpfs is mounted
mknod -m 600 "$R/dev/console" c 5 1

# the declaration, then each overlay over it: a file replaces whatever is
# there (a symbolic link is removed first, never written through); modes
# are the source's, so the checks below see what was declared
copy_tree() { # SRC
  (cd "$1" && find . -mindepth 1 -type d) | while read -r d; do
    mkdir -p "$R/${d#./}"
  done
  (cd "$1" && find . ! -type d) | while read -r f; do
    f=${f#./}
    rm -f "$R/$f"
    cp -P --preserve=mode "$1/$f" "$R/$f"
  done
  (cd "$1" && find . -mindepth 1 -type d) | while read -r d; do
    chmod "$(stat -c %a "$1/$d")" "$R/${d#./}"
  done
}
copy_tree "$here/skel"
[ -z "$archdir" ] || copy_tree "$archdir/root"
for o in $overlays; do copy_tree "$o"; done

# root-free: no set-id file; nothing anyone may write.  Checked before
# the chown below (which clears set-id bits: a declared one must be
# refused, not silently dropped) and on the final tree again.
check_modes() {
  setid=$(cd "$R" && find . ! -type l -perm /6000 | sed 's/^\.//' | sort)
  for f in $setid; do refuse "$f is set-user-ID or set-group-ID ($(stat -c %A "$R$f")): a root-free image has none"; done
  ww=$(cd "$R" && find . ! -type l -perm -0002 \( ! -type d -o ! -perm -1000 \) | sed 's/^\.//' | sort)
  for f in $ww; do refuse "$f is world-writable ($(stat -c %A "$R$f")); only a directory with the sticky bit may be"; done
}
check_modes
[ "$refused" = 0 ] || { echo "rootfs/build.sh: nothing built" >&2; exit 1; }
chown -R -h 0:0 "$R"

# ---------------------------------------------------------------- modules
# Debian signs its modules, and its kernel checks a module's signature
# when it has one, but does not require one (no module.sig_enforce, no
# lockdown without Secure Boot): an unsigned module loads as well, and
# taints the kernel ("E").  The check is most of a module's load under
# QEMU's TCG (about 30 ms of the appliance's boot for each of its eight
# network modules, measured with capctl blame; docs/appliance.md), and
# protects nothing here: the modules come from the same image as PID 1,
# and whoever could load another module would not need it signed.  So
# the image carries them without the signature that Debian appends
# (module, signature, 12 bytes of struct module_signature whose last 4
# are the signature's length, big-endian, and a 28-byte magic).  -K keeps
# them, for a kernel booted to require signatures.
unsign() { # FILE
  [ -z "$keep_signatures" ] || return 0
  [ "$(tail -c 28 "$1")" = "$(printf '~Module signature appended~\n')" ] || return 0
  sig=$(tail -c 32 "$1" | head -c 4 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
  keep=$(( $(stat -c %s "$1") - 28 - 12 - sig ))
  [ "$keep" -gt 0 ] || { refuse "$1: a module signature longer than the module"; return 0; }
  head -c "$keep" "$1" > "$1.unsigned" && mv "$1.unsigned" "$1"
}
: > "$R/lib/modules/$krel/modules.dep"
ko_of() { (cd "$kdir" && find kernel -name "$1.ko" | head -n 1); }
deps_of() { strings -a "$kdir/$1" | sed -n 's/^depends=//p' | tr ',' ' '; }
shipped=" "
ship() { # NAME
  case $shipped in *" $1 "*) return 0 ;; esac
  ko=$(ko_of "$1")
  [ -n "$ko" ] || { refuse "module $1 is not in $pkg"; return 0; }
  mkdir -p "$R/lib/modules/$krel/$(dirname "$ko")"
  cp "$kdir/$ko" "$R/lib/modules/$krel/$ko"
  unsign "$R/lib/modules/$krel/$ko"
  depko=
  for d in $(deps_of "$ko"); do depko="$depko $(ko_of "$d")"; done
  echo "$ko:$depko" >> "$R/lib/modules/$krel/modules.dep"
  shipped="$shipped$1 "
}
# check_order LISTFILE WHAT: each module's dependencies are listed before it
check_order() {
  seen=" "
  for m in $(sed -e 's/#.*//' "$1"); do
    ko=$(ko_of "$m")
    if [ -z "$ko" ]; then refuse "$2: module $m is not in $pkg"; continue; fi
    for d in $(deps_of "$ko"); do
      case $seen in *" $d "*) ;; *) refuse "$2: module $m depends on $d: list $d before it (capinit resolves no dependency)" ;; esac
    done
    seen="$seen$m "
  done
}
modules_file=$R/etc/capinit/modules
if [ -f "$modules_file" ]; then
  check_order "$modules_file" /etc/capinit/modules
  for m in $(sed -e 's/#.*//' "$modules_file"); do ship "$m"; done
fi
# extra modules, shipped but not loaded, with their dependencies
ship_all() { for d in $(deps_of "$(ko_of "$1")"); do ship_all "$d"; done; ship "$1"; }
for m in $extra_modules; do
  [ -n "$(ko_of "$m")" ] || { refuse "-m $m: no such module in $pkg"; continue; }
  ship_all "$m"
done

# ---------------------------------------------------------------- checks
check_modes
stage1_modules=$here/stage1/modules-$format
[ -z "$archdir" ] || [ ! -f "$archdir/stage1/modules-$format" ] || stage1_modules=$archdir/stage1/modules-$format
[ "$format" = cpio ] || check_order "$stage1_modules" "rootfs/${stage1_modules#"$here/"}"

# the services: valid as capinit will load them, users from the image
if ! check_out=$($emu "$B/bin/capctl" check -R "$R" -c "$R/etc/capinit" 2>&1); then
  echo "$check_out" | sed "s|$R||g" >&2
  refuse "capctl check rejects the configuration"
elif [ -n "$check_out" ]; then
  echo "$check_out" | sed "s|$R||g" >&2
fi

# the file capabilities, written here on the staging tree: the disk
# images keep them, and explain below sees them; the cpio drops them and
# capinit writes them again at boot
filecaps_file=$R/etc/capinit/filecaps
fcaps=
if [ -f "$filecaps_file" ]; then
  n=0
  set -f
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case $line in ''|'#'*) continue ;; esac
    set -- $line
    [ $# = 2 ] || { refuse "/etc/capinit/filecaps:$n: not PATH CAPTEXT: $line"; continue; }
    p=$1 caps=$2
    case $p in /*) ;; *) refuse "/etc/capinit/filecaps:$n: $p is not an absolute path"; continue ;; esac
    if [ -L "$R$p" ] || [ ! -f "$R$p" ]; then
      refuse "/etc/capinit/filecaps:$n: $p is not a regular file of the image"
      continue
    fi
    if grep -qaF -e 'BusyBox v' -e 'Toybox ' "$R$p"; then
      refuse "/etc/capinit/filecaps:$n: $p is a multi-call binary: every applet would get $caps"
      continue
    fi
    setcap "$caps" "$R$p" || { refuse "/etc/capinit/filecaps:$n: setcap $caps $p failed"; continue; }
    # revision 2: no namespace root id (setcap in a user namespace writes
    # revision 3 with one, which the guest's initial namespace ignores)
    case $(getcap -n "$R$p") in
      *rootid=*) refuse "/etc/capinit/filecaps:$n: setcap wrote a namespaced (revision 3) capability on $p: build outside user namespaces"; continue ;;
    esac
    fcaps="$fcaps $p"
  done < "$filecaps_file"
  set +f
fi
[ "$refused" = 0 ] || { echo "rootfs/build.sh: nothing built" >&2; exit 1; }
if [ -n "$check_only" ]; then
  echo "rootfs/build.sh: every check passed (-n: nothing written)"
  exit 0
fi

# ---------------------------------------------------------------- report
services=$(cd "$R/etc/capinit/services" && ls *.svc 2>/dev/null | sed 's/\.svc$//')
# explain reads users from /etc/passwd and the command from its path:
# run it inside the tree, with a /proc of its own, the tree a mount of its
# own (so that explain can mount a container's binds to look through), and
# for another architecture with qemu-user, copied to a tmpfs on the
# tree's /tmp that only this mount namespace sees
# shellcheck disable=SC2016
in_image() {
  unshare --mount --propagation private sh -c '
    r=$1 emu=$2
    shift 2
    mount --bind "$r" "$r" && mount -t proc proc "$r/proc" || exit 111
    [ -n "$emu" ] || exec chroot "$r" "$@"
    mount -t tmpfs -o mode=0755 emu "$r/tmp" && cp "$(command -v "$emu")" "$r/tmp/emu" || exit 111
    exec chroot "$r" /tmp/emu "$@"' sh "$R" "$emu" "$@"
}
in_image /sbin/capctl explain $services > "$W/explain.txt" 2>"$W/explain.err" ||
  { cat "$W/explain.err" >&2; die "capctl explain failed in the image"; }
in_image /sbin/capctl explain --json $services > "$W/report.json" 2>>"$W/explain.err" ||
  { cat "$W/explain.err" >&2; die "capctl explain --json failed in the image"; }

# ---------------------------------------------------------------- pack
pack_cpio() { # DIR OUT [find args]
  (cd "$1" && find . | sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -9 > "$2"
}
rm -f "$OUT/initramfs.cpio.gz" "$OUT/rootfs.ext4" "$OUT/rootfs.squashfs" "$OUT/stage1.cpio.gz"
size() { stat -c %s "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1048576 }'; }
# the compressed size without the kernel modules (the issue's 3 MB budget)
(cd "$R" && find . -path ./lib/modules -prune -o -print | sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -9 > "$W/nomod.cpio.gz"
nomod=$(size "$W/nomod.cpio.gz")
modsize=$(du -sb "$R/lib/modules" | cut -f1)
treesize=$(du -sb "$R" | cut -f1)
case $format in
  cpio)
    pack_cpio "$R" "$OUT/initramfs.cpio.gz"
    sizes="initramfs.cpio.gz: $(size "$OUT/initramfs.cpio.gz") bytes ($(mb "$(size "$OUT/initramfs.cpio.gz")")); without the kernel modules $nomod bytes ($(mb "$nomod"))"
    ;;
  ext4|squashfs)
    if [ "$format" = ext4 ]; then
      # read-only at run time: no journal; 1 KiB blocks, 30 % and 1 MiB spare
      kb=$(( treesize * 13 / 10240 + 1024 ))
      mke2fs -q -t ext4 -b 1024 -I 256 -O ^has_journal -L appliance -E root_owner=0:0 \
        -d "$R" "$OUT/rootfs.ext4" "$kb" >/dev/null || die "mke2fs failed"
    else
      mksquashfs "$R" "$OUT/rootfs.squashfs" -noappend -all-root -xattrs -comp xz -quiet >/dev/null ||
        die "mksquashfs failed"
    fi
    # stage 1: busybox, its /init, the block and file-system modules
    S=$W/stage1
    mkdir -p "$S/bin" "$S/dev" "$S/proc" "$S/newroot" "$S/etc/capinit" "$S/lib/modules/$krel"
    cp "$BUSYBOX" "$S/bin/busybox"
    for a in sh mount umount insmod sed cat sleep uname switch_root; do ln -s busybox "$S/bin/$a"; done
    cp "$here/stage1/init" "$S/init"
    chmod 755 "$S/init"
    cp "$stage1_modules" "$S/etc/capinit/modules"
    mknod -m 600 "$S/dev/console" c 5 1
    for m in $(sed -e 's/#.*//' "$S/etc/capinit/modules"); do
      ko=$(ko_of "$m")
      mkdir -p "$S/lib/modules/$krel/$(dirname "$ko")"
      cp "$kdir/$ko" "$S/lib/modules/$krel/$ko"
      unsign "$S/lib/modules/$krel/$ko"
      echo "$ko:" >> "$S/lib/modules/$krel/modules.dep"
    done
    chown -R -h 0:0 "$S"
    pack_cpio "$S" "$OUT/stage1.cpio.gz"
    img=$OUT/rootfs.$format
    sizes="rootfs.$format: $(size "$img") bytes ($(mb "$(size "$img")")); stage1.cpio.gz: $(size "$OUT/stage1.cpio.gz") bytes ($(mb "$(size "$OUT/stage1.cpio.gz")"))
as an initramfs it would be $nomod bytes compressed without the kernel modules ($(mb "$nomod"))"
    ;;
esac
mv "$W/report.json" "$OUT/report.json"
echo "$format" > "$OUT/format"

# ---------------------------------------------------------------- report.txt
{
  echo "capinit appliance: $format image, built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "overlays:${overlays:- none}"
  echo "architecture: $arch${emu:+ (its programs ran here under $emu)}"
  echo "kernel: $pkg ($krel)"
  echo
  echo "== sizes"
  echo "$sizes"
  echo "tree: $treesize bytes, of which kernel modules $modsize bytes ($(echo $shipped | wc -w) modules)"
  echo
  echo "== services: predicted privileges (capctl explain, in the image)"
  awk '
    /^[^ ]/ { name = $1; next }
    /^  / {
      k = $1; v = $0; sub(/^  [^ ]+ +/, "", v)
      if (k == "uid") uid = $2
      if (k == "securebits") mode = (v ~ /noroot/) ? "noroot" : "legacy"
      if (k == "permitted") prm = v
      if (k == "no_new_privs") nnp = v
      if (k == "launch" && v != "ok") { printf "  %-9s REFUSED: %s\n", name, v }
      if (k == "exposure") {
        if (!shown) printf "  %-9s uid %-5s %-6s nnp %-3s  permitted: %s\n", name, uid, mode, nnp, prm
        shown = 1
        printf "  %-9s   %s\n", "", v
      }
      next
    }
    /^$/ { shown = 0 }' "$W/explain.txt"
  echo
  echo "launcher: this report's explain ran as root on the build host, in the image (chroot)."
  bnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)
  full=$(printf '%016x' $(( (1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1 )))
  if [ "$bnd" != "$full" ]; then
    echo "  Its bounding set is $bnd, not $full: what it lacks is missing above from"
    echo "  legacy root's sets, and not from capinit's in the guest."
  fi
  echo
  sed -e 's/^/  /' -e 's/^  $//' "$W/explain.txt"
  echo "== file capabilities (/etc/capinit/filecaps)"
  if [ -n "$fcaps" ]; then
    for p in $fcaps; do
      echo "  $(getcap -n "$R$p" | sed "s|^$R||")  (security.capability revision 2)"
    done
  else
    echo "  none"
  fi
  case $format in
    cpio) echo "  (cpio keeps no xattrs: capinit writes them at boot, on the initramfs's tmpfs root)" ;;
    *) echo "  (set at build time; capinit verifies them on the read-only root)" ;;
  esac
  echo
  echo "== kernel modules"
  echo "  loaded by capinit (/etc/capinit/modules):$(sed -e 's/#.*//' "$modules_file" 2>/dev/null | tr '\n' ' ' | tr -s ' ' | sed 's/^\([^ ]\)/ \1/')"
  [ -z "$extra_modules" ] || echo "  shipped, not loaded:$extra_modules"
  [ "$format" = cpio ] || echo "  stage 1 ($format):$(sed -e 's/#.*//' "$stage1_modules" | tr '\n' ' ' | tr -s ' ' | sed 's/^\([^ ]\)/ \1/')"
  echo
  echo "== checks"
  echo "  no set-user-ID or set-group-ID file; nothing world-writable but sticky directories:"
  (cd "$R" && find . ! -type l -perm -0002 | sed 's/^\./    /')
  echo "  capctl check: ${check_out:-no problem}"
} > "$OUT/report.txt"
echo "rootfs/build.sh: $format image in $OUT: $(echo "$sizes" | head -n 1)"
