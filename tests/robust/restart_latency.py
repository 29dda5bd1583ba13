# tests/robust/restart_latency.py CAPCTL RUNDIR STAMPDIR NSVC MODE ARG --
# restart latency of services h0..h(NSVC-1) (svc_helper stamp
# STAMPDIR/stamps.I, restart-delay = 0ms): SIGKILL one, in turn, and time
# until its new process has stamped (both CLOCK_MONOTONIC, ms).  Runs in
# capinit's PID namespace (the pids are capinit's).
#   MODE control ARG: ARG samples
#   MODE load ARG:    `capctl start spew`, which writes ARG lines; samples
#                     until they are all in the log
# Prints "latencies ...", "median M p90 P max X", "samples N", and in load
# mode "spew_lines L spew_dropped D spew_ms T" and "during N": the samples
# that ended before a status that showed spew still writing (restarts
# that did not wait for the write).  A service not restarted within 60 s
# (a generous bound: a loaded machine restarts it in milliseconds) ends
# the run with exit 1.
import json, os, signal, statistics, subprocess, sys, time

capctl, rundir, stampdir, nsvc, mode, arg = sys.argv[1:7]
nsvc, arg = int(nsvc), int(arg)

def status(name):
    out = subprocess.run([capctl, "status", "--json", name, "-r", rundir],
                         capture_output=True, text=True).stdout
    return json.loads(out)[0]

def last_stamp(i):
    with open("%s/stamps.%d" % (stampdir, i)) as f:
        lines = f.read().split("\n")[:-1]
    name, ms, pid = lines[-1].split()
    return len(lines), int(ms), int(pid)

def sample(i):
    n, ms, pid = last_stamp(i)
    t0 = int(time.monotonic() * 1000)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        m, ms2, pid2 = last_stamp(i)
        if m > n:
            return ms2 - t0
        time.sleep(0.0005)
    print("h%d not restarted within 60 s of its SIGKILL" % i)
    sys.exit(1)

lat = []
k = 0
if mode == "control":
    while len(lat) < arg:
        lat.append(sample(k % nsvc))
        k += 1
        time.sleep(0.01)
else:
    t0 = time.monotonic()
    subprocess.run([capctl, "start", "spew", "-r", rundir], check=True)
    checked = time.monotonic()
    during = 0
    while True:
        lat.append(sample(k % nsvc))
        k += 1
        time.sleep(0.01)
        if time.monotonic() - checked > 0.25:
            checked = time.monotonic()
            s = status("spew")
            if s["log_lines"] + s["log_dropped"] >= arg:
                break
            during = len(lat)
        if time.monotonic() - t0 > 600:
            break
    spew_ms = (time.monotonic() - t0) * 1000
    s = status("spew")
    print("spew_lines %d spew_dropped %d spew_ms %d" % (s["log_lines"], s["log_dropped"], spew_ms))
    print("during %d" % during)
lat.sort()
print("latencies " + " ".join("%d" % x for x in lat))
print("median %d p90 %d max %d" % (statistics.median(lat), lat[int(len(lat) * 0.9)], lat[-1]))
print("samples %d" % len(lat))
