#!/bin/sh
# mk/apt-update.sh: apt-get update tried again when a mirror is in the
# middle of a sync, and a list the mirror keeps serving unlike its Release
# file left out after the last try.  A Debian mirror cannot be made to sync
# (or to stay broken) on demand, so apt-get here is a stand-in first in PATH
# that fails as the real one did on fresh machines (exit 100, apt-get's own
# error lines, given by each case) a given number of times, then succeeds;
# it records each call's arguments.  No pause between the tries
# (APT_UPDATE_PAUSE=0).
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
  echo "Reading package lists..."
  cat "$APT_STUB/errors" >&2
  exit 100
fi
echo "Reading package lists..."
STUB
chmod 755 "$T/bin/apt-get"

# apt-get's lines, as bookworm's apt 2.6 printed them
url=http://deb.debian.org/debian-security/dists/bookworm-security/main/binary-armhf/Packages.xz
size="E: Failed to fetch $url  File has unexpected size (356624 != 356976). Mirror sync in progress? [IP: 203.0.113.80 80]"
hash="E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-arm64/Packages.xz  Hash Sum mismatch"
ignored="E: Some index files failed to download. They have been ignored, or old ones used instead."
net="E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Could not connect to deb.debian.org:80 (203.0.113.80), connection timed out"
lock="E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)"
errors() { printf '%s\n' "$@" > "$T/errors"; }

run() { # FAILS: runs mk/apt-update.sh -q -o X=Y with the stand-in failing FAILS times
  rm -f "$T/calls"
  APT_STUB=$T APT_STUB_FAILS=$1 APT_UPDATE_PAUSE=0 PATH=$T/bin:$PATH \
    sh mk/apt-update.sh -q -o X=Y > "$T/out" 2> "$T/err"
  echo $?
}

errors "$size" "$ignored"
t_eq "$(run 0):$(wc -l < "$T/calls"):$(cat "$T/out" "$T/err")" "0:1:" \
  "control: apt-get update succeeds at once: one call, nothing printed"
t_eq "$(sort -u "$T/calls")" "-q -o X=Y update" "the options go to apt-get before 'update'"

t_eq "$(run 2):$(wc -l < "$T/calls")" "0:3" \
  "a mirror sync that fails apt-get update twice: the third try succeeds, exit 0"
t_eq "$(cut -d: -f1-2 "$T/err")" "capinit: apt-get update failed (try 1 of 5, again in 0 s)
capinit: apt-get update failed (try 2 of 5, again in 0 s)" \
  "each failed try is said, with its number"
t_eq "$(grep -c 'E: Failed to fetch .*Mirror sync in progress' "$T/err")" 2 "each says apt-get's first error"

t_eq "$(run 99):$(wc -l < "$T/calls")" "0:5" \
  "a list the mirror keeps serving unlike its Release file: 5 tries, then exit 0, as apt-get goes on without it"
t_eq "$(sed 1,4d "$T/err")" "capinit: warning: apt-get update: after 5 tries the mirror still serves these package lists unlike its Release file, so apt-get left them out (packages come from the other lists):
capinit: warning:   $url" \
  "after the 4 tries said, a warning names the list left out"

errors "$hash" "$ignored"
t_eq "$(run 99):$(sed 1,4d "$T/err" | tail -n 1)" "0:capinit: warning:   http://deb.debian.org/debian/dists/bookworm/main/binary-arm64/Packages.xz" \
  "a Hash Sum mismatch kept: the same, exit 0 and the list named"

errors "$size" "$net" "$ignored"
t_eq "$(run 99):$(wc -l < "$T/calls")" "100:5" \
  "one list inconsistent and the mirror unreachable: 5 tries, then apt-get's exit status (100)"
t_eq "$(tail -n 1 "$T/err" | cut -d: -f1-3)" "mk/apt-update.sh: fatal: apt-get update failed 5 times (exit 100)" \
  "the last failure is fatal, and says so"
t_eq "$(grep -c -e '^E: Some index files failed' -e '^E: Failed to fetch' -e '^Reading package lists' "$T/err"):$(grep -c warning "$T/err")" "4:0" \
  "the last failure prints apt-get's whole output, and no warning"

errors "$lock"
t_eq "$(run 99):$(tail -n 1 "$T/err" | cut -d: -f1-3)" "100:mk/apt-update.sh: fatal: apt-get update failed 5 times (exit 100)" \
  "another error alone (the lists' lock held): fatal"

errors "$ignored"
t_eq "$(run 99)" 100 "'index files failed' with no list named: fatal (nothing says which list is out)"

errors "$net" "$ignored"
APT_UPDATE_TRIES=2
export APT_UPDATE_TRIES
t_eq "$(run 99):$(wc -l < "$T/calls")" "100:2" "APT_UPDATE_TRIES=2: two tries"
t_done
