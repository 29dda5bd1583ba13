#!/usr/bin/env python3
"""tests/debian/import_ref.py UNIT EXPLAIN_JSON ANALYZE_JSON -- is the
privilege capctl explain predicts for a file of capctl import at most what
systemd gives the unit it came from?

The reference is systemd's, read without capinit's code: systemd-analyze
security --offline's checks of the bounding set (ANALYZE_JSON, or "-" when
it could not run), and the unit's own User=, ExecStart= prefixes,
CapabilityBoundingSet= and AmbientCapabilities=, read here by the rules of
systemd.exec(5): repeated lines OR, '~' lines remove, an empty one resets.
systemd-analyze does not know that ExecStart=! runs the command as root
(chrony's), so the uid is taken from the unit.  Capability numbers come from
the kernel's header.  Prints one line per finding; exit 1 if the import
holds more."""
import json
import re
import sys

CAPS = {}
with open("/usr/include/linux/capability.h") as f:
    for line in f:
        m = re.match(r"#define (CAP_[A-Z_]+)\s+(\d+)\s*$", line)
        if m and m.group(1) not in ("CAP_LAST_CAP",):
            CAPS[m.group(1)] = int(m.group(2))
ALL = sum(1 << n for n in CAPS.values())


def directives(path):
    """(key, value) of [Service], continuation lines joined"""
    out, section, acc = [], None, ""
    for raw in open(path, encoding="utf-8"):
        line = acc + raw.rstrip("\n")
        if line.endswith("\\"):
            acc = line[:-1] + " "
            continue
        acc = ""
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("["):
            section = s.strip("[]")
        elif "=" in s and section == "Service":
            k, v = s.split("=", 1)
            out.append((k.strip(), v.strip()))
    return out


def caps_of(lines, key):
    mask, seen = ALL if key == "CapabilityBoundingSet" else 0, key == "AmbientCapabilities"
    for k, v in lines:
        if k != key:
            continue
        if not v:
            mask, seen = 0, True
            continue
        inv = v.startswith("~")
        listed = sum(1 << CAPS[c] for c in v.lstrip("~").split())
        if inv:
            mask = (mask if seen else ALL) & ~listed
        else:
            mask = (mask if seen else 0) | listed
        seen = True
    return mask


def main():
    unit, explain, analyze = sys.argv[1:4]
    lines = directives(unit)
    user = [v for k, v in lines if k == "User"]
    start = [v for k, v in lines if k == "ExecStart" and v]
    prefix = re.match(r"[-@:+!]*", start[-1]).group(0) if start else ""
    root = not user or user[-1] in ("root", "0") or "!" in prefix.replace("!!", "") or "+" in prefix
    bounding = caps_of(lines, "CapabilityBoundingSet")
    permitted = bounding if root else caps_of(lines, "AmbientCapabilities") & bounding
    got = json.load(open(explain))[0]
    bad = 0
    if got["launch"] != "ok":
        print("refused: %s" % got.get("reason"))
        return 1
    kernel = int(got["cap_bnd"], 16) | int(got["cap_prm"], 16)
    for field, ref in (("cap_bnd", bounding), ("cap_prm", permitted), ("cap_eff", permitted), ("cap_amb", permitted)):
        extra = int(got[field], 16) & ~ref & ALL
        if extra:
            bad = 1
            print("%s holds more than systemd: %#x" % (field, extra))
    if not root and (got["uid"] == 0 or got["euid"] == 0):
        bad = 1
        print("uid 0, where systemd runs it as %s" % user[-1])
    if analyze != "-":
        for check in json.load(open(analyze)):
            name = check["name"]
            if not name.startswith("CapabilityBoundingSet=~") or check["set"] is not True:
                continue
            pattern = name.split("~", 1)[1].replace("*", "[A-Z_]*")
            denied = [c for c in CAPS if re.fullmatch(pattern, c)]
            held = [c for c in denied if int(got["cap_bnd"], 16) >> CAPS[c] & 1]
            if held:
                bad = 1
                print("systemd-analyze: %s, but the import's bounding set has %s" % (name, ",".join(held)))
    print("%s: uid %s, bounding %s, permitted %s (systemd: %s, bounding %#x)" % (
        "more" if bad else "ok", got["uid"], got["cap_bnd"], got["cap_prm"], "root" if root else user[-1],
        bounding & kernel))
    return bad


sys.exit(main())
