#!/bin/sh
# rootfs/demo.sh BUILDDIR -- what `make demo` shows until the appliance
# boots: the example appliance's services checked offline, what each one
# may do, and what check says about a broken copy.
set -eu
B=$1
CAPCTL=$B/bin/capctl
ROOT=rootfs/skel
CONF=$ROOT/etc/capinit

echo "== capinit demo: the example appliance configuration in $CONF"
echo
for f in "$CONF"/services/*.svc; do
  n=${f##*/}
  desc=$(sed -n 's/^description *= *//p' "$f")
  echo "  ${n%.svc}: $desc"
  sed -n -e 's/^\(user\|mode\|capabilities\|bounding\|no-new-privileges\|depends\) *= */      \1 = /p' "$f"
done
echo
echo "== capctl check -R $ROOT -c $CONF   (users from the image's /etc/passwd)"
if "$CAPCTL" check -R "$ROOT" -c "$CONF"; then
  echo "   all $(ls "$CONF"/services/*.svc | wc -l) services valid (check is silent when all is well; exit 0)"
else
  echo "demo: fatal: the example configuration should be valid" >&2
  exit 1
fi
echo

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp -r "$CONF" "$T/capinit"
# three mistakes a person makes: a typo, a capability outside the bounding
# set, a dependency cycle
sed -i 's/^user = www/usr = www/' "$T/capinit/services/httpd.svc"
printf 'bounding = net_admin\ncapabilities = net_admin,net_raw\n' > "$T/x"
sed -i '/^capabilities/d' "$T/capinit/services/net.svc"
cat "$T/x" >> "$T/capinit/services/net.svc"
echo 'after = console' >> "$T/capinit/services/syslogd.svc"
echo "== the same, broken three ways (a typo, a cap outside bounding, a cycle):"
echo "   capctl check -R $ROOT -c \$TMP/capinit"
set +e
"$CAPCTL" check -R "$ROOT" -c "$T/capinit" 2>&1 | sed -e "s|$T|\$TMP|g" -e 's/^/   /'
set -e
echo
echo "== every problem at once, FILE:LINE: message; a refused service never starts, the others do."
echo "   Read more: man -l $B/man/capinit.svc.5 and man -l $B/man/capctl.8"
