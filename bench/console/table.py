"""The table of bench/console/run.sh: medians per page and cache state of the loads ConsoleWeight wrote."""
import json
import statistics
import sys

BASELINE = "/console/login"
loads = [json.loads(line) for line in open(sys.argv[1])]
pages = list(dict.fromkeys(l["page"] for l in loads))
rounds = len({l["round"] for l in loads})


def median(page, cache, key):
    values = [l[key] for l in loads if l["page"] == page and l["cache"] == cache and l[key] is not None]
    return statistics.median(values) if values else None


def interactive(page, cache):
    """When the page is ready for use: its console-ready mark when it sets one, else when its data is in."""
    ready = median(page, cache, "ready_ms")
    return ready if ready is not None else median(page, cache, "settled_ms")


def ms(value):
    return "–" if value is None else f"{value:.0f}"


print(f"Medians over {rounds} loads per page and cache state. Transferred: every response's transferSize (headers and")
print("body as sent: the document, its assets, the API calls the page makes until nothing new is fetched for 0.5 s).")
print("Data in: when the last of those responses ended (the page's own API calls included). Interactive: the page's")
print("`console-ready` mark when it sets one, else when its data is in; the ratio is to the login page's (the")
print("baseline, a static page of the same service) in the same rounds and cache state.")
print()
print("| page | cache | transferred, KB | requests (from cache) | domInteractive, ms | data in, ms | console-ready, ms "
      "| interactive / login's |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for page in pages:
    for cache in ("cold", "warm"):
        base = interactive(BASELINE, cache)
        own = interactive(page, cache)
        ratio = "baseline" if page == BASELINE else f"{own / base:.2f}"
        print(f"| `{page}` | {cache} | {median(page, cache, 'transfer_bytes') / 1024:.1f} "
              f"| {median(page, cache, 'requests'):.0f} ({median(page, cache, 'cached'):.0f}) "
              f"| {ms(median(page, cache, 'dom_interactive_ms'))} | {ms(median(page, cache, 'settled_ms'))} "
              f"| {ms(median(page, cache, 'ready_ms'))} | {ratio} |")
print()
console = [p for p in pages if p != BASELINE]
heaviest = max(console, key=lambda p: median(p, "cold", "transfer_bytes"))
slowest = max(console, key=lambda p: interactive(p, "cold"))
print(f"Goals (issue 24): under 150 KB transferred, cold: the heaviest page, `{heaviest}`, "
      f"{median(heaviest, 'cold', 'transfer_bytes') / 1024:.1f} KB; interactive under 300 ms: the slowest, "
      f"`{slowest}`, {interactive(slowest, 'cold'):.0f} ms cold, {interactive(slowest, 'warm'):.0f} ms warm.")
without = [p for p in pages if median(p, "cold", "ready_ms") is None]
if without:
    print()
    print("Pages that set no `console-ready` mark (interactive is when their data is in, which includes the time "
          "until their scripts have asked for it): " + ", ".join(f"`{p}`" for p in without) + ".")
