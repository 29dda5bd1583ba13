#!/bin/sh
# tests/debian/test_package.sh BUILDDIR -- capinit's Debian package (make
# deb, issue 38), judged by Debian's own tools in a fresh Debian 12 root:
#
#   lintian    the packages of amd64, arm64 and armhf: no error, no
#              warning; the four static programs overridden, with the
#              reason in the override file; each holds its architecture's
#              programs (file(1))
#   install    in a root made by mmdebstrap with systemd as its init (and
#              man-db, grub2-common): dpkg -i succeeds; /sbin/init is still
#              systemd; man capinit, capctl, capexec, capinit.svc work;
#              capctl import and learn run /usr/lib/capinit/capctl-import, -learn;
#              capctl check of the empty configuration says it is empty;
#              policy-rc.d is capinit's, and says no only under a PID 1
#              named capinit (101), yes otherwise (0)
#   grub       update-grub (postinst) adds "Debian GNU/Linux, with capinit"
#              with init=/usr/sbin/capinit, after the default entry, which
#              has no init=; control: the menu before the install has none
#   upgrade    dpkg -i of a newer build keeps the administrator's service
#              file and capinit.conf, byte for byte
#   remove     dpkg -r: the programs, the man pages, the policy-rc.d
#              alternative and the menu entry are gone; the conffiles stay;
#              /sbin/init is systemd
#   purge      dpkg -P: the conffiles and /etc/capinit go; the root is what
#              it was before the install (find, against the list before),
#              but for the administrator's own service file, which dpkg
#              keeps; a second install and purge, without one, leaves
#              nothing at all
#
# The root is made once (BUILDDIR/debian/pkgroot.tar, its .deb files from
# make debian's cache) and unpacked afresh for each run.  Runs as root.
B=${1:-build}
. tests/lib.sh
D=$B/debian
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb=$B/deb/capinit_${version}_amd64.deb
T=$(mktemp -d "${TMPDIR:-/tmp}/capinit-package.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------ lintian
for a in amd64 arm64 armhf; do
  f=$B/deb/capinit_${version}_$a.deb
  if [ ! -f "$f" ]; then
    t_ok 1 "$a: $f exists (make ARCH=$a deb)"
    continue
  fi
  lintian --pedantic --show-overrides "$f" > "$T/lintian.$a" 2>&1
  t_eq "$(grep -c '^[EW]:' "$T/lintian.$a")" 0 "lintian, $a: no error and no warning"
  grep '^[EW]:' "$T/lintian.$a" | sed 's/^/#   /'
  t_eq "$(grep -c '^O: capinit: statically-linked-binary \[usr/\(sbin/cap\(init\|ctl\|exec\)\|lib/capinit/capctl-\(import\|learn\)\)\]$' \
    "$T/lintian.$a")" 5 "... capinit, capctl, capexec, capctl-import and capctl-learn: statically-linked-binary overridden"
  t_eq "$(dpkg-deb -f "$f" Package Version Architecture | tr '\n' ' ')" \
    "Package: capinit Version: $version Architecture: $a " "... its control: capinit $version $a"
  mkdir -p "$T/x.$a"
  dpkg-deb -x "$f" "$T/x.$a"
  case $a in
    amd64) want="x86-64" ;;
    arm64) want="ARM aarch64" ;;
    armhf) want="ARM, EABI5" ;;
  esac
  n=$(for p in sbin/capinit sbin/capctl sbin/capexec lib/capinit/capctl-import lib/capinit/capctl-learn; do file -b "$T/x.$a/usr/$p"; done |
    grep -c "$want.*statically linked")
  t_eq "$n" 5 "... its five programs (capctl-import and capctl-learn in /usr/lib/capinit) are static $want executables"
done

