#!/usr/bin/env bash
# What a directory of CLIENTS clients costs a gateway under load: two gateways of the packaged jar, the same
# rule (api_key, plans; it never rejects), the same Redis and nginx backend; one with an empty directory, one
# started from a directory snapshot of CLIENTS generated clients (bench/directory's Generated: free, pro,
# tenants, overrides). wrk sends keys drawn from KEYS of those clients (client-0 .. client-<KEYS-1>) to each in
# turn, ROUNDS rounds after a warm-up of each, the order alternating from round to round.
#
# Reads per gateway and round: req/s, p50 and p99 (wrk --latency), CPU per request; after the load: the
# gateway's resident memory (VmRSS) and its heap in use after a full GC (jcmd GC.heap_info after GC.run).
# The table gives the medians over the rounds and the ratio full / empty of req/s (the goal: >= 0.97).
#
# Writes bench/results/<UTC date-time>-directory-throughput.md. Needs wrk, nginx, redis-server, redis-cli,
# java 17 (jcmd), python3, and ./mvnw -B install -DskipTests -pl gateway-service -am done.
# Env: CLIENTS (1000000; 0 for an A/A run of two empty gateways) KEYS (10000) DURATION (10s) WARMUP (20s) ROUNDS (3) CONNECTIONS (50) THREADS (2)
#      GATEWAY_JAVA_OPTS (the launcher's: -XX:+UseSerialGC -Xmx64m ...; the heap must hold the directory)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/directory"
CLIENTS=${CLIENTS:-1000000}
KEYS=${KEYS:-10000}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-20s}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx64m -XX:TrimNativeHeapInterval=1000 -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1"}
JAR="$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"
[ -f "$JAR" ] || { echo "no $JAR: ./mvnw -B install -DskipTests -pl gateway-service -am" >&2; exit 1; }

# shellcheck source=../gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need wrk nginx redis-server redis-cli java jcmd curl python3

(cd "$ROOT" && ./mvnw -B -q -f bench/directory/pom.xml package -DskipTests) \
  || { echo "build failed: install the gateway first: ./mvnw -B install -DskipTests -pl gateway-service -am" >&2; exit 1; }
CP="$HERE/target/classes:$(cat "$HERE/target/classpath.txt")"

backend
start_store standalone
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[{"id":"api.calls","match":{"path":"/limited/**"},"key":"api_key",
"algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000,
"plans":{"free":{"limit":900000000},"pro":{"limit":950000000},"enterprise":{"limit":990000000},"blocked":{"limit":1}}}]}
JSON
# launch_gateway points the gateways at the rules service http://127.0.0.1:1 (unreachable): the snapshot names it
java -cp "$CP" io.tollgate.bench.directory.SnapshotFile "$CLIENTS" "$WORK/rules-full.json.directory" \
  "http://127.0.0.1:1" >&2
launch_gateway empty "$JAR" "$GATEWAY_JAVA_OPTS"
launch_gateway full "$JAR" "$GATEWAY_JAVA_OPTS"
await_gateway empty
await_gateway full
clients=$(curl -fs "http://127.0.0.1:${GW_MGMT[full]}/q/metrics" | awk '/^tollgate_directory_clients /{print int($2)}')
[ "$clients" = "$CLIENTS" ] || { echo "the full gateway holds $clients clients, not $CLIENTS" >&2; exit 1; }
# CLIENTS=0: an A/A run (two gateways alike), which shows what the noise alone makes of the figures
[ "$CLIENTS" = 0 ] || curl -fs -H 'X-API-Key: client-4' "http://127.0.0.1:${GW_PORT[full]}/limited/x" -D - -o /dev/null \
  | grep -qi '^ratelimit-policy: "api.calls";q=950000000' || { echo "client-4 is not on plan pro" >&2; exit 1; }

