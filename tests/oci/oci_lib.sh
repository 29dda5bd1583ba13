# tests/oci/oci_lib.sh -- capinit's image (make oci) under a real OCI
# runtime.  Source it after tests/lib.sh with B (the build directory) and
# RT (runc or crun) set.  Each case unpacks the image with umoci into a
# bundle of its own, writes config.json from `runc spec` with jq, and runs
# the container in the foreground, in the background of the test, with
# its standard output and error in files (no console), so that `wait`
# gives capinit's exit status.  Every container started is deleted
# (RT delete -f) when the test ends, whatever its end.

# Docker's default capability set (docs/containers.md)
CAPS_DOCKER="CAP_CHOWN CAP_DAC_OVERRIDE CAP_FOWNER CAP_FSETID CAP_KILL CAP_SETGID CAP_SETUID CAP_SETPCAP CAP_NET_BIND_SERVICE CAP_NET_RAW CAP_SYS_CHROOT CAP_MKNOD CAP_AUDIT_WRITE CAP_SETFCAP"
# runc spec's own default set
CAPS_RUNC="CAP_AUDIT_WRITE CAP_KILL CAP_NET_BIND_SERVICE"
# the fewest that the image's services need today (docs/containers.md)
CAPS_MINIMAL="CAP_SETUID CAP_SETGID CAP_SETPCAP CAP_KILL CAP_NET_BIND_SERVICE"

LAYOUT=$B/oci/layout
# crun 1.8 refuses a host with cgroup v1 and v2 side by side when v2 has
# a controller ("cgroups in hybrid mode not supported, drop all
# controllers from cgroupv2"), whatever its --cgroup-manager: there its
# `run` goes in a mount namespace of its own without the v2 hierarchy
# (/sys/fs/cgroup/unified), where it sees cgroup v1 alone
rt() {
  if [ "$RT" = crun ] && [ "$1" = run ] && grep -q . /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
    unshare --mount --propagation private sh -c 'umount -l /sys/fs/cgroup/unified && exec "$@"' sh "$RT" "$@"
  else
    "$RT" "$@"
  fi
}
T=$(mktemp -d /tmp/capinit-oci.XXXXXX)
oci_ids=
oci_cleanup() {
  for c in $oci_ids; do RT=${c%%:*} rt delete -f "${c#*:}" >/dev/null 2>&1; done
  rm -rf "$T"
}
trap oci_cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

oci_require() { # the tools and the image, or the whole file is skipped
  for t in "$RT" umoci jq capsh; do
    command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is missing (make check-oci installs it: mk/deps.sh oci)"; exit 0; }
  done
  [ -f "$LAYOUT/index.json" ] || { echo "1..0 # SKIP no image in $LAYOUT (make oci)"; exit 0; }
}

# bundle NAME: $T/NAME, the image unpacked; config.json is runc spec's,
# with the image's entrypoint, no terminal, Docker's defaults for the
# capabilities and no_new_privs (off), a writable root
bundle() {
  b=$T/$1
  mkdir -p "$b"
  umoci unpack --image "$LAYOUT:latest" "$b" >/dev/null 2>&1 || return 1
  rm -f "$b/config.json"
  (cd "$b" && runc spec) || return 1
  # the entrypoint as the image says it (its config blob), not as we know it
  m=$(jq -r '.manifests[0].digest | sub("sha256:"; "")' "$LAYOUT/index.json")
  c=$(jq -r '.config.digest | sub("sha256:"; "")' "$LAYOUT/blobs/sha256/$m")
  entry=$(jq -c '.config.Entrypoint' "$LAYOUT/blobs/sha256/$c")
  edit "$1" --argjson e "$entry" '.process.terminal = false | .process.args = $e
    | .root.readonly = false | .process.noNewPrivileges = false
    | .hostname = "capinit-test"'
  caps "$1" "$CAPS_DOCKER"
}

edit() { # NAME [JQ ARGS...] FILTER: config.json through jq
  f=$T/$1/config.json
  shift
  jq "$@" "$f" > "$f.new" && mv "$f.new" "$f"
}

caps() { # NAME "CAP..." [EFFECTIVE]: the bounding set, and the effective and
  # permitted sets (EFFECTIVE, default the same), as Docker gives them: no
  # inheritable, no ambient
  bnd=$(printf '%s\n' $2 | jq -R . | jq -sc .)
  eff=$(printf '%s\n' ${3-$2} | jq -R . | jq -sc 'map(select(. != ""))')
  edit "$1" --argjson b "$bnd" --argjson e "$eff" \
    '.process.capabilities = {bounding: $b, effective: $e, permitted: $e}'
}

svc() { # NAME SERVICE: the file on standard input into the bundle's image
  cat > "$T/$1/rootfs/etc/capinit/services/$2.svc"
}

start() { # NAME: run its bundle as container $RT-$$-NAME in the background;
  # its output in $T/NAME/out and err, its runtime's pid in run_pid
  id=$(ctid "$1")
  oci_ids="$oci_ids $RT:$id"
  rt run --bundle "$T/$1" "$id" </dev/null >"$T/$1/out" 2>"$T/$1/err" &
  run_pid=$!
}

ctid() { echo "capinit-$RT-$$-$1"; }

x() { # NAME COMMAND...: run in the container (RT exec)
  n=$1
  shift
  rt exec "$(ctid "$n")" "$@"
}

wait_for() { # NAME FILE TEXT [SECONDS]: until FILE of the bundle has TEXT
  i=0
  while [ $i -lt $((${4:-10} * 10)) ]; do
    grep -qF -- "$3" "$T/$1/$2" 2>/dev/null && return 0
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

settled() { # NAME: wait until capinit says every service settled
  wait_for "$1" err "capinit: all " 10
}

state_of() { # NAME SERVICE: its state in capctl status, inside
  x "$1" /sbin/capctl status 2>/dev/null | awk -v s="$2" '$1 == s { print $2 }'
}

pid_of() { # NAME SERVICE: its pid inside the container (capctl status)
  x "$1" /sbin/capctl status 2>/dev/null | awk -v s="$2" '$1 == s { print $3 }'
}

field() { # NAME PID FIELD: the line FIELD of /proc/PID/status inside
  x "$1" /bin/cat "/proc/$2/status" | awk -v f="$3:" '$1 == f { print $2 }'
}

decoded() { # NAME PID FIELD: that capability mask, decoded by capsh here
  m=$(field "$1" "$2" "$3")
  set_of "$(capsh --decode="$m" | sed 's/^0x[0-9a-f]*=//')"
}

set_of() { # "CAP_A CAP_B..." or "cap_a,cap_b": sorted, lower case, commas
  printf '%s\n' "$1" | tr ', ' '\n\n' | tr 'A-Z' 'a-z' | grep . | sort | paste -sd, -
}

stop_and_wait() { # NAME SIGNAL: RT kill, then capinit's exit status in rc
  # and the seconds it took in took
  t0=$(date +%s%N)
  rt kill "$(ctid "$1")" "$2"
  wait "$run_pid"
  rc=$?
  took=$((($(date +%s%N) - t0) / 1000000))
}
