"""The tables of bench/gateway/store-timeout.sh, as Markdown.

Usage: store_timeout.py <runs.tsv>; each row, tab-separated:
  part store timeout label rule RESULT-line before-metrics after-metrics log recovery-ms
part is "saturation" (label: the round) or "down" (label: the outage: up, killed, paused); the metrics files
hold the gateway's tollgate_* lines of /q/metrics before and after the run; RESULT is keys.lua's summary;
log is what the gateway logged during the run; recovery-ms is "-" but after an outage.
"""
import datetime
import re
import statistics
import sys

LINE = re.compile(r'^(\w+)(?:\{(.*)\})?\s+(\S+)$')
LABEL = re.compile(r'(\w+)="([^"]*)"')
FALLBACK = ("fallback_allowed", "fallback_rejected")


def metrics(path):
    """{(name, frozenset of labels): value} of a /q/metrics excerpt."""
    out = {}
    for line in open(path):
        m = LINE.match(line.strip())
        if m:
            out[(m.group(1), frozenset(LABEL.findall(m.group(2) or "")))] = float(m.group(3))
    return out


def delta(before, after):
    return {k: v - before.get(k, 0.0) for k, v in after.items() if not k[0].endswith("_state")}


def total(d, name, **labels):
    want = set(labels.items())
    return sum(v for (n, ls), v in d.items() if n == name and want <= ls)


def decisions(d, rule):
    return total(d, "tollgate_decisions_total", rule=rule)


def fallbacks(d, rule):
    return sum(total(d, "tollgate_decisions_total", rule=rule, outcome=o) for o in FALLBACK)


def errors(d):
    """store errors by kind, "kind n" for each kind that rose"""
    kinds = {}
    for (n, ls), v in d.items():
        if n == "tollgate_store_errors_total" and v:
            kinds[dict(ls).get("kind", "?")] = kinds.get(dict(ls).get("kind", "?"), 0) + v
    return ", ".join(f"{k} {v:.0f}" for k, v in sorted(kinds.items())) or "0"


def optional(d, name):
    """a counter the gateway may not have: "-" when absent"""
    return f"{total(d, name):.0f}" if any(n == name for n, _ in d) else "-"


def result(text):
    return {k: float(v) for k, v in re.findall(r'(\w+)=([0-9.]+)', text)}


def ms(us):
    return f"{us / 1000:.2f}" if us is not None else "-"


def per_thousand(n, d):
    return f"{1000 * n / d:.2f}" if d else "-"


def openings(log):
    """how often the breaker opened from closed: its "breaker open" warnings"""
    with open(log, "rb") as f:
        return sum(1 for raw in f if b"breaker open" in raw)


def stamp(line):
    """ms since the epoch of a Quarkus log line (local time, milliseconds), or None"""
    m = re.match(r'(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})', line)
    if not m:
        return None
    return datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").timestamp() * 1000 + int(m.group(2))


def breaker_opened(log):
    """ms from the gateway's "counter store unavailable" warning (its first failure-mode decision) to its
    first "breaker open" warning in the run, "-" when the breaker did not open"""
    first = None
    with open(log, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace")
            if first is None and "counter store unavailable" in line:
                first = stamp(line)
            if "breaker open" in line:
                opened = stamp(line)
                return f"{opened - first:.0f}" if first is not None and opened is not None else "?"
    return "-"


rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
order = []  # (store, timeout) in the order of the run
for r in rows:
    if (r[1], r[2]) not in order:
        order.append((r[1], r[2]))

sat = [r for r in rows if r[0] == "saturation"]
if sat:
    print("## Saturation: failure-mode decisions per 1,000 checks (rule bench.limited, failure_mode local)")
    print()
    print("| store | timeout | req/s | p99 ms | checks | failure-mode decisions per 1,000 | timeouts per 1,000 checks |"
          " store errors (all kinds) | breaker openings | late answers | over-admitted | non-2xx + socket errors |"
          " p99 ms per round |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for store, timeout in order:
        runs = [r for r in sat if (r[1], r[2]) == (store, timeout)]
        if not runs:
            continue
        d = {}
        for r in runs:
            for k, v in delta(metrics(r[6]), metrics(r[7])).items():
                d[k] = d.get(k, 0.0) + v
        res = [result(r[5]) for r in runs]
        rps = statistics.median(x.get("rps", 0) for x in res)
        p99 = statistics.median(x.get("p99_us", 0) for x in res)
        checks = decisions(d, "bench.limited")
        bad = sum(x.get("non2xx", 0) + x.get("socket_errors", 0) for x in res)
        print(f"| {store} | {timeout} | {rps:.0f} | {ms(p99)} | {checks:.0f} | "
              f"{per_thousand(fallbacks(d, 'bench.limited'), checks)} | "
              f"{per_thousand(total(d, 'tollgate_store_errors_total', kind='timeout'), checks)} | {errors(d)} | "
              f"{sum(openings(r[8]) for r in runs)} | "
              f"{optional(d, 'tollgate_store_late_answers_total')} | {optional(d, 'tollgate_fallback_overadmitted_total')} | "
              f"{bad:.0f} | {' / '.join(ms(x.get('p99_us')) for x in res)} |")
    print()

down = [r for r in rows if r[0] == "down"]
if down:
    print("## Redis down: latency of the answers (up: the same load, the store answering)")
    print()
    print("| store | timeout | outage | rule (failure_mode) | requests | p50 ms | p99 ms | p99.9 ms | max ms |"
          " non-2xx + socket errors | failure-mode decisions | store errors | breaker open after ms | recovery ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in down:
        store, timeout, outage, rule, text, before, after = r[1:8]
        log, recovery = r[8:10]
        d = delta(metrics(before), metrics(after))
        x = result(text)
        mode = "local" if rule == "bench.limited" else "open"
        n = decisions(d, rule)
        share = f"{fallbacks(d, rule):.0f} of {n:.0f}" if n else "-"
        print(f"| {store} | {timeout} | {outage} | {rule} ({mode}) | {x.get('requests', 0):.0f} | {ms(x.get('p50_us'))} | "
              f"{ms(x.get('p99_us'))} | {ms(x.get('p999_us'))} | {ms(x.get('max_us'))} | "
              f"{x.get('non2xx', 0) + x.get('socket_errors', 0):.0f} | {share} | {errors(d)} | "
              f"{breaker_opened(log)} | {recovery} |")
    print()
    print("Store errors count both rules' checks of the run. Breaker open after: from the gateway's first failure-mode")
    print("decision (its \"counter store unavailable\" warning) to its \"breaker open\" warning, both as the gateway")
    print("logged them (\"-\": the breaker did not open). Recovery: from the store answering again to the first check")
    print("it allowed with the breaker closed (a probe request every 50 ms).")