TICK=$(getconf CLK_TCK)
run() { # run NAME DURATION -> "name rps p50 p99 cpu_us_per_request"
  local name=$1 c0 c1 out
  c0=$(awk '{print $14 + $15}' "/proc/${GW_PID[$name]}/stat")
  out=$(PATH_TO=/limited/x KEYS="$KEYS" KEY_PREFIX=client- THREADS="$THREADS" \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2" --latency -s "$ROOT/bench/compare/keys.lua" "http://127.0.0.1:${GW_PORT[$name]}")
  c1=$(awk '{print $14 + $15}' "/proc/${GW_PID[$name]}/stat")
  echo "$out" | grep -q 'non2xx=0 ' || { echo "$name answered other than 200: $(echo "$out" | grep RESULT)" >&2; exit 1; }
  echo "$out" | awk -v n="$name" -v c=$((c1 - c0)) -v hz="$TICK" '/^RESULT/{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "%s %.0f %.2f %.2f %.1f\n", n, v["rps"], v["p50_us"] / 1000, v["p99_us"] / 1000, c * 1e6 / hz / v["requests"] }'
}
memory() { # NAME -> "rss_mb heap_used_mb" after a full GC
  local pid=${GW_PID[$1]} rss heap
  jcmd "$pid" GC.run >/dev/null
  # the generations' "used NK" (Serial: def new + tenured; G1: the heap line), not Metaspace's
  heap=$(jcmd "$pid" GC.heap_info | awk '/generation|garbage-first heap/ {
    for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?$/, "", v); kb += v } } END { print kb + 0 }')
  rss=$(awk '/^VmRSS/{print $2}' "/proc/$pid/status")
  echo "$((rss / 1024)) $((heap / 1024))"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "warm-up..." >&2
run empty "$WARMUP" >/dev/null
run full "$WARMUP" >/dev/null
: >"$WORK/runs"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  # the order alternates: the second of a pair runs slower whatever it holds (an A/A run, CLIENTS=0, shows it)
  order="empty full"
  [ $((round % 2)) = 0 ] && order="full empty"
  for name in $order; do run "$name" "$DURATION" >>"$WORK/runs"; done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
read -r RSS_EMPTY HEAP_EMPTY < <(memory empty)
read -r RSS_FULL HEAP_FULL < <(memory full)

STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT="$ROOT/bench/results/$STAMP-directory-throughput.md"
{
  echo "# The client directory under load: $(printf "%'d" "$CLIENTS") clients against none"
  echo
  echo "Command: \`CLIENTS=$CLIENTS KEYS=$KEYS DURATION=$DURATION WARMUP=$WARMUP ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS THREADS=$THREADS bench/directory/throughput.sh\`"
  run_context
  echo "wrk, the gateways, Redis and nginx share the machine's cores; the two gateways take turns, $ROUNDS rounds."
  echo
  python3 - "$WORK/runs" "$RSS_EMPTY" "$HEAP_EMPTY" "$RSS_FULL" "$HEAP_FULL" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, *values = line.split()
    runs.setdefault(name, []).append([float(v) for v in values])
def median(name, i):
    return statistics.median(r[i] for r in runs[name])
print("| gateway | req/s (median) | p50, ms | p99, ms | CPU per request, µs | RSS after load, MB | heap used after GC, MB |")
print("|---|---:|---:|---:|---:|---:|---:|")
mem = {"empty": sys.argv[2:4], "full": sys.argv[4:6]}
for name, label in (("empty", "empty directory"), ("full", "full directory")):
    print(f"| {label} | {median(name, 0):,.0f} | {median(name, 1):.2f} | {median(name, 2):.2f} | {median(name, 3):.1f} | {mem[name][0]} | {mem[name][1]} |")
print()
print(f"Throughput ratio, full / empty: **{median('full', 0) / median('empty', 0):.3f}** (goal: >= 0.97). Rounds (req/s):")
for name in ("empty", "full"):
    print(f"- {name}: " + ", ".join(f"{r[0]:,.0f}" for r in runs[name]))
PY
} >"$OUT"
cat "$OUT"
echo "written: $OUT" >&2
