#!/bin/sh
# tests/cross/qemu_user.sh BUILDDIR -- the tests of another architecture's
# build (make ARCH=arm64 or armhf: BUILDDIR/arch names it) on this
# machine's kernel, its programs run by qemu-user: the unit tests and the
# system tests (tests/system/), the same scripts as natively with
# B=BUILDDIR.  capinit, capctl, capexec, the probe and the other fixtures
# are all ARCH programs; the shell, unshare, setcap and the rest are this
# machine's.  qemu-user runs an ARCH program inside the same process, with
# the same credentials: what the kernel says of it (/proc/PID/status, the
# probe's system calls) is what it would say on an ARCH machine with this
# kernel.
#
# A program exec'd by another (capexec's command, capinit's services) gets
# to qemu-user through binfmt_misc, with credentials from the program
# (mk/binfmt.sh: the C flag), so set-id programs and file capabilities
# work as on ARCH: checked first, with a positive control.
#
# Where qemu-user cannot carry a test, tests/cross/qemu-user.skip names it
# with the reason: it is reported "ok ... # SKIP reason" whatever it did
# (and said when it passed anyway); a whole file can be skipped unrun.  One
# TAP stream: every test as "FILE: NAME", numbered again; the summary
# lists every skip.
B=${1:?usage: tests/cross/qemu_user.sh BUILDDIR}
here=$(cd "$(dirname "$0")" && pwd)
arch=$(cat "$B/arch" 2>/dev/null)
skipfile=$here/qemu-user.skip
. tests/lib.sh

case $arch in
  arm64) qemu=aarch64 ;;
  armhf) qemu=arm ;;
  *) echo "Bail out! $B/arch names no architecture qemu-user runs here (arm64, armhf): make ARCH=... first"; exit 1 ;;
esac
for f in bin/capinit bin/capctl bin/capexec tests/probe tests/svc_helper tests/secbits_try tests/capexec-fault \
         debs/busybox-static/bin/busybox; do
  [ -x "$B/$f" ] || { echo "Bail out! $B/$f is missing (make ARCH=$arch check builds it)"; exit 1; }
done
export ARCH=$arch  # test_build.sh's `make -q all B=...`: this build's flags
# qemu-user refuses seccomp (it would filter the emulator's own calls,
# with this machine's numbers): contained services run without their
# filter here, as capinit(8) allows on such kernels; the filter itself is
# tested natively and in the appliance boots (@seccomp)
export CAPINIT_SECCOMP=if-available
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
t0=$(date +%s)

# ---------------------------------------------------------------- binfmt
# an ARCH program exec'd by an ARCH program; set-user-ID and file
# capabilities honoured (the controls: a plain copy gains nothing)
sh mk/binfmt.sh "$arch" >"$T/binfmt.out" 2>&1
t_ok $? "binfmt_misc: $arch programs go to qemu-$qemu-static, with the program's credentials (mk/binfmt.sh)"
sed 's/^/# /' "$T/binfmt.out"
for n in plain suid fcap; do cp "$B/tests/probe" "$T/$n"; done
chmod 4755 "$T/suid"
setcap cap_net_raw+ep "$T/fcap"
field() { sed -n "s/^ *\"$1\": \\(.*\\),\$/\\1/p" "$T/$2.json"; }
for n in plain suid fcap; do
  "$B/bin/capexec" -k user=nobody -- "$T/$n" > "$T/$n.json" 2>&1
done
t_eq "$(field euid plain) $(field cap_prm plain)" '65534 "0000000000000000"' \
  "binfmt_misc: capexec ($arch) runs the probe ($arch) as nobody (control: nothing gained)"
t_eq "$(field euid suid)" 0 \
  "binfmt_misc: a set-user-ID root probe run by nobody has euid 0"
t_eq "$(field cap_prm fcap)" '"0000000000002000"' \
  "binfmt_misc: a probe with cap_net_raw+ep run by nobody has cap_net_raw permitted"
t_eq "$(file -b "$B/bin/capinit" | cut -d, -f2 | sed 's/^ //')" \
  "$(case $arch in arm64) echo 'ARM aarch64' ;; armhf) echo 'ARM' ;; esac)" \
  "the programs under test are $arch programs (file: $(file -b "$B/bin/capinit" | cut -d, -f1-2))"

