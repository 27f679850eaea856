#!/usr/bin/env bash
# What settled usage and requests in flight cost. Two stacks, a and b, each a gateway of the packaged jar and its own
# Redis, in front of one nginx backend; wrk sends KEYS API keys, each limited by one rule that never rejects:
#   plain     token bucket, cost 1 (the baseline)
#   settled   token bucket, cost 10, settle json:/usage/total_tokens (the backend answers 7: every request
#             gives 3 back, so every request is settled by a call)
#   header    the same, settled from the answer's X-Usage header (7; every path's answer carries it, and the same
#             body): the settlement without the body's scan
#   gzip      as settled, the backend's answer gzipped (Content-Encoding: gzip): metered after decompression, the
#             client getting the bytes as sent
#   bucket    token bucket, cost 1: the plain rule again, so beside plain it shows the run's noise
#   inflight  concurrency, limit 1,000,000 (a slot taken per request, given back when its answer ends)
# Each path runs at the same time as the plain rule, one on each stack, then the other way round: both see the same
# moment of the shared machine (which drifts, from second to second, more than the paths differ), and neither
# stack's own luck (its JIT, its heap) counts. Per run and stack: req/s, p50, p99, the gateway's CPU per request and
# the part of it its JIT compiler threads took (/proc/PID/task: they compile, they do not serve, and as the paths take
# turns on a gateway their work moves from run to run by several µs per request), Redis's CPU per request and Redis
# calls per request (INFO commandstats: EVALSHA and EVAL; the commands a script runs are counted apart, as Redis
# counts them). Per round a figure is the mean of a path's two runs against the
# plain rule beside it; the report gives the median over ROUNDS rounds and their range. The order of the paths
# rotates from round to round, and which stack runs a path first alternates.
#
# Goals (issue "what a request costs"): settled / plain Redis CPU per request <= 1.3 and gateway CPU per request
# at most +5 µs; inflight / plain req/s >= 0.85. Issue "a limit no client can walk around": the gateway CPU of a request
# settled through gzip <= 2 x a settled plain answer's.
# PROFILE=yes: async-profiler (from Maven Central; Linux x86_64) samples both gateways' CPU during the timed runs
# (not the warm-up), and the report splits each path's CPU per request by owner (bench/gateway/profile.py);
# PROFILE_INTERVAL (1ms), PROFILE_OUT (a directory to keep the collapsed stacks in, for a flame graph).
#
# Writes bench/results/<UTC date-time>-cost.md. Needs wrk, nginx, redis-server, redis-cli, python3, curl and
# ./mvnw -B install -DskipTests -pl gateway-service -am done.
# RATE=N paces each stack's wrk to N requests/s (keys.lua), below what the slowest path serves: each path then
# batches alike (at full speed a slower path gets fewer requests per read and per Redis call, which costs CPU per
# request of its own), so CPU per request compares the work of a request. THREADS is each wrk's, CONNECTIONS too.
# Env: KEYS (10000) DURATION (4s) WARMUP (8s) ROUNDS (8) CONNECTIONS (25) THREADS (1) RATE (0: as fast as the
# connections go) GATEWAY_JAVA_OPTS PROFILE
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEYS=${KEYS:-10000}
DURATION=${DURATION:-4s}
WARMUP=${WARMUP:-8s}
ROUNDS=${ROUNDS:-8}
CONNECTIONS=${CONNECTIONS:-25}
THREADS=${THREADS:-1}
RATE=${RATE:-0}
# compiler threads that stay: their CPU is read per thread, and an exited thread's would be lost
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx128m -XX:-UseDynamicNumberOfCompilerThreads"}
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
BODY='{"id":"c","choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}'
mkdir -p "$WORK/gz" && printf '%s' "$BODY" | gzip -9 >"$WORK/gz/body.json.gz"
# nginx's workers (nobody, when started as root) read the file: the folders on its way must let them through
chmod o+x "$WORK" && chmod o+rx "$WORK/gz" && chmod o+r "$WORK/gz/body.json.gz"
nginx_conf backend "server { listen 127.0.0.1:$BACKEND;
  location /gzip/ { default_type application/json; add_header Content-Encoding gzip; root $WORK/gz;
    try_files /body.json.gz =404; }
  location / { default_type application/json; add_header X-Usage 7;
    return 200 '{\"id\":\"c\",\"choices\":[{\"message\":{\"content\":\"ok\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}'; } }"
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
{"id":"limited","match":{"path":"/limited/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"plain","match":{"path":"/plain/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"settled","match":{"path":"/settled/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000,
 "cost":10,"unit":"tokens","settle":{"from":"json:/usage/total_tokens"}},
{"id":"gzip","match":{"path":"/gzip/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000,
 "cost":10,"unit":"tokens","settle":{"from":"json:/usage/total_tokens"}},
{"id":"header","match":{"path":"/header/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000,
 "cost":10,"unit":"tokens","settle":{"from":"header:X-Usage"}},
{"id":"bucket","match":{"path":"/bucket/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"inflight","match":{"path":"/inflight/**"},"key":"api_key","algorithm":"concurrency","limit":1000000}]}
JSON
# Two stacks, A and B, each a gateway of the same jar and its own Redis, behind the one nginx: a path and the plain
# rule run at the same time, one on each stack, and again the other way round, so both see the same moment of the
# machine and neither stack's own luck counts.
declare -A STORE_PORT STORE_PID
for stack in a b; do
  start_store standalone
  STORE_PORT[$stack]=${REDIS_PORTS[0]}
  STORE_PID[$stack]=${REDIS_PIDS[0]}
  launch_gateway "$stack" "$JAR" "$GATEWAY_JAVA_OPTS"
done
for stack in a b; do
  await_gateway "$stack"
  for path in settled gzip header inflight; do
    curl -fs -H 'X-API-Key: probe' "http://127.0.0.1:${GW_PORT[$stack]}/$path/x" -D - -o /dev/null \
      | grep -qi "^ratelimit-policy: \"$path\"" \
      || { echo "/$path is not limited by its rule" >&2; tail -20 "$WORK/gateway-$stack.log" >&2; exit 1; }
  done
done

TICK=$(getconf CLK_TCK)
jit() { # user + system clock ticks of process $1's JIT compiler threads (their name has a space: cut before fields)
  local task sum=0
  for task in /proc/"$1"/task/*; do
    case $(cat "$task/comm" 2>/dev/null) in
      "C1 CompilerThre"* | "C2 CompilerThre"*) sum=$((sum + $(sed 's/.*) //' "$task/stat" | awk '{print $12 + $13}'))) ;;
    esac
  done
  echo "$sum"
}
declare -A RUNS_OF # timed runs per path so far: a profile's file is <path>.<its run of that path>.collapsed
# pair A_PATH B_PATH DURATION [ROUND]: A_PATH on stack a and B_PATH on stack b at once; a row per stack:
# "path rps p50 p99 requests gateway_cpu_us redis_cpu_us redis_calls round stack jit_cpu_us"
pair() {
  local -A path=([a]=$1 [b]=$2) g0 g1 r0 r1 c0 c1 j0 j1
  local stack round=${4:-} loads=()
  for stack in a b; do
    if [ -n "$PROFILE" ] && [ -n "$round" ]; then
      RUNS_OF[${path[$stack]}]=$((${RUNS_OF[${path[$stack]}]:-0} + 1))
      profiler "$stack" start "" "$PROFILE_INTERVAL"
    fi
    g0[$stack]=$(cpu "${GW_PID[$stack]}") r0[$stack]=$(cpu "${STORE_PID[$stack]}") c0[$stack]=$(script_calls "${STORE_PORT[$stack]}")
    j0[$stack]=$(jit "${GW_PID[$stack]}")
  done
  for stack in a b; do
    PATH_TO=/${path[$stack]}/x KEYS="$KEYS" KEY_PREFIX=client- THREADS="$THREADS" RATE="$RATE" \
      wrk -t"$THREADS" -c"$CONNECTIONS" -d"$3" --latency -s "$ROOT/bench/compare/keys.lua" \
      "http://127.0.0.1:${GW_PORT[$stack]}" >"$WORK/wrk-$stack.out" &
    loads+=($!)
  done
  wait "${loads[@]}"
  for stack in a b; do
    g1[$stack]=$(cpu "${GW_PID[$stack]}") r1[$stack]=$(cpu "${STORE_PID[$stack]}") c1[$stack]=$(script_calls "${STORE_PORT[$stack]}")
    j1[$stack]=$(jit "${GW_PID[$stack]}")
    if [ -n "$PROFILE" ] && [ -n "$round" ]; then
      profiler "$stack" stop "$WORK/profiles/${path[$stack]}.${RUNS_OF[${path[$stack]}]}.collapsed"
    fi
  done
  for stack in a b; do
    grep -q 'non2xx=0 ' "$WORK/wrk-$stack.out" \
      || { echo "/${path[$stack]} answered other than 200: $(grep RESULT "$WORK/wrk-$stack.out")" >&2; exit 1; }
    awk -v p="${path[$stack]}" -v g=$((g1[$stack] - g0[$stack])) -v r=$((r1[$stack] - r0[$stack])) \
      -v c=$((c1[$stack] - c0[$stack])) -v j=$((j1[$stack] - j0[$stack])) -v hz="$TICK" -v round="${round:-0}" \
      -v s="$stack" '/^RESULT/{
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "%s %.0f %.2f %.2f %d %.1f %.2f %.3f %s %s %.1f\n", p, v["rps"], v["p50_us"] / 1000, v["p99_us"] / 1000,
        v["requests"], g * 1e6 / hz / v["requests"], r * 1e6 / hz / v["requests"], c / v["requests"], round, s,
        j * 1e6 / hz / v["requests"] }' \
      "$WORK/wrk-$stack.out"
  done
}

# each path against the plain rule; bucket is the plain rule again (the noise)
VARIANTS=(settled gzip header bucket inflight)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "warm-up..." >&2
pair plain settled "$WARMUP" >/dev/null
pair header bucket "$WARMUP" >/dev/null
pair inflight plain "$WARMUP" >/dev/null
pair settled header "$WARMUP" >/dev/null
pair bucket inflight "$WARMUP" >/dev/null
pair gzip plain "$WARMUP" >/dev/null
: >"$WORK/runs"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  # the order rotates, and which stack runs the variant first alternates
  for i in "${!VARIANTS[@]}"; do
    variant=${VARIANTS[$(((i + round - 1) % ${#VARIANTS[@]}))]}
    if ((round % 2)); then
      pair plain "$variant" "$DURATION" "$round" >>"$WORK/runs"
      pair "$variant" plain "$DURATION" "$round" >>"$WORK/runs"
    else
      pair "$variant" plain "$DURATION" "$round" >>"$WORK/runs"
      pair plain "$variant" "$DURATION" "$round" >>"$WORK/runs"
    fi
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
  echo "wrk, the two stacks' gateways and Redis, and nginx share the machine's cores; each path beside the plain rule at"
  echo "once, on one stack and then on the other; $ROUNDS rounds. RATE paces each stack's wrk."
  echo
  python3 - "$WORK/runs" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
RPS, P50, P99, REQUESTS, GATEWAY, REDIS, CALLS, JIT = range(8)
# the rows come in pairs, the two stacks of one run: (variant, plain) with the round, whichever stack ran which
pairs = []
for first, second in zip(rows[0::2], rows[1::2]):
    variant, plain = (first, second) if second[0] == "plain" else (second, first)
    values_of = lambda row: [float(v) for v in row[1:8]] + [float(row[10])]
    pairs.append((variant[0], int(variant[8]), values_of(variant), values_of(plain)))
def values(name):
    return [v for n, _, v, _ in pairs if n == name] + [p for _, _, _, p in pairs if name == "plain"]
labels = {"plain": "token bucket, cost 1", "settled": "token bucket, cost 10, settled from the JSON body",
          "gzip": "the same, the JSON body gzipped",
          "header": "token bucket, cost 10, settled from a header",
          "bucket": "token bucket, cost 1 (again)", "inflight": "concurrency"}
print("| path | rule | req/s | p50, ms | p99, ms | gateway CPU per request, µs | of which the JIT compiler, µs"
      " | Redis CPU per request, µs | Redis calls per request |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for name in labels:
    m = lambda i: statistics.median(v[i] for v in values(name))
    print(f"| /{name} | {labels[name]} | {m(RPS):,.0f} | {m(P50):.2f} | {m(P99):.2f} | {m(GATEWAY):.1f} "
          f"| {m(JIT):.1f} | {m(REDIS):.2f} | {m(CALLS):.3f} |")
print()
# per round, a path against the plain rule that ran at the same time: the mean of its two runs (on one stack, then
# on the other), so a stack's own bias cancels; then the median over the rounds, and their range
def per_round(name, compare):
    rounds = {}
    for n, r, v, p in pairs:
        if n == name:
            rounds.setdefault(r, []).append(compare(v, p))
    return [statistics.mean(c) for c in rounds.values()]
def figure(name, compare, fmt):
    xs = per_round(name, compare)
    return f"**{format(statistics.median(xs), fmt)}** (rounds {format(min(xs), fmt)} to {format(max(xs), fmt)})"
ratio = lambda i: lambda v, p: v[i] / p[i]
added = lambda v, p: v[GATEWAY] - p[GATEWAY]
served = lambda v, p: (v[GATEWAY] - v[JIT]) - (p[GATEWAY] - p[JIT])
print("Each figure sets a path against the plain rule running at the same time on the other stack: per round the"
      " mean of the two runs (the path on stack a, then on stack b), then the median over the rounds and, in"
      " brackets, the rounds' range. Gateway CPU added is given twice: the requests' own (the process less its JIT"
      " compiler threads, which compile code rather than serve, and whose work moves from run to run as the paths"
      " take turns), and all of it.")
print()
print(f"- Settled / plain, Redis CPU per request: {figure('settled', ratio(REDIS), '.2f')} (goal: <= 1.3); "
      f"gateway CPU per request: {figure('settled', served, '+.1f')} µs (goal: <= +5 µs); with the JIT compiler"
      f" {figure('settled', added, '+.1f')} µs.")
own = lambda name: statistics.median(v[GATEWAY] - v[JIT] for n, _, v, _ in pairs if n == name)
print(f"- Settled through gzip / settled plain, gateway CPU per request (the requests' own, medians): "
      f"**{own('gzip') / own('settled'):.2f}** ({own('gzip'):.1f} / {own('settled'):.1f} µs; goal: <= 2); "
      f"gzip / plain, Redis CPU {figure('gzip', ratio(REDIS), '.2f')}, gateway CPU {figure('gzip', served, '+.1f')} µs.")
print(f"- Settled from a header / plain: Redis CPU {figure('header', ratio(REDIS), '.2f')}, gateway CPU "
      f"{figure('header', served, '+.1f')} µs; with the JIT compiler {figure('header', added, '+.1f')} µs.")
print(f"- The same rule on both sides (bucket / plain), the run's noise: Redis CPU "
      f"{figure('bucket', ratio(REDIS), '.2f')}, gateway CPU {figure('bucket', served, '+.1f')} µs; with the JIT"
      f" compiler {figure('bucket', added, '+.1f')} µs.")
print(f"- Redis calls per request, settled / plain: {figure('settled', ratio(CALLS), '.2f')}.")
print(f"- Concurrency / token bucket, req/s: {figure('inflight', ratio(RPS), '.3f')} (goal: >= 0.85); gateway CPU "
      f"{figure('inflight', served, '+.1f')} µs.")
print()
print("Runs in order (gateway CPU per request, µs, of which the JIT compiler's in brackets: the path's against the"
      " plain rule's beside it):")
for name in ("settled", "gzip", "header", "bucket", "inflight"):
    print(f"- {name}: " + ", ".join(f"{v[GATEWAY]:.1f} ({v[JIT]:.1f}) vs {p[GATEWAY]:.1f} ({p[JIT]:.1f})"
                                    for n, _, v, p in pairs if n == name))
PY
} >"$OUT"
if [ -n "$PROFILE" ]; then
  {
    echo
    echo "Where the gateway's CPU goes (async-profiler, CPU-time samples every $PROFILE_INTERVAL of each timed run):"
    echo
    python3 "$ROOT/bench/gateway/profile.py" "$WORK/runs" "$WORK/profiles" "$PROFILE_INTERVAL" \
      plain:settled,plain:gzip,plain:header,plain:bucket,plain:inflight
  } >>"$OUT"
  if [ -n "$PROFILE_OUT" ]; then mkdir -p "$PROFILE_OUT" && cp "$WORK"/profiles/*.collapsed "$PROFILE_OUT"/; fi
fi
cat "$OUT"
echo "written: $OUT" >&2
