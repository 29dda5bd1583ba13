# tests/qemu/mini.sh -- what the tests that boot Debian's stock 6.1 on an
# initramfs of their own share (test_learn_kprobe.sh,
# test_netcard_kernel.sh); sourced after tests/lib.sh, with B the build
# directory and T a temporary directory.
#
# mini_kernel NAME FILE...: on a build that is not amd64's, a skip (the
# guest is qemu-system-x86_64's) and the test ends; else kernel, the
# unpacked kernel package's vmlinuz, and PKG its directory; the test ends
# with NAME's error if it or a FILE is missing.
# mini_root APPLET...: R, the initramfs's tree under T: busybox-static
# with those applets, /b (the test's programs), /etc/passwd and /etc/group
# of root alone, /proc, /sys, /dev, /tmp.  The test writes R/init,
# which mounts devtmpfs on /dev first thing: the initramfs's /dev holds
# only the console, so a `2>/dev/null` would make a regular file there,
# and a command in the background (ash opens /dev/null for its stdin)
# would end with status 2, "can't open '/dev/null'", whenever it ran
# before the first such redirection had made that file.
# mini_boot MEGABYTES: R packed and booted (TCG, no network, 300 s at
# most), until the guest's init powers off; the check that it printed
# DONE; C, its console without CRs.
mini_kernel() {
  name=$1
  shift
  if [ "$(cat "$B/arch" 2>/dev/null)" != amd64 ]; then
    echo "ok 1 - # SKIP the build is not amd64's"
    echo "1..1"
    exit 0
  fi
  PKG=$B/debs/$(cat "$B/debs/linux-image.name" 2>/dev/null)
  kernel=$(echo "$PKG"/boot/vmlinuz-*)
  for f in "$kernel" "$B/debs/busybox-static/bin/busybox" "$@"; do
    [ -f "$f" ] || { echo "$name: $f is missing (make check builds it)" >&2; exit 1; }
  done
}

mini_root() {
  R=$T/root
  mkdir -p "$R/bin" "$R/b" "$R/etc" "$R/proc" "$R/sys" "$R/dev" "$R/tmp"
  cp "$B/debs/busybox-static/bin/busybox" "$R/bin/busybox"
  for a in "$@"; do ln -s busybox "$R/bin/$a"; done
  echo 'root:x:0:0:root:/:/bin/sh' >"$R/etc/passwd"
  echo 'root:x:0:' >"$R/etc/group"
}

mini_boot() {
  chmod 755 "$R/init"
  (cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -1 >"$T/initrd.gz"
  timeout 300 qemu-system-x86_64 -accel tcg -m "$1" -display none -no-reboot -net none -kernel "$kernel" \
    -initrd "$T/initrd.gz" -append "console=ttyS0 quiet panic=-1" -serial "file:$T/console" \
    </dev/null >"$T/qemu.out" 2>&1
  t_eq "$?:$(grep -c '^DONE' "$T/console")" "0:1" "the guest ran its script and powered off"
  C=$(tr -d '\r' <"$T/console")
}
