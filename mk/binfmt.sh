#!/bin/sh
# mk/binfmt.sh ARCH -- make this machine run ARCH's programs (arm64, armhf)
# the way an ARM machine would: a binfmt_misc handler that hands them to
# qemu-user-static, with the flags
#   F  the interpreter is opened now: it works in chroots and namespaces
#   O  the kernel opens the program (a mode-0711 program still runs)
#   P  argv[0] is kept
#   C  credentials come from the program, not from the interpreter: a
#      set-user-ID or file-capability program gains its privileges as on
#      the real machine (Debian's own handlers, qemu-ARCH, lack C)
# The qemu-user tier of the tests (tests/cross/) needs C: its targets are
# set-id programs and programs with file capabilities, exec'd by capexec
# and capinit, themselves ARCH programs.
#
# The handler is named capinit-ARCH.  The kernel tries the newest handler
# first: when another one for the same programs was registered after ours
# (say qemu-ARCH without C, by systemd-binfmt), ours is registered again.
# Mounts binfmt_misc when it is not (two at once: both succeed).  Needs
# root; changes nothing that outlives a reboot.  Prints nothing when all
# was in place.
set -eu
arch=${1:?usage: mk/binfmt.sh arm64|armhf}
dir=/proc/sys/fs/binfmt_misc
die() { echo "mk/binfmt.sh: fatal: $*" >&2; exit 111; }

case $arch in
  arm64) qemu=aarch64 ;;
  armhf) qemu=arm ;;
  *) die "no qemu-user handler for architecture $arch (arm64, armhf)" ;;
esac
name=capinit-$arch
interp=/usr/bin/qemu-$qemu-static
[ -x "$interp" ] || die "$interp is missing (make ARCH=$arch check installs qemu-user-static)"
conf=/usr/lib/binfmt.d/qemu-$qemu.conf
[ -f "$conf" ] || die "$conf is missing (qemu-user-static ships it: the magic and mask of $arch programs)"
[ "$(id -u)" = 0 ] || die "registering a binfmt_misc handler needs root"

# Another mk/binfmt.sh (the other architecture's tests run beside these)
# may mount it between the test and the mount: then mount(8) fails with
# "already mounted", and that is success.
if [ ! -e "$dir/register" ]; then
  err=$(mount -t binfmt_misc binfmt_misc "$dir" 2>&1) || [ -e "$dir/register" ] ||
    die "unable to mount binfmt_misc on $dir: $err (a container without it cannot run $arch programs)"
fi

# the newest handler whose magic matches ARCH's programs wins: is it ours?
magic=$(cut -d: -f5 "$conf")
mask=$(cut -d: -f6 "$conf")
hexmagic=$(printf '%s' "$magic" | sed 's/\\x//g')
ours_ok() {
  [ -f "$dir/$name" ] && grep -qx enabled "$dir/$name" &&
    grep -qx "interpreter $interp" "$dir/$name" && grep -q '^flags: .*C' "$dir/$name"
}
others=
for f in "$dir"/*; do
  case ${f##*/} in register|status|"$name") continue ;; esac
  grep -qx enabled "$f" 2>/dev/null && grep -qx "magic $hexmagic" "$f" 2>/dev/null && others="$others ${f##*/}"
done
# binfmt_misc's files carry the time of their registration (in seconds: a
# tie counts as newer)
newer=
for o in $others; do
  [ -f "$dir/$name" ] && [ "$dir/$name" -nt "$dir/$o" ] || newer="$newer $o"
done
if ours_ok && [ -z "$newer" ]; then exit 0; fi

[ ! -f "$dir/$name" ] || echo -1 > "$dir/$name"
printf ':%s:M::%s:%s:%s:OCPF\n' "$name" "$magic" "$mask" "$interp" > "$dir/register" ||
  die "unable to register the binfmt_misc handler $name"
ours_ok || die "the binfmt_misc handler $name is not as registered: $(tr '\n' ' ' < "$dir/$name")"
echo "capinit: registered the binfmt_misc handler $name: $arch programs run in $interp (flags OCPF: set-id and file capabilities as on $arch)${newer:+; it was behind$newer}"
