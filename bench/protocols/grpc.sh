#!/usr/bin/env bash
# gRPC unary calls through the gateway (issue 37): what one rule costs a gRPC call at saturation, and what the
# gateway costs against the backend itself. Everything on loopback, on free ports, in a temporary directory:
# one Redis (standalone), the demo backend (its gRPC service tollgate.demo.Echo in h2c on its HTTP port) and two
# gateways of the packaged jar routing /tollgate.demo.Echo/ to it in h2c, from rules snapshots.
#
# Variants, taking turns in every round (the order rotates from round to round), same load for each:
#   direct  h2load to the demo backend
#   off     through the gateway "off", whose one rule (/limited/**) matches no gRPC call
#   rule    through the gateway "rule": the same, plus bench.grpc, a token bucket keyed api_key on
#           POST /tollgate.demo.Echo/** that never rejects (a billion a second); every call carries the same
#           x-api-key, "bench", so every call is one check of one bucket (LEASE says whether the gateway may
#           lease that hot key's tokens, as it does by default, or asks the store every call)
# Each call is Echo/Say("hello") (one uncompressed gRPC frame, a 7-byte google.protobuf.StringValue), sent by
# h2load -c CLIENTS -m STREAMS for DURATION seconds. Per run: calls/s, mean latency, gateway CPU µs per call
# (utime + stime from /proc/<pid>/stat over the calls), the backend's, Redis's and the machine's busy CPU per call,
# Redis script calls per call, and the 1-minute load average. h2load counts any HTTP 200 as a success and a gRPC
# error is an HTTP 200 too, so: before the rounds one call per variant by curl must answer "echo: hello" with no
# grpc-status but 0 in its headers (the rule's answer with its RateLimit field, the others without), and after
# each run the backend's GET /__hits must have grown by the calls h2load counted (the calls in flight when h2load
# stops reach the backend uncounted: at most CLIENTS x STREAMS more).
#
# Needs: h2load (Debian nghttp2-client; installed with apt-get when run as root), curl, redis-server, redis-cli,
# java 17, python3, and the packaged jars:
#   ./mvnw -B -pl rules-service,demo-backend,gateway-service -am package -DskipTests
# Env: ROUNDS (5) DURATION (10, seconds per run) WARMUP (30, seconds of calls per variant before the rounds: a fresh
#      JVM serves its first thousands of calls 10-50 x slower) CLIENTS (16, h2load -c) STREAMS (10, h2load -m)
#      THREADS (1, h2load -t) VARIANTS ("direct off rule") LEASE (auto | off: the rule's "lease")
#      GATEWAY_JAVA_OPTS (-XX:+UseSerialGC -Xmx64m) BACKEND_JAVA_OPTS (-XX:+UseSerialGC -Xmx128m)
#      GATEWAY_JAR, BACKEND_JAR (this checkout's packaged jars)
#      PROFILE=yes: async-profiler samples each gateway's CPU during the timed runs (PROFILE_INTERVAL 1ms; PROFILE_OUT
#        a directory to keep the collapsed stacks in); the report splits the CPU per call by owner (profile.py)
#      RESULTS (bench/results/<UTC date>T<HHMM>Z-grpc.md) MAX_SECONDS (900: the run stops and cleans up past this)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-30}
CLIENTS=${CLIENTS:-16}
STREAMS=${STREAMS:-10}
THREADS=${THREADS:-1}
VARIANTS=${VARIANTS:-direct off rule}
LEASE=${LEASE:-auto}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
BACKEND_JAVA_OPTS=${BACKEND_JAVA_OPTS:--XX:+UseSerialGC -Xmx128m}
GATEWAY_JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
BACKEND_JAR=${BACKEND_JAR:-"$ROOT/demo-backend/target/quarkus-app/quarkus-run.jar"}
PROFILE=${PROFILE:-}
PROFILE_INTERVAL=${PROFILE_INTERVAL:-1ms}
PROFILE_OUT=${PROFILE_OUT:-}
RESULTS=${RESULTS:-"$ROOT/bench/results/$(date -u +%Y-%m-%dT%H%MZ)-grpc.md"}
MAX_SECONDS=${MAX_SECONDS:-900}
case $LEASE in auto | off) ;; *) echo "LEASE is auto or off" >&2; exit 1 ;; esac

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need_package h2load nghttp2-client
need curl redis-server redis-cli java python3 ${PROFILE:+jcmd unzip}
for jar in "$GATEWAY_JAR" "$BACKEND_JAR"; do
  [ -f "$jar" ] || { echo "missing $jar; build first: ./mvnw -B -pl rules-service,demo-backend,gateway-service -am package -DskipTests" >&2; exit 1; }