# ------------------------------------------------ the fresh root
sources=$D/debian.sources
[ -s "$sources" ] || sources=$D/sources.list
recipe="mmdebstrap --mode=root --format=tar --variant=apt --include=systemd,systemd-sysv,man-db,grub2-common bookworm"
key=$(echo "$recipe" | sha256sum | cut -c1-16)
if [ "$(cat "$D/pkgroot.key" 2>/dev/null)" != "$key" ] || [ ! -s "$D/pkgroot.tar" ]; then
  echo "# making a fresh Debian 12 root with systemd (mmdebstrap, once: $D/pkgroot.tar)"
  mkdir -p "$D/cache"
  rm -f "$D/pkgroot.tar" "$D/pkgroot.key"
  $recipe \
    --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
    --setup-hook="sync-in '$D/cache' /var/cache/apt/archives" \
    --customize-hook="sync-out /var/cache/apt/archives '$D/cache'" \
    --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
    "$D/pkgroot.tar.new" "$sources" > "$T/mmdebstrap.log" 2>&1 ||
    { tail -n 20 "$T/mmdebstrap.log" | sed 's/^/#   /'; echo "Bail out! mmdebstrap failed"; exit 1; }
  mv "$D/pkgroot.tar.new" "$D/pkgroot.tar"
  echo "$key" > "$D/pkgroot.key"
fi
R=$T/root
mkdir -p "$R"
tar -C "$R" -xf "$D/pkgroot.tar" || { echo "Bail out! unable to unpack $D/pkgroot.tar"; exit 1; }
cp "$deb" "$R/tmp/capinit.deb"
DEB_VERSION=$version+upgrade1 sh mk/deb.sh "$B" amd64 "$version" "$T/newer" > /dev/null &&
  cp "$T/newer/capinit_$version+upgrade1_amd64.deb" "$R/tmp/capinit-newer.deb"
t_ok $? "a newer package ($version+upgrade1) of the same build, for the upgrade"

# CMD... in the root, its own mount namespace: the root a mount of its own
# (grub-probe finds its device), /proc, /dev and /sys; a clean environment
inroot() {
  unshare --mount --propagation private sh -c '
    r=$1; shift
    mount --bind "$r" "$r" && mount -t proc proc "$r/proc" &&
      mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" || exit 111
    exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
      DEBIAN_FRONTEND=noninteractive "$@"' sh "$R" "$@" < /dev/null
}
# the root's files, but those its package manager and caches keep changing
snapshot() {
  inroot find / -xdev \( -path /proc -o -path /dev -o -path /sys -o -path /tmp -o -path /var/lib/dpkg \
    -o -path /var/log -o -path /var/cache -o -path /boot/grub \) -prune -o -print | sort
}
# the capinit entry's lines of the menu, and the default entry's kernel line
menu_capinit() { sed -n "/^menuentry 'Debian GNU\/Linux, with capinit'/,/^}/p" "$R/boot/grub/grub.cfg"; }

# a kernel and its initrd for update-grub to find (GRUB reads neither here)
kver=6.1.0-99-amd64
touch "$R/boot/vmlinuz-$kver" "$R/boot/initrd.img-$kver"
mkdir -p "$R/boot/grub"
# /etc/default/grub, as grub-pc's postinst writes it from its template
cp "$R/usr/share/grub/default/grub" "$R/etc/default/grub"
inroot update-grub > "$T/grub0.log" 2>&1
t_ok $? "update-grub before the install (the menu for the control)"
sed 's/^/#   /' "$T/grub0.log" | tail -n 5
t_eq "$(grep -c '^menuentry ' "$R/boot/grub/grub.cfg"):$(menu_capinit | wc -l)" "1:0" \
  "control: the menu has Debian's entry and nothing of capinit"
before=$T/before.list
snapshot > "$before"

