#!/bin/sh
# The control socket: who may read and who may change (SO_PEERCRED and the
# socket's mode), garbage and oversized requests change nothing, signal,
# reload (new, removed, changed files), capctl status exit codes and JSON,
# and 16 concurrent clients.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
sv_init
NOBODY="setpriv --reuid=65534 --regid=65534"
AUDIO=$(getent group audio | cut -d: -f3)

# the state that a request could change: name state wanted pid restarts
cat > "$T/snap.py" <<'EOF'
import json, sys
for s in json.load(sys.stdin):
    print(s["name"], s["state"], s["wanted"], s["pid"], s["restarts"])
EOF
snap() { sv_ctl status --json | "$PY" "$T/snap.py"; }

# one raw request per argument (Python escapes), the replies joined by " | "
# (the hostile clients' raw verb)
raw() { sv_peer "$PY" "$(pwd)/tests/robust/hostile.py" raw "$T/run/control" "$@"; }

svc web <<EOF
command = $HELPER stamp $T/stamps
EOF

# ------------------------------------------------ no control-group
sv_start
t_ok $? "capinit starts without control-group"
sv_wait web up
t_eq "$(stat -c '%a %U %G' "$T/run/control")" "600 root root" "the socket is 0600 root:root"
web_pid=$(sv_field web pid)
out=$($NOBODY --clear-groups "$CAPCTL" status -r "$T/run" 2>&1)
t_eq "$?:$(echo "$out" | sed 's/.*: //')" "111:Permission denied" "uid 65534 cannot even connect to the 0600 socket (exit 111)"
t_eq "$(sv_ctl status web >/dev/null; echo $?)" 0 "control: root reads status (exit 0)"
# past the file mode, capinit's own check (SO_PEERCRED) still refuses
chmod 0666 "$T/run/control"
out=$($NOBODY --clear-groups "$CAPCTL" status -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: not in the control group" \
  "socket opened to all: uid 65534 is refused reads by capinit (exit 1)"
out=$($NOBODY --clear-groups "$CAPCTL" stop web -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services" \
  "... and refused changes (exit 1)"
$NOBODY --clear-groups "$CAPCTL" restart web -r "$T/run" >/dev/null 2>&1
t_eq "$(sv_field web state) $(sv_field web pid)" "up $web_pid" "web is still up with the same pid"
# capctl's options before the verb or after it (unit: test_capctl_args)
for order in "-r $T/run status web" "status -r $T/run web" "status web -r $T/run" "-r /nonexistent status -r $T/run web"; do
  # shellcheck disable=SC2086
  out=$("$CAPCTL" $order 2>&1 | awk 'NR == 2 { print $1, $2 }')
  t_eq "$out" "web up" "capctl $order: answered"
done
out=$("$CAPCTL" status -x -r "$T/run" 2>&1)
t_eq "$?:$out" "100:capctl: fatal: unknown option '-x' for status (capctl --help lists them)" "capctl status -x: wrong usage (exit 100)"
out=$("$CAPCTL" -x -r "$T/run" status 2>&1)
t_eq "$?:$out" "100:capctl: fatal: unknown option '-x' (capctl --help lists them)" "capctl -x status: wrong usage (exit 100)"
out=$("$CAPCTL" -r "$T/run" stop web -h 2>&1)
t_eq "$?:$(echo "$out" | head -n 1):$(sv_field web state)" "0:usage: capctl [OPTIONS] VERB [OPTIONS] [ARGS...]:up" \
  "capctl -r DIR stop web -h: the help, nothing stopped"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

# ------------------------------------------------ control-group = audio
printf 'control-group = audio\n' >> "$T/c/capinit.conf"
svc hup <<EOF
command = $HELPER stamp $T/hup
EOF
svc ign <<EOF
command = $HELPER ignore-term $T/ign.terms
stop-timeout = 300ms
EOF
svc gone <<EOF
command = $HELPER stamp $T/gone
EOF
svc chg <<EOF
command = $HELPER stamp $T/chg
EOF
svc fails <<EOF
type = oneshot
command = $HELPER exit 1
EOF
sv_start
t_ok $? "capinit starts with control-group = audio"
for s in web hup ign gone chg; do sv_wait $s up || echo "# $s not up"; done
sv_wait fails failed
t_eq "$(stat -c '%a %U %G' "$T/run/control")" "660 root audio" "the socket is 0660 root:audio"
web_pid=$(sv_field web pid)
out=$($NOBODY --groups="$AUDIO" "$CAPCTL" status web -r "$T/run" 2>&1)
t_eq "$?:$(echo "$out" | sed -n '2s/ .*//p')" "0:web" "uid 65534 with supplementary group audio reads status (exit 0)"
out=$($NOBODY --groups="$AUDIO" "$CAPCTL" stop web -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services" "... and is refused changes (exit 1)"
out=$($NOBODY --groups="$AUDIO" "$CAPCTL" reload -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services" "... reload too"
out=$(setpriv --reuid=65534 --regid="$AUDIO" --clear-groups "$CAPCTL" status web -r "$T/run" 2>&1)
t_eq "$?:$(echo "$out" | sed -n '2s/ .*//p')" "0:web" "uid 65534 with primary group audio reads status"
out=$($NOBODY --clear-groups "$CAPCTL" status web -r "$T/run" 2>&1)
t_eq "$?:$(echo "$out" | sed 's/.*: //')" "111:Permission denied" "uid 65534 without the group cannot connect (exit 111)"
t_eq "$(sv_field web state) $(sv_field web pid)" "up $web_pid" "web is still up with the same pid"

# ------------------------------------------------ garbage changes nothing
snap > "$T/before"
pad4087=$(head -c 4087 /dev/zero | tr '\0' ' ')
pad5000=$(head -c 5000 /dev/zero | tr '\0' ' ')
raw 'frobnicate web' '' '\n' 'stop\x00web' '\xff\xfe\x80\xc3 web' '\x01\x02stop web' "stop web$pad5000" "stop web ${pad4087}x" \
  'stop nosuch' 'stop' 'signal NOPE web' 'start web web web extra-arg' > "$T/garbage"
t_eq "$(sed -n 1p "$T/garbage")" "error: unknown verb 'frobnicate'" "unknown verb: error"
t_eq "$(sed -n 2p "$T/garbage")" "error: empty request" "empty message (0 bytes): error"
t_eq "$(sed -n 3p "$T/garbage")" "error: empty request" "a lone newline: error"
t_eq "$(sed -n 4p "$T/garbage")" "error: NUL byte in request: nothing done" "NUL byte: error"
t_eq "$(sed -n 5p "$T/garbage" | cut -c1-22)" "error: unknown verb '\\" "binary bytes (0xff 0xfe 0x80 0xc3): error"
t_eq "$(sed -n 6p "$T/garbage")" "error: control character 0x01 in request: nothing done" "control characters before 'stop web': error"
t_eq "$(sed -n 7p "$T/garbage")" "error: request too long (5008 bytes; at most 4096): nothing done" \
  "5008 bytes, 'stop web' then blanks: refused whole"
t_eq "$(sed -n 8p "$T/garbage")" "error: request too long (4097 bytes; at most 4096): nothing done" \
  "4097 bytes: refused whole"
t_eq "$(sed -n 9p "$T/garbage")" "error: unknown service 'nosuch'" "unknown service: error"
t_eq "$(sed -n 10p "$T/garbage")" "error: usage: stop NAME..." "missing argument: error"
t_eq "$(sed -n 11p "$T/garbage")" "error: unknown signal 'NOPE'" "unknown signal: error"
t_eq "$(sed -n 12p "$T/garbage")" "error: unknown service 'extra-arg'" "one unknown name among known ones: error"
snap > "$T/after"
t_eq "$(cat "$T/after")" "$(cat "$T/before")" "state before == state after: 12 bad requests changed nothing"
t_eq "$(raw "status${pad4087}web")" "name=web | ok" "control: exactly 4096 bytes is a request (status, blanks, web)"
t_eq "$(raw 'stop web' | tr -d '\n')" "ok" "control: 'stop web' on the raw socket is obeyed"
sv_wait web down
t_ok $? "... web goes down"
raw 'start web' >/dev/null
sv_wait web up
t_ok $? "... and up again with 'start web'"

# ------------------------------------------------ signal
sleep 1   # past the 1 s of a healthy run: an immediate restart
hup_pid=$(sv_field hup pid)
ign_pid=$(sv_field ign pid)
sv_ctl signal HUP hup
t_eq "$?" 0 "capctl signal HUP hup: exit 0"
i=0
while [ "$(sv_field hup restarts)" != 1 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
sv_wait hup up
t_eq "$(sv_field hup restarts)/$(sv_field hup last_exit)" "1/signal HUP" "hup died of SIGHUP and was restarted once"
t_ok $([ "$(sv_field hup pid)" != "$hup_pid" ] && echo 0 || echo 1) "hup has a new pid ($hup_pid -> $(sv_field hup pid))"
sv_ctl signal TERM ign
t_eq "$?" 0 "capctl signal TERM ign: exit 0"
# ign notes each SIGTERM it gets (and lives on): once it has this one, a
# capinit that took the signal for a stop would already want it down
terms() { [ "$(cat "$T/ign.terms" 2>/dev/null | wc -l)" -ge 1 ]; }
i=0
while ! terms && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(wc -l < "$T/ign.terms") $(sv_field ign state) $(sv_field ign wanted) $(sv_field ign pid) $(sv_field ign restarts)" "1 up up $ign_pid 0" \
  "control: ign got the SIGTERM and lives on: up, still wanted up, same pid, no restart (a signal is not a stop)"
t_eq "$(sv_field web restarts)" 0 "control: web, not named, got nothing"
out=$(sv_ctl signal NOPE hup 2>&1)
t_eq "$?:$out" "1:capctl: error: unknown signal 'NOPE'" "unknown signal name: exit 1"

# ------------------------------------------------ status exit codes and JSON
t_eq "$(sv_ctl status web hup >/dev/null; echo $?)" 0 "status web hup: both up, exit 0"
t_eq "$(sv_ctl status fails >/dev/null; echo $?)" 3 "status fails (failed): exit 3"
t_eq "$(sv_ctl status >/dev/null; echo $?)" 3 "status (all) with one failed: exit 3"
sv_ctl stop ign
sv_wait ign down
t_eq "$(sv_ctl status web ign >/dev/null; echo $?)" 3 "status web ign, ign stopped: exit 3"
t_eq "$(sv_ctl status web >/dev/null; echo $?)" 0 "status web: exit 0"
out=$(sv_ctl status nosuch 2>&1)
t_eq "$?:$out" "1:capctl: error: unknown service 'nosuch'" "status of an unknown service: exit 1"

cat > "$T/check_json.py" <<'EOF'
import json, re, sys
v = json.load(sys.stdin)
want = {"name": str, "state": str, "pid": int, "restarts": int, "user": int, "mode": str,
        "cap_inh": str, "cap_prm": str, "cap_eff": str, "cap_bnd": str, "cap_amb": str}
bad = []
for s in v:
    for k, t in want.items():
        if not isinstance(s.get(k), t):
            bad.append("%s.%s=%r" % (s.get("name"), k, s.get(k)))
    if s["state"] == "up" and s["type"] == "longrun":
        for k in ("cap_inh", "cap_prm", "cap_eff", "cap_bnd", "cap_amb"):
            if not re.fullmatch("[0-9a-f]{16}", s[k]):
                bad.append("%s.%s=%r" % (s["name"], k, s[k]))
        if s["pid"] <= 0:
            bad.append("%s.pid=%r" % (s["name"], s["pid"]))
print(" ".join(sorted(s["name"] for s in v)), "bad:", " ".join(bad) or "none")
EOF
t_eq "$(sv_ctl status --json | "$PY" "$T/check_json.py" 2>&1)" "chg fails gone hup ign web bad: none" \
  "status --json is valid JSON with name, state, pid, restarts, user, mode, cap_* for all 6"
sv_ctl start ign
sv_wait ign up
t_eq "$(sv_field web mode) $(sv_field web user) $(sv_field web cap_bnd)" "legacy 0 $(sed -n 's/^CapBnd:\t//p' /proc/self/status)" \
  "web: mode legacy, user 0, full bounding set"
t_eq "$(sv_ctl status --json web | grep '"groups"')" '    "groups": "0",' "web's groups are exactly \"0\" (no trailing blank from /proc)"

# ------------------------------------------------ reload
web_pid=$(sv_field web pid)
gone_pid=$(sv_field gone pid)
svc new <<EOF
command = $HELPER stamp $T/new
EOF
rm "$T/c/services/gone.svc" "$T/c/services/fails.svc"
svc chg <<EOF
command = $HELPER stamp $T/chg
user = nobody
EOF
t_eq "$(sv_field chg uid)" "0 0 0 0" "chg runs as root before the reload"
sv_ctl reload
t_eq "$?" 0 "capctl reload: exit 0"
sv_wait new up
t_ok $? "reload: the new file's service starts"
i=0
while sv_ctl status gone >/dev/null 2>&1 && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
out=$(sv_ctl status gone 2>&1)
t_eq "$?:$out" "1:capctl: error: unknown service 'gone'" "reload: the removed file's service is gone from status"
t_eq "$(sv_ctl status | awk 'NR > 1 && !/^ / { print $1 }' | sort | tr '\n' ' ')" "chg hup ign new web " \
  "status lists the 5 services left, without gone (nor fails, also removed)"
t_eq "$(sv_ctl status >/dev/null; echo $?)" 0 "status (all), the failed one removed: exit 0"
sv_ctl stop ign
sv_wait ign down
t_eq "$(sv_ctl status >/dev/null; echo $?)" 0 "status (all) with ign stopped on purpose: exit 0 (only services meant to be up count)"
sv_ctl start ign
sv_wait ign up
t_ok $(sv_in sh -c "kill -0 $gone_pid" 2>/dev/null && echo 1 || echo 0) "gone's process ($gone_pid) has ended"
t_eq "$(sv_field web pid)" "$web_pid" "control: the unchanged web keeps its pid"
t_eq "$(sv_field chg uid)" "0 0 0 0" "reload: the changed chg still runs as root (takes effect at its next start)"
sv_ctl restart chg
i=0
while [ "$(sv_field chg uid)" != "65534 65534 65534 65534" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(sv_field chg uid)/$(sv_field chg user)" "65534 65534 65534 65534/65534" "after capctl restart chg runs as nobody"

# ------------------------------------------------ 16 concurrent clients
names=$(sv_ctl status | awk 'NR > 1 && !/^ / { print $1 }' | tr '\n' ,)
cat > "$T/client.sh" <<'EOF'
# CAPCTL RUN NAMES SECONDS: status in a loop, at least once, then until
# SECONDS have passed (a client started late on a loaded machine still
# asks); print "ITERATIONS BAD"
end=$(($(date +%s) + $4))
n=0 bad=0
while [ $n = 0 ] || [ "$(date +%s)" -lt "$end" ]; do
  got=$("$1" status -r "$2" | awk 'NR > 1 && !/^ / { print $1 }' | tr '\n' ,)
  [ "$got" = "$3" ] || bad=$((bad + 1))
  n=$((n + 1))
done
echo "$n $bad"
EOF
k=0
pids=
while [ $k -lt 16 ]; do
  timeout 300 sh "$T/client.sh" "$CAPCTL" "$T/run" "$names" 3 > "$T/out.$k" &
  pids="$pids $!"
  k=$((k + 1))
done
for p in $pids; do wait "$p"; done
total=$(cat "$T"/out.* | awk '{ n += $1 } END { print n + 0 }')
bad=$(cat "$T"/out.* | awk '{ b += $2 } END { print b + 0 }')
clients=$(cat "$T"/out.* | awk 'NF == 2 && $1 > 0' | wc -l)
t_eq "$clients" 16 "16 concurrent clients each completed status requests for 3 s"
t_eq "$bad" 0 "all $total replies were complete (5 services, in order)"
t_eq "$(sv_field web pid)" "$web_pid" "capinit still serves: web untouched"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
echo "# summary: control: 12 bad requests changed nothing; 16 clients x 3 s: $total status replies, $bad incomplete"
t_done
