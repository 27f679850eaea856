#!/usr/bin/env bash
# What HTTP/2 floods cost another client of the same gateway, and how much of it is the gateway's. One gateway (the
# packaged jar), one private Redis, nginx as the backend (bench/gateway/lib.sh); every request is GET /limited/x, checked
# by one token-bucket rule that never rejects. A measured client (bench/protocols/h2floods.py client) GETs at RATE a
# second over one HTTP/1.1 keep-alive connection from 127.0.0.1, and reads each answer's latency, while:
#   quiet                 nothing else runs
#   rapid-reset           ATTACKERS processes each open h2c connection after connection from 127.0.0.2, sending HEADERS
#                         then RST_STREAM for every stream, 100 streams a write, until the server closes the connection
#   continuation          ATTACKERS processes each open h2c connection after connection from 127.0.0.2, sending a HEADERS
#                         frame without END_HEADERS then 16 KB CONTINUATION frames, until the server closes the connection
#   control-reset         the rapid-reset attackers, pointed at an nginx of one worker speaking h2c (answering 200 "ok"),
#   control-continuation  and the CONTINUATION ones: the same attackers on the same cores, the gateway idle but for the
#                         measured client; what the machine alone adds to its p99
# With BASELINE_JAR, a gateway of that jar takes its turns too (base-quiet, base-rapid-reset, base-continuation),
# against the same controls. Variants take turns ROUNDS times (even rounds in reverse order) after a warm-up; each
# reads the client's p50, p99 and max, the attackers' connections, closes and streams or bytes, and the CPU of the
# attackers, of the gateway measured and of the nginx the controls flood. The report gives each attack's p99 over the
# quiet p99 of its gateway and over its control's p99 (the gateway's own share), medians over the rounds
# (bench/protocols/floods_summary.py). It measures; it asserts nothing (Http2Test and RepeatOffenderTest check the
# guards).
#
# Needs: nginx, redis-server, redis-cli, java 17, curl, python3, 127.0.0.2 on lo (Linux routes all of 127/8 there),
# and the packaged gateway (./mvnw -B -pl gateway-service -am package -DskipTests).
# Env: ROUNDS (3) DURATION (10: seconds per run) WARMUP (10) RATE (200: measured requests a second) ATTACKERS (2)
#      GATEWAY_JAVA_OPTS (-XX:+UseSerialGC -Xmx64m) GATEWAY_JAR (this tree's) BASELINE_JAR (none: one gateway)
#      BASELINE_JAVA_OPTS (GATEWAY_JAVA_OPTS) RESULTS (bench/results/<UTC date-time>-h2-floods.md)
#      PROFILE_OUT (a directory: async-profiler, from Maven Central, samples the gateway's CPU during each of its
#        runs, and the collapsed stacks go there as <variant>.<round>.collapsed, for a flame graph)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-10}
RATE=${RATE:-200}
ATTACKERS=${ATTACKERS:-2}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
BASELINE_JAR=${BASELINE_JAR:-}
BASELINE_JAVA_OPTS=${BASELINE_JAVA_OPTS:-$GATEWAY_JAVA_OPTS}
JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
RESULTS=${RESULTS:-"$ROOT/bench/results/$STAMP-h2-floods.md"}
FLOODS="$ROOT/bench/protocols/h2floods.py"

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need nginx redis-server redis-cli java curl python3
[ -f "$JAR" ] || { echo "build first: ./mvnw -B -pl gateway-service -am package -DskipTests" >&2; exit 1; }
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0))' 2>/dev/null \
  || { echo "127.0.0.2 is not on lo: the attackers connect from it" >&2; exit 1; }

