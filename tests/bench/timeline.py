#!/usr/bin/env python3
"""tests/bench/timeline.py BLAME.json OUT.svg [TITLE] -- draw a boot as
an SVG timeline, from `capctl blame --json` (make bench).

One row per boot phase of PID 1 and per service, in the order they
started, on one time axis from the kernel's start: the kernel and the
initramfs before capinit (kernel_ms), capinit's phases (mounts, console,
modules, fstab, filecaps, services), then each service from its spawn
to its readiness (a oneshot: to its exit).  A vertical line marks the
moment every service was ready.  No dependency: the SVG is written by
hand.
"""
import json
import sys
from xml.sax.saxutils import escape

ROW, LEFT, RIGHT, TOP, WIDTH = 18, 170, 110, 46, 1000


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 100
    d = json.load(open(argv[1]))
    title = argv[3] if len(argv) == 4 else "boot timeline"
    k = d.get("kernel_ms") or 0
    rows = [("kernel and initramfs, before capinit", 0, k, "kernel")]
    for p in d.get("phases", []):
        if p["start_ms"] is not None and p["end_ms"] is not None:
            rows.append(("capinit: " + p["name"], k + p["start_ms"], k + p["end_ms"], "phase"))
    services = [s for s in d.get("services", []) if s["spawned_ms"] is not None]
    services.sort(key=lambda s: (s["spawned_ms"], s["name"]))
    for s in services:
        end = s["ready_ms"] if s["ready_ms"] is not None else s["spawned_ms"]
        rows.append((s["name"] + ("" if s["ready_ms"] is not None else " (not ready)"),
                     k + s["spawned_ms"], k + end, s["type"]))
    ready = k + d["ready_ms"] if d.get("ready_ms") is not None else None
    total = max([r[2] for r in rows] + [ready or 0, 1])
    scale = (WIDTH - LEFT - RIGHT) / total
    height = TOP + ROW * len(rows) + 40
    colors = {"kernel": "#bbbbbb", "phase": "#7a9cc6", "longrun": "#5aa469", "oneshot": "#e0a030"}
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
           % (WIDTH, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="14">%s</text>' % (LEFT, escape(title)),
           '<text x="%d" y="34" fill="#555">kernel %d ms, capinit\'s phases, services spawn to ready%s</text>'
           % (LEFT, k, "; every service ready at %d ms (%d ms on capinit's clock)" % (ready, d["ready_ms"])
              if ready is not None else "")]
    # the time axis: a tick every nice step
    step = next(s for s in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 60000)
                if total / s <= 12)
    axis_y = TOP + ROW * len(rows) + 6
    t = 0
    while t <= total:
        x = LEFT + t * scale
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (x, TOP - 4, x, axis_y))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>'
                   % (x, axis_y + 14, ("%g s" % (t / 1000)) if step >= 1000 or t % 1000 == 0 else "%d ms" % t))
        t += step
    for i, (name, a, b, kind) in enumerate(rows):
        y = TOP + i * ROW
        w = max((b - a) * scale, 1.5)
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (LEFT - 6, y + 12, escape(name)))
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %d to %d ms (%d ms)</title></rect>'
                   % (LEFT + a * scale, y + 2, w, ROW - 5, colors.get(kind, "#999"), escape(name), a, b, b - a))
        out.append('<text x="%.1f" y="%d" fill="#333">%d ms</text>' % (LEFT + a * scale + w + 4, y + 12, b - a))
    if ready is not None:
        x = LEFT + ready * scale
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#c33" stroke-dasharray="4,3"/>'
                   % (x, TOP - 6, x, axis_y))
    out.append('</svg>')
    open(argv[2], "w").write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