# ------------------------------------------------ install
t_eq "$(inroot readlink -f /sbin/init)" /usr/lib/systemd/systemd "control: the root's init is systemd"
inroot dpkg -i /tmp/capinit.deb > "$T/install.log" 2>&1
t_ok $? "dpkg -i capinit_${version}_amd64.deb succeeds beside systemd"
sed 's/^/#   /' "$T/install.log" | tail -n 8
t_eq "$(inroot dpkg-query -W -f '${Package} ${Status}\n' capinit systemd-sysv)" \
  "capinit install ok installed
systemd-sysv install ok installed" "capinit and systemd-sysv both installed"
t_eq "$(inroot readlink -f /sbin/init)" /usr/lib/systemd/systemd "/sbin/init is still systemd's"
for m in capinit capctl capexec capinit.svc; do
  t_eq "$(inroot man -P cat "$m" 2>/dev/null | grep -A1 '^NAME' | sed -n 2p | sed 's/^ *//; s/ - .*//')" \
    "$m" "man $m shows its page"
done
t_eq "$(inroot capctl import --help 2>&1 | head -n 1)" "usage: capctl import [-R ROOT] [-o DIR] [--allow-weaker] UNIT..." \
  "capctl import runs /usr/lib/capinit/capctl-import"
t_eq "$(inroot capctl learn --help 2>&1 | head -n 1)" "usage: capctl learn [--time SECONDS] [--check CMD] [--fresh PATH]... FILE.svc" \
  "capctl learn runs /usr/lib/capinit/capctl-learn"
t_eq "$(inroot capctl check 2>&1; echo "exit $?")" \
  "capctl: no service files in /etc/capinit/services: capinit would start no service (one NAME.svc file each, capinit.svc(5))
exit 0" "capctl check of the empty configuration: valid, and it says so"
t_eq "$(inroot readlink -f /usr/sbin/policy-rc.d)" /usr/lib/capinit/policy-rc.d \
  "policy-rc.d is capinit's (update-alternatives)"
inroot policy-rc.d --quiet cron start; t_eq "$?" 0 "... which allows invoke-rc.d's actions under another PID 1"
# a PID namespace whose PID 1 is a program named capinit
cp "$R/usr/bin/sh" "$R/tmp/capinit"
inroot unshare --pid --fork --mount-proc /tmp/capinit -c 'cat /proc/1/comm; policy-rc.d --quiet cron start; echo $?' \
  > "$T/ns.out" 2>&1
t_eq "$(cat "$T/ns.out" | tr '\n' ' ')" "capinit 101 " "... and forbids them (101) when PID 1 is capinit"
rm -f "$R/tmp/capinit"
t_eq "$(menu_capinit | grep -c "^[[:space:]]*linux[[:space:]].*/vmlinuz-$kver root=.* ro .*init=/usr/sbin/capinit\$")" 1 \
  "GRUB's menu (update-grub by postinst): 'Debian GNU/Linux, with capinit' boots $kver with init=/usr/sbin/capinit"
t_eq "$(grep '^menuentry ' "$R/boot/grub/grub.cfg" | sed 's/ --class.*//')" \
  "menuentry 'Debian GNU/Linux'
menuentry 'Debian GNU/Linux, with capinit'" "... after Debian's entry, the first and default one"
t_eq "$(sed -n "/^menuentry 'Debian GNU\/Linux'/,/^}/p" "$R/boot/grub/grub.cfg" | grep -c 'init=')" 0 \
  "... whose kernel line has no init= (systemd)"
t_eq "$(grep -c "^[[:space:]]*set default=\"0\"\$" "$R/boot/grub/grub.cfg")" 1 "... and the default is still entry 0"

