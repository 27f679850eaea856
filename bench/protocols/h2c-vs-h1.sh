#!/usr/bin/env bash
# HTTP/2 in clear text against HTTP/1.1 on the gateway's public port. One gateway (the packaged jar), one
# private Redis, nginx as the backend (bench/gateway/lib.sh), h2load on loopback; every request is
# GET /limited/x with the API key "bench", checked by one token-bucket rule that never rejects (the "on" path
# of limiter-overhead.sh). The gateway speaks HTTP/1.1 to nginx whatever the client speaks.
#
# Variants, the same CONNECTIONS each, taking turns ROUNDS times (even rounds in reverse order) after a warm-up:
#   h1      h2load --h1 -c CONNECTIONS -m 1: HTTP/1.1 keep-alive, one request at a time per connection
#   h2c-m1  h2load -c CONNECTIONS -m 1: h2c by prior knowledge, one stream at a time per connection
#   h2c-mN  h2load -c CONNECTIONS -m STREAMS: h2c, STREAMS concurrent streams per connection
# and reads: req/s, h2load's mean time per request, the gateway's CPU per request (utime + stime of
# /proc/<pid>/stat over the requests that succeeded) and the machine's busy CPU per request.
#
# Needs: h2load (Debian: nghttp2-client, installed with apt-get when run as root), nginx, redis-server,
# redis-cli, java 17, curl, python3, and the packaged gateway
# (./mvnw -B -pl gateway-service -am package -DskipTests).
# Env: ROUNDS (5) DURATION (8: seconds per run) WARMUP (15: seconds per variant before the rounds)
#      CONNECTIONS (16) STREAMS (10) THREADS (1: h2load -t) GATEWAY_JAVA_OPTS (-XX:+UseSerialGC -Xmx64m)
#      GATEWAY_JAR (this tree's) RESULTS (bench/results/<UTC date-time>-h2c-vs-h1.md)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-8}
WARMUP=${WARMUP:-15}
CONNECTIONS=${CONNECTIONS:-16}
STREAMS=${STREAMS:-10}
THREADS=${THREADS:-1}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
RESULTS=${RESULTS:-"$ROOT/bench/results/$STAMP-h2c-vs-h1.md"}

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need_package h2load nghttp2-client
need nginx redis-server redis-cli java curl python3
[ -f "$JAR" ] || { echo "build first: ./mvnw -B -pl gateway-service -am package -DskipTests" >&2; exit 1; }

backend
start_store standalone
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[{"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key",
"algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000}]}
JSON
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
start_gateway gw "$JAR" "$GATEWAY_JAVA_OPTS"
URL="http://127.0.0.1:${GW_PORT[gw]}/limited/x"
curl -fs --http2-prior-knowledge -H 'X-API-Key: bench' "$URL" -o /dev/null -w '%{http_version}' | grep -qx 2 \
  || { echo "the gateway does not answer h2c by prior knowledge" >&2; exit 1; }

VARIANTS="h1 h2c-m1 h2c-m$STREAMS"
TICK=$(getconf CLK_TCK)
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; } # user nice system irq softirq steal

# run VARIANT SECONDS -> "variant req/s succeeded failed non2xx mean_ms gateway_us_per_req machine_us_per_req"
run() {
  local flags out c0 c1 m0 m1
  case $1 in
    h1) flags="--h1 -m 1" ;;
    h2c-m*) flags="-m ${1#h2c-m}" ;;
  esac
  c0=$(cpu "${GW_PID[gw]}"); m0=$(busy_ticks)
  # shellcheck disable=SC2086 # the flags are a list
  out=$(h2load $flags -t "$THREADS" -c "$CONNECTIONS" -D "$2" -H 'X-API-Key: bench' "$URL" 2>&1) \
    || { echo "$out" >&2; exit 1; }
  c1=$(cpu "${GW_PID[gw]}"); m1=$(busy_ticks)
  echo "$out" | awk -v v="$1" -v c=$((c1 - c0)) -v m=$((m1 - m0)) -v hz="$TICK" '
    /^finished in/ { rps = $4 + 0 }
    /^requests:/ { ok = $8; failed = $10 }
    /^status codes:/ { non2xx = $5 + $7 + $9 }
    /^time for request:/ { mean = $6 }
    END {
      f = 1; if (mean ~ /us$/) f = 0.001; else if (mean ~ /ms$/) f = 1; else if (mean ~ /s$/) f = 1000
      sub(/[a-z]+$/, "", mean)
      printf "%s %.0f %d %d %d %.3f %.1f %.1f\n", v, rps, ok, failed, non2xx, mean * f,
        ok ? c * 1e6 / hz / ok : 0, ok ? m * 1e6 / hz / ok : 0 }'
}

START=$(date +%s)
echo "warm-up: ${WARMUP} s of each variant..." >&2
WARM_REQUESTS=0
for v in $VARIANTS; do
  line=$(run "$v" "$WARMUP")
  WARM_REQUESTS=$((WARM_REQUESTS + $(awk '{print $3}' <<<"$line")))
done
echo "warm-up: $WARM_REQUESTS requests" >&2

ROWS="$WORK/rows"
in_turn() { if (( $1 % 2 )); then echo "$VARIANTS"; else echo "$VARIANTS" | tr ' ' '\n' | tac | tr '\n' ' '; fi; }
for r in $(seq 1 "$ROUNDS"); do
  for v in $(in_turn "$r"); do
    line=$(run "$v" "$DURATION")
    echo "$r $line" | tee -a "$ROWS" >&2
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date +%s) - START))

{
  echo "# h2c against HTTP/1.1 on the gateway's public port"
  echo
  echo "\`bench/protocols/h2c-vs-h1.sh\` (ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP CONNECTIONS=$CONNECTIONS STREAMS=$STREAMS THREADS=$THREADS),"
  echo "$(date -u +%Y-%m-%dT%H:%MZ); $(run_context | tr '\n' ' ')"
  echo
  echo "One gateway, one rule (a token bucket that never rejects) on every request, nginx behind it over HTTP/1.1;"
  echo "h2load with $CONNECTIONS connections in every variant. Warm-up: $WARMUP s of each variant, $WARM_REQUESTS"
  echo "requests, before the rounds; then $ROUNDS rounds of $DURATION s per variant, taking turns. The measured part"
  echo "took $ELAPSED s."
  echo
  python3 "$ROOT/bench/protocols/summarise.py" h2 "$ROWS" "$STREAMS"
} >"$RESULTS"
cat "$RESULTS"
echo >&2
echo "written: ${RESULTS#"$ROOT"/}" >&2
