"""The report of bench/protocols/grpc.sh, as Markdown.

Usage: grpc.py <rows> <clients> <streams> [<warm-up rows>...]; each row as grpc.sh's run() prints it, after the round
("w" for a warm-up): round variant calls/s mean_ms sd_ms calls started hits gateway_cpu_us backend_cpu_us
redis_cpu_us machine_cpu_us script_calls_per_call load1.
Prints every round, the medians over the rounds, the ratios of issue 37 (rule ÷ off, goal ≥ 0.8; rule ÷ direct and
off ÷ direct, reported), of the medians and round by round, and the check of every run against the backend's hits:
each call h2load counted must have reached the backend (hits ≥ calls), and no more than the calls h2load started
and those in flight when it stopped (hits ≤ started + clients × streams). A run that fails it is marked CHECK FAILED.
"""
import statistics
import sys

rows_file, clients, streams = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = [line.split() for line in open(rows_file) if line.strip()]
warm = [line.split() for f in sys.argv[4:] for line in open(f) if line.strip()]
order = [v for v in ("direct", "off", "rule") if any(r[1] == v for r in rows)]


def num(x):
    return None if x == "-" else float(x)


def med(v, col):
    vals = [num(r[col]) for r in rows if r[1] == v and r[col] != "-"]
    return statistics.median(vals) if vals else None


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


print("| round | variant | calls/s | mean ms (sd) | calls | backend hits | gateway CPU µs/call | backend CPU µs/call "
      "| Redis CPU µs/call | machine CPU µs/call | Redis script calls/call | load (1 min) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {float(r[2]):,.0f} | {r[3]} ({r[4]}) | {int(r[5]):,} | {int(r[7]):,} | {r[8]} | {r[9]} "
          f"| {r[10]} | {r[11]} | {r[12]} | {r[13]} |")
print()
print("Medians over the rounds:")
print()
print("| variant | calls/s | mean ms | gateway CPU µs/call | backend CPU µs/call | Redis CPU µs/call "
      "| machine CPU µs/call | Redis script calls/call |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for v in order:
    print(f"| {v} | {med(v, 2):,.0f} | {fmt(med(v, 3), '.2f')} | {fmt(med(v, 8))} | {fmt(med(v, 9))} "
          f"| {fmt(med(v, 10))} | {fmt(med(v, 11))} | {fmt(med(v, 12), '.3f')} |")
print()


def paired(a, b):  # a ÷ b in each round that ran both
    by = {(r[0], r[1]): float(r[2]) for r in rows}
    return [by[(n, a)] / by[(n, b)] for n in sorted({r[0] for r in rows}, key=int) if (n, a) in by and (n, b) in by]


for a, b, goal in (("rule", "off", " (goal ≥ 0.8)"), ("rule", "direct", ""), ("off", "direct", "")):
    if a in order and b in order:
        p = paired(a, b)
        print(f"- **{a} ÷ {b}**{goal}: {med(a, 2) / med(b, 2):.2f} of the medians; round by round median "
              f"{statistics.median(p):.2f} (rounds {min(p):.2f} to {max(p):.2f})")
if "rule" in order and "off" in order and med("rule", 8) is not None and med("off", 8) is not None:
    print(f"- gateway CPU the rule adds: {med('rule', 8) - med('off', 8):+.1f} µs/call (medians); gateway CPU per call "
          f"off ÷ rule {med('off', 8) / med('rule', 8):.2f}: rule ÷ off in calls/s if the gateway's CPU alone bounded "
          f"them (a busy machine moves calls/s far more than CPU per call)")
loads = [float(r[13]) for r in rows]
print(f"- load average (1 min) at the end of the runs: {min(loads):.2f} to {max(loads):.2f}")
print()
failed = []
for r in warm + rows:
    calls, started, hits = int(r[5]), int(r[6]), int(r[7])
    if not calls <= hits <= started + clients * streams:
        failed.append(r)
print(f"Backend hits against the calls h2load counted, in all {len(warm + rows)} runs (warm-ups included): "
      f"{sum(int(r[7]) for r in warm + rows):,} hits for {sum(int(r[5]) for r in warm + rows):,} calls; "
      f"each run: calls ≤ hits ≤ calls started + {clients * streams} in flight: "
      + ("every run." if not failed else f"{len(failed)} did not."))
for r in failed:
    print(f"CHECK FAILED: round {r[0]} {r[1]}: {r[5]} calls, {r[6]} started, {r[7]} hits")