done

# the watchdog: TERM to this script past MAX_SECONDS (lib.sh's trap then stops everything started)
(
  trap 'kill "$nap" 2>/dev/null; exit 0' TERM
  sleep "$MAX_SECONDS" &
  nap=$!
  wait "$nap" && echo "past MAX_SECONDS=$MAX_SECONDS: stopping" >&2 && kill -TERM $$
) &
PIDS+=($!)

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
STARTED=$(date +%s)

# the demo backend: the gateways' default upstream (lib.sh's readiness check goes through it) and the gRPC route's
BACKEND=$(free_port)
# shellcheck disable=SC2086 # the JVM options are a list
java $BACKEND_JAVA_OPTS -Dquarkus.http.port="$BACKEND" -jar "$BACKEND_JAR" >"$WORK/backend.log" 2>&1 &
BACKEND_PID=$!
PIDS+=($!)
for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$BACKEND/__hits" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fs "http://127.0.0.1:$BACKEND/__hits" >/dev/null || { cat "$WORK/backend.log" >&2; exit 1; }

start_store standalone

AGENT=""
[ -z "$PROFILE" ] || AGENT=$(profiler_agent) # loaded idle with each gateway, started and stopped around each timed run
export TOLLGATE_GATEWAY_ROUTES_GRPC_PREFIX=/tollgate.demo.Echo/
export TOLLGATE_GATEWAY_ROUTES_GRPC_URL="h2c://127.0.0.1:$BACKEND"
LIMITED='{"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key","algorithm":"token_bucket",
"limit":1000000000,"period":"1s","burst":1000000000}'
GRPC_RULE="{\"id\":\"bench.grpc\",\"match\":{\"methods\":[\"POST\"],\"path\":\"/tollgate.demo.Echo/**\"},\"key\":\"api_key\",
\"algorithm\":\"token_bucket\",\"limit\":1000000000,\"period\":\"1s\",\"burst\":1000000000,\"lease\":\"$LEASE\"}"
echo "{\"version\":1,\"rules\":[$LIMITED]}" >"$WORK/rules.json"
launch_gateway off "$GATEWAY_JAR" "$GATEWAY_JAVA_OPTS${AGENT:+ -agentpath:$AGENT}"
echo "{\"version\":1,\"rules\":[$LIMITED,$GRPC_RULE]}" >"$WORK/rules.json"
launch_gateway rule "$GATEWAY_JAR" "$GATEWAY_JAVA_OPTS${AGENT:+ -agentpath:$AGENT}"
await_gateway off
await_gateway rule

url_of() { # VARIANT -> the URL of Echo/Say
  case $1 in
    direct) echo "http://127.0.0.1:$BACKEND/tollgate.demo.Echo/Say" ;;
    *) echo "http://127.0.0.1:${GW_PORT[$1]}/tollgate.demo.Echo/Say" ;;
  esac
}
FRAME="$WORK/frame"
printf '\0\0\0\0\7\n\5hello' >"$FRAME"

