#!/bin/sh
# In-process logging: timestamped lines from stdout and stderr, rotation by
# size, `capctl log -n` and `-f`, a 50 MB writer that does not hold back
# another service's restart (restarts complete while it writes; their
# latency is a figure), and lines sent to the console instead (not
# blocking, said once) while the log directory is read-only.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
sv_init
TS='[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]Z '

# strip the timestamp of every line that has one; a line without one
# becomes "BAD: line", so that a comparison shows it
strip() { sed -e "s/^$TS//;t" -e 's/^/BAD: /' "$@"; }

# ------------------------------------------------ format, stdout + stderr
printf 'log-max-size = 4K\nlog-keep = 2\n' >> "$T/c/capinit.conf"
svc fmt <<EOF
command = $HELPER lines 20
EOF
svc both <<EOF
command = /bin/sh -c "echo to-stdout; echo to-stderr >&2; exec $HELPER stamp /dev/null"
EOF
svc rot <<EOF
command = $HELPER lines 1000
EOF
# about 230 bytes a line: the 4K file rotates every 17 lines
svc tick <<'EOF'
command = /bin/sh -c "i=0; pad=$(printf %0200d 0); while [ $i -lt 100000 ]; do echo tick $i $pad; i=$((i+1)); sleep 0.01; done"
EOF
before=$(date -u +%s)
sv_start
t_ok $? "capinit starts (log-max-size = 4K, log-keep = 2)"
# every line written is logged: wait for the counts, not for a time
logged() { # NAME LINES
  i=0
  while [ "$(sv_field "$1" log_lines)" != "$2" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
}
logged rot 1000
logged fmt 20
logged both 2
after=$(date -u +%s)

t_eq "$(wc -l < "$T/log/fmt.log")" 20 "fmt.log has exactly the 20 lines written"
t_eq "$(grep -c "^${TS}line [0-9]*\$" "$T/log/fmt.log")" 20 \
  "every line is 'YYYY-MM-DDTHH:MM:SS.mmmZ ' then the text"
t_eq "$(strip "$T/log/fmt.log" | tr '\n' ,)" "$(seq 1 20 | sed 's/^/line /' | tr '\n' ,)" \
  "the text of the lines, in order: line 1 .. line 20"
first=$(head -n 1 "$T/log/fmt.log" | cut -d' ' -f1)
epoch=$(date -u -d "$first" +%s 2>/dev/null)
t_ok $([ -n "$epoch" ] && [ "$epoch" -ge $((before - 1)) ] && [ "$epoch" -le $((after + 1)) ] && echo 0 || echo 1) \
  "the timestamp is UTC wall-clock time ($first, test ran $(date -u -d @"$before" +%H:%M:%S)..$(date -u -d @"$after" +%H:%M:%S) UTC)"
t_eq "$(strip "$T/log/both.log" | tr '\n' ,)" "to-stdout,to-stderr," "stdout and stderr both reach the log, in order"
t_eq "$(sv_field fmt log_lines)/$(sv_field fmt log_dropped)" "20/0" "status counts 20 lines, 0 dropped"

# ------------------------------------------------ rotation
ls "$T/log/" > "$T/files"
t_eq "$(grep -c '^rot\.log' "$T/files")" 3 "rotation: 3 files (rot.log, rot.log.1, rot.log.2)"
t_ok $([ -f "$T/log/rot.log.2" ] && [ ! -e "$T/log/rot.log.3" ] && echo 0 || echo 1) \
  "rot.log.2 exists, rot.log.3 does not (log-keep = 2)"
s0=$(stat -c %s "$T/log/rot.log")
s1=$(stat -c %s "$T/log/rot.log.1")
s2=$(stat -c %s "$T/log/rot.log.2")
t_ok $([ "$s0" -le 4096 ] && [ "$s1" -le 4096 ] && [ "$s2" -le 4096 ] && echo 0 || echo 1) \
  "every file is at most 4096 bytes ($s2, $s1, $s0)"
t_ok $([ "$s1" -gt 4050 ] && [ "$s2" -gt 4050 ] && echo 0 || echo 1) \
  "the rotated files are full: a line of 34-35 bytes did not fit ($s2, $s1)"
cat "$T/log/rot.log.2" "$T/log/rot.log.1" "$T/log/rot.log" > "$T/kept"
kept=$(wc -l < "$T/kept")
t_eq "$(grep -c "^${TS}line [0-9]*\$" "$T/kept")" "$kept" "no line is cut across a rotation (all $kept kept lines are whole)"
t_eq "$(strip "$T/kept" | md5sum)" "$(seq $((1001 - kept)) 1000 | sed 's/^/line /' | md5sum)" \
  "the kept files hold line $((1001 - kept)) .. line 1000 with no gap: nothing lost inside what is kept"
t_ok $([ "$kept" -lt 1000 ] && [ "$kept" -gt 230 ] && echo 0 || echo 1) \
  "the oldest lines were rotated away ($((1000 - kept)) of 1000), more than 2 x 4K kept ($kept lines)"

# ------------------------------------------------ capctl log -n, -f
sv_ctl log -n 3 rot > "$T/n3"
rc=$?
t_eq "$rc:$(wc -l < "$T/n3")" "0:3" "capctl log -n 3 prints exactly 3 lines"
t_eq "$(cat "$T/n3")" "$(tail -n 3 "$T/log/rot.log")" "... the last 3 lines of rot.log, timestamps included"
t_eq "$(strip "$T/n3" | tr '\n' ,)" "line 998,line 999,line 1000," "... which are line 998 .. line 1000"
t_eq "$(sv_ctl log -n 1 rot | strip)" "line 1000" "capctl log -n 1 prints the last line"
t_eq "$(sv_ctl log -n 0 rot | wc -c)" 0 "capctl log -n 0 prints nothing"
t_eq "$(sv_ctl log rot | wc -l)" 10 "capctl log prints 10 lines by default"

# follow until 45 lines have come (tick writes one every 10 ms or so; a
# loaded machine takes longer, not fewer), then stop it: it must still be
# following then
: > "$T/follow"   # (the background job opens it when it gets to run)
"$CAPCTL" log -n 1 -f tick -r "$T/run" >> "$T/follow" &
follower=$!
i=0
while [ "$(wc -l < "$T/follow")" -lt 45 ] && kill -0 "$follower" 2>/dev/null && [ $i -lt 1200 ]; do
  sleep 0.05
  i=$((i + 1))
done
kill -0 "$follower" 2>/dev/null
t_ok $? "capctl log -f keeps following until stopped ($(wc -l < "$T/follow") lines so far)"
kill -TERM "$follower"
wait "$follower"
nf=$(wc -l < "$T/follow")
t_eq "$(grep -c "^${TS}tick [0-9]* 0*\$" "$T/follow")" "$nf" "every followed line is whole ($nf lines)"
a=$(head -n 1 "$T/follow" | cut -d' ' -f3)
z=$(tail -n 1 "$T/follow" | cut -d' ' -f3)
t_eq "$(cut -d' ' -f3 "$T/follow" | md5sum)" "$(seq "${a:-0}" "${z:-0}" | md5sum)" \
  "the followed lines are consecutive: tick $a .. tick $z, none lost or repeated"
t_ok $([ $((${z:-0} - ${a:-0})) -ge 40 ] && echo 0 || echo 1) \
  "new lines arrived while following, across at least 2 rotations of 17 lines ($((${z:-0} - ${a:-0})) new)"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
echo "# summary: logs: 20 lines in the exact format; rotation at 4K kept $kept of 1000 lines in 3 files ($s2+$s1+$s0 bytes); log -f followed $nf lines"

# ------------------------------------------------ a 50 MB writer vs a restart
# healthy: SIGKILLed after >= 1 s of run, so it is restarted at once; its
# restart latency is the time from the kill to its stamp (CLOCK_MONOTONIC,
# the helper's first act).  Measured alone, then while spew writes 50 MB.
rm -f "$T"/c/services/* "$T"/log/*
printf 'log-directory = %s/log\n' "$T" > "$T/c/capinit.conf"
svc healthy <<EOF
command = $HELPER stamp $T/stamps
EOF
svc spew <<EOF
command = $HELPER spew 52428800
enabled = no
EOF
cat > "$T/lat.py" <<'EOF'
import json, os, signal, statistics, subprocess, sys, time
capctl, run, stamps, mode, want = sys.argv[1:6]
want = int(want)
SPEW_LINES = 52428800 // 100

def status(name):
    out = subprocess.run([capctl, "status", "--json", name, "-r", run], capture_output=True, text=True).stdout
    return json.loads(out)[0]

def last_stamp():
    with open(stamps) as f:
        lines = f.read().split("\n")[:-1]
    name, ms, pid = lines[-1].split()
    return len(lines), int(ms), int(pid)

def sample():
    """SIGKILL healthy once it has run 1.05 s; return the restart latency, ms"""
    n, ms, pid = last_stamp()
    while time.monotonic() * 1000 < ms + 1050:
        time.sleep(0.005)
    t0 = int(time.monotonic() * 1000)  # whole ms, as the stamp: +-1 ms
    os.kill(pid, signal.SIGKILL)
    global kills
    kills += 1
    deadline = time.monotonic() + 60  # generous: only a lost restart takes it
    while time.monotonic() < deadline:
        m, ms2, pid2 = last_stamp()
        if m > n:
            return ms2 - t0
        time.sleep(0.001)
    print("healthy not restarted within 60 s of its SIGKILL")
    sys.exit(1)

lat = []
took = []
rounds = kills = 0
if mode == "control":
    while len(lat) < want:
        lat.append(sample())
else:
    # each round: spew writes 50 MB; samples are taken while it writes.
    # healthy may only be killed once it has run 1.05 s, so start the write
    # LEAD_MS before that: the round's first sample then falls inside the
    # write whatever its speed (about 1.7 s in the normal build, near 1 s
    # under ASan; started at once, a round's first sample came 1.05 s after
    # the last restart, and missed every write shorter than that).  Each
    # sample is still counted only if spew has not finished when it ends.
    LEAD_MS = 250
    while len(lat) < want and rounds < 8:
        rounds += 1
        n, ms, pid = last_stamp()
        while time.monotonic() * 1000 < ms + 1050 - LEAD_MS:
            time.sleep(0.005)
        subprocess.run([capctl, "restart", "spew", "-r", run], check=True)
        began = time.monotonic()
        time.sleep(0.05)
        while len(lat) < want:
            l = sample()
            if status("spew")["log_lines"] < rounds * SPEW_LINES:
                lat.append(l)  # spew was still writing after the restart
            else:
                break
        deadline = time.monotonic() + 300
        while status("spew")["log_lines"] < rounds * SPEW_LINES and time.monotonic() < deadline:
            time.sleep(0.05)
        took.append(time.monotonic() - began)
    s = status("spew")
    print("spew_lines %d spew_dropped %d rounds %d" % (s["log_lines"], s["log_dropped"], rounds))
    print("spew_seconds " + " ".join("%.1f" % x for x in took))
print("latencies " + " ".join("%d" % x for x in lat))
print("median %.1f max %d" % (statistics.median(lat), max(lat)))
print("kills %d" % kills)
EOF
sv_start
sv_wait healthy up
t_ok $? "healthy is up"
sv_in timeout 600 "$PY" "$T/lat.py" "$CAPCTL" "$T/run" "$T/stamps" control 6 > "$T/lat.control"
t_ok $? "6 restart latencies measured alone"
sv_in timeout 1200 "$PY" "$T/lat.py" "$CAPCTL" "$T/run" "$T/stamps" load 6 > "$T/lat.load"
t_ok $? "6 restart latencies measured while spew writes 50 MB"
sed 's/^/# control: /' "$T/lat.control"
sed 's/^/# under load: /' "$T/lat.load"
c_med=$(sed -n 's/^median \([0-9.]*\) .*/\1/p' "$T/lat.control")
c_max=$(sed -n 's/^median .* max \([0-9.]*\)/\1/p' "$T/lat.control")
l_med=$(sed -n 's/^median \([0-9.]*\) .*/\1/p' "$T/lat.load")
l_max=$(sed -n 's/^median .* max \([0-9.]*\)/\1/p' "$T/lat.load")
rounds=$(sed -n 's/.* rounds \([0-9]*\)$/\1/p' "$T/lat.load")
# the writer does not hold the restart back: each of these restarts came
# (SIGKILL to new stamp) while spew was still writing, as a status read
# after it showed; the latencies themselves are figures (# summary)
t_eq "$(sed -n 's/^latencies //p' "$T/lat.load" | wc -w)" 6 \
  "6 restarts completed while spew was still writing ($rounds rounds of 50 MB)"
t_eq "$(sed -n 's/^spew_lines \([0-9]*\) spew_dropped \([0-9]*\) .*/\1 \2/p' "$T/lat.load")" "$((524288 * ${rounds:-0})) 0" \
  "every line of the $rounds x 50 MB reached the log: $((524288 * ${rounds:-0})) lines, 0 dropped"
kills=$(($(sed -n 's/^kills //p' "$T/lat.control") + $(sed -n 's/^kills //p' "$T/lat.load")))
t_eq "$(sv_field healthy restarts)" "$kills" "healthy restarted exactly once per SIGKILL ($kills), never backed off"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
echo "# summary: restart latency alone median $c_med ms max $c_max ms; under a 50 MB writer median $l_med ms max $l_max ms ($rounds x 50 MB in $(sed -n 's/^spew_seconds //p' "$T/lat.load") s, 0 dropped)"

# ------------------------------------------------ a read-only log directory
rm -f "$T"/c/services/* "$T"/log/* "$T/stamps"
svc l100 <<EOF
command = $HELPER lines 100
EOF
svc ticker <<'EOF'
command = /bin/sh -c "i=0; while [ $i -lt 100000 ]; do echo tick $i; i=$((i+1)); sleep 0.05; done"
EOF
# only capinit's mount namespace sees the directory read-only
SV_SETUP="mount --bind $T/log $T/log && mount -o remount,bind,ro $T/log" sv_start
t_ok $? "capinit starts with a read-only log directory"
sv_wait ticker up
logged l100 100
t_eq "$(sv_field l100 log_lines)/$(sv_field l100 log_dropped)" "100/0" \
  "read-only: all 100 lines are counted, none dropped"
t_eq "$(sed -n 's/^l100: //p' "$T/capinit.out" | md5sum)" "$(seq 1 100 | sed 's/^/line /' | md5sum)" \
  "read-only: the console has them instead: l100: line 1 .. line 100, in order"
t_eq "$(grep -c "^capinit: service l100: warning: unable to log to $T/log/l100.log: Read-only file system: its lines go to the console\$" "$T/capinit.out")" 1 \
  "read-only: capinit says once why and where the lines go"
t_eq "$(sv_in sh -c "touch $T/log/x 2>&1 >/dev/null | sed 's/.*: //'")" "Read-only file system" \
  "fixture: capinit's view of the log directory is read-only"
# both counters from one reply: a line may arrive between two requests
counters() { # NAME -> "LINES DROPPED"
  sv_ctl status --json "$1" | sed -n 's/^    "log_\(lines\|dropped\)": \([0-9]*\),$/\2/p' | tr '\n' ' '
}
wait_for() { # CMD...: every 0.05 s, at most 60 s
  i=0
  while ! "$@" && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
}
lines_beyond() { # N: ticker has logged more than N lines
  set -- "$1" $(counters ticker)
  [ "${2:-0}" -gt "$1" ]
}
# ticker writes a line every 50 ms or so: 60 lines are 3 s, three retries
wait_for lines_beyond 60
set -- $(counters ticker)
l1=$1 d1=$2
t_ok $([ "${l1:-0}" -gt 60 ] && [ "$d1" = 0 ] && echo 0 || echo 1) "read-only: ticker's lines are counted, none dropped ($l1, $d1)"
t_ok $(grep -q '^ticker: tick 60$' "$T/capinit.out"; echo $?) "read-only: ticker's lines are on the console (tick 60)"
t_eq "$(grep -c '^capinit: service ticker: ' "$T/capinit.out")" 1 "read-only: one warning for ticker, across its retries"
t_eq "$(ls "$T/log" | wc -l)" 0 "no file was written"
t_ok $(kill -0 "$(sv_pid)" && sv_ctl status ticker >/dev/null; echo $?) "capinit keeps running and answers: status exit 0"
sv_in mount -o remount,bind,rw "$T/log"
written() { [ -s "$T/log/ticker.log" ]; }
wait_for written
t_ok $([ -s "$T/log/ticker.log" ] && echo 0 || echo 1) \
  "made writable again: the file is reopened (capinit retries every second; $((i * 50)) ms)"
t_eq "$(grep -c "^capinit: service ticker: logging to $T/log/ticker.log again\$" "$T/capinit.out")" 1 \
  "... and capinit says so once"
# the file has a line: the reopen is done, nothing goes to the console from now on
set -- $(counters ticker)
l3=$1 d3=$2
c3=$(grep -c '^ticker: ' "$T/capinit.out")
wait_for lines_beyond $((l3 + 10))
set -- $(counters ticker)
l4=$1 d4=$2
t_ok $([ "$d3" = 0 ] && [ "$d4" = 0 ] && [ "${l4:-0}" -gt $((l3 + 10)) ] && [ "$(grep -c '^ticker: ' "$T/capinit.out")" = "$c3" ] && echo 0 || echo 1) \
  "... and nothing is dropped nor sent to the console ($d3 -> $d4 dropped while $l3 -> $l4 lines)"
# one copy, counted twice: ticker still writes, a line may land between reads
cp "$T/log/ticker.log" "$T/ticker.snap"
t_eq "$(grep -c "^${TS}tick [0-9]*\$" "$T/ticker.snap")" "$(wc -l < "$T/ticker.snap")" "... whole lines"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
echo "# summary: read-only log directory: 100/0 lines counted/dropped, on the console instead, said once; ticker $l1 lines; writable again: $d3 -> $d4 dropped over $((l4 - l3)) lines"

# control: the same services with a writable directory drop nothing
rm -f "$T"/log/*
sv_start
sv_wait ticker up
logged l100 100
t_eq "$(sv_field l100 log_lines)/$(sv_field l100 log_dropped)" "100/0" "control, writable: 100 lines, 0 dropped"
t_eq "$(strip "$T/log/l100.log" | md5sum)" "$(seq 1 100 | sed 's/^/line /' | md5sum)" "control: l100.log holds line 1 .. line 100"
t_eq "$(sv_field ticker log_dropped)" 0 "control: ticker drops nothing"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
t_done
