#!/usr/bin/env bash
# What settled usage and requests in flight cost: one gateway of the packaged jar, one Redis, an nginx backend;
# wrk sends KEYS API keys to five paths in turn, each limited by one rule that never rejects:
#   plain     token bucket, cost 1 (the baseline)
#   settled   token bucket, cost 10, settle json:/usage/total_tokens (the backend answers 7: every request
#             gives 3 back, so every request is settled by a call)
#   header    the same, settled from the answer's X-Usage header (7; every path's answer carries it, and the same
#             body): the settlement without the body's scan
#   bucket    token bucket, cost 1 (the baseline of the concurrency rule: the same as plain, measured apart)
#   inflight  concurrency, limit 1,000,000 (a slot taken per request, given back when its answer ends)
# ROUNDS rounds after a warm-up of each path, the order rotating from round to round. Per path and round:
# req/s, p50, p99, the gateway's CPU per request, Redis's CPU per request and Redis calls per request
# (INFO commandstats: EVALSHA and EVAL; the commands a script runs are counted apart, as Redis counts them).
# Each figure sets a path's run against the plain rule's runs (plain and bucket) nearest before and after it in
# time, interpolated, and takes the median over the runs: the machine drifts more than the paths differ.
#
# Goals (issue "what a request costs"): settled / plain Redis CPU per request <= 1.3 and gateway CPU per request
# at most +5 µs; inflight / bucket req/s >= 0.85.
# PROFILE=yes: async-profiler (from Maven Central; Linux x86_64) samples the gateway's CPU during the timed runs
# (not the warm-up), and the report splits each path's CPU per request by owner (bench/gateway/profile.py);
# PROFILE_INTERVAL (1ms), PROFILE_OUT (a directory to keep the collapsed stacks in, for a flame graph).
#
# Writes bench/results/<UTC date-time>-cost.md. Needs wrk, nginx, redis-server, redis-cli, python3, curl and
# ./mvnw -B install -DskipTests -pl gateway-service -am done.
# RATE=N paces every run to N requests/s in all (keys.lua), below what the slowest path serves: each path then
# batches alike (at full speed a slower path gets fewer requests per read and per Redis call, which costs CPU per
# request of its own), so CPU per request compares the work of a request.
# Env: KEYS (10000) DURATION (6s) WARMUP (10s) ROUNDS (5) CONNECTIONS (50) THREADS (2) RATE (0: as fast as the
# connections go) GATEWAY_JAVA_OPTS PROFILE
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEYS=${KEYS:-10000}
DURATION=${DURATION:-6s}
WARMUP=${WARMUP:-10s}
ROUNDS=${ROUNDS:-5}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
RATE=${RATE:-0}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx128m"}
PROFILE=${PROFILE:-}
PROFILE_INTERVAL=${PROFILE_INTERVAL:-1ms}
PROFILE_OUT=${PROFILE_OUT:-}
JAR="$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"
[ -f "$JAR" ] || { echo "no $JAR: ./mvnw -B install -DskipTests -pl gateway-service -am" >&2; exit 1; }

# shellcheck source=../gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need wrk nginx redis-server redis-cli curl python3 ${PROFILE:+jcmd unzip}
if [ -n "$PROFILE" ]; then
  AGENT=$(profiler_agent)
  GATEWAY_JAVA_OPTS="$GATEWAY_JAVA_OPTS -agentpath:$AGENT"
fi

BACKEND=$(free_port)
nginx_conf backend "server { listen 127.0.0.1:$BACKEND;
  location / { default_type application/json; add_header X-Usage 7;
    return 200 '{\"id\":\"c\",\"choices\":[{\"message\":{\"content\":\"ok\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}'; } }"
