#!/bin/sh
# mk/apt-update.sh: apt-get update tried again when a mirror is in the
# middle of a sync.  A Debian mirror cannot be made to sync on demand, so
# apt-get here is a stand-in first in PATH that fails as the real one did
# on a fresh machine (exit 100, "File has unexpected size ... Mirror sync
# in progress?") a given number of times, then succeeds; it records each
# call's arguments.  No pause between the tries (APT_UPDATE_PAUSE=0).
B=${1:-build}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin"
cat > "$T/bin/apt-get" <<'STUB'
#!/bin/sh
echo "$*" >> "$APT_STUB/calls"
n=$(wc -l < "$APT_STUB/calls")
if [ "$n" -le "$APT_STUB_FAILS" ]; then
  echo "E: Failed to fetch http://deb.debian.org/debian-security/dists/bookworm-security/main/binary-armhf/Packages.xz  File has unexpected size (356624 != 356976). Mirror sync in progress?" >&2
  echo "E: Some index files failed to download. They have been ignored, or old ones used instead." >&2
  exit 100
fi
echo "Reading package lists..."
STUB
chmod 755 "$T/bin/apt-get"

run() { # FAILS: runs mk/apt-update.sh -q -o X=Y with the stand-in failing FAILS times
  rm -f "$T/calls"
  APT_STUB=$T APT_STUB_FAILS=$1 APT_UPDATE_PAUSE=0 PATH=$T/bin:$PATH \
    sh mk/apt-update.sh -q -o X=Y > "$T/out" 2> "$T/err"
  echo $?
}

t_eq "$(run 0):$(wc -l < "$T/calls"):$(cat "$T/out" "$T/err")" "0:1:" \
  "control: apt-get update succeeds at once: one call, nothing printed"
t_eq "$(sort -u "$T/calls")" "-q -o X=Y update" "the options go to apt-get before 'update'"

t_eq "$(run 2):$(wc -l < "$T/calls")" "0:3" \
  "a mirror sync that fails apt-get update twice: the third try succeeds, exit 0"
t_eq "$(cut -d: -f1-2 "$T/err")" "capinit: apt-get update failed (try 1 of 5, again in 0 s)
capinit: apt-get update failed (try 2 of 5, again in 0 s)" \
  "each failed try is said, with its number"
t_eq "$(grep -c 'E: Failed to fetch .*Mirror sync in progress' "$T/err")" 2 "each says apt-get's first error"

t_eq "$(run 99):$(wc -l < "$T/calls")" "100:5" \
  "apt-get update that always fails: 5 tries, then apt-get's exit status (100)"
t_eq "$(tail -n 1 "$T/err" | cut -d: -f1-3)" "mk/apt-update.sh: fatal: apt-get update failed 5 times (exit 100)" \
  "the last failure is fatal, and says so"
t_eq "$(grep -c '^E: Some index files failed' "$T/err")" 1 "the last failure prints apt-get's whole output"

APT_UPDATE_TRIES=2
export APT_UPDATE_TRIES
t_eq "$(run 99):$(wc -l < "$T/calls")" "100:2" "APT_UPDATE_TRIES=2: two tries"
t_done
