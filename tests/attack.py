#!/usr/bin/python3
# tests/attack.py -- an attacker's code, run as a service's command (the
# attack tests, tests/system/test_attack_*.sh).  Each verb does one thing,
# in this very process (an exec would drop what a user namespace gives),
# and prints what it got:
#
#   ask SOCKET REQUEST [uid0] [userns]
#       optionally setresuid(0, 0, 0) (a service holding cap_setuid), then
#       optionally unshare(CLONE_NEWUSER); print "uid U CapEff X" as the
#       kernel shows this process after each step, then send REQUEST on the control
#       socket and print each reply message
#   forge PID SIGNAL CLAIMED_PID
#       queue SIGNAL to PID with rt_sigqueueinfo(), si_code SI_QUEUE, and
#       a sender of its choice (CLAIMED_PID, uid 0); print "sent" or the error
import ctypes
import os
import signal
import socket
import sys

CLONE_NEWUSER = 0x10000000
SYS_RT_SIGQUEUEINFO = {"x86_64": 129, "aarch64": 138, "armv7l": 178, "armv8l": 178}

libc = ctypes.CDLL(None, use_errno=True)


def capeff():
    with open("/proc/self/status") as f:
        return [line.split()[1] for line in f if line.startswith("CapEff:")][0]


def ask(path, request, steps):
    if "uid0" in steps:
        os.setresuid(0, 0, 0)
        print("uid", os.getuid(), "CapEff", capeff())
    if "userns" in steps and libc.unshare(CLONE_NEWUSER) != 0:
        print("unshare:", os.strerror(ctypes.get_errno()))
        return 1
    print("uid", os.getuid(), "CapEff", capeff())
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    s.send(request.encode())
    while True:
        m = s.recv(65536).decode()
        print(m)
        if not m or m == "ok" or m.startswith("error"):
            return 0


def forge(pid, sig, claimed):
    info = (ctypes.c_int * 32)()
    info[0] = sig        # si_signo
    info[2] = -1         # si_code: SI_QUEUE
    info[4] = claimed    # si_pid
    info[5] = 0          # si_uid
    nr = SYS_RT_SIGQUEUEINFO[os.uname().machine]
    if libc.syscall(nr, pid, sig, ctypes.byref(info)) != 0:
        print(os.strerror(ctypes.get_errno()))
        return 1
    print("sent")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "ask":
        return ask(argv[1], argv[2], argv[3:])
    if len(argv) == 4 and argv[0] == "forge":
        return forge(int(argv[1]), int(getattr(signal, "SIG" + argv[2])), int(argv[3]))
    print("usage: attack.py ask SOCKET REQUEST [uid0] [userns] | forge PID SIGNAL CLAIMED_PID", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
