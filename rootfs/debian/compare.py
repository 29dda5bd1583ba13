#!/usr/bin/env python3
"""rootfs/debian/compare.py BUILDDIR [--write DOC] -- the Debian image's
service files side by side, daemon by daemon: the hand-written one
(rootfs/debian/overlay/etc/capinit/services), the one capctl import made
(BUILDDIR/debian/import/NAME.svc, kept by rootfs/debian/import.sh) and
the one capctl learn proposed (BUILDDIR/debian/learn/NAME.learned,
rootfs/debian/learn.sh, with the writes-capinit-state = yes learn.sh
adds), and, after make debian-learn-hand, the one learn proposed from
the hand-written file itself (BUILDDIR/debian/learn-hand/NAME.learned):
capabilities, mode and containers, read from
the files' keys with capinit.svc(5)'s defaults (private-devices with
read-only; private-pids for a uid 0 in a noroot tree with read-only).
Prints a Markdown table; with --write, puts it in DOC between the lines
<!-- services:compare:begin --> and <!-- services:compare:end -->."""
import os
import re
import sys

DAEMONS = ["sshd", "postfix", "apache2", "nginx", "chrony", "rsyslog", "getty"]
HAND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "overlay/etc/capinit/services")


def keys(path):
    """{key: [values]} of a service file, comments left out"""
    out = {}
    if not os.path.exists(path):
        return None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#") or " = " not in line and not line.endswith(" ="):
            continue
        k, _, v = line.partition(" =")
        out.setdefault(k.strip(), []).append(v.strip())
    return out


def last(k, key, default=None):
    return k[key][-1] if key in k else default


ALL = "all (root)"


def capset(k):
    """the capabilities the file gives its command: None for all of root's"""
    mode = last(k, "mode", "legacy")
    if mode == "legacy" and last(k, "user") in (None, "root", "0"):
        return None
    c = last(k, "capabilities")
    return set() if c in (None, "", "none") else {x.strip().replace("cap_", "") for x in c.split(",") if x.strip()}


def versus(learned, hand):
    """the learned file's capabilities against the hand-written one's"""
    a, b = capset(learned), capset(hand)
    if a is None:
        return "same (root)" if b is None else "more: all of root's"
    if b is None:
        return "fewer (the hand-written is root)"
    if a == b:
        return "same"
    if a < b:
        return "fewer: without " + ", ".join(sorted(b - a))
    return "more: " + ", ".join(sorted(a - b)) + ("" if a >= b else "; fewer: without " + ", ".join(sorted(b - a)))


def verdicts(report):
    """learn's report: the capabilities proven necessary, and those checked but unnecessary"""
    nec, unn = [], []
    if os.path.exists(report):
        for line in open(report, encoding="utf-8", errors="replace"):
            m = re.search(r"capctl: learn: cap_([a-z_]+): (necessary|checked, but unnecessary)", line)
            if m:
                (nec if m.group(2) == "necessary" else unn).append(m.group(1))
    out = []
    text = open(report, encoding="utf-8", errors="replace").read() if os.path.exists(report) else ""
    if "the check passes with the proposal, securebits noroot, noroot-locked (0x03)" in text:
        out.append("the check failed under keep-caps-locked (0x23), passed under 0x03")
    if re.search(r"the check passes with the proposal, securebits .*, the file's own file-system keys", text):
        out.append("the check failed with the read-write paths learned: the file's own file-system keys")
    if nec:
        out.append("necessary: " + ", ".join(nec))
    if unn:
        out.append("unnecessary: " + ", ".join(unn))
    return "; ".join(out)


def caps(k):
    c = last(k, "capabilities")
    mode = last(k, "mode", "legacy")
    user = last(k, "user")
    if mode == "legacy" and user in (None, "root", "0"):
        b = last(k, "bounding")
        return "all (root)" if b is None else "root's, within bounding: " + shorten(b)
    if c is None or c in ("", "none"):
        return "none"
    return shorten(c)


def shorten(v):
    return ", ".join(sorted(x.strip().replace("cap_", "") for x in v.split(",") if x.strip()))


def mode(k):
    m = last(k, "mode", "legacy")
    u = last(k, "user")
    s = last(k, "securebits")
    out = m + (" as " + u if u else (", uid 0" if m != "legacy" else ", root"))
    if "groups" in k:
        out += ", groups " + last(k, "groups")
    if s:
        out += " (securebits " + s + ")"
    return out


