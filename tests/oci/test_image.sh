#!/bin/sh
# tests/oci/test_image.sh BUILDDIR -- make oci's image as other tools read
# it: the same sources give the same archive, byte for byte (control:
# another SOURCE_DATE_EPOCH gives another); skopeo reads its entrypoint,
# architecture and time; umoci unpacks capinit, capctl and busybox.
B=${1:-build}
. tests/lib.sh
for t in skopeo umoci jq sha256sum; do
  command -v $t >/dev/null || { echo "1..0 # SKIP $t is missing (mk/deps.sh oci)"; exit 0; }
done
[ -x "$B/bin/capinit" ] || { echo "1..0 # SKIP no $B/bin/capinit"; exit 0; }
T=$(mktemp -d /tmp/capinit-oci-image.XXXXXX)
trap 'rm -rf "$T"' EXIT
arch=$(cat "$B/arch" 2>/dev/null || dpkg --print-architecture)
epoch=1700000000
SOURCE_DATE_EPOCH=$epoch sh mk/oci.sh "$B" "$arch" "$T/a" >/dev/null
SOURCE_DATE_EPOCH=$epoch sh mk/oci.sh "$B" "$arch" "$T/b" >/dev/null
SOURCE_DATE_EPOCH=$((epoch + 1)) sh mk/oci.sh "$B" "$arch" "$T/c" >/dev/null
sum() { sha256sum "$1" | cut -d' ' -f1; }
t_eq "$(sum "$T/b/capinit.tar")" "$(sum "$T/a/capinit.tar")" "two builds, one SOURCE_DATE_EPOCH: the same capinit.tar"
t_ok "$([ "$(sum "$T/c/capinit.tar")" != "$(sum "$T/a/capinit.tar")" ] && echo 0)" "control: another SOURCE_DATE_EPOCH, another capinit.tar"
info=$(skopeo inspect "oci-archive:$T/a/capinit.tar")
t_eq "$(printf '%s' "$info" | jq -r '.Created')" "2023-11-14T22:13:20Z" "skopeo: the image's time is SOURCE_DATE_EPOCH"
t_eq "$(printf '%s' "$info" | jq -r '.Os + "/" + .Architecture')" "linux/$(case $arch in armhf) echo arm ;; *) echo "$arch" ;; esac)" "skopeo: os and architecture"
t_eq "$(skopeo inspect --config "oci-archive:$T/a/capinit.tar" | jq -c '.config.Entrypoint')" '["/sbin/capinit","--container","-c","/etc/capinit"]' "skopeo: the entrypoint"
umoci unpack --image "$T/a/layout:latest" "$T/u" >/dev/null 2>&1
t_ok $? "umoci unpacks the layout"
for f in sbin/capinit sbin/capctl bin/busybox; do
  t_ok "$(cmp -s "$T/u/rootfs/$f" "$(case $f in bin/busybox) echo "$B/debs/busybox-static/bin/busybox" ;; *) echo "$B/bin/${f#sbin/}" ;; esac)" && echo 0)" "umoci: /$f is the build's"
done
t_eq "$(stat -c '%u:%g %a' "$T/u/rootfs/etc/capinit/services/httpd.svc")" "0:0 644" "umoci: the services' files are root's, 0644"
t_done