start_store standalone
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
{"id":"limited","match":{"path":"/limited/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"plain","match":{"path":"/plain/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"settled","match":{"path":"/settled/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000,
 "cost":10,"unit":"tokens","settle":{"from":"json:/usage/total_tokens"}},
{"id":"header","match":{"path":"/header/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000,
 "cost":10,"unit":"tokens","settle":{"from":"header:X-Usage"}},
{"id":"bucket","match":{"path":"/bucket/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"inflight","match":{"path":"/inflight/**"},"key":"api_key","algorithm":"concurrency","limit":1000000}]}
JSON
start_gateway gw "$JAR" "$GATEWAY_JAVA_OPTS"
REDIS_PORT=${REDIS_PORTS[0]}
REDIS_PID=${REDIS_PIDS[0]}
for path in settled header inflight; do
  curl -fs -H 'X-API-Key: probe' "http://127.0.0.1:${GW_PORT[gw]}/$path/x" -D - -o /dev/null | grep -qi "^ratelimit-policy: \"$path\"" \
    || { echo "/$path is not limited by its rule" >&2; tail -20 "$WORK/gateway-gw.log" >&2; exit 1; }
done

TICK=$(getconf CLK_TCK)
commands() { # script calls that checks, settlements and leases cost, so far
  redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' | awk -F'[:=,]' '
    /^cmdstat_(evalsha|eval):/ { n += $3 } END { print n + 0 }'
}
run() { # run PATH DURATION [ROUND] -> "path rps p50 p99 requests gateway_cpu_us redis_cpu_us redis_calls"
  local path=$1 g0 g1 r0 r1 c0 c1 out
  # the timed runs' samples go to one file per path and round
  [ -z "$PROFILE" ] || [ -z "${3:-}" ] || profiler gw start "" "$PROFILE_INTERVAL"
  g0=$(awk '{print $14 + $15}' "/proc/${GW_PID[gw]}/stat")
  r0=$(awk '{print $14 + $15}' "/proc/$REDIS_PID/stat")
  c0=$(commands)
  out=$(PATH_TO=/$path/x KEYS="$KEYS" KEY_PREFIX=client- THREADS="$THREADS" RATE="$RATE" \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2" --latency -s "$ROOT/bench/compare/keys.lua" "http://127.0.0.1:${GW_PORT[gw]}")
  g1=$(awk '{print $14 + $15}' "/proc/${GW_PID[gw]}/stat")
  r1=$(awk '{print $14 + $15}' "/proc/$REDIS_PID/stat")
  c1=$(commands)
  [ -z "$PROFILE" ] || [ -z "${3:-}" ] || profiler gw stop "$WORK/profiles/$path.$3.collapsed"
  echo "$out" | grep -q 'non2xx=0 ' || { echo "$path answered other than 200: $(echo "$out" | grep RESULT)" >&2; exit 1; }
  echo "$out" | awk -v p="$path" -v g=$((g1 - g0)) -v r=$((r1 - r0)) -v c=$((c1 - c0)) -v hz="$TICK" '/^RESULT/{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "%s %.0f %.2f %.2f %d %.1f %.2f %.3f\n", p, v["rps"], v["p50_us"] / 1000, v["p99_us"] / 1000, v["requests"],
      g * 1e6 / hz / v["requests"], r * 1e6 / hz / v["requests"], c / v["requests"] }'
}

PATHS=(plain settled header bucket inflight)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "warm-up..." >&2
for path in "${PATHS[@]}"; do run "$path" "$WARMUP" >/dev/null; done
: >"$WORK/runs"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  # the order rotates, so no path is always the one after a given other
  for i in "${!PATHS[@]}"; do
    path=${PATHS[$(((i + round - 1) % ${#PATHS[@]}))]}
    run "$path" "$DURATION" "$round" >>"$WORK/runs"
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT="$ROOT/bench/results/$STAMP-cost.md"
{
  echo "# What settled usage and requests in flight cost"
  echo
  echo "Command: \`KEYS=$KEYS DURATION=$DURATION WARMUP=$WARMUP ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS THREADS=$THREADS RATE=$RATE${PROFILE:+ PROFILE=$PROFILE} bench/cost/run.sh\`"
  run_context
  echo "wrk, the gateway, Redis and nginx share the machine's cores; one gateway, the five paths in turn, $ROUNDS rounds."
  echo
  python3 - "$WORK/runs" <<'PY'
import statistics, sys
# the runs in time order
timeline = [(name, [float(v) for v in values]) for name, *values in (line.split() for line in open(sys.argv[1]))]
runs = {}
for name, values in timeline:
    runs.setdefault(name, []).append(values)
def median(name, i):
    return statistics.median(r[i] for r in runs[name])
labels = {"plain": "token bucket, cost 1", "settled": "token bucket, cost 10, settled from the JSON body",
          "header": "token bucket, cost 10, settled from a header",
          "bucket": "token bucket, cost 1 (again)", "inflight": "concurrency"}
RPS, P50, P99, REQUESTS, GATEWAY, REDIS, CALLS = range(7)
print("| path | rule | req/s | p50, ms | p99, ms | gateway CPU per request, µs | Redis CPU per request, µs | Redis calls per request |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for name in labels:
    print(f"| /{name} | {labels[name]} | {median(name, RPS):,.0f} | {median(name, P50):.2f} | {median(name, P99):.2f} "
          f"| {median(name, GATEWAY):.1f} | {median(name, REDIS):.2f} | {median(name, CALLS):.3f} |")
print()
# The machine drifts during a run more than the paths differ, so each run is set against a local baseline: the
# plain rule's runs (plain and bucket are the same rule) nearest before and after it in time, interpolated
# then the median over the runs.
BASELINES = ("plain", "bucket")
def nearest(positions, kinds):
    return next(((j, timeline[j][1]) for j in positions if timeline[j][0] in kinds), None)
def local_base(k, i, kinds=BASELINES):
    before, after = nearest(range(k - 1, -1, -1), kinds), nearest(range(k + 1, len(timeline)), kinds)
    if before is None or after is None:
        return (before or after)[1][i]
    (j0, v0), (j1, v1) = before, after
    return v0[i] + (v1[i] - v0[i]) * (k - j0) / (j1 - j0)
def against(name, i, compare, kinds=BASELINES):
    return statistics.median(compare(v[i], local_base(k, i, kinds))
                             for k, (n, v) in enumerate(timeline) if n == name)
def ratio(name, i):
    return against(name, i, lambda v, b: v / b)
def added(name):
    return against(name, GATEWAY, lambda v, b: v - b)
# the noise: the bucket rule's runs against the plain rule's alone, the same rule on both sides
def noise(i, compare):
    return against("bucket", i, compare, ("plain",))
print("Each figure below sets a path's run against the plain rule's runs nearest before and after it (plain or"
      " bucket: the same rule), interpolated; the median over the runs.")
print()
print(f"- Settled / plain, Redis CPU per request: **{ratio('settled', REDIS):.2f}** (goal: <= 1.3); "
      f"gateway CPU per request: **{added('settled'):+.1f} µs** (goal: <= +5 µs).")
print(f"- Settled from a header / plain: Redis CPU {ratio('header', REDIS):.2f}, gateway CPU "
      f"{added('header'):+.1f} µs.")
print(f"- The same rule measured twice (bucket against plain's runs alone), the run's noise: Redis CPU "
      f"{noise(REDIS, lambda v, b: v / b):.2f}, gateway CPU {noise(GATEWAY, lambda v, b: v - b):+.1f} µs.")
print(f"- Redis calls per request, settled / plain: {ratio('settled', CALLS):.2f}.")
print(f"- Concurrency / token bucket, req/s: **{ratio('inflight', RPS):.3f}** (goal: >= 0.85).")
print()
print("Rounds (req/s; gateway CPU per request, µs):")
for name in labels:
    print(f"- {name}: " + ", ".join(f"{r[RPS]:,.0f}; {r[GATEWAY]:.1f}" for r in runs[name]))
PY
} >"$OUT"
if [ -n "$PROFILE" ]; then
  {
    echo
    echo "Where the gateway's CPU goes (async-profiler, CPU-time samples every $PROFILE_INTERVAL of each timed run):"
    echo
    python3 "$ROOT/bench/gateway/profile.py" "$WORK/runs" "$WORK/profiles" "$PROFILE_INTERVAL" \
      plain:settled,plain:header,plain:bucket,bucket:inflight
  } >>"$OUT"
  if [ -n "$PROFILE_OUT" ]; then mkdir -p "$PROFILE_OUT" && cp "$WORK"/profiles/*.collapsed "$PROFILE_OUT"/; fi
fi
cat "$OUT"
echo "written: $OUT" >&2