# check_call VARIANT: one call by curl answers "echo: hello", grpc-status 0 or none in its headers (the trailers
# carry the 0), and the RateLimit field of bench.grpc exactly on the rule variant
check_call() {
  local v=$1 head="$WORK/check-$1.head" body="$WORK/check-$1.body"
  curl -s --max-time 10 --http2-prior-knowledge -H 'content-type: application/grpc' -H 'te: trailers' \
    -H 'x-api-key: bench' --data-binary @"$FRAME" -D "$head" -o "$body" "$(url_of "$v")" || true
  local fail=""
  grep -q '^HTTP/2 200' "$head" || fail="not HTTP/2 200"
  grep -qi '^content-type: application/grpc' "$head" || fail="${fail:+$fail; }not application/grpc"
  if grep -i '^grpc-status:' "$head" | grep -qv ': *0'; then fail="${fail:+$fail; }$(grep -i '^grpc-status:' "$head" | tr -d '\r')"; fi
  grep -aq 'echo: hello' "$body" || fail="${fail:+$fail; }no echo in the answer"
  if [ "$v" = rule ]; then
    grep -qi '^ratelimit:.*bench.grpc' "$head" || fail="${fail:+$fail; }no RateLimit field of bench.grpc"
  elif grep -qi '^ratelimit' "$head"; then
    fail="${fail:+$fail; }a RateLimit field where no rule applies"
  fi
  if [ -n "$fail" ]; then
    echo "the call through $v is not a gRPC success: $fail" >&2
    cat "$head" >&2
    exit 1
  fi
  echo "- \`$v\`: HTTP/2 200, \`application/grpc\`, \"echo: hello\"$(grep -i '^ratelimit:' "$head" | tr -d '\r' | sed 's/^/, `/; s/$/`/')"
}

hits() { curl -fs "http://127.0.0.1:$BACKEND/__hits" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])'; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
TICK=$(getconf CLK_TCK)

# run VARIANT SECONDS [ROUND] -> one row: variant calls/s mean_ms sd_ms calls started hits gateway_cpu_us
#   backend_cpu_us redis_cpu_us machine_cpu_us script_calls_per_call load1 (CPU per call over the calls h2load
#   counted; "-" for the gateway on direct); the profile of the run when PROFILE is set and ROUND given
run() {
  local v=$1 seconds=$2 rnd=${3:-} gw=-
  [ "$v" = direct ] || gw=${GW_PID[$v]}
  local stacks=""
  if [ -n "$PROFILE" ] && [ -n "$rnd" ] && [ "$v" != direct ]; then
    stacks="$WORK/profiles/$v.$rnd.collapsed"
    profiler "$v" start "" "$PROFILE_INTERVAL"
  fi
  local g0=0 g1=0 b0 b1 r0 r1 m0 m1 s0 s1 h0 h1 out
  h0=$(hits); s0=$(script_calls "${REDIS_PORTS[0]}")
  [ "$gw" = - ] || g0=$(ticks "$gw")
  b0=$(ticks "$BACKEND_PID"); r0=$(ticks "${REDIS_PIDS[0]}"); m0=$(busy_ticks)
  out=$(timeout $((seconds + 60)) h2load -t"$THREADS" -c"$CLIENTS" -m"$STREAMS" -D"$seconds" -d "$FRAME" \
    -H 'content-type: application/grpc' -H 'te: trailers' -H 'x-api-key: bench' "$(url_of "$v")")
  [ "$gw" = - ] || g1=$(ticks "$gw")
  b1=$(ticks "$BACKEND_PID"); r1=$(ticks "${REDIS_PIDS[0]}"); m1=$(busy_ticks)
  [ -z "$stacks" ] || profiler "$v" stop "$stacks"
  sleep 0.5 # the calls in flight when h2load stopped reach the backend
  h1=$(hits); s1=$(script_calls "${REDIS_PORTS[0]}")
  echo "$out" >>"$WORK/h2load-$v.log"
  awk -v v="$v" -v hits=$((h1 - h0)) -v gw="$gw" -v g=$((g1 - g0)) -v b=$((b1 - b0)) -v r=$((r1 - r0)) \
    -v m=$((m1 - m0)) -v s=$((s1 - s0)) -v hz="$TICK" -v load1="$(cut -d' ' -f1 /proc/loadavg)" '
    /^finished in/ { rps = $4 }
    /^requests:/ { started = $4; ok = $8 }
    /^status codes:/ { other = $5 + $7 + $9 }
    /^time for request:/ { mean = $6; sd = $7 }
    function ms(t) { if (t ~ /us$/) return t / 1000; if (t ~ /ms$/) return t + 0; if (t ~ /s$/) return t * 1000; return t }
    END {
      if (ok == 0) { print "h2load counted no success for " v > "/dev/stderr"; exit 1 }
      if (other != 0) { print "h2load: " other " answers other than 2xx for " v > "/dev/stderr"; exit 1 }
      printf "%s %s %.2f %.2f %d %d %d %s %.1f %.1f %.1f %.3f %s\n", v, rps, ms(mean), ms(sd), ok, started, hits,
        gw == "-" ? "-" : sprintf("%.1f", g * 1e6 / hz / ok), b * 1e6 / hz / ok, r * 1e6 / hz / ok, m * 1e6 / hz / ok,
        s / ok, load1
    }' <<<"$out"
}

