#!/usr/bin/env python3
"""Turns the raw files of one bench/compare/run.sh run into Markdown: medians, ratios, goals.

Usage: summarise.py WORK_DIR   (reads meta.tsv, runs.tsv, flood.tsv, footprint.tsv, tollgate-metrics.txt)
"""
import re
import statistics
import sys
from pathlib import Path

VARIANTS = ["direct", "nginx", "tollgate-off", "tollgate-rule", "tollgate-flood", "scg"]
LABELS = {
    "direct": "backend direct (nginx `return 200`)",
    "nginx": "nginx, plain reverse proxy",
    "tollgate-off": "Tollgate, no matching rule",
    "tollgate-rule": "Tollgate, one rule (nothing rejected)",
    "tollgate-hop": "Tollgate, no rule, one more hop (through the nginx proxy)",
    "tollgate-flood": "Tollgate, one rule, flood from one rejected key",
    "scg": "Spring Cloud Gateway + RedisRateLimiter",
}
RUN_FIELDS = ["part", "variant", "round", "rate", "rps", "requests", "p50", "p99", "p999", "non2xx",
              "socket_errors", "cpu", "redis_cmds", "scripts", "redis_cpu", "fallbacks", "gets", "wait",
              "redis_wait"]


def rows(path, fields):
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        values = line.split("\t")
        out.append(dict(zip(fields, values)))
    return out