# ------------------------------------------------ upgrade
printf 'command = /bin/sleep 1000\nuser = nobody\nmode = noroot\n' > "$R/etc/capinit/services/sleeper.svc"
printf 'log-keep = 3\n' >> "$R/etc/capinit/capinit.conf"
sum_before=$(cat "$R/etc/capinit/services/sleeper.svc" "$R/etc/capinit/capinit.conf" | md5sum)
inroot dpkg -i /tmp/capinit-newer.deb > "$T/upgrade.log" 2>&1
t_ok $? "dpkg -i of $version+upgrade1 over $version succeeds (no question asked)"
t_eq "$(inroot dpkg-query -W -f '${Version}' capinit)" "$version+upgrade1" "... the newer version is installed"
t_eq "$(cat "$R/etc/capinit/services/sleeper.svc" "$R/etc/capinit/capinit.conf" | md5sum)" "$sum_before" \
  "... the administrator's service file and capinit.conf are kept, byte for byte"
t_eq "$(inroot capctl check 2>&1; echo "exit $?")" "exit 0" "... and capctl check accepts them"

# ------------------------------------------------ remove
inroot dpkg -r capinit > "$T/remove.log" 2>&1
t_ok $? "dpkg -r capinit succeeds"
n=0
for f in /usr/sbin/capinit /usr/sbin/capctl /usr/sbin/capexec /usr/lib/capinit/capctl-import /usr/lib/capinit/capctl-learn \
         /usr/share/man/man8/capinit.8.gz /usr/lib/capinit/policy-rc.d /usr/sbin/policy-rc.d /etc/alternatives/policy-rc.d; do
  [ -e "$R$f" ] || [ -L "$R$f" ] && { echo "# still there: $f"; n=$((n + 1)); }
done
t_eq "$n" 0 "... the programs, the man pages and the policy-rc.d alternative are gone"
t_eq "$(ls "$R/etc/capinit/capinit.conf" "$R/etc/grub.d/15_capinit" 2>&1 | wc -l)" 2 "... the conffiles stay (capinit.conf, 15_capinit)"
t_eq "$(grep -c -e "^menuentry .*capinit" -e "init=/usr/sbin/capinit" "$R/boot/grub/grub.cfg")" 0 "... GRUB's menu has no capinit entry (update-grub by postrm; 15_capinit writes nothing)"
t_eq "$(inroot readlink -f /sbin/init)" /usr/lib/systemd/systemd "... /sbin/init is systemd's: the machine boots with systemd"

# ------------------------------------------------ purge
inroot dpkg -P capinit > "$T/purge.log" 2>&1
t_ok $? "dpkg -P capinit succeeds"
t_eq "$(inroot dpkg-query -W -f '${Status}' capinit 2>&1)" "dpkg-query: no packages found matching capinit" "... dpkg knows it no more"
snapshot > "$T/after.list"
t_eq "$(diff "$before" "$T/after.list" | grep '^[<>]' | tr '\n' ' ')" \
  "> /etc/capinit > /etc/capinit/services > /etc/capinit/services/sleeper.svc " \
  "... the root is as before the install, but for the administrator's own service file, which dpkg keeps"
rm -rf "$R/etc/capinit"
inroot dpkg -i /tmp/capinit.deb > "$T/install2.log" 2>&1 && inroot dpkg -L capinit > "$T/files.list" &&
  inroot dpkg -P capinit > "$T/purge2.log" 2>&1
t_ok $? "again: dpkg -i, dpkg -L, dpkg -P"
left=$(grep -vx '/\.' "$T/files.list" | while read -r f; do
  [ -d "$R$f" ] && [ ! -L "$R$f" ] && grep -qx "$f" "$before" && continue
  [ -e "$R$f" ] || [ -L "$R$f" ] && echo "$f"
done)
t_eq "$left" "" "... of the $(grep -cvx '/\.' "$T/files.list") paths dpkg -L listed, none is left but the directories that were there before"
snapshot > "$T/after2.list"
t_eq "$(diff "$before" "$T/after2.list" | grep -c '^[<>]')" 0 "... and find sees the root as it was before the install"
t_eq "$(ls "$R"/var/lib/dpkg/info/capinit.* 2>/dev/null | wc -l)" 0 "... dpkg's own records of it are gone"
t_done
