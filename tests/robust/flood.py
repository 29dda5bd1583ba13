# tests/robust/flood.py SOCKET SECONDS NSERVICES SEED -- one control client
# of the flood: requests in a fixed rotation, half on a new connection,
# half on a kept one, for SECONDS; each reply checked whole (the number of
# records, the final message).  Like capctl, it waits and tries again when
# capinit's listen backlog is full (connect: EAGAIN) or capinit has too
# many clients at once ("error: too many clients", nothing done), and
# counts those retries.  Prints one line:
#   requests N bad N timeouts N max_ms N retries N
import os, random, socket, sys, time

path, seconds, nsvc, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)

def garbage():
    # printable junk: a request that parses to an unknown verb
    return "zz" + "".join(rnd.choice("abcdefghij ") for _ in range(rnd.randrange(1, 200)))

# (request, records expected, final message expected: exact or prefix)
def requests():
    return [
        (b"status", nsvc, "ok"),
        (b"status steady", 1, "ok"),
        (b"status steady flip crash", 3, "ok"),
        (garbage().encode(), 0, "error: unknown verb"),
        (b"x" * 5000, 0, "error: request too long"),
        (b"stop nosuch", 0, "error: unknown service"),
        (b"log steady", 1, "ok"),
        (b"restart flip", 0, "ok"),
        (b"signal CONT steady", 0, "ok"),
        (b"verify-facts steady", 2, "ok"),  # capinit's record, then steady's
        (b"status\x00", 0, "error: NUL byte"),
    ]

BUSY = "error: too many clients"

def transact(s, req):
    s.send(req)
    records, final = 0, None
    while final is None:
        r = s.recv(65536)
        if not r:
            return records, "EOF"
        t = r.decode(errors="replace")
        if t == "ok" or t.startswith("error: "):
            final = t
        else:
            records += 1
    return records, final

retries = 0

# A reply (or a place in the backlog) that takes WAIT seconds is a timeout:
# a generous bound (a loaded machine answers in well under a second), which
# only a capinit that lost a client reaches.
WAIT = 60

def connect():
    global retries
    pause = 0.005
    end = time.monotonic() + WAIT
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(WAIT)  # makes connect() non-blocking: a full backlog is EAGAIN
        try:
            s.connect(path)
            return s
        except BlockingIOError:
            s.close()
            if time.monotonic() > end:
                raise socket.timeout("backlog full for %d s" % WAIT)
            retries += 1
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

def transact_retrying(s, req):
    """A busy capinit (which closes the connection) is asked again on a
    new one; returns the connection used and the reply."""
    global retries
    while True:
        got = transact(s, req)
        if got != (0, BUSY):
            return s, got
        retries += 1
        s.close()
        time.sleep(0.005)
        s = connect()

n = bad = timeouts = 0
worst = 0.0
kept = None
end = time.monotonic() + seconds
while time.monotonic() < end:
    for req, want_records, want_final in requests():
        t0 = time.monotonic()
        try:
            if kept is None:
                kept = connect()
            fresh = rnd.random() < 0.5
            s = connect() if fresh else kept
            s, (got_records, got_final) = transact_retrying(s, req)
            if fresh:
                s.close()
            else:
                kept = s
        except socket.timeout:
            timeouts += 1
            kept = None
            continue
        except OSError as e:
            bad += 1
            print("# %r: %s" % (req[:40], e), file=sys.stderr)
            kept = None
            continue
        worst = max(worst, (time.monotonic() - t0) * 1000)
        n += 1
        if got_records != want_records or not got_final.startswith(want_final):
            bad += 1
            print("# %r: %d records, %r (want %d, %r)" % (req[:40], got_records, got_final,
                                                          want_records, want_final), file=sys.stderr)
print("requests %d bad %d timeouts %d max_ms %d retries %d" % (n, bad, timeouts, worst, retries))