def num(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ms(us):
    return "-" if us is None else f"{us / 1000:.2f}"


def fmt(value, digits=0):
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def ratio(a, b):
    return None if a is None or not b else a / b


def fallbacks(runs):
    """The checks that the store did not answer in time (Tollgate's failure mode decided), over all rounds."""
    values = [num(r.get("fallbacks")) for r in runs]
    values = [v for v in values if v is not None]
    return f"{int(sum(values)):,}" if values else "-"


def store_latency(work):
    """Quantiles of the checks timed between store-latency-before.txt and -after.txt (Prometheus buckets)."""
    def buckets(name):
        path = work / name
        if not path.exists():
            return {}
        out = {}
        for line in path.read_text().splitlines():
            match = re.search(r'le="([^"]+)"[^}]*}\s+(\S+)', line)
            if match:
                bound = float("inf") if match.group(1) == "+Inf" else float(match.group(1))
                out[bound] = out.get(bound, 0) + float(match.group(2))
        return out
    before, after = buckets("store-latency-before.txt"), buckets("store-latency-after.txt")
    delta = sorted((bound, count - before.get(bound, 0)) for bound, count in after.items())
    total = delta[-1][1] if delta else 0
    if total <= 0:
        return None
    result = {"count": int(total)}
    for q in (0.5, 0.99, 0.999):
        bound = next(b for b, c in delta if c >= q * total)
        result[q] = "over the largest bucket" if bound == float("inf") else (
            f"{bound * 1e6:.0f} µs" if bound < 0.001 else f"{bound * 1e3:.2f} ms")
    return result


def main():
    work = Path(sys.argv[1])
    meta = {}
    notes = []
    for line in (work / "meta.tsv").read_text().splitlines():
        key, _, value = line.partition("\t")
        if key == "note":
            notes.append(value)
        else:
            meta[key] = value
    runs = rows(work / "runs.tsv", RUN_FIELDS)
    print(f"date: {meta.get('date')}; machine: {meta.get('machine')}; load average before {meta.get('load_before')}, "
          f"after {meta.get('load_after')}; {meta.get('elapsed')} in all")
    print(f"command: `{meta.get('command')}`; {meta.get('settings')}")
    print(f"Tollgate: {meta.get('tollgate_java')}; SCG: {meta.get('scg_java')}; {meta.get('versions')}")
    print()

    med = {}
    request_runs = [r for r in runs if r["part"] == "requests"]
    if request_runs:
        print("### Requests (median of the rounds)")
        print()
        print("| variant | req/s | each round | p50 ms | p99 ms | p99.9 ms | non-2xx | CPU µs/req | bucket reads "
              "(GET)/req | store calls (EVAL+EVALSHA)/req | Redis commands/req, script-inner too | Redis CPU µs/req "
              "| failure-mode decisions |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for variant in VARIANTS:
            mine = [r for r in request_runs if r["variant"] == variant]
            if not mine:
                continue
            m = {f: median([num(r[f]) for r in mine]) for f in RUN_FIELDS[4:]}
            m["each"] = [num(r["rps"]) for r in mine]
            med[variant] = m
            print(f"| {LABELS[variant]} | {fmt(m['rps'])} | {' '.join(fmt(v) for v in m['each'])} | {ms(m['p50'])} "
                  f"| {ms(m['p99'])} | {ms(m['p999'])} | {sum(int(num(r['non2xx']) or 0) for r in mine)} "
                  f"| {fmt(m['cpu'], 1)} | {fmt(m['gets'], 3)} | {fmt(m['scripts'], 3)} | {fmt(m['redis_cmds'], 3)} | {fmt(m['redis_cpu'], 1)} "
                  f"| {fallbacks(mine)} |")
        print()
        print("CPU µs/req: utime + stime of the process under test (the backend for `direct`, nginx's master and "
              "workers for the proxy) over the requests it answered (with the flood: legitimate and flood requests). "
              "Redis columns from `INFO commandstats` before and after each run, per legitimate request (with the "
              "flood, the flood's calls are included); Redis counts the commands a script calls as commands too: "
              "bucket reads are the checks (Tollgate's script reads each bucket with one GET; SCG's reads two keys "
              "per check), store calls the script calls that carry them (Tollgate sends the checks an event loop "
              "asks for in one turn as one call), the third column the store's whole work. Failure-mode "
              "decisions: Tollgate's checks that Redis did not answer within `tollgate.store.timeout` (20 ms) or "
              "that the open breaker short-circuited (`fallback_*` in `tollgate_decisions_total`); they made no or a "
              "late store call.")
        print()

        def per_round(a, b):
            out = []
            for ra in [r for r in request_runs if r["variant"] == a]:
                for rb in [r for r in request_runs if r["variant"] == b and r["round"] == ra["round"]]:
                    out.append(ratio(num(ra["rps"]), num(rb["rps"])))
            return out

        print("| ratio (req/s) | of the medians | per round | goal |")
        print("|---|---:|---|---|")
        goals = {("tollgate-rule", "nginx"): 0.5, ("tollgate-rule", "tollgate-off"): 0.65}
        for a, b in [("tollgate-rule", "nginx"), ("tollgate-rule", "tollgate-off"), ("scg", "nginx"),
                     ("tollgate-rule", "scg"), ("nginx", "direct"), ("tollgate-off", "nginx"),
                     ("tollgate-flood", "tollgate-rule")]:
            if a not in med or b not in med:
                continue
            r = ratio(med[a]["rps"], med[b]["rps"])
            goal = goals.get((a, b))
            verdict = ""
            if goal is not None and r is not None:
                verdict = f"≥ {goal}: " + ("met" if r >= goal else f"not met ({r / goal:.0%} of the goal)")
            print(f"| {a} ÷ {b} | {fmt(r, 2)} | {' '.join(fmt(x, 2) for x in per_round(a, b))} | {verdict} |")
        print()

    flood = rows(work / "flood.tsv", ["round", "legit_rps", "flood_rps", "flood_requests", "flood_non2xx",
                                       "store_rejected", "store_allowed", "cached", "fallbacks", "seconds"])
    if flood:
        print("### The flood from one rejected key (rule `bench.flood`: 1 a second, burst 1; wrk -t1 alongside)")
        print()
        print("| round | legitimate req/s | flood req/s | flood answers | of which 429 | store calls: rejected "
              "| store calls: allowed | cached rejections (no store call) | failure-mode decisions | rejected store calls per second |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for f in flood:
            per_s = (num(f["store_rejected"]) or 0) / (num(f["seconds"]) or 1)
            print(f"| {f['round']} | {fmt(num(f['legit_rps']))} | {fmt(num(f['flood_rps']))} "
                  f"| {fmt(num(f['flood_requests']))} | {fmt(num(f['flood_non2xx']))} | {f['store_rejected']} "
                  f"| {f['store_allowed']} | {fmt(num(f['cached']))} | {f['fallbacks']} | {per_s:.2f} |")
        print()
        print("The retry period of `bench.flood` is 1 s: a rejected key may cost at most one store call per second "
              "per gateway (goal); the allowed ones are the token that refills each second.")
        print()

    paced = [r for r in runs if r["part"] == "paced"]
    if paced:
        rate = meta.get("paced_rate")
        print(f"### Half saturation: {rate} req/s offered (half of tollgate-rule's median req/s above), "
              "paced by keys.lua's delay()")
        print()
        print("| variant | offered req/s | achieved req/s | p50 ms | p99 ms | p99.9 ms | each round's p99 ms | CPU µs/req "
              "| script calls/req | gateway threads' wait for a core, µs per run | Redis's | failure-mode decisions |")
        print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
        pm = {}
        for variant in ["tollgate-off", "tollgate-hop", "tollgate-rule"]:
            mine = [r for r in paced if r["variant"] == variant]
            if not mine:
                continue
            m = {f: median([num(r[f]) for r in mine]) for f in RUN_FIELDS[4:]}
            pm[variant] = mine
            print(f"| {LABELS[variant]} | {rate} | {fmt(m['rps'])} | {ms(m['p50'])} | {ms(m['p99'])} | {ms(m['p999'])} "
                  f"| {' '.join(ms(num(r['p99'])) for r in mine)} | {fmt(m['cpu'], 1)} | {fmt(m['scripts'], 3)} "
                  f"| {fmt(m['wait'], 1)} "
                  f"| {fmt(m['redis_wait'], 1)} | {fallbacks(mine)} |")
        def added(field, variant="tollgate-rule", base="tollgate-off"):
            """variant − base, round by round"""
            return [num(b[field]) - num(a[field]) for a in pm[base] for b in pm[variant] if a["round"] == b["round"]]
        if "tollgate-off" in pm and "tollgate-rule" in pm:
            added99, added50 = added("p99"), added("p50")
            spread = max(max(num(r["p99"]) for r in pm[v]) - min(num(r["p99"]) for r in pm[v])
                         for v in ["tollgate-off", "tollgate-rule"])
            median99 = median(added99)
            if spread > 1000:
                verdict = (f"not shown by this run: the p99 of one variant moved by up to {spread / 1000:.1f} ms "
                           "between its rounds, more than the 1 ms to be measured")
            elif median99 <= 1000:
                verdict = "met"
            else:
                verdict = f"not met (by {(median99 - 1000) / 1000:.2f} ms)"
            print()
            print(f"Added by the limiter at this rate, per round (rule − off): p50 "
                  f"{' '.join(f'{v / 1000:+.2f}' for v in added50)} ms (median {median(added50) / 1000:+.2f}), p99 "
                  f"{' '.join(f'{v / 1000:+.2f}' for v in added99)} ms (median {median99 / 1000:+.2f}). Goal p99 ≤ 1 ms: "
                  f"{verdict}. wrk times each request from its write, so these are service times at the offered rate, "
                  "not corrected for coordinated omission as wrk2 would.")
        if "tollgate-off" in pm and "tollgate-hop" in pm:
            hop99, hop50 = added("p99", "tollgate-hop"), added("p50", "tollgate-hop")
            print()
            print(f"The control, one more loopback round trip with no limiter (hop − off, the same rounds): p50 "
                  f"{' '.join(f'{v / 1000:+.2f}' for v in hop50)} ms (median {median(hop50) / 1000:+.2f}), p99 "
                  f"{' '.join(f'{v / 1000:+.2f}' for v in hop99)} ms (median {median(hop99) / 1000:+.2f}). The "
                  "check's trip to Redis is one such round trip; what the limiter adds beyond it is its own"
                  + (f": p99 rule − hop, median of the rounds {median(added('p99', base='tollgate-hop')) / 1000:+.2f} ms."
                     if "tollgate-rule" in pm else "."))
        store = store_latency(work)
        if store:
            print()
            print(f"The store call inside those requests (the gateway's `tollgate_store_latency` histogram over the "
                  f"paced rounds, {store['count']:,} checks, all tollgate-rule's): p50 ≤ {store[0.5]}, p99 ≤ "
                  f"{store[0.99]}, p99.9 ≤ {store[0.999]} (upper bounds of the buckets the quantiles fall in).")
        print()

    foot = rows(work / "footprint.tsv", ["mode", "run", "ms", "rss", "rss_load", "anon_load", "load_rps"])
    if foot:
        print("### Footprint: launch to the first proxied 200 that the limiter checked; RSS after "
              "a minute of load")
        print()
        print("| mode | first checked answer, median (ms) | each start (ms) | RSS then, median (MB) "
              "| RSS after load (MB) | of which anonymous (MB) | load req/s | goal ≤ 1 s / < 150 MB |")
        print("|---|---:|---|---:|---:|---:|---:|---|")
        for mode in dict.fromkeys(f["mode"] for f in foot):
            mine = [f for f in foot if f["mode"] == mode]
            t = median([num(f["ms"]) for f in mine])
            rss = median([num(f["rss"]) for f in mine])
            loaded = [f for f in mine if num(f["rss_load"]) is not None]
            rss_load = num(loaded[-1]["rss_load"]) if loaded else None
            anon = num(loaded[-1]["anon_load"]) if loaded else None
            rps = num(loaded[-1]["load_rps"]) if loaded else None
            verdicts = []
            if t is not None:
                verdicts.append("start met" if t <= 1000 else f"start not met (+{(t - 1000) / 1000:.2f} s)")
            if rss_load is not None:
                mb = rss_load / 1024
                verdicts.append("RSS met" if mb < 150 else f"RSS not met (+{mb - 150:.0f} MB)")
            print(f"| {mode} | {fmt(t)} | {' '.join(f['ms'] for f in mine)} | {fmt(rss and rss / 1024)} "
                  f"| {fmt(rss_load and rss_load / 1024)} | {fmt(anon and anon / 1024)} | {fmt(rps)} "
                  f"| {'; '.join(verdicts)} |")
        print()
    for note in notes:
        print(f"Note: {note}")
    metrics = work / "tollgate-metrics.txt"
    if metrics.exists() and metrics.read_text().strip():
        print()
        print("Tollgate's decision counters over the request and half-saturation parts:")
        print()
        print("```")
        print(metrics.read_text().strip())
        print("```")


if __name__ == "__main__":
    main()
