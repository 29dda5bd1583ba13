# tests/robust/hostile.py VERB ARGS -- the hostile clients of
# tests/robust/test_hostile.sh, on capinit's control and notify sockets
# (tests/system/test_supervise_control.sh uses `raw`).
#   raw SOCK REQ...        one request per argument (Python escapes), on a
#                          new connection each; the replies, records cut
#                          at their first tab, joined by " | ", one line each
#   fds SOCK N K           N requests "status", each carrying K descriptors
#                          (SCM_RIGHTS); prints "replies R ok O"
#   stall SOCK SECONDS     send "status" 1000 times without reading a reply,
#                          then hold the connection SECONDS; prints "sent N",
#                          then "dropped" if capinit closes it meanwhile
#   many SOCK N            hold N idle connections; one more sends "status
#                          nosuch": what it gets in 0.5 s ("waiting" when
#                          nothing), then, once the N close, its reply (or
#                          a new connection's when it was refused)
#   hold SOCK N SECONDS [W [STOP]]
#                          open N connections, each sending "status nosuch";
#                          count those answered, told "too many clients",
#                          and still waiting (W: as soon as only W wait,
#                          else 60 s, then 0.5 s more); prints "answered A
#                          waiting W refused R", then holds them SECONDS
#                          (or until the file STOP exists)
#   types SOCK             connect as SOCK_STREAM and SOCK_DGRAM: the errors
#   notify PATH N KIND     N datagrams to a notify socket, KIND ready |
#                          garbage | big | fds; prints "sent S refused R"
#   paused SOCK PID S      "status"; once its first record has come, capinit
#                          (PID) is stopped for S seconds (SIGSTOP: as if
#                          busy) while the client reads what the socket
#                          holds, then goes on; prints "RECORDS FINAL"
import array, codecs, os, random, select, signal, socket, sys, time

# How long a reply, or a place in the listen backlog, may take before the
# client gives up: generous, since a loaded machine (two cores shared with
# builds and QEMU boots) must never reach it; only a lost client does.
WAIT = 60

def connect(path, kind=socket.SOCK_SEQPACKET):
    s = socket.socket(socket.AF_UNIX, kind)
    s.settimeout(WAIT)
    end = time.monotonic() + WAIT
    while True:
        try:
            s.connect(path)
            return s
        except BlockingIOError:  # the listen backlog is full: capinit has not accepted yet
            if time.monotonic() > end:
                raise TimeoutError("connect: backlog full for %d s" % WAIT)
            time.sleep(0.01)

def replies(s):
    out = []
    while True:
        try:
            r = s.recv(65536)
        except socket.timeout:
            out.append("TIMEOUT")
            break
        if not r:
            out.append("EOF")
            break
        t = r.decode(errors="backslashreplace")
        out.append(t.split("\t")[0])
        if t == "ok" or t.startswith("error: "):
            break
    return out

verb, args = sys.argv[1], sys.argv[2:]
if verb == "raw":
    for a in args[1:]:
        s = connect(args[0])
        s.send(codecs.escape_decode(a.encode())[0])
        print(" | ".join(replies(s)))
        s.close()