# ---------------------------------------------------------------- the tiers
# skip table: FILE | NAME-GLOB | @KEY ("*" as NAME: the file is not run),
# and @KEY = REASON lines
reason() { # @KEY: its text
  awk -v k="$1" 'index($0, k " = ") == 1 { print substr($0, length(k) + 4); exit }' "$skipfile"
}
entries_of() { # FILE: its entries of the table into $T/entries (line, glob, key)
  awk -F' [|] ' -v f="$1" '!/^[#@]/ && NF >= 3 && $1 == f { print NR "\t" $2 "\t" $3 }' "$skipfile" > "$T/entries"
}
skip_key() { # NAME: sets key to the @KEY of the first entry whose glob matches, or empty
  key=
  while IFS='	' read -r line pat k; do
    # shellcheck disable=SC2254
    case $1 in $pat) printf '%s\n' "$line" >> "$T/matched"; key=$k; break ;; esac
  done < "$T/entries"
}
: > "$T/matched"
nskip=0
skipped=
# one test program: its TAP, renamed "FILE: NAME", numbered on
relay() { # FILE COMMAND...
  f=$1
  shift
  entries_of "$f"
  skip_key "*"
  if [ -n "$key" ]; then
    t_n=$((t_n + 1))
    echo "ok $t_n - $f # SKIP $(reason "$key")"
    nskip=$((nskip + 1))
    skipped="$skipped$f (not run) [$key]
"
    return
  fi
  ts=$(date +%s)
  "$@" > "$T/out" 2>&1
  rc=$?
  echo "$(( $(date +%s) - ts )) $f" >> "$T/times"
  plan=0
  bad=0
  skipbad=0
  # printf, not echo: dash's echo would turn a test name's "\000" into
  # a NUL byte (and grep then calls the whole TAP binary)
  while IFS= read -r l; do
    case $l in
      "ok "*|"not ok "*)
        st=ok; [ "${l#not }" = "$l" ] || st="not ok"
        name=${l#"$st" }
        name=${name#* - }
        skip_key "$name"
        t_n=$((t_n + 1))
        if [ -n "$key" ]; then
          printf 'ok %s - %s: %s # SKIP %s\n' "$t_n" "$f" "$name" "$(reason "$key")"
          if [ "$st" = ok ]; then echo "# (it passed under qemu-user anyway)"; else skipbad=$((skipbad + 1)); fi
          nskip=$((nskip + 1))
          skipped="$skipped$f: $name [$key]
"
        else
          printf '%s %s - %s: %s\n' "$st" "$t_n" "$f" "$name"
          [ "$st" = ok ] || { bad=$((bad + 1)); t_failed=$((t_failed + 1)); }
        fi ;;
      1..*) plan=1 ;;
      "#"*) printf '%s\n' "$l" ;;
      *) printf '# %s\n' "$l" ;;
    esac
  done < "$T/out"
  if [ $plan = 0 ]; then t_ok 1 "$f: printed its whole plan (exit $rc; crashed?)"
  elif [ $rc != 0 ] && [ $bad = 0 ] && [ $skipbad = 0 ]; then t_ok 1 "$f: exit status $rc with no failed test"
  fi
}

# QEMU_USER_ONLY=PATTERN (a shell pattern of the files' names, such as
# test_netcard.sh) runs only those: a developer's quick look, which leaves
# the stale entries' check out
only=${QEMU_USER_ONLY:-*}
for u in "$B"/tests/unit/test_*; do
  [ -x "$u" ] || continue
  case ${u##*/} in $only) relay "unit/${u##*/}" "$u" ;; esac
done
for s in tests/system/test_*.sh; do
  case ${s##*/} in $only) relay "system/${s##*/}" sh "$s" "$B" ;; esac
done

# an entry that names no test is stale: the list must be exact
if [ -z "${QEMU_USER_ONLY:-}" ]; then
  stale=$(awk -F' [|] ' '!/^[#@]/ && NF >= 3 { print NR ": " $1 " | " $2 }' "$skipfile" |
    while IFS= read -r e; do grep -qx "${e%%:*}" "$T/matched" || echo "line $e"; done)
  t_eq "$stale" "" "every entry of tests/cross/qemu-user.skip names a test that ran"
fi
undefined=$(awk -F' [|] ' '!/^[#@]/ && NF >= 3 { print $3 }' "$skipfile" | sort -u |
  while read -r k; do [ -n "$(reason "$k")" ] || echo "$k"; done)
t_eq "$undefined" "" "every reason the skip table names is defined (@KEY = REASON)"

echo "# summary: $arch under qemu-user ($(qemu-$qemu-static --version | head -n 1 | sed 's/ *Copyright.*//')): $((t_n - nskip)) tests, $nskip skipped, $(( $(date +%s) - t0 )) s"
echo "# summary: the slowest: $(sort -rn "$T/times" | head -n 4 | awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $2, $1 }')"
printf '%s' "$skipped" | sed 's/^/# summary: skipped: /'
printf '%s' "$skipped" | sed -n 's/.*\[\(@[a-z-]*\)\]$/\1/p' | sort -u | while read -r k; do
  echo "# summary: $k: $(reason "$k")"
done
t_done
