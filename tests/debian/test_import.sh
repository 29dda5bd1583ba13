#!/bin/sh
# tests/debian/test_import.sh BUILDDIR -- capctl import (issue 37) on
# Debian 12's own units: every .service of the image's /lib/systemd/system
# (BUILDDIR/debian/base, make debian; apache2's among them, since the
# image runs apache2), cron's (its .deb, in the image's cache) and
# postfix@-.service, the instance postfix's generator makes.
#
#   counts    converted / with warnings / refused, exactly as measured
#             (docs/decisions.md), each refused one with its reasons
#   daemons   ssh, postfix@-, nginx, chrony, rsyslog, cron, dbus, apache2
#             and getty@tty1 convert
#   check     capctl check -R BUILDDIR/debian/base of every file written:
#             no error
#   privilege daemon by daemon, capctl explain --json of the privilege
#             keys of the imported file (its paths are the image's, which
#             explain, without -R, would look for here) against systemd's
#             own view: systemd-analyze security --offline for the
#             bounding set, the unit's User=, ExecStart= prefix,
#             CapabilityBoundingSet= and AmbientCapabilities= read by
#             tests/debian/import_ref.py: the import never holds more.
# Runs as root (explain predicts capinit's launch).
B=${1:-build}
. tests/lib.sh
BASE=$B/debian/base
UNITS=$BASE/lib/systemd/system
CAPCTL=$B/bin/capctl
T=$(mktemp -d "${TMPDIR:-/tmp}/capinit-import.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

if [ ! -d "$UNITS" ]; then
  t_ok 1 "$UNITS exists (make debian)"
  t_done
  exit
fi

# cron's units, from its .deb in the image's cache
dpkg-deb -x "$(ls "$BASE"/var/cache/capinit-tests/cron_*.deb | head -n 1)" "$T/cron"
t_ok $? "cron's .deb extracted"
extra="$T/cron/lib/systemd/system/cron.service"

mkdir -p "$T/conf/services"
# shellcheck disable=SC2086
"$CAPCTL" import -R "$BASE" -o "$T/conf/services" "$UNITS"/*.service $extra postfix@-.service > "$T/report" 2>&1
rc=$?
t_eq "$rc" 1 "capctl import of every unit: exit 1 (some are refused)"
t_eq "$(tail -n 1 "$T/report")" "capctl: import: 20 converted, 51 converted with warnings, 43 refused" \
  "the counts, as measured on the image (112 units, apache2's four among them, cron, postfix@-)"
# the 43 refused, as measured: aliases and masked units, templates
# without an instance, and the units whose restrictions capinit lacks
refused="apache-htcacheclean@ apache2@ autovt@ chrony-dnssrv@ chrony-wait container-getty@ cryptdisks-early cryptdisks
dbus-org.freedesktop.hostname1 dbus-org.freedesktop.locale1 dbus-org.freedesktop.login1
dbus-org.freedesktop.timedate1 e2scrub@ e2scrub_fail@ fstrim hwclock kmod-static-nodes kmod modprobe@
postfix@ procps rc rcS serial-getty@ systemd-backlight@ systemd-exit systemd-fsck@
systemd-hibernate-resume@ systemd-hostnamed systemd-journald systemd-journald@ systemd-localed
systemd-logind systemd-networkd-wait-online@ systemd-networkd systemd-poweroff systemd-reboot
systemd-timedated systemd-udevd udev user-runtime-dir@ user@ x11-common"
t_eq "$(grep ': refused$' "$T/report" | sed 's/^capctl: import: \(.*\)\.service: refused$/\1/' | tr '\n' ' ')" \
  "$(echo $refused) " "the refused units"
# each with its reasons: UNIT:LINE: error: (or UNIT: error: for the whole unit)
for u in $refused; do
  f=$u.service
  case $u in *@) f=$u.service ;; esac
  grep -q "^$f\(:[0-9]*\)\?: error: \|^$u[^ ]*\.service\(\.d/[^:]*\)\?:[0-9]*: error: " "$T/report" ||
    { t_ok 1 "$f: refused with its reasons"; continue; }
done
t_ok 0 "every refused unit has its reasons, as UNIT:LINE: error: text"
grep ': error: ' "$T/report" | sed 's/^/#   /' 

for d in ssh postfix@- nginx chrony rsyslog cron dbus getty@tty1 apache2; do
  grep -q "^capctl: import: $d.service: converted" "$T/report"
  t_ok $? "$d converts"
done

"$CAPCTL" check -R "$BASE" -c "$T/conf" > "$T/check" 2>&1
t_ok $? "capctl check -R of every file written: no error"
grep ': error: ' "$T/check" | sed 's/^/#   /'

# the privilege keys of one imported file, as explain -k arguments
keys() {
  grep -E '^(user|group|groups|mode|securebits|bounding|capabilities|no-new-privileges) = ' "$1" | sed 's/ = /=/'
}

for d in ssh postfix@- nginx chrony rsyslog cron dbus getty@tty1 apache2; do
  case $d in
    cron) unit=$T/cron/lib/systemd/system/cron.service ;;
    getty@tty1) unit=$UNITS/getty@.service ;;
    postfix@-) unit=$UNITS/postfix@.service ;;
    *) unit=$UNITS/$d.service ;;
  esac
  set --
  while IFS= read -r k; do set -- "$@" -k "$k"; done <<KEYS
$(keys "$T/conf/services/$d.svc")
KEYS
  "$CAPCTL" explain --json "$@" -- /bin/true > "$T/explain.$d"
  if systemd-analyze security --offline=true --root="$BASE" --json=short "$unit" > "$T/analyze.$d" 2>/dev/null ||
     systemd-analyze security --offline=true --json=short "$unit" > "$T/analyze.$d" 2>/dev/null; then
    a="$T/analyze.$d"
  else
    a=-
  fi
  out=$(python3 tests/debian/import_ref.py "$unit" "$T/explain.$d" "$a")
  t_ok $? "$d: the import holds no more than systemd gives $(basename "$unit")"
  echo "$out" | sed 's/^/#   /'
done

t_done
