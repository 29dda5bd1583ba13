#!/usr/bin/env python3
"""tests/bench/debian_report.py [--into FILE] RESULTS -- the table of the
systemd-versus-capinit benchmark (tests/bench/debian.sh), in Markdown.

RESULTS holds lines "boot K INIT KEY VALUE...".  The table has the
medians over the boots of each init, with their ranges (the least and
the greatest); then the boots one by one (the load average at each
start, the other QEMUs running); then each daemon's processes with their
uid, CapEff and CapBnd under both, and which of their namespaces are not
PID 1's; then the issue's targets, met or not.  With --into FILE, the text replaces what stands between the
lines "<!-- bench:debian:begin -->" and "<!-- bench:debian:end -->" of
FILE; otherwise it is printed.
"""
import statistics
import sys

BEGIN, END = "<!-- bench:debian:begin -->", "<!-- bench:debian:end -->"
INITS = ("systemd", "capinit")


def load(path):
    boots = {}
    for line in open(path):
        f = line.split()
        if len(f) < 4 or f[0] != "boot":
            continue
        b = boots.setdefault(f[1], {"init": f[2], "procs": []})
        if f[3] == "proc":
            pid, ppid, uid, eff, bnd, exe = f[4:10]
            ns = f[10] if len(f) > 10 else "?"
            b["procs"].append({"pid": pid, "ppid": ppid, "uid": uid, "eff": eff, "bnd": bnd, "exe": exe,
                               "ns": ns})
        elif f[3] == "init":
            b["init_name"], b["init_rss_kb"] = f[4], int(f[5])
        else:
            b[f[3]] = f[4]
    return boots


def role(p, procs):
    """What a process is, by its program and its parent's."""
    exe, name = p["exe"], p["exe"].rsplit("/", 1)[-1]
    parent = next((q for q in procs if q["pid"] == p["ppid"]), None)
    pexe = parent["exe"] if parent else ""
    if p["pid"] == "1":
        return "PID 1 (" + name + ")"
    if exe.startswith("/usr/lib/postfix/sbin/"):
        return "postfix " + name
    if exe == "/usr/sbin/nginx":
        return "nginx worker" if pexe == exe else "nginx master"
    if exe == "/usr/sbin/apache2":
        return "apache2 child" if pexe == exe else "apache2 master"
    if exe == "/usr/sbin/sshd":
        return "sshd (a connection)" if pexe == exe else "sshd"
    if exe == "/usr/sbin/chronyd":
        return "chronyd (its helper)" if pexe == exe else "chronyd"
    if name in ("rsyslogd", "agetty"):
        return name
    return None


def by_role(boots, init, value, pid1=True):
    """role -> set of value(process), over the boots of init (PID 1's
    roles left out unless pid1)."""
    out = {}
    for b in boots.values():
        if b["init"] != init:
            continue
        for p in b["procs"]:
            r = role(p, b["procs"])
            if r and (pid1 or not r.startswith("PID 1")):
                out.setdefault(r, set()).add(value(p))
    return out


def creds(boots, init):
    """role -> set of (effective uid, eff, bnd), over the boots of init.

    The effective uid: capinit's PID 1 runs with a real uid of its own
    (4294967294, its shield against signals), effective 0."""
    return by_role(boots, init, lambda p: (p["uid"].split(",")[1], p["eff"], p["bnd"]))


def namespaces(boots, init):
    """role -> set of the namespaces (net, pid...) not PID 1's, over the boots of init."""
    return by_role(boots, init, lambda p: p["ns"], pid1=False)


def values(boots, init, key, f=float):
    return [f(b[key]) for b in boots.values() if b["init"] == init and key in b]


def med(boots, init, key, f=float):
    v = values(boots, init, key, f)
    return statistics.median(v) if v else None


def span(boots, init, key, f=float):
    """(least, greatest) over the boots of init, or None."""
    v = values(boots, init, key, f)
    return (min(v), max(v)) if v else None


def fmt_s(ms):
    return "-" if ms is None else "%.1f s" % (ms / 1000)


def fmt_s_span(boots, init, key):
    m, r = med(boots, init, key), span(boots, init, key)
    if m is None:
        return "-"
    return "%s (%.1f–%.1f)" % (fmt_s(m), r[0] / 1000, r[1] / 1000) if r[0] != r[1] else fmt_s(m)


