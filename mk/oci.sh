#!/bin/sh
# mk/oci.sh BUILDDIR ARCH OUTDIR -- the container image (make oci): an OCI
# image layout in OUTDIR/layout (oci-layout, index.json, blobs/sha256/) and
# the same as one tar, OUTDIR/capinit.tar (what skopeo and podman call an
# oci-archive), tagged "latest".  One layer: capinit and capctl in /sbin,
# busybox (static) in /bin with a few of its applets, and rootfs/oci's
# files (the example services, /etc/passwd and /etc/group, the web root).
# The entrypoint is `capinit --container -c /etc/capinit`.
#
# Written here with tar, gzip and sha256sum, not umoci: every byte is ours
# to fix.  Owners are 0:0, every time is SOURCE_DATE_EPOCH (the
# environment's, else debian/changelog's date, as mk/deb.sh), the tar's
# entries sorted, gzip without name and time: the same build gives the
# same image, digest for digest (docs/decisions.md, "The container image").
set -eu
LC_ALL=C
export LC_ALL
die() { echo "mk/oci.sh: fatal: $*" >&2; exit 111; }
[ $# = 3 ] || { echo "usage: mk/oci.sh BUILDDIR ARCH OUTDIR" >&2; exit 100; }
B=$1 arch=$2 out=$3
mkdir -p "$out"
B=$(cd "$B" && pwd) out=$(cd "$out" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
for t in tar gzip sha256sum; do
  command -v $t >/dev/null || die "$t is missing (make oci installs it: mk/deps.sh oci)"
done
busybox=$B/debs/busybox-static/bin/busybox
for p in "$B/bin/capinit" "$B/bin/capctl" "$busybox"; do
  [ -x "$p" ] || die "$p is missing (make oci builds it)"
done
# the OCI names of Debian's architectures (the image-spec's GOARCH values)
case $arch in
  amd64) oci_arch='"architecture":"amd64"' ;;
  arm64) oci_arch='"architecture":"arm64","variant":"v8"' ;;
  armhf) oci_arch='"architecture":"arm","variant":"v7"' ;;
  *) die "no OCI name for the architecture $arch" ;;
esac
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l debian/changelog -S Timestamp)
fi
case $SOURCE_DATE_EPOCH in
  "" | *[!0-9]*) die "SOURCE_DATE_EPOCH is not a number of seconds: $SOURCE_DATE_EPOCH" ;;
esac
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)

# ---- the root file system --------------------------------------------------
R=$out/rootfs
rm -rf "$R" "$out/layout"
mkdir -p "$R"
cp -R rootfs/oci/. "$R/"
# /var/log/capinit exists, empty: on a read-only root capinit does not
# try to make it (the services log to the console)
mkdir -p "$R/sbin" "$R/bin" "$R/run" "$R/tmp" "$R/proc" "$R/sys" "$R/dev" "$R/var/log/capinit"
install -m 0755 "$B/bin/capinit" "$B/bin/capctl" "$R/sbin/"
install -m 0755 "$busybox" "$R/bin/busybox"
# the applets the example services and an operator's `exec` use
for a in sh cat ls ps sleep kill wget httpd timeout echo grep; do
  ln -s busybox "$R/bin/$a"
done
find "$R" -type d -exec chmod 0755 {} +
find "$R" -type f ! -perm -0100 -exec chmod 0644 {} +
chmod 1777 "$R/tmp"

# ---- the layout ------------------------------------------------------------
L=$out/layout
mkdir -p "$L/blobs/sha256"
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { wc -c < "$1" | tr -d ' '; }
blob() { # FILE: moved into the blobs under its digest; prints the digest
  d=$(sha "$1")
  mv "$1" "$L/blobs/sha256/$d"
  echo "$d"
}
# sorted, numeric owners 0:0, one time; no atime or ctime headers (GNU
# format, not pax, which would record them)
reproducible_tar() { # DIR OUT
  tar -C "$1" --sort=name --format=gnu --numeric-owner --owner=0 --group=0 \
    --mtime="@$SOURCE_DATE_EPOCH" -cf "$2" .
}

reproducible_tar "$R" "$out/layer.tar"
diff_id=$(sha "$out/layer.tar")
gzip -9n < "$out/layer.tar" > "$out/layer.tar.gz"
rm -f "$out/layer.tar"
layer_size=$(size "$out/layer.tar.gz")
layer=$(blob "$out/layer.tar.gz")

# the image's configuration (image-spec config.md): no user (capinit is
# root in the container; docs/containers.md), the services' port
cat > "$out/config.json" <<EOF
{"created":"$created",$oci_arch,"os":"linux","config":{"Env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":["/sbin/capinit","--container","-c","/etc/capinit"],"ExposedPorts":{"80/tcp":{}},"WorkingDir":"/","StopSignal":"SIGTERM"},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created":"$created","created_by":"mk/oci.sh"}]}
EOF
config_size=$(size "$out/config.json")
config=$(blob "$out/config.json")

cat > "$out/manifest.json" <<EOF
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config","size":$config_size},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:$layer","size":$layer_size}]}
EOF
manifest_size=$(size "$out/manifest.json")
manifest=$(blob "$out/manifest.json")

printf '{"imageLayoutVersion":"1.0.0"}\n' > "$L/oci-layout"
cat > "$L/index.json" <<EOF
{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:$manifest","size":$manifest_size,"annotations":{"org.opencontainers.image.ref.name":"latest"}}]}
EOF
find "$L" -type d -exec chmod 0755 {} +
find "$L" -type f -exec chmod 0644 {} +
reproducible_tar "$L" "$out/capinit.tar.new"
mv "$out/capinit.tar.new" "$out/capinit.tar"
rm -rf "$R"
echo "$out/capinit.tar: sha256:$manifest"
