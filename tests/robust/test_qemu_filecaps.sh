#!/bin/sh
# capinit as PID 1 of a real system with a filecaps manifest full of
# garbage (tests/qemu/scenarios/filecaps-garbage): binary bytes, a relative
# path, '..', two words, an unknown capability, a partial effective flag,
# a duplicate, a carriage return.  Each bad line is reported on the
# console with its number and skipped; the good lines are applied; the
# services run with exactly what the good lines give; a service whose
# command is named on a bad line (a valid path, a bad capability text) is
# refused, since that file's capabilities are neither set nor verified
# (a duplicate keeps its first line); PID 1 boots, runs and powers off as
# usual.  One QEMU boot (4 to 20 s, TCG).  The parser
# alone: tests/unit/test_filecaps.c.
B=${1:-build}
. tests/lib.sh
if [ -n "${CAPINIT_SAN:-}" ]; then
  # a sanitizer build is dynamic, for glibc: it does not run in the image
  t_ok 0 "PID 1 with a garbled manifest # SKIP sanitizer build"
  t_done
  exit
fi
out=$(mktemp -d "$B/qemu/robust-filecaps.XXXXXX" 2>/dev/null) || { mkdir -p "$B/qemu"; out=$(mktemp -d "$B/qemu/robust-filecaps.XXXXXX"); }
line=$(QEMU_OUT=$out sh tests/qemu/boot.sh "$B" filecaps-garbage 2>"$out/boot.err")
status=$?
t_ok $status "booted and ended by itself ($line)"
con=$out/console.txt
[ $status = 0 ] || { sed 's/^/#   /' "$out/boot.err"; tail -n 20 "$con" 2>/dev/null | sed 's/^/#   console: /'; }
t_eq "$(grep -c DONE "$out/results.txt" 2>/dev/null)" 1 "the in-guest runner finished"
grep -E '^(not )?ok ' "$out/results.txt" | while read -r l; do echo "# guest: $l"; done
guest_ok=$(grep -c '^ok ' "$out/results.txt")
guest_bad=$(grep -c '^not ok ' "$out/results.txt")
t_eq "$guest_bad:$guest_ok" "0:8" "in the guest: 8 checks, none failed"
grep -A2 '^not ok ' "$out/results.txt" | sed 's/^/#   /'

M=/etc/capinit/filecaps
want="capinit: $M:5: error: control character in line (binary file?)
capinit: $M:6: error: 'test/probe': expected an absolute path
capinit: $M:7: error: '/test/../test/probe': '..' is not allowed in a path
capinit: $M:8: error: expected one capability text after the path (as setcap: cap_net_raw+ep)
capinit: $M:9: error: invalid capability text 'cap_bogus+ep' (as setcap: cap_net_raw+ep)
capinit: $M:10: error: 'cap_net_raw+e': the effective flag is one bit for a file: it must cover all its capabilities or none
capinit: $M:11: error: '/test/svc_helper' is already listed on line 4
capinit: $M:13: error: control character in line (binary file?)
capinit: filecaps: 2 of 2 files as the manifest says"
t_eq "$(grep -e "^capinit: $M:" -e '^capinit: filecaps:' "$con")" "$want" \
  "the console names each of the 8 bad lines with its number, then applies the 2 good ones"
t_eq "$(grep -e '^capinit: warning: /test/' -e '^capinit: service garbled:' "$con")" \
"capinit: warning: /test/probe is named on a bad line of $M: services it is the command of are refused
capinit: service garbled: refused: its command is named on a bad line of the filecaps manifest" \
  "/test/probe, named on 3 bad lines with a valid path, refuses garbled; /test/svc_helper's duplicate refuses nothing"
t_ok "$(grep -q 'all 2 services ready' "$con"; echo $?)" "all 2 services ready (fcap and the runner; garbled refused)"
t_ok "$(grep -q 'reboot: Power down' "$con"; echo $?)" "capctl poweroff powered the machine off"
[ "$t_failed" = 0 ] && rm -rf "$out"
echo "# summary: PID 1 with a garbled filecaps manifest: 8 bad lines reported and skipped, 2 good ones applied, 2 services ran with exactly those file capabilities, the one whose command is named on bad lines refused, clean power-off (QEMU $(echo "$line" | sed -n 's/.*wall_ms=\([0-9]*\).*/\1/p') ms)"
t_done