{
  echo "# gRPC unary calls (variants: $VARIANTS; lease: $LEASE)"
  echo
  echo "Command: \`ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP CLIENTS=$CLIENTS STREAMS=$STREAMS THREADS=$THREADS LEASE=$LEASE VARIANTS=\"$VARIANTS\"${PROFILE:+ PROFILE=$PROFILE PROFILE_INTERVAL=$PROFILE_INTERVAL} bench/protocols/grpc.sh\`"
  echo
} >"$WORK/report"

echo "checking one call per variant..." >&2
{
  echo "Each variant's first call, by curl:"
  echo
  for v in $VARIANTS; do check_call "$v"; done
  echo
} >>"$WORK/report"

echo "warm-up: ${WARMUP}s of calls per variant..." >&2
for v in $VARIANTS; do run "$v" "$WARMUP" | sed 's/^/w /' >"$WORK/warmup-$v"; done
echo "warm-up: $(for v in $VARIANTS; do awk '{printf "%s %s calls ", $2, $6}' "$WORK/warmup-$v"; done)" >&2

ROWS="$WORK/rows"
: >"$ROWS"
in_turn() { # ROUND -> the variants, rotated by the round
  local -a vs
  read -ra vs <<<"$VARIANTS"
  local n=${#vs[@]} i
  for ((i = 0; i < n; i++)); do printf '%s ' "${vs[$(((i + $1 - 1) % n))]}"; done
}
for r in $(seq 1 "$ROUNDS"); do
  for v in $(in_turn "$r"); do
    echo "round $r: $v..." >&2
    run "$v" "$DURATION" "$r" | sed "s/^/$r /" | tee -a "$ROWS" >&2
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

METRICS="$WORK/metrics"
for v in $VARIANTS; do
  [ "$v" = direct ] && continue
  curl -fs "http://127.0.0.1:${GW_MGMT[$v]}/q/metrics" | grep -E '^tollgate_(decisions_total|store_errors_total)' \
    | sed "s/^/$v: /" >>"$METRICS" || true
done

{
  run_context
  echo "h2load -t$THREADS -c$CLIENTS -m$STREAMS -D$DURATION per run, $ROUNDS rounds, warm-up ${WARMUP}s of calls per variant"
  echo "($(for v in $VARIANTS; do awk '{printf "%s %s ", $2, $6}' "$WORK/warmup-$v"; done)calls); store: one Redis (standalone);"
  echo "backend JVM: \`$BACKEND_JAVA_OPTS\`; the rule's key: one x-api-key (\`bench\`) for every call; lease: \`$LEASE\`;"
  echo "took $(($(date +%s) - STARTED)) s."
  echo
  python3 "$ROOT/bench/protocols/grpc.py" "$ROWS" "$CLIENTS" "$STREAMS" "$WORK"/warmup-*
  if [ -n "$PROFILE" ]; then
    echo
    echo "Where the gateways' CPU goes (async-profiler, CPU samples every $PROFILE_INTERVAL of each timed run), µs per call:"
    echo
    cut -d' ' -f2- "$ROWS" >"$WORK/profile-rows"
    python3 "$ROOT/bench/gateway/profile.py" "$WORK/profile-rows" "$WORK/profiles" "$PROFILE_INTERVAL" off:rule
    if [ -n "$PROFILE_OUT" ]; then mkdir -p "$PROFILE_OUT" && cp "$WORK"/profiles/*.collapsed "$PROFILE_OUT"/; fi
  fi
  echo
  echo "The gateways' decisions and store errors over the whole run (warm-up included):"
  echo
  echo '```'
  cat "$METRICS"
  echo '```'
} >>"$WORK/report"
mkdir -p "$(dirname "$RESULTS")"
cp "$WORK/report" "$RESULTS"
cat "$RESULTS"
echo >&2
echo "written: $RESULTS" >&2
# a call h2load counted that did not reach the backend is a failure the HTTP status hid
grep -q '^CHECK FAILED' "$RESULTS" && exit 1
exit 0
