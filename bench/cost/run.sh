#!/usr/bin/env bash
# What settled usage and requests in flight cost: one gateway of the packaged jar, one Redis, an nginx backend;
# wrk sends KEYS API keys to four paths in turn, each limited by one rule that never rejects:
#   plain     token bucket, cost 1 (the baseline)
#   settled   token bucket, cost 10, settle json:/usage/total_tokens (the backend answers 7: every request
#             gives 3 back, so every request is settled by a call)
#   bucket    token bucket, cost 1 (the baseline of the concurrency rule: the same as plain, measured apart)
#   inflight  concurrency, limit 1,000,000 (a slot taken per request, given back when its answer ends)
# ROUNDS rounds after a warm-up of each path, the order rotating from round to round. Per path and round:
# req/s, p50, p99, the gateway's CPU per request, Redis's CPU per request and Redis calls per request
# (INFO commandstats: EVALSHA and EVAL; the commands a script runs are counted apart, as Redis counts them).
#
# Goals (issue "what a request costs"): settled / plain Redis CPU per request <= 1.3 and gateway CPU per request
# at most +5 µs; inflight / bucket req/s >= 0.85.
#
# Writes bench/results/<UTC date-time>-cost.md. Needs wrk, nginx, redis-server, redis-cli, python3, curl and
# ./mvnw -B install -DskipTests -pl gateway-service -am done.
# Env: KEYS (10000) DURATION (10s) WARMUP (10s) ROUNDS (3) CONNECTIONS (50) THREADS (2) GATEWAY_JAVA_OPTS
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEYS=${KEYS:-10000}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-10s}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx128m"}
JAR="$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"
[ -f "$JAR" ] || { echo "no $JAR: ./mvnw -B install -DskipTests -pl gateway-service -am" >&2; exit 1; }

# shellcheck source=../gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need wrk nginx redis-server redis-cli curl python3

BACKEND=$(free_port)
nginx_conf backend "server { listen 127.0.0.1:$BACKEND;
  location / { default_type application/json; return 200 '{\"id\":\"c\",\"choices\":[{\"message\":{\"content\":\"ok\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}'; } }"
start_store standalone
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
{"id":"limited","match":{"path":"/limited/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"plain","match":{"path":"/plain/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"settled","match":{"path":"/settled/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000,
 "cost":10,"unit":"tokens","settle":{"from":"json:/usage/total_tokens"}},
{"id":"bucket","match":{"path":"/bucket/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"inflight","match":{"path":"/inflight/**"},"key":"api_key","algorithm":"concurrency","limit":1000000}]}
JSON
start_gateway gw "$JAR" "$GATEWAY_JAVA_OPTS"
REDIS_PORT=${REDIS_PORTS[0]}
REDIS_PID=${REDIS_PIDS[0]}
for path in settled inflight; do
  curl -fs -H 'X-API-Key: probe' "http://127.0.0.1:${GW_PORT[gw]}/$path/x" -D - -o /dev/null | grep -qi "^ratelimit-policy: \"$path\"" \
    || { echo "/$path is not limited by its rule" >&2; tail -20 "$WORK/gateway-gw.log" >&2; exit 1; }
done

TICK=$(getconf CLK_TCK)
commands() { # script calls that checks, settlements and leases cost, so far
  redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' | awk -F'[:=,]' '
    /^cmdstat_(evalsha|eval):/ { n += $3 } END { print n + 0 }'
}
run() { # run PATH DURATION -> "path rps p50 p99 gateway_cpu_us redis_cpu_us redis_calls"
  local path=$1 g0 g1 r0 r1 c0 c1 out
  g0=$(awk '{print $14 + $15}' "/proc/${GW_PID[gw]}/stat")
  r0=$(awk '{print $14 + $15}' "/proc/$REDIS_PID/stat")
  c0=$(commands)
  out=$(PATH_TO=/$path/x KEYS="$KEYS" KEY_PREFIX=client- THREADS="$THREADS" \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2" --latency -s "$ROOT/bench/compare/keys.lua" "http://127.0.0.1:${GW_PORT[gw]}")
  g1=$(awk '{print $14 + $15}' "/proc/${GW_PID[gw]}/stat")
  r1=$(awk '{print $14 + $15}' "/proc/$REDIS_PID/stat")
  c1=$(commands)
  echo "$out" | grep -q 'non2xx=0 ' || { echo "$path answered other than 200: $(echo "$out" | grep RESULT)" >&2; exit 1; }
  echo "$out" | awk -v p="$path" -v g=$((g1 - g0)) -v r=$((r1 - r0)) -v c=$((c1 - c0)) -v hz="$TICK" '/^RESULT/{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "%s %.0f %.2f %.2f %.1f %.2f %.3f\n", p, v["rps"], v["p50_us"] / 1000, v["p99_us"] / 1000,
      g * 1e6 / hz / v["requests"], r * 1e6 / hz / v["requests"], c / v["requests"] }'
}

PATHS=(plain settled bucket inflight)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "warm-up..." >&2
for path in "${PATHS[@]}"; do run "$path" "$WARMUP" >/dev/null; done
: >"$WORK/runs"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  # the order rotates, so no path is always the one after a given other
  for i in 0 1 2 3; do
    path=${PATHS[$(((i + round - 1) % 4))]}
    run "$path" "$DURATION" >>"$WORK/runs"
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT="$ROOT/bench/results/$STAMP-cost.md"
{
  echo "# What settled usage and requests in flight cost"
  echo
  echo "Command: \`KEYS=$KEYS DURATION=$DURATION WARMUP=$WARMUP ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS THREADS=$THREADS bench/cost/run.sh\`"
  run_context
  echo "wrk, the gateway, Redis and nginx share the machine's cores; one gateway, the four paths in turn, $ROUNDS rounds."
  echo
  python3 - "$WORK/runs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, *values = line.split()
    runs.setdefault(name, []).append([float(v) for v in values])
def median(name, i):
    return statistics.median(r[i] for r in runs[name])
labels = {"plain": "token bucket, cost 1", "settled": "token bucket, cost 10, settled from the JSON body",
          "bucket": "token bucket, cost 1 (again)", "inflight": "concurrency"}
print("| path | rule | req/s | p50, ms | p99, ms | gateway CPU per request, µs | Redis CPU per request, µs | Redis calls per request |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for name in ("plain", "settled", "bucket", "inflight"):
    print(f"| /{name} | {labels[name]} | {median(name, 0):,.0f} | {median(name, 1):.2f} | {median(name, 2):.2f} "
          f"| {median(name, 3):.1f} | {median(name, 4):.2f} | {median(name, 5):.3f} |")
print()
print(f"- Settled / plain, Redis CPU per request: **{median('settled', 4) / median('plain', 4):.2f}** (goal: <= 1.3); "
      f"gateway CPU per request: **{median('settled', 3) - median('plain', 3):+.1f} µs** (goal: <= +5 µs).")
print(f"- Concurrency / token bucket, req/s: **{median('inflight', 0) / median('bucket', 0):.3f}** (goal: >= 0.85).")
print()
print("Rounds (req/s):")
for name in ("plain", "settled", "bucket", "inflight"):
    print(f"- {name}: " + ", ".join(f"{r[0]:,.0f}" for r in runs[name]))
PY
} >"$OUT"
cat "$OUT"
echo "written: $OUT" >&2