def ratio(a, b):
    return "-" if a is None or b in (None, 0) else "%.2f" % (a / b)


def report(boots):
    n = {i: sum(1 for b in boots.values() if b["init"] == i) for i in INITS}
    used = {i: med(boots, i, "mem_used_kb") for i in INITS}
    # the same, less the free pages on the kernel's per-CPU lists (older
    # results have no mem_pcp_kb: then None)
    net = {i: med(boots, i, "mem_net_kb") for i in INITS}
    lines = []
    lines.append("Medians of %d boot(s) each (`make bench`, %s), with the range (least–greatest) in brackets; "
                 "the boots one by one below the table." % (min(n.values()), "TCG, 2 vCPUs, 1 GiB"))
    lines.append("")
    lines.append("| | systemd | capinit | capinit / systemd | target |")
    lines.append("|---|---|---|---|---|")
    rows = [("ssh answers (from QEMU's start)", "ssh"), ("smtp answers", "smtp"), ("http answers", "http"),
            ("**all three answered**", "all")]
    t = {}
    for label, key in rows:
        a, c = med(boots, "systemd", key), med(boots, "capinit", key)
        t[key] = (a, c)
        lines.append("| %s | %s | %s | %s | %s |" % (label, fmt_s_span(boots, "systemd", key),
                                                  fmt_s_span(boots, "capinit", key), ratio(c, a),
                                                  "≤ 0.50" if key == "all" else ""))

    def mib_span(i, key):
        m, r = med(boots, i, key), span(boots, i, key)
        if m is None:
            return "-"
        return "%.1f MiB (%.1f–%.1f)" % (m / 1024, r[0] / 1024, r[1] / 1024) if r[0] != r[1] \
            else "%.1f MiB" % (m / 1024)
    a, c = used["systemd"], used["capinit"]
    lines.append("| memory used 10 s later (MemTotal − MemAvailable) | %s | %s | %s | %s |"
                 % (mib_span("systemd", "mem_used_kb"), mib_span("capinit", "mem_used_kb"), ratio(c, a),
                    "≤ 0.80" if net["systemd"] is None else ""))
    if net["systemd"] is not None:
        lines.append("| **memory used, less the free pages on per-CPU lists** | %s | %s | %s | ≤ 0.80 |"
                     % (mib_span("systemd", "mem_net_kb"), mib_span("capinit", "mem_net_kb"),
                        ratio(net["capinit"], net["systemd"])))
    parts = [("anonymous", "mem_anon_kb"), ("file cache", "mem_cached_kb"), ("slab", "mem_slab_kb"),
             ("kernel stacks", "mem_kernelstack_kb"), ("page tables", "mem_pagetables_kb"),
             ("vmalloc", "mem_vmalloc_kb"), ("free on per-CPU lists", "mem_pcp_kb")]

    def breakdown(i):
        out = []
        for label, key in parts:
            m, r = med(boots, i, key), span(boots, i, key)
            if m is None:
                out.append("%s -" % label)
            elif r[0] != r[1]:
                out.append("%s %.1f (%.1f–%.1f)" % (label, m / 1024, r[0] / 1024, r[1] / 1024))
            else:
                out.append("%s %.1f" % (label, m / 1024))
        return ", ".join(out)
    lines.append("| of which (MiB) | %s | %s | | |" % (breakdown("systemd"), breakdown("capinit")))

    def kib_span(i, key):
        m, r = med(boots, i, key), span(boots, i, key)
        if m is None:
            return "-"
        if m >= 1024:
            return "%.1f MiB (%.1f–%.1f)" % (m / 1024, r[0] / 1024, r[1] / 1024) if r[0] != r[1] \
                else "%.1f MiB" % (m / 1024)
        return "%d KiB (%d–%d)" % (m, r[0], r[1]) if r[0] != r[1] else "%d KiB" % m
    a, c = med(boots, "systemd", "init_rss_kb"), med(boots, "capinit", "init_rss_kb")
    lines.append("| PID 1's resident set | %s | %s | %s | |"
                 % (kib_span("systemd", "init_rss_kb"), kib_span("capinit", "init_rss_kb"), ratio(c, a)))
    a, c = med(boots, "systemd", "processes"), med(boots, "capinit", "processes")
    ta, tc = med(boots, "systemd", "tasks"), med(boots, "capinit", "tasks")
    lines.append("| processes (kernel threads left out; all of /proc) | %d (%d) | %d (%d) | %s | |"
                 % (a or 0, ta or 0, c or 0, tc or 0, ratio(c, a)))
    a, c = med(boots, "systemd", "poweroff_ms"), med(boots, "capinit", "poweroff_ms")
    lines.append("| power off, from the command to QEMU's exit | %s | %s | %s | |"
                 % (fmt_s_span(boots, "systemd", "poweroff_ms"), fmt_s_span(boots, "capinit", "poweroff_ms"),
                    ratio(c, a)))
    clean = {i: all(b.get("fsck_rc") == "0" for b in boots.values() if b["init"] == i) for i in INITS}
    lines.append("| e2fsck -fn of the disk afterwards | %s | %s | | clean |"
                 % tuple("clean" if clean[i] else "**not clean**" for i in INITS))
    lines.append("")

    # the boots one by one: what made them differ
    lines.append("The boots, in the order they ran (other QEMUs: any process of this machine whose name "
                 "begins with qemu-, at the boot's start and once its ports had answered):")
    lines.append("")
    lines.append("| boot | init | load average at its start | other QEMUs | all three answered | memory used |"
                 " free on per-CPU lists |")
    lines.append("|---|---|---|---|---|---|---|")
    quiet = True
    for k, b in sorted(boots.items(), key=lambda kv: int(kv[0])):
        q0, q1 = b.get("qemus_start", "?"), b.get("qemus_answered", "?")
        if q0 != "0" or q1 != "0":
            quiet = False
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            k, b["init"], b.get("load", "?"),
            "none" if q0 == q1 == "0" else "%s at the start, %s at the answers" % (q0, q1),
            fmt_s(float(b["all"])) if "all" in b else "-",
            "%.1f MiB" % (int(b["mem_used_kb"]) / 1024) if "mem_used_kb" in b else "-",
            "%.1f MiB" % (int(b["mem_pcp_kb"]) / 1024) if "mem_pcp_kb" in b else "-"))
    lines.append("")
    lines.append("No other QEMU ran during any boot." if quiet else
                 "**Other QEMUs ran beside some boots**: their times and memory are those of a shared machine.")
    lines.append("")

    cs, cc = creds(boots, "systemd"), creds(boots, "capinit")
    full = max((int(p["bnd"], 16) for b in boots.values() for p in b["procs"]), default=0)
    lines.append("Each daemon's processes (effective uid, CapEff, CapBnd; several values when its processes differ):")
    lines.append("")
    lines.append("| process | systemd | capinit |")
    lines.append("|---|---|---|")
    order = sorted(set(cs) | set(cc), key=lambda r: (r.startswith("PID 1"), r))

    def cell(v):
        return "<br>".join("%s `%s` `%s`" % x for x in sorted(v)) if v else "-"
    for r in order:
        lines.append("| %s | %s | %s |" % (r, cell(cs.get(r)), cell(cc.get(r))))
    lines.append("")

    ns_s, ns_c = namespaces(boots, "systemd"), namespaces(boots, "capinit")
    lines.append("Each daemon's namespaces: those of net, pid, mnt, ipc and uts that are its own, "
                 "not PID 1's (/proc/PID/ns in the guest, each link compared with PID 1's; "
                 "several values when its processes or boots differ):")
    lines.append("")
    lines.append("| process | systemd | capinit |")
    lines.append("|---|---|---|")

    def nscell(v):
        if not v:
            return "-"
        return "<br>".join("none (all PID 1's)" if x == "-" else x.replace(",", ", ") for x in sorted(v))
    for r in order:
        if r.startswith("PID 1"):
            continue
        lines.append("| %s | %s | %s |" % (r, nscell(ns_s.get(r)), nscell(ns_c.get(r))))
    lines.append("")

    # the targets
    def eff_union(v):
        m = 0
        for x in v:
            m |= int(x[1], 16)
        return m
    more, masters, fullroot = [], [], []
    for r in order:
        if r.startswith("PID 1"):
            continue
        if r in cs and r in cc:
            s, c = eff_union(cs[r]), eff_union(cc[r])
            if c & ~s:
                more.append("%s (%016x beyond systemd's %016x)" % (r, c & ~s, s))
        if r in ("postfix master", "apache2 master", "nginx master") and r in cs and r in cc:
            s, c = eff_union(cs[r]), eff_union(cc[r])
            if not (c & ~s == 0 and c != s):
                masters.append(r)
        if r in cc and not (r.startswith("sshd") or r == "agetty"):
            if any(int(x[1], 16) == full for x in cc[r]):
                fullroot.append(r)
    def missing_or(roles, bad, ok):
        gone = [r for r in roles if r not in cs or r not in cc]
        worse = [r for r in roles if r in bad]
        if gone:
            return "not seen: " + ", ".join(gone)
        return ("not: " + ", ".join(worse)) if worse else ok
    all_ratio = t["all"][1] / t["all"][0] if t["all"][0] and t["all"][1] else None
    mem_ratio = used["capinit"] / used["systemd"] if used["capinit"] and used["systemd"] else None
    net_ratio = net["capinit"] / net["systemd"] if net["capinit"] and net["systemd"] else None
    targets = [
        ("all three answering in ≤ 0.5× systemd's time", all_ratio is not None and all_ratio <= 0.5,
         "%.2f×" % all_ratio if all_ratio is not None else "-"),
        ("memory used ≤ 0.8× systemd's" + (", less the free pages on per-CPU lists" if net_ratio else ""),
         (net_ratio or mem_ratio or 1) <= 0.8,
         "%.2f×" % (net_ratio or mem_ratio) if (net_ratio or mem_ratio) else "-"),
        ("no daemon process holds an effective capability it does not hold under Debian's units", not more,
         "; ".join(more) or "none does"),
        ("the postfix and apache masters hold strictly fewer",
         all(r in cs and r in cc for r in ("postfix master", "apache2 master"))
         and not any(r in masters for r in ("postfix master", "apache2 master")),
         missing_or(("postfix master", "apache2 master"), masters, "both")),
        ("the nginx master holds strictly fewer",
         "nginx master" in cs and "nginx master" in cc and "nginx master" not in masters,
         missing_or(("nginx master",), masters, "it does")),
        ("none but sshd and the getty holds full root", not fullroot,
         ("also: " + ", ".join(fullroot)) if fullroot else "none"),
        ("the disk clean after the power off", all(clean.values()), "both inits" if all(clean.values()) else "no"),
    ]
    if net_ratio:
        targets.insert(2, ("memory used ≤ 0.8× systemd's, MemTotal − MemAvailable as the kernel says it",
                           mem_ratio is not None and mem_ratio <= 0.8,
                           "%.2f×" % mem_ratio if mem_ratio is not None else "-"))
    lines.append("| target | | |")
    lines.append("|---|---|---|")
    for what, ok, detail in targets:
        lines.append("| %s | %s | %s |" % (what, "**met**" if ok else "**not met**", detail))
    return "\n".join(lines) + "\n"


def main(argv):
    into = None
    if len(argv) == 4 and argv[1] == "--into":
        into, path = argv[2], argv[3]
    elif len(argv) == 2:
        path = argv[1]
    else:
        sys.stderr.write(__doc__)
        return 100
    boots = load(path)
    for b in boots.values():
        if "mem_total_kb" in b and "mem_available_kb" in b:
            b["mem_used_kb"] = str(int(b["mem_total_kb"]) - int(b["mem_available_kb"]))
            if "mem_pcp_kb" in b:
                b["mem_net_kb"] = str(int(b["mem_used_kb"]) - int(b["mem_pcp_kb"]))
    text = report(boots)
    if not into:
        sys.stdout.write(text)
        return 0
    doc = open(into).read()
    if BEGIN not in doc or END not in doc:
        sys.stderr.write("debian_report.py: %s has no %s ... %s markers\n" % (into, BEGIN, END))
        return 1
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(into, "w").write(head + BEGIN + "\n" + text + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
