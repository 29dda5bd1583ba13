#!/bin/sh
# tests/qemu/mkinitramfs.sh BUILDDIR SCENARIO OUT -- a minimal initramfs
# (cpio newc, gzip) for one QEMU test scenario:
#
#   /bin/busybox and its applets (symlinks from `busybox --list`; busybox
#     is never run inside to install them), from Debian's busybox-static
#     unpacked in BUILDDIR/debs
#   /sbin/init = capinit, /init -> sbin/init, /sbin/capctl, /sbin/capexec
#   /test/: the credentials probe, svc_helper, guest_tool, tap.sh (the
#     runners' TAP helpers: guest_tap.sh), trigger.sh (the shutdown
#     scenarios' trigger: guest_trigger.sh; a scenario's own replaces
#     it), and for the main
#     scenario the fixtures: setuid-probe (a setuid-root copy of the probe,
#     the only setuid file) and fcap-svc (a copy of svc_helper that gets
#     cap_net_raw+ep at boot from the filecaps manifest: cpio carries no
#     xattrs), peek (tests/peek.c: reads /proc/PID/environ, maps, mem),
#     syscall_try (tests/syscall_try.c: the calls the filter denies) and
#     /var/attack, mode 1777: the only directory its attack services may
#     write; /var/victim, root's, the writable path of victim0
#   /etc/passwd, /etc/group, /etc/hostname
#   tests/qemu/scenarios/SCENARIO/ copied over it (its /etc/capinit...)
#   every module named in the scenario's /etc/capinit/modules, from the
#     unpacked Debian kernel, with a modules.dep of just what is shipped
#     (a module with dependencies is refused: nothing resolves them here)
set -eu
B=$1
scenario=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
overlay=$here/scenarios/$scenario
BUSYBOX=$B/debs/busybox-static/bin/busybox

die() { echo "mkinitramfs: fatal: $*" >&2; exit 111; }
[ -d "$overlay" ] || die "no scenario $scenario ($overlay)"
for f in "$BUSYBOX" "$B/bin/capinit" "$B/bin/capctl" "$B/bin/capexec" \
         "$B/tests/probe" "$B/tests/svc_helper" "$B/tests/qemu_tool" "$B/tests/peek" "$B/tests/syscall_try"; do
  [ -x "$f" ] || die "$f is missing (make check builds it)"
done
pkg=$(cat "$B/debs/linux-image.name" 2>/dev/null) || die "no kernel: run sh tests/qemu/kernel.sh $B"
kdir=$(echo "$B/debs/$pkg"/lib/modules/*)
[ -d "$kdir" ] || die "no lib/modules in $B/debs/$pkg"
krel=${kdir##*/}

R=$(mktemp -d)
trap 'rm -rf "$R"' EXIT
chmod 755 "$R"
mkdir -p "$R/bin" "$R/sbin" "$R/etc" "$R/dev" "$R/proc" "$R/sys" "$R/run" \
  "$R/tmp" "$R/var/log" "$R/root" "$R/srv/www" "$R/test" "$R/lib/modules/$krel"
chmod 1777 "$R/tmp"
chmod 700 "$R/root"

cp "$BUSYBOX" "$R/bin/busybox"
for a in $("$BUSYBOX" --list); do
  case $a in
    busybox|init|linuxrc) ;;  # capinit is the init
    *) ln -s busybox "$R/bin/$a" ;;
  esac
done
cp "$B/bin/capinit" "$R/sbin/init"
ln -s sbin/init "$R/init"
cp "$B/bin/capctl" "$B/bin/capexec" "$R/sbin/"
cp "$B/tests/probe" "$B/tests/svc_helper" "$R/test/"
cp "$B/tests/qemu_tool" "$R/test/tool"
cp "$here/guest_tap.sh" "$R/test/tap.sh"
cp "$here/guest_trigger.sh" "$R/test/trigger.sh"
if [ "$scenario" = main ]; then
  cp "$B/tests/probe" "$R/test/setuid-probe"
  chmod 4755 "$R/test/setuid-probe"
  cp "$B/tests/svc_helper" "$R/test/fcap-svc"
  cp "$B/tests/peek" "$R/test/peek"
  cp "$B/tests/syscall_try" "$R/test/syscall_try"
  mkdir -m 1777 "$R/var/attack"
  mkdir -m 755 "$R/var/victim"
fi
# an early console for the kernel and capinit, before devtmpfs is mounted
mknod -m 600 "$R/dev/console" c 5 1 2>/dev/null || true

cat > "$R/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
syslog:x:101:101:syslogd:/nonexistent:/bin/false
www:x:80:80:web server:/srv/www:/bin/false
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat > "$R/etc/group" <<'EOF'
root:x:0:
tty:x:5:
syslog:x:101:
www:x:80:
nogroup:x:65534:
EOF
echo "capinit-$scenario" > "$R/etc/hostname"
echo "capinit-www-ok" > "$R/srv/www/index.html"

# the scenario, over the base: a file replaces whatever is there (a
# symlink to busybox is removed first, never written through)
(cd "$overlay" && find . -type f) | while read -r f; do
  f=${f#./}
  mkdir -p "$R/$(dirname "$f")"
  rm -f "$R/$f"
  cp "$overlay/$f" "$R/$f"
  case $f in
    bin/*|sbin/*|test/*) chmod 755 "$R/$f" ;;
    *) chmod 644 "$R/$f" ;;
  esac
done

: > "$R/lib/modules/$krel/modules.dep"
if [ -f "$R/etc/capinit/modules" ]; then
  for m in $(sed -e 's/#.*//' "$R/etc/capinit/modules"); do
    ko=$(cd "$kdir" && find kernel -name "$m.ko" | head -n 1)
    [ -n "$ko" ] || die "module $m is not in $kdir"
    deps=$(strings -a "$kdir/$ko" | sed -n 's/^depends=//p')
    [ -z "$deps" ] || die "module $m depends on $deps: ship and list those too"
    mkdir -p "$R/lib/modules/$krel/$(dirname "$ko")"
    cp "$kdir/$ko" "$R/lib/modules/$krel/$ko"
    echo "$ko:" >> "$R/lib/modules/$krel/modules.dep"
  done
fi

# root-free but for the one deliberate fixture
suid=$(cd "$R" && find . -perm /6000 \( -type f -o -type d \) | sort | tr '\n' ' ')
case $scenario in
  main) want="./test/setuid-probe " ;;
  *) want= ;;
esac
[ "$suid" = "$want" ] || die "set-id files: '$suid', want '$want'"

mkdir -p "$(dirname "$out")"
(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -6 > "$out.tmp"
mv "$out.tmp" "$out"