backend
SINK=$(free_port)
nginx_conf sink "server { listen 127.0.0.1:$SINK http2; location / { return 200 \"ok\\n\"; } }"
SINK_WORKER=$(pgrep -P "$(cat "$WORK/sink.pid")" | head -1)
start_store standalone
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[{"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key",
"algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000}]}
JSON
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "${PROFILE_OUT:-}" ]; then
  need jcmd unzip
  AGENT=$(profiler_agent)
  GATEWAY_JAVA_OPTS="$GATEWAY_JAVA_OPTS -agentpath:$AGENT"
  mkdir -p "$PROFILE_OUT"
fi
start_gateway gw "$JAR" "$GATEWAY_JAVA_OPTS"
VARIANTS="quiet rapid-reset continuation control-reset control-continuation"
if [ -n "$BASELINE_JAR" ]; then
  start_gateway base "$BASELINE_JAR" "$BASELINE_JAVA_OPTS"
  VARIANTS="$VARIANTS base-quiet base-rapid-reset base-continuation"
fi
TICK=$(getconf CLK_TCK)

# run VARIANT SECONDS -> "variant answered errors p50 p99 max connections closes sent attackers% gateway% sink%"
# (CPU in % of one core over the run; the gateway's is the measured one's)
run() {
  local variant=$1 gw=gw attack target attackers=() i client flood="- - - -" g0 g1 s0 s1 t0 t1
  [ "$variant" = "${variant#base-}" ] || gw=base
  attack=${variant#base-}
  target=${GW_PORT[$gw]}
  case $attack in control-*) attack=${attack#control-} target=$SINK ;; esac
  case $attack in rapid-reset) attack=reset ;; esac
  [ -z "${PROFILE_OUT:-}" ] || [ -z "${ROUND:-}" ] || [ "$gw" != gw ] || profiler gw start "" 1ms
  g0=$(cpu "${GW_PID[$gw]}"); s0=$(cpu "$SINK_WORKER"); t0=$(date +%s%N)
  if [ "$attack" != quiet ]; then
    for i in $(seq 1 "$ATTACKERS"); do
      python3 "$FLOODS" "$attack" "$target" "$2" >"$WORK/attack-$i" &
      attackers+=($!)
    done
  fi
  client=$(python3 "$FLOODS" client "${GW_PORT[$gw]}" "$2" "$RATE")
  if [ ${#attackers[@]} -gt 0 ]; then
    wait "${attackers[@]}"
    flood=$(cat "$WORK"/attack-* | awk '{c += $1; g += $2; s += $3; u += $4} END {print c, g, s, u}')
    rm -f "$WORK"/attack-*
  fi
  g1=$(cpu "${GW_PID[$gw]}"); s1=$(cpu "$SINK_WORKER"); t1=$(date +%s%N)
  [ -z "${PROFILE_OUT:-}" ] || [ -z "${ROUND:-}" ] || [ "$gw" != gw ] || profiler gw stop "$PROFILE_OUT/$variant.$ROUND.collapsed"
  echo "$variant $client $flood" | awk -v g=$((g1 - g0)) -v s=$((s1 - s0)) -v t=$(((t1 - t0) / 1000000)) -v hz="$TICK" '{
    attackers = ($10 == "-") ? "-" : sprintf("%.0f", 100000 * $10 / t);
    printf "%s %s %s %s %s %s %s %s %s %s %.0f %.0f\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, attackers,
      100000 * g / hz / t, 100000 * s / hz / t }'
}

START=$(date +%s)
echo "warm-up: ${WARMUP} s quiet..." >&2
run quiet "$WARMUP" >/dev/null
[ -z "$BASELINE_JAR" ] || run base-quiet "$WARMUP" >/dev/null

ROWS="$WORK/rows"
in_turn() { if (( $1 % 2 )); then echo "$VARIANTS"; else echo "$VARIANTS" | tr ' ' '\n' | tac | tr '\n' ' '; fi; }
for r in $(seq 1 "$ROUNDS"); do
  for v in $(in_turn "$r"); do
    echo "$r $(ROUND=$r run "$v" "$DURATION")" | tee -a "$ROWS" >&2
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date +%s) - START))

# after_rounds NAME: that gateway's RSS and threads, its answer to a plain request, the connections it refused as a
# repeat offender's and the penalties it logged
after_rounds() {
  local status refused penalties
  status=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-API-Key: bench' "http://127.0.0.1:${GW_PORT[$1]}/limited/x")
  refused=$(curl -fs "http://127.0.0.1:${GW_MGMT[$1]}/q/metrics" \
    | awk '/^tollgate_refused_total\{.*reason="repeat-offender"/ {printf "%.0f", $2}')
  penalties=$(grep -c 'refused for' "$WORK/gateway-$1.log" || true)
  echo "$(($(awk '/VmRSS/{print $2}' "/proc/${GW_PID[$1]}/status") / 1024)) MB RSS with" \
    "$(awk '/Threads/{print $2}' "/proc/${GW_PID[$1]}/status") threads, a plain request answered $status," \
    "${refused:-no} connections refused as a repeat offender's, $penalties penalties logged"
}

{
  echo "# What HTTP/2 floods cost another client of the gateway"
  echo
  echo "\`bench/protocols/h2-floods.sh\` (ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP RATE=$RATE ATTACKERS=$ATTACKERS${BASELINE_JAR:+ BASELINE_JAR=<a build>}),"
  echo "$(date -u +%Y-%m-%dT%H:%MZ); $(run_context | tr '\n' ' ')${BASELINE_JAR:+baseline JVM: \`$BASELINE_JAVA_OPTS\`.}"
  echo
  echo "One gateway, one rule (a token bucket that never rejects) on every request, nginx behind it. The measured client"
  echo "GETs /limited/x at $RATE/s over one HTTP/1.1 keep-alive connection from 127.0.0.1; during an attack, $ATTACKERS"
  echo "processes flood over h2c from 127.0.0.2, connection after connection: the gateway's port, or for a control an"
  echo "nginx $(nginx -v 2>&1 | sed 's|.*/||') of one worker speaking h2c. $ROUNDS rounds of $DURATION s per variant, taking"
  echo "turns; the measured part took $ELAPSED s. After the rounds: gateway $(after_rounds gw)${BASELINE_JAR:+; baseline $(after_rounds base)}."
  echo
  echo "| round | variant | answered | errors | p50 ms | p99 ms | max ms | attack connections | closed by the server | streams (reset) or bytes (continuation) | attackers CPU % | gateway CPU % | nginx sink CPU % |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13}' "$ROWS"
  echo
  echo "Medians over the rounds; each attack's p99 over its gateway's quiet p99, and over the p99 of its control (the"
  echo "same attack at nginx while the gateway serves only the measured client: the part that is the gateway's), with the"
  echo "range of the rounds' own ratios in brackets:"
  echo
  python3 "$ROOT/bench/protocols/floods_summary.py" "$ROWS"
} >"$RESULTS"
cat "$RESULTS"
echo >&2
echo "written: ${RESULTS#"$ROOT"/}" >&2
