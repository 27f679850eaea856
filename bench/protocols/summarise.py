"""Medians over the rounds of bench/protocols/h2c-vs-h1.sh and websocket.sh, as Markdown.

Usage:
  summarise.py h2 ROWS STREAMS   rows: round variant req/s succeeded failed non2xx mean_ms gateway_us machine_us
  summarise.py ws ROWS           rows: round variant latency n p50 p90 p99 p999 max mean gateway_us backend_us
                                  and:  round variant throughput messages seconds messages/s gateway_us backend_us
(latencies in µs; *_us: CPU µs per request or per echoed message; variant h1, h2c-m1, h2c-mN or gateway, direct)
"""
import statistics
import sys


def med(values):
    return statistics.median(values) if values else float("nan")


def h2(rows, streams):
    variants = ["h1", "h2c-m1", f"h2c-m{streams}"]
    by = {v: [r for r in rows if r[1] == v] for v in variants}
    col = {v: (lambda i, v=v: [float(r[i]) for r in by[v]]) for v in variants}

    print("| round | variant | req/s | mean ms per request | gateway CPU µs/req | machine CPU µs/req | failed | non-2xx |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {float(r[2]):,.0f} | {float(r[6]):.3f} | {float(r[7]):.1f} | {float(r[8]):.1f} "
              f"| {r[4]} | {r[5]} |")
    print()
    print("Medians over the rounds; *÷ h1* is the ratio of the medians, the range that of the rounds (each variant "
          "against h1 of the same round):")
    print()
    print("| variant | req/s | ÷ h1 | rounds ÷ h1 | mean ms per request | gateway CPU µs/req | machine CPU µs/req |")
    print("|---|---:|---:|---|---:|---:|---:|")
    h1 = med(col["h1"](2))
    for v in variants:
        rps = med(col[v](2))
        paired = [x / y for x, y in zip(col[v](2), col["h1"](2)) if y]
        span = f"{min(paired):.2f}-{max(paired):.2f}" if v != "h1" and paired else ""
        print(f"| {v} | {rps:,.0f} | {rps / h1:.2f} | {span} | {med(col[v](6)):.3f} | {med(col[v](7)):.1f} "
              f"| {med(col[v](8)):.1f} |")


def ws(rows):
    lat = [r for r in rows if r[2] == "latency"]
    thr = [r for r in rows if r[2] == "throughput"]
    variants = ["direct", "gateway"]

    def pick(rs, v, i):
        return [float(r[i]) for r in rs if r[1] == v]

    if lat:
        print("Echo round trips, one socket, sequential (µs):")
        print()
        print("| round | variant | messages | p50 | p90 | p99 | p99.9 | max | mean | gateway CPU µs/msg | backend CPU µs/msg |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in lat:
            print(f"| {r[0]} | {r[1]} | {int(r[3]):,} | " + " | ".join(f"{float(x):.0f}" for x in r[4:10])
                  + f" | {r[10]} | {r[11]} |")
        print()
        print("| variant | p50 µs | p99 µs | p99.9 µs | gateway CPU µs/msg | backend CPU µs/msg |")
        print("|---|---:|---:|---:|---:|---:|")
        for v in variants:
            print(f"| {v} | {med(pick(lat, v, 4)):.0f} | {med(pick(lat, v, 6)):.0f} | {med(pick(lat, v, 7)):.0f} "
                  f"| {med(pick(lat, v, 10)):.1f} | {med(pick(lat, v, 11)):.1f} |")
        p50 = [g - d for g, d in zip(pick(lat, "gateway", 4), pick(lat, "direct", 4))]
        p99 = [g - d for g, d in zip(pick(lat, "gateway", 6), pick(lat, "direct", 6))]
        print()
        print(f"Added by the gateway (median of the rounds' differences): p50 **{med(p50):+.0f} µs** "
              f"(rounds {min(p50):+.0f} to {max(p50):+.0f}), p99 **{med(p99):+.0f} µs** "
              f"(rounds {min(p99):+.0f} to {max(p99):+.0f}).")
        print()
    if thr:
        print("Messages echoed per second, several sockets, bounded window:")
        print()
        print("| round | variant | messages | seconds | messages/s | gateway CPU µs/msg | backend CPU µs/msg |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for r in thr:
            print(f"| {r[0]} | {r[1]} | {int(r[3]):,} | {float(r[4]):.2f} | {float(r[5]):,.0f} | {r[6]} | {r[7]} |")
        print()
        print("| variant | messages/s | ÷ direct | rounds ÷ direct | gateway CPU µs/msg | backend CPU µs/msg |")
        print("|---|---:|---:|---|---:|---:|")
        direct = med(pick(thr, "direct", 5))
        for v in variants:
            rate = med(pick(thr, v, 5))
            paired = [g / d for g, d in zip(pick(thr, v, 5), pick(thr, "direct", 5)) if d]
            span = f"{min(paired):.2f}-{max(paired):.2f}" if v != "direct" and paired else ""
            print(f"| {v} | {rate:,.0f} | {rate / direct:.2f} | {span} | {med(pick(thr, v, 6)):.1f} "
                  f"| {med(pick(thr, v, 7)):.1f} |")


mode, path = sys.argv[1], sys.argv[2]
rows = [line.split() for line in open(path) if line.strip()]
if mode == "h2":
    h2(rows, sys.argv[3])
else:
    ws(rows)