def containers(k):
    ro = last(k, "read-only", "no") == "yes"
    uid0 = last(k, "user") in (None, "root", "0")
    noroot = last(k, "mode", "legacy") == "noroot"
    out = []
    if ro:
        rw = ", ".join(v for v in k.get("read-write", []))
        out.append("read-only" + (" (rw: " + rw + ")" if rw else ""))
    if last(k, "private-tmp", "no") == "yes":
        out.append("private /tmp")
    if last(k, "private-devices", "yes" if ro else "no") == "yes":
        out.append("private /dev")
    if last(k, "private-pids", "yes" if (uid0 and noroot and ro) else "no") == "yes":
        out.append("private PIDs")
    if "network" in k:
        out.append("card " + last(k, "network") + " " + last(k, "address", ""))
    if last(k, "writes-capinit-state", "no") == "yes":
        out.append("writes-capinit-state")
    return ", ".join(out) or "none"


NOT_LEARNED = {"sshd": "a login needs full root", "getty": "a login needs full root"}


def table(b):
    rows = ["| daemon | file | capabilities | mode | containers | learned against hand-written; learn's removal trials |",
            "|---|---|---|---|---|---|"]
    for d in DAEMONS:
        hand = keys(os.path.join(HAND, d + ".svc"))
        files = [("hand-written", os.path.join(HAND, d + ".svc")),
                 ("imported", os.path.join(b, "debian/import", d + ".svc")),
                 ("learned", os.path.join(b, "debian/learn", d + ".learned"))]
        if d not in NOT_LEARNED and os.path.isdir(os.path.join(b, "debian/learn-hand")):
            files.append(("learned from the hand-written", os.path.join(b, "debian/learn-hand", d + ".learned")))
        for label, path in files:
            k = keys(path)
            name = "`%s`" % d if label == "hand-written" else ""
            learned = label.startswith("learned")
            if label != "learned" and learned and (k is None or os.path.getsize(path) == 0):
                rows.append("| | %s | no proposal (build/debian/learn-hand/%s.report) | | | |" % (label, d))
                continue
            if k is None or (label == "learned" and os.path.getsize(path) == 0):
                why = NOT_LEARNED.get(d, "learn made no proposal (build/debian/learn/%s.report)" % d)
                rows.append("| %s | %s | not learned: %s; the imported file stays | | | |" % (name, label, why))
                continue
            extra = ""
            log = os.path.join(b, "debian/learn/learn.log")
            if label == "learned" and os.path.exists(log) and ("%s: proposal not installed" % d) in open(log).read():
                extra = "not installed (rootfs/debian/learn.sh: it fails at a fresh boot); "
            if label == "learned":
                # learn.sh's one key (rootfs/debian/learn.sh): for uid 0
                # without read-only, or with /run read-write
                rep = os.path.join(b, "debian/learn", d + ".report")
                note = os.path.exists(rep) and "capctl: learn: note: uid 0 without read-only" in open(rep, encoding="utf-8", errors="replace").read()
                if note or any(re.search(r"(^| )/run( |$)", v) for v in k.get("read-write", [])):
                    k.setdefault("writes-capinit-state", []).append("yes")
            if learned:
                extra += versus(k, hand)
                v = verdicts(os.path.join(b, "debian/learn" if label == "learned" else "debian/learn-hand",
                                          d + ".report"))
                if v:
                    extra += "; " + v
            rows.append("| %s | %s | %s | %s | %s | %s |" % (name, label, caps(k), mode(k), containers(k), extra))
    return "\n".join(rows) + "\n"


def main():
    b = sys.argv[1]
    t = table(b)
    if len(sys.argv) == 4 and sys.argv[2] == "--write":
        doc = sys.argv[3]
        s = open(doc, encoding="utf-8").read()
        s2 = re.sub(r"(<!-- services:compare:begin -->\n).*?(<!-- services:compare:end -->)",
                    lambda m: m.group(1) + t + m.group(2), s, flags=re.S)
        if s2 == s and t not in s:
            sys.exit("compare.py: no markers in %s" % doc)
        open(doc, "w", encoding="utf-8").write(s2)
    else:
        sys.stdout.write(t)


main()
