#!/usr/bin/env python3
"""tests/debian/netprobe.py -- the host's side of the Debian image's tests
and benchmark: free ports, and a guest's SSH, SMTP and HTTP seen through
QEMU's forwarded ports.

  netprobe.py ports N
      print N free TCP ports of 127.0.0.1, one a line
  netprobe.py answers SSH SMTP HTTP [--since T0_NS] [--timeout S]
      wait until each port answers as its protocol does: an SSH banner
      ("SSH-2.0-"), an SMTP greeting ("220 "), and "HTTP/1.x 200" to a
      GET /.  QEMU accepts a forwarded connection itself, before the
      guest listens, so a connection alone is no answer.  Each port is
      probed on its own (threads), another attempt every 0.5 s while one
      waits.  Prints "ssh MS", "smtp MS", "http MS" once all have
      answered (milliseconds since T0_NS, the time of day in ns as `date
      +%s%N` writes it, or since the start), then "all MS" (the
      greatest); exits 1 if the timeout (600 s) passes first.
  netprobe.py mail PORT FROM TO SUBJECT
      send one message through the SMTP server on PORT; prints the
      server's final reply
  netprobe.py http PORT [PATH]
      GET PATH (/): prints the status code, then the body
  netprobe.py server PORT
      GET /: prints the status code and the product of the Server header
      (its first word without the version: nginx, Apache)
"""
import smtplib
import socket
import sys
import threading
import time
import urllib.request


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def first_line(port, send=None, timeout=5.0):
    """Connect, optionally send, and return the first line, or None."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            if send:
                s.sendall(send)
            buf = b""
            while b"\n" not in buf and len(buf) < 4096:
                chunk = s.recv(4096)
                if not chunk:
                    break
                buf += chunk
            return buf.split(b"\n", 1)[0].decode("latin-1") if buf else None
    except OSError:
        return None


CHECKS = {
    "ssh": (None, lambda l: l.startswith("SSH-2.0-")),
    "smtp": (None, lambda l: l.startswith("220 ") or l.startswith("220-")),
    "http": (b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n",
             lambda l: l.startswith("HTTP/1.") and l.split()[1:2] == ["200"]),
}


def answers(ports, since_ns, timeout):
    """Each port probed on its own, so that one port's wait does not hold
    up the others' measurement.  QEMU accepts a forwarded connection at
    once, and while the guest has no address there (no eth0 yet, no card
    of the service's yet) slirp's SYN gets no ARP answer: the attempt sees
    nothing until first_line's 5 s are over.  A port whose attempt is still
    waiting gets another one every 0.5 s, so an answer is seen within 0.5 s
    of the guest's first, not up to 5 s later; one that was refused gets
    the next after 0.1 s."""
    t0 = since_ns if since_ns is not None else time.time_ns()
    names = ("ssh", "smtp", "http")
    port = dict(zip(names, ports))
    done, pending, last = {}, {n: 0 for n in names}, {n: 0.0 for n in names}
    cond = threading.Condition()

    def attempt(name):
        send, ok = CHECKS[name]
        line = first_line(port[name], send)
        with cond:
            pending[name] -= 1
            if line is not None and ok(line) and name not in done:
                done[name] = (time.time_ns() - t0) // 1000000
            cond.notify_all()

    deadline = time.monotonic() + timeout
    with cond:
        while len(done) < len(names):
            now = time.monotonic()
            if now > deadline:
                for name in names:
                    if name in done:
                        print(name, done[name])
                print("timeout", " ".join(sorted(set(names) - set(done))), flush=True)
                return 1
            for name in names:
                if name in done:
                    continue
                if (pending[name] == 0 and now - last[name] >= 0.1) or now - last[name] >= 0.5:
                    pending[name] += 1
                    last[name] = now
                    threading.Thread(target=attempt, args=(name,), daemon=True).start()
            cond.wait(0.05)
    for name in names:
        print(name, done[name])
    print("all", max(done.values()), flush=True)
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "ports":
        for p in free_ports(int(argv[2])):
            print(p)
        return 0
    if len(argv) >= 5 and argv[1] == "answers":
        ports = [int(p) for p in argv[2:5]]
        since, timeout = None, 600.0
        rest = argv[5:]
        while rest:
            if rest[0] == "--since":
                since = int(rest[1])
            elif rest[0] == "--timeout":
                timeout = float(rest[1])
            else:
                raise SystemExit("netprobe.py: unknown option " + rest[0])
            rest = rest[2:]
        return answers(ports, since, timeout)
    if len(argv) == 6 and argv[1] == "mail":
        port, frm, to, subject = int(argv[2]), argv[3], argv[4], argv[5]
        msg = "From: %s\r\nTo: %s\r\nSubject: %s\r\n\r\nsent from the host through QEMU's port %d\r\n" % (
            frm, to, subject, port)
        with smtplib.SMTP("127.0.0.1", port, timeout=120) as s:
            s.ehlo("qemu-host.localdomain")
            s.mail(frm)
            s.rcpt(to)
            code, reply = s.data(msg)
            print(code, reply.decode("latin-1"))
            return 0 if code == 250 else 1
    if len(argv) in (3, 4) and argv[1] == "http":
        path = argv[3] if len(argv) == 4 else "/"
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (int(argv[2]), path), timeout=60) as r:
                print(r.status)
                sys.stdout.write(r.read().decode("latin-1"))
        except urllib.error.HTTPError as e:
            print(e.code)
        return 0
    if len(argv) == 3 and argv[1] == "server":
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/" % int(argv[2]), timeout=60) as r:
                code, server = r.status, r.headers.get("Server", "-")
        except urllib.error.HTTPError as e:
            code, server = e.code, e.headers.get("Server", "-")
        print(code, server.split()[0].split("/")[0] if server.strip() else "-")
        return 0
    sys.stderr.write(__doc__)
    return 100


if __name__ == "__main__":
    sys.exit(main(sys.argv))
