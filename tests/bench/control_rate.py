#!/usr/bin/python3
# tests/bench/control_rate.py SOCKET REQUEST N ROUNDS -- the control path's
# cost: N connections one after the other, each one REQUEST and its whole
# reply, ROUNDS times; prints the median and the fastest round's
# microseconds per connection (what capinit spends judging the peer is
# paid once per connection: a new one each time is the worst case).
import socket
import statistics
import sys
import time


def one(path, request):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    s.send(request)
    while True:
        m = s.recv(65536)
        if not m or m == b"ok" or m.startswith(b"error"):
            break
    s.close()
    return m


def main(path, request, n, rounds):
    request = request.encode()
    last = one(path, request)
    if last != b"ok":
        print("control_rate: the request is answered %r" % last, file=sys.stderr)
        return 1
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            one(path, request)
        per.append((time.perf_counter() - t0) * 1e6 / n)
    print("median %.1f min %.1f" % (statistics.median(per), min(per)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print("usage: control_rate.py SOCKET REQUEST N ROUNDS", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
