#!/usr/bin/env python3
"""Writes the benchmark stroke traces in this folder (format: docs/traces.md).

Deterministic: the same seed writes the same bytes. Run: python3 gen.py OUTDIR
"""
import math
import random
import sys


def scratch(rng, x0, y0, x1, y1, rows, speed, hz, jitter):
    """Back-and-forth scratching over a box, as a hand does: rows of zig-zags."""
    pts = []
    step = speed / hz
    for r in range(rows):
        y = y0 + (y1 - y0) * r / max(rows - 1, 1)
        xa, xb = (x0, x1) if r % 2 == 0 else (x1, x0)
        n = max(int(abs(xb - xa) / step), 1)
        for i in range(n + 1):
            t = i / n
            wobble = math.sin(t * math.pi * 6) * (y1 - y0) / (rows * 2.5)
            pts.append((xa + (xb - xa) * t + rng.uniform(-jitter, jitter),
                        y + wobble + rng.uniform(-jitter, jitter)))
    return pts


def spiral(rng, cx, cy, rmax, turns, step):
    pts, a = [], 0.0
    while True:
        r = rmax * a / (2 * math.pi * turns)
        if r > rmax:
            return pts
        pts.append((cx + r * math.cos(a) + rng.uniform(-0.5, 0.5), cy + r * math.sin(a)))
        a += step / max(r, step)


def write(path, w, h, brush, strokes, comment):
    with open(path, "w") as f:
        f.write("scratch-trace 1\n# %s\n" % comment)
        f.write("canvas %d %d\nbrush %g\n" % (w, h, brush))
        for pts in strokes:
            (x, y), rest = pts[0], pts[1:]
            f.write("down %.2f %.2f\n" % (x, y))
            for x, y in rest:
                f.write("move %.2f %.2f\n" % (x, y))
            f.write("up\n")


def main(out):
    rng = random.Random(4990)
    # A 1080p card scratched with a 125 Hz mouse at a brisk hand speed.
    s = [scratch(rng, 360, 240, 1560, 840, 9, 1800, 125, 1.5),
         scratch(rng, 500, 300, 1400, 800, 7, 2400, 125, 2.0)]
    write(out + "/card-1080p.trace", 1920, 1080, 24, s,
          "1080p card, 125 Hz pointer, brush radius 24 px")
    # The same gesture on a 4K panel at 192 dpi: twice the pixels per point.
    s4 = [[(x * 2, y * 2) for x, y in st] for st in s]
    write(out + "/card-4k.trace", 3840, 2160, 48, s4,
          "4K card at 192 dpi, the 1080p gesture doubled, brush radius 48 px")
    # A 1000 Hz gaming mouse: many tiny segments, so per-event overhead dominates.
    s1k = [scratch(rng, 360, 240, 1560, 840, 9, 1500, 1000, 0.3)]
    write(out + "/mouse-1000hz.trace", 1920, 1080, 24, s1k,
          "1080p, 1000 Hz pointer, 1-2 px per event")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