elif verb == "fds":
    path, n, k = args[0], int(args[1]), int(args[2])
    nul = [os.open("/dev/null", os.O_RDONLY) for _ in range(k)]
    got = ok = 0
    for i in range(n):
        s = connect(path)
        s.sendmsg([b"status"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", nul))])
        r = replies(s)
        got += 1
        ok += r[-1] == "ok"
        s.close()
    print("replies %d ok %d" % (got, ok))
elif verb == "stall":
    s = connect(args[0])
    s.setblocking(False)
    sent = 0
    for i in range(1000):
        try:
            s.send(b"status")
            sent += 1
        except BlockingIOError:
            break
    print("sent %d" % sent, flush=True)
    # a capinit that closes the connection (its idle deadline) hangs it up
    p = select.poll()
    p.register(s, select.POLLHUP)
    if p.poll(float(args[1]) * 1000):
        print("dropped", flush=True)
elif verb == "many":
    path, n = args[0], int(args[1])
    held = [connect(path) for _ in range(n)]
    time.sleep(0.3)
    s = connect(path)
    try:
        s.send(b"status nosuch")
    except OSError:
        pass  # told "too many clients" and closed already: the reply is there
    s.settimeout(0.5)
    try:
        first = s.recv(65536).decode(errors="backslashreplace")
    except socket.timeout:
        first = "waiting"
    print(first, flush=True)
    for h in held:
        h.close()
    if first != "waiting":
        s.close()
        time.sleep(0.3)
        s = connect(path)
        s.send(b"status nosuch")
    s.settimeout(WAIT)
    print(" | ".join(replies(s)))
elif verb == "hold":
    path, n, secs = args[0], int(args[1]), float(args[2])
    want_waiting = int(args[3]) if len(args) > 3 else 0
    stop = args[4] if len(args) > 4 else None
    conns = [connect(path) for _ in range(n)]
    for s in conns:
        try:
            s.send(b"status nosuch")
        except OSError:
            pass  # told "too many clients" and closed already: the reply is there
        s.setblocking(False)
    answered = refused = 0
    pending = list(conns)
    # served ones answer at once; the waiting ones only once a served
    # connection closes or idles out (10 s): count before that (the bound
    # is only reached when fewer than N - W answer)
    end = time.monotonic() + WAIT
    while pending and time.monotonic() < end:
        time.sleep(0.05)
        still = []
        for s in pending:
            try:
                r = s.recv(65536)
                refused += r.startswith(b"error: too many clients")
                answered += r.startswith(b"error: unknown service")
            except BlockingIOError:
                still.append(s)
        pending = still
        if len(pending) <= want_waiting:
            break
    time.sleep(0.5)
    for s in list(pending):
        try:
            r = s.recv(65536)
            refused += r.startswith(b"error: too many clients")
            answered += r.startswith(b"error: unknown service")
            pending.remove(s)
        except BlockingIOError:
            pass
    print("answered %d waiting %d refused %d" % (answered, len(pending), refused), flush=True)
    end = time.monotonic() + secs
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        time.sleep(0.05)
    for s in conns:
        s.close()
elif verb == "types":
    for name, kind in (("stream", socket.SOCK_STREAM), ("dgram", socket.SOCK_DGRAM)):
        try:
            s = connect(args[0], kind)
            if kind == socket.SOCK_DGRAM:
                s.send(b"stop web")
            print("%s: connected" % name)
        except OSError as e:
            print("%s: %s" % (name, e.strerror))
elif verb == "paused":
    s = connect(args[0])
    s.settimeout(WAIT)
    s.send(b"status")
    # the first record: capinit has read the request and queued the reply
    r, done = [], False
    def take(m):
        global done
        t = m.decode(errors="backslashreplace") if m else "EOF"
        r.append(t.split("\t")[0])
        done = not m or t == "ok" or t.startswith("error: ")
    take(s.recv(65536))
    os.kill(int(args[1]), signal.SIGSTOP)
    # a reading client: it takes what the socket holds while capinit is
    # stopped, then waits for more; capinit finds room when it goes on
    end = time.monotonic() + float(args[2])
    while not done and time.monotonic() < end:
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            take(s.recv(65536))
        except socket.timeout:
            break
    time.sleep(max(0, end - time.monotonic()))
    os.kill(int(args[1]), signal.SIGCONT)
    s.settimeout(WAIT)
    if not done:
        r += replies(s)
    print(len(r) - 1, r[-1])
elif verb == "notify":
    path, n, kind = args[0], int(args[1]), args[2]
    rnd = random.Random(1)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setblocking(False)
    nul = [os.open("/dev/null", os.O_RDONLY) for _ in range(16)]
    sent = refused = 0
    for i in range(n):
        if kind == "ready":
            msg = b"READY=1\nSTATUS=spoofed\n"
        elif kind == "garbage":
            msg = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 300)))
        elif kind == "big":
            msg = b"READY=1\n" + b"X" * 60000
        else:
            msg = b"READY=1\n"
        end = time.monotonic() + WAIT
        while True:  # a full queue (EAGAIN) drains as capinit reads it
            try:
                if kind == "fds":
                    s.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", nul))], 0, path)
                else:
                    s.sendto(msg, path)
                sent += 1
                break
            except BlockingIOError:
                if time.monotonic() > end:
                    break
                time.sleep(0.001)
            except OSError:
                refused += 1
                break
    print("sent %d refused %d" % (sent, refused))
