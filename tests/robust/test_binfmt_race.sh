#!/bin/sh
# mk/binfmt.sh for arm64 and for armhf at once, where binfmt_misc is not
# mounted: what the cross-user tier does on a fresh machine (tests/run
# starts both architectures' tests side by side, each calls mk/binfmt.sh
# first).  Both must mount it or find it mounted, register their
# handler and exit 0; a second mount(8) of binfmt_misc fails ("already
# mounted"), and that race once failed every arm64 test of a run.  Each
# round is a mount namespace of its own with binfmt_misc unmounted (on
# Linux 6.7 and later its handlers go with its last mount: nothing is
# left on the host).  BINFMT_ROUNDS (default 20) rounds.
B=${1:-build}
. tests/lib.sh
why=
case " ${CROSS_CHECK-arm64 armhf} " in
  *" arm64 "*) case " ${CROSS_CHECK-arm64 armhf} " in *" armhf "*) ;; *) why="CROSS_CHECK='$CROSS_CHECK' lacks armhf" ;; esac ;;
  *) why="CROSS_CHECK='${CROSS_CHECK-}' lacks arm64" ;;
esac
for a in arm64 armhf; do
  [ -n "$why" ] || [ -x "$B/$a/debs/busybox-static/bin/busybox" ] ||
    why="no $a build under $B (make check builds $B/arm64 and $B/armhf)"
done
if [ -n "$why" ]; then
  t_ok 0 "mk/binfmt.sh for two architectures at once # SKIP $why"
  t_done
  exit
fi
rounds=${BINFMT_ROUNDS:-20}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# shellcheck disable=SC2016
unmounted='d=/proc/sys/fs/binfmt_misc
while umount "$d" 2>/dev/null; do :; done
[ ! -e "$d/register" ] || { echo "binfmt_misc is still mounted"; exit 3; }'

# the control: the condition the race meets
# shellcheck disable=SC2016
unshare --mount --propagation private sh -c "$unmounted"'
mount -t binfmt_misc binfmt_misc "$d" || exit 4
mount -t binfmt_misc binfmt_misc "$d" 2>/dev/null && exit 5
exit 0' > "$T/control" 2>&1
t_eq "$?" 0 "control: with binfmt_misc mounted, a second mount(8) of it fails (the race's condition)"
sed 's/^/#   /' "$T/control"

i=0
good=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  # shellcheck disable=SC2016
  unshare --mount --propagation private sh -c "$unmounted"'
sh mk/binfmt.sh arm64 > "$1/arm64.$2" 2>&1 & a=$!
sh mk/binfmt.sh armhf > "$1/armhf.$2" 2>&1 & h=$!
wait $a; ra=$?
wait $h; rh=$?
echo "$ra $rh"
"$3/arm64/debs/busybox-static/bin/busybox" echo arm64 runs
"$3/armhf/debs/busybox-static/bin/busybox" echo armhf runs
for n in arm64 armhf; do sed -n "s/^flags: /$n /p; s/^interpreter /$n /p" "$d/capinit-$n"; done' \
    sh "$T" "$i" "$B" > "$T/round.$i" 2>&1
  want='0 0
arm64 runs
armhf runs
arm64 /usr/bin/qemu-aarch64-static
arm64 POCF
armhf /usr/bin/qemu-arm-static
armhf POCF'
  if [ "$(cat "$T/round.$i")" = "$want" ]; then
    good=$((good + 1))
  elif [ -z "${shown:-}" ]; then
    shown=$i
    sed "s/^/#   round $i: /" "$T/round.$i" "$T/arm64.$i" "$T/armhf.$i"
  fi
done
t_eq "$good" "$rounds" "$rounds rounds of mk/binfmt.sh arm64 and armhf at once on an unmounted binfmt_misc: both exit 0, both handlers (the kernel's flags POCF) run their programs"
t_done
