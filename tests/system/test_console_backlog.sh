#!/bin/sh
# log = console on a slow console: capinit's fd 2 is a pipe of one page
# (4096 bytes, F_SETPIPE_SZ) that nobody reads for a while, as a serial
# console at 115200 baud is while a shell prints on it.  capinit never
# waits for it (capctl status answers the whole time), and loses no line
# that fits its backlog: 2000 lines (37 KB) all arrive, in order, after
# the reader comes back.  The control: 20000 lines (360 KB), more than the
# pipe and the backlog hold, are dropped and counted exactly (what arrives
# + log_dropped = what the service wrote, the first lines first).
# (The arm64 appliance lost a line this way: archcheck's first, written
# while the console shell printed its banner.)
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init

# drive capinit with its fd 1 and 2 on a one-page pipe; print what it saw:
#   status NAME STATE LINES DROPPED  (while nobody read the pipe)
#   got N FIRST LAST ORDERED         (NAME's lines, read afterwards)
#   answered N                       (capctl status calls answered while blocked)
drive() { # NAME LINES
  python3 - "$CAPINIT" "$CAPCTL" "$T" "$1" "$2" <<'EOF'
import fcntl, json, os, select, signal, subprocess, sys, time
capinit, capctl, T, name, total = sys.argv[1:6]
total = int(total)
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
# in a PID namespace of its own, as tests/supervise_lib.sh's sv_start (a
# capinit that is not PID 1 would be a subreaper, which qemu-user lacks)
p = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc",
                      capinit, "--container", "-c", T + "/c", "-r", T + "/run"],
                     stdin=subprocess.DEVNULL, stdout=w, stderr=w)
os.close(w)
end = time.time() + 60
while not os.path.exists(T + "/run/control") and time.time() < end and p.poll() is None:
    time.sleep(0.05)
def inner():  # capinit: unshare's only child
    for t in os.listdir("/proc/%d/task" % p.pid):
        try:
            c = open("/proc/%d/task/%s/children" % (p.pid, t)).read().split()
        except OSError:
            continue
        if c: return int(c[0])
    return None
cap = inner()
def status():
    out = subprocess.run([capctl, "status", "--json", name, "-r", T + "/run"],
                         capture_output=True, text=True, timeout=20).stdout
    try:
        rec = json.loads(out)
    except ValueError:
        return None
    if isinstance(rec, dict): rec = rec.get("services", [rec])
    return rec[0] if rec else None
# nobody reads: wait until capinit has taken every line of the service
answered, st, end = 0, None, time.time() + 60
while time.time() < end:
    st = status()
    if st: answered += 1
    if st and st.get("log_lines") == total and st.get("state") in ("up", "failed"): break
    time.sleep(0.05)
print("status", name, st and st.get("state"), st and st.get("log_lines"), st and st.get("log_dropped"))
print("answered", answered)
# the reader comes back: everything until capinit has exited
if cap: os.kill(cap, signal.SIGTERM)
else: p.send_signal(signal.SIGKILL)
data, end = b"", time.time() + 60
while time.time() < end:
    if select.select([r], [], [], 1)[0]:
        b = os.read(r, 65536)
        if not b: break
        data += b
p.wait(timeout=60)
pre = name + ": " + name + " "
nums = [int(l[len(pre):]) for l in data.decode().splitlines() if l.startswith(pre)]
print("got", len(nums), nums[0] if nums else "-", nums[-1] if nums else "-",
      "ordered" if nums == sorted(set(nums)) else "unordered")
print("rc", p.returncode)  # unshare --fork: capinit's own exit status
EOF
}

svc burst <<EOF
type = oneshot
command = /usr/bin/seq -f "burst %06g" 1 2000
log = console
EOF
out=$(drive burst 2000)
echo "$out" | sed 's/^/# /'
t_eq "$(echo "$out" | sed -n 's/^status //p')" "burst up 2000 0" \
  "2000 lines on a console nobody reads: the oneshot is done, 2000 lines, 0 dropped"
n=$(echo "$out" | sed -n 's/^answered //p')
t_ok "$([ "${n:-0}" -ge 1 ] && echo 0 || echo 1)" "capctl status answered while the console was full ($n times)"
t_eq "$(echo "$out" | sed -n 's/^got //p')" "2000 1 2000 ordered" \
  "the reader back: all 2000 lines arrive, in order (the backlog)"
t_eq "$(echo "$out" | sed -n 's/^rc //p')" 0 "capinit exits 0 (SIGTERM), its backlog written out first"

# the control: more than the pipe and the backlog hold
rm "$T/c/services/burst.svc"
svc flood <<EOF
type = oneshot
command = /usr/bin/seq -f "flood %06g" 1 20000
log = console
EOF
out=$(drive flood 20000)
echo "$out" | sed 's/^/# /'
st=$(echo "$out" | sed -n 's/^status //p')
d=$(echo "$st" | cut -d' ' -f4)
t_eq "$(echo "$st" | cut -d' ' -f1-3)" "flood up 20000" "control: 20000 lines, nobody reading: the oneshot is done"
t_ok "$([ "${d:-0}" -gt 0 ] && echo 0 || echo 1)" "control: lines beyond the backlog are dropped ($d)"
got=$(echo "$out" | sed -n 's/^got //p')
t_eq "$got" "$((20000 - ${d:-0})) 1 $(echo "$got" | cut -d' ' -f3) ordered" \
  "control: what arrives + log_dropped = 20000 exactly, the first line first, in order"
t_eq "$(echo "$out" | sed -n 's/^rc //p')" 0 "control: capinit exits 0"
echo "# summary: 2000 console lines through a full one-page pipe, 0 dropped; 20000: ${d:-?} dropped and counted"
t_done
