#!/usr/bin/env bash
# The client directory: what a request pays for it, and what a copy of 1,000,000 clients costs in heap.
#
#   jmh   DirectoryBenchmark: Directory.caller (SHA-256 of the API key, lookup) + per rule the effective policy,
#         hash tag and bucket key, as limiter.Limiter calls them, over 10,000 of CLIENTS generated clients,
#         against the same calls on an empty directory (the rule-only path), same run; one rule keyed api_key,
#         and that rule plus one keyed tenant. Average ns per request, one thread.
#   heap  DirectoryHeap: used heap after a full GC before and after the copy is filled, the snapshot's size and
#         the CPU time to write and read it, a first sync's JSON pages parsed and built, a page of 100 applied.
#
# Writes bench/results/<UTC date-time>-directory-lookup.md. Needs java 17 and the gateway installed in the local
# repository (./mvnw -B install -DskipTests -pl gateway-service -am).
# Env: CLIENTS (1000000) FORKS (1) WARMUP (3) ITERATIONS (5) ITERATION_SECONDS (2) HEAP (2g)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/directory"
CLIENTS=${CLIENTS:-1000000}
FORKS=${FORKS:-1}
WARMUP=${WARMUP:-3}
ITERATIONS=${ITERATIONS:-5}
SECONDS_PER=${ITERATION_SECONDS:-2}
HEAP=${HEAP:-2g}

(cd "$ROOT" && ./mvnw -B -q -f bench/directory/pom.xml package -DskipTests) \
  || { echo "build failed: install the gateway first: ./mvnw -B install -DskipTests -pl gateway-service -am" >&2; exit 1; }
CP="$HERE/target/classes:$(cat "$HERE/target/classpath.txt")"
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT="$ROOT/bench/results/$STAMP-directory-lookup.md"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
java "-Xmx$HEAP" -cp "$CP" io.tollgate.bench.directory.DirectoryHeap "$CLIENTS" 2>/dev/null | grep ': ' >"$WORK/heap.txt"
java "-Xmx$HEAP" -cp "$CP" org.openjdk.jmh.Main DirectoryBenchmark -p clients="$CLIENTS" -f "$FORKS" \
  -wi "$WARMUP" -w "${SECONDS_PER}s" -i "$ITERATIONS" -r "${SECONDS_PER}s" -jvmArgsAppend "-Xmx$HEAP" \
  -rf json -rff "$WORK/jmh.json" >"$WORK/jmh.log" 2>&1 || { cat "$WORK/jmh.log" >&2; exit 1; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK/jmh.json" "$WORK/heap.txt" "$CLIENTS" >"$WORK/table.md" <<'PY'
import json, sys
jmh = {r["benchmark"].rsplit(".", 1)[1]: r["primaryMetric"] for r in json.load(open(sys.argv[1]))}
heap = dict(l.strip().split(": ", 1) for l in open(sys.argv[2]))
def cell(name):
    m = jmh[name]
    return f'{m["score"]:,.0f} ± {m["scoreError"]:,.0f}'
print("| request | rule-only path (empty directory), ns | with the directory (%s clients), ns | added, ns | ratio |" % f"{int(sys.argv[3]):,}")
print("|---|---:|---:|---:|---:|")
for label, base, full in (("one rule keyed api_key", "ruleOneRule", "directoryOneRule"),
                          ("a rule keyed api_key and one keyed tenant", "ruleTwoRules", "directoryTwoRules")):
    b, f = jmh[base]["score"], jmh[full]["score"]
    print(f"| {label} | {cell(base)} | {cell(full)} | {f - b:,.0f} | {f / b:.1f} |")
print()
print("| copy of the directory | value |")
print("|---|---:|")
mb = int(heap["retained_heap_bytes"]) / 1e6
rows = [("clients", f'{int(heap["clients"]):,}'),
        ("retained heap (used after full GC, after - before)", f"{mb:.1f} MB ({heap['retained_bytes_per_client']} bytes a client)"),
        ("snapshot file", f'{int(heap["snapshot_bytes"]) / 1e6:.1f} MB'),
        ("snapshot write / read, CPU", f'{heap["snapshot_write_ms"]} / {heap["snapshot_read_ms"]} ms'),
        ("a page of 100 changes applied to the full copy, CPU", f'{heap["apply_page_of_100_to_full_copy_ms"]} ms'),
        ("first sync without a snapshot: JSON pages of 10,000", f'{int(heap["json_pages_bytes"]) / 1e6:.0f} MB'),
        ("... parsed and checked (DirectoryCodec), CPU", f'{heap["json_parse_ms"]} ms'),
        ("... gathered and built (FreshCopy), CPU", f'{heap["json_gather_and_build_ms"]} ms')]
for k, v in rows:
    print(f"| {k} | {v} |")
PY

{
  echo "# The client directory: lookup cost per request and heap of 1,000,000 clients"
  echo
  echo "Command: \`CLIENTS=$CLIENTS FORKS=$FORKS WARMUP=$WARMUP ITERATIONS=$ITERATIONS ITERATION_SECONDS=$SECONDS_PER bench/directory/run.sh\`"
  echo "at $(cd "$ROOT" && git rev-parse --short HEAD); $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB, $(java -version 2>&1 | head -1);"
  echo "load average before: $LOAD_BEFORE, after: $LOAD_AFTER. JMH: average time, one thread, $FORKS fork(s),"
  echo "$WARMUP x ${SECONDS_PER}s warm-up, $ITERATIONS x ${SECONDS_PER}s measured (± is JMH's 99.9 % error)."
  echo
  cat "$WORK/table.md"
} >"$OUT"
cat "$OUT"
echo "written: $OUT" >&2
