"""Medians over the rounds of bench/protocols/h2-floods.sh, as Markdown.

Usage: floods_summary.py ROWS
  rows: round variant answered errors p50 p99 max connections closes sent attackers_cpu% gateway_cpu% sink_cpu%
  (variants quiet, rapid-reset, continuation, control-reset, control-continuation, and base-* of a baseline jar)
Each attack's p99 over its gateway's quiet p99, and over its control's p99 (the same attack at nginx while the
gateway serves only the measured client): the part of the p99 that is the gateway's; the ratio of the medians, and in
brackets the range of the rounds' own ratios (each against the same round's quiet or control run).
"""
import statistics
import sys

CONTROL = {"rapid-reset": "control-reset", "continuation": "control-continuation"}


def main(path):
    by = {}
    for line in open(path):
        if line.strip():
            row = line.split()
            by.setdefault(row[1], []).append(row)

    def med(variant, column):
        values = [float(r[column]) for r in by[variant] if r[column] != "-"]
        return statistics.median(values) if values else None

    def rounds(variant, over):
        """The round-by-round ratios of variant's p99 over over's (same round), as "min-max"."""
        base = {r[0]: float(r[5]) for r in by.get(over, [])}
        ratios = [float(r[5]) / base[r[0]] for r in by[variant] if r[0] in base and base[r[0]] > 0]
        return "%.2f-%.2f" % (min(ratios), max(ratios)) if ratios else ""

    print("| variant | answered | p50 ms | p99 ms | ÷ quiet p99 (rounds) | ÷ control p99 (rounds) | attack connections "
          "| gateway CPU % | attackers CPU % | errors |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for prefix in ("", "base-"):
        if prefix + "quiet" not in by:
            continue
        quiet = med(prefix + "quiet", 5)
        for variant in ("quiet", "rapid-reset", "continuation", "control-reset", "control-continuation"):
            control = variant.startswith("control")
            name = variant if control else prefix + variant
            if name not in by or (prefix and control):
                continue
            p99 = med(name, 5)
            over_control = ""
            if CONTROL.get(variant) in by:
                over_control = "%.2f (%s)" % (p99 / med(CONTROL[variant], 5), rounds(name, CONTROL[variant]))
            over_quiet = "%.2f" % (p99 / quiet)
            if name != prefix + "quiet":
                over_quiet += " (%s)" % rounds(name, prefix + "quiet")
            connections, attackers = med(name, 7), med(name, 10)
            print("| %s | %.0f | %.2f | %.2f | %s | %s | %s | %.0f | %s | %d |" % (
                name, med(name, 2), med(name, 4), p99, over_quiet, over_control,
                "" if connections is None else "%.0f" % connections, med(name, 11),
                "" if attackers is None else "%.0f" % attackers, sum(int(r[3]) for r in by[name])))


if __name__ == "__main__":
    main(sys.argv[1])
