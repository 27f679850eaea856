"""Medians over the rounds of bench/gateway/limiter-overhead.sh, as Markdown.

Usage: medians.py load|light <rows>; each row: path req/s p50 p99 ... as the script's run() prints it
(column 5 gateway CPU µs/req, 6 of it kernel, 9 Redis CPU µs/req, 10 the machine's busy CPU µs/req,
15 the gateway's heap allocation in KB/req).
"""
import statistics
import sys


def ms(text):  # wrk's latency: 485.00us, 1.86ms, 1.02s
    for unit, f in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * f
    return float("nan")


mode, path = sys.argv[1], sys.argv[2]
rows = [line.split() for line in open(path)]


def med(v, col, conv=float):
    vals = [conv(r[col]) for r in rows if r[0] == v and r[col] != "-"]
    return statistics.median(vals) if vals else None


def ratio(a, b):
    x, y = med(a, 1), med(b, 1)
    return f"{x / y:.2f}" if x and y else "-"


def paired(a, b):
    """req/s of a ÷ req/s of b in each round: the n-th run of a with the n-th run of b."""
    xs = [float(r[1]) for r in rows if r[0] == a]
    ys = [float(r[1]) for r in rows if r[0] == b]
    return [x / y for x, y in zip(xs, ys) if y]


variants = [v for v in ("base-off", "base-on", "off", "on", "nginx") if any(r[0] == v for r in rows)]

if mode == "load":
    def fmt(x):
        return "-" if x is None else f"{x:.1f}"

    print("| path | req/s | gateway (or nginx proxy) CPU µs/req | of it kernel | Redis CPU µs/req | machine CPU µs/req "
          "| heap allocated KB/req |")
    print("|---|---|---|---|---|---|---|")
    for v in variants:
        print(f"| {v} | {med(v, 1):,.0f} | {fmt(med(v, 5))} | {fmt(med(v, 6))} | {fmt(med(v, 9))} | {fmt(med(v, 10))} "
              f"| {fmt(med(v, 15) if any(len(r) > 15 for r in rows) else None)} |")
    print()
    print(f"on ÷ off: {ratio('on', 'off')}; on ÷ nginx: {ratio('on', 'nginx')}; off ÷ nginx: {ratio('off', 'nginx')}")
    if "on" in variants and "off" in variants and med("on", 5) is not None and med("off", 5) is not None:
        print(f"CPU added by the limiter: {med('on', 5) - med('off', 5):.1f} µs/request")
    if "on" in variants and "off" in variants and med("on", 15) is not None and med("off", 15) is not None:
        print(f"heap allocation added by the limiter: {med('on', 15) - med('off', 15):.1f} KB/request")
    if "base-on" in variants and "base-off" in variants:
        print(f"baseline: base-on ÷ base-off: {ratio('base-on', 'base-off')}; "
              f"off ÷ base-off: {ratio('off', 'base-off')}; CPU added by the baseline's limiter: "
              f"{med('base-on', 5) - med('base-off', 5):.1f} µs/request")
    for a, b in (("on", "base-on"), ("off", "base-off")):
        pairs = paired(a, b)
        if pairs:
            print(f"{a} ÷ {b}, round by round (each round's two runs side by side): median {statistics.median(pairs):.3f}"
                  f" (rounds {min(pairs):.3f} to {max(pairs):.3f}); of the medians: {ratio(a, b)}")
else:
    print()
    print("| path | req/s | p50 ms | p99 ms | gateway CPU µs/req |")
    print("|---|---|---|---|---|")
    for v in variants:
        print(f"| {v} | {med(v, 1):,.0f} | {med(v, 2, ms):.2f} | {med(v, 3, ms):.2f} | {med(v, 5):.1f} |")
    for on, off in (("on", "off"), ("base-on", "base-off")):
        if on in variants and off in variants:
            print(f"added by the limiter ({on} - {off}, medians): p50 {med(on, 2, ms) - med(off, 2, ms):+.2f} ms, "
                  f"p99 {med(on, 3, ms) - med(off, 3, ms):+.2f} ms")
