#!/usr/bin/env bash
# What HTTP/2 floods cost another client of the same gateway. One gateway (the packaged jar), one private Redis,
# nginx as the backend (bench/gateway/lib.sh); every request is GET /limited/x, checked by one token-bucket rule that
# never rejects. A measured client (bench/protocols/h2floods.py client) GETs at RATE a second over one HTTP/1.1
# keep-alive connection, and reads each answer's latency, while:
#   quiet         nothing else runs
#   rapid-reset   ATTACKERS processes each open h2c connection after connection, sending HEADERS then RST_STREAM for
#                 every stream, 100 streams a write, until the gateway closes the connection (GOAWAY)
#   continuation  ATTACKERS processes each open h2c connection after connection, sending a HEADERS frame without
#                 END_HEADERS then 16 KB CONTINUATION frames, until the gateway closes the connection
# Variants take turns ROUNDS times (even rounds in reverse order) after a warm-up; each reads the client's p50, p99
# and max, and the attackers' connections, GOAWAYs (or closes) and streams or bytes. The report gives each attack's
# p99 over the quiet p99 of the same run (median over the rounds). It measures; it asserts nothing (Http2Test checks
# that the floods are cut off and that another client is served meanwhile).
#
# Needs: nginx, redis-server, redis-cli, java 17, curl, python3, and the packaged gateway
# (./mvnw -B -pl gateway-service -am package -DskipTests).
# Env: ROUNDS (3) DURATION (10: seconds per run) WARMUP (10) RATE (200: measured requests a second) ATTACKERS (2)
#      GATEWAY_JAVA_OPTS (-XX:+UseSerialGC -Xmx64m) GATEWAY_JAR (this tree's)
#      RESULTS (bench/results/<UTC date-time>-h2-floods.md)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-10}
RATE=${RATE:-200}
ATTACKERS=${ATTACKERS:-2}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
RESULTS=${RESULTS:-"$ROOT/bench/results/$STAMP-h2-floods.md"}
FLOODS="$ROOT/bench/protocols/h2floods.py"

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
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
PORT=${GW_PORT[gw]}

# run VARIANT SECONDS -> "variant count errors p50 p99 max connections goaways sent"
run() {
  local attackers=() i client attack="- - -"
  if [ "$1" != quiet ]; then
    for i in $(seq 1 "$ATTACKERS"); do
      python3 "$FLOODS" "$1" "$PORT" "$2" >"$WORK/attack-$i" &
      attackers+=($!)
    done
  fi
  client=$(python3 "$FLOODS" client "$PORT" "$2" "$RATE")
  if [ ${#attackers[@]} -gt 0 ]; then
    wait "${attackers[@]}"
    attack=$(cat "$WORK"/attack-* | awk '{c += $1; g += $2; s += $3} END {print c, g, s}')
    rm -f "$WORK"/attack-*
  fi
  echo "$1 $client $attack"
}

VARIANTS="quiet rapid-reset continuation"
flood_name() { case $1 in rapid-reset) echo reset ;; *) echo "$1" ;; esac; }

START=$(date +%s)
echo "warm-up: ${WARMUP} s quiet..." >&2
run quiet "$WARMUP" >/dev/null

ROWS="$WORK/rows"
in_turn() { if (( $1 % 2 )); then echo "$VARIANTS"; else echo "$VARIANTS" | tr ' ' '\n' | tac | tr '\n' ' '; fi; }
for r in $(seq 1 "$ROUNDS"); do
  for v in $(in_turn "$r"); do
    line=$(run "$(flood_name "$v")" "$DURATION")
    echo "$r $v ${line#* }" | tee -a "$ROWS" >&2
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date +%s) - START))
RSS_KB=$(awk '/VmRSS/{print $2}' "/proc/${GW_PID[gw]}/status")
THREADS=$(awk '/Threads/{print $2}' "/proc/${GW_PID[gw]}/status")
SERVED_AFTER=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-API-Key: bench' "http://127.0.0.1:$PORT/limited/x")

{
  echo "# What HTTP/2 floods cost another client of the gateway"
  echo
  echo "\`bench/protocols/h2-floods.sh\` (ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP RATE=$RATE ATTACKERS=$ATTACKERS),"
  echo "$(date -u +%Y-%m-%dT%H:%MZ); $(run_context | tr '\n' ' ')"
  echo
  echo "One gateway, one rule (a token bucket that never rejects) on every request, nginx behind it. The measured client"
  echo "GETs /limited/x at $RATE/s over one HTTP/1.1 keep-alive connection; during an attack, $ATTACKERS processes flood"
  echo "the same port over h2c, connection after connection. $ROUNDS rounds of $DURATION s per variant, taking turns;"
  echo "the measured part took $ELAPSED s. After the rounds the gateway's RSS was $((RSS_KB / 1024)) MB with $THREADS"
  echo "threads, and it answered a plain request $SERVED_AFTER."
  echo
  echo "| round | variant | answered | errors | p50 ms | p99 ms | max ms | attack connections | closed by the gateway | streams (reset) or bytes (continuation) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}' "$ROWS"
  echo
  echo "Medians over the rounds, and each attack's p99 over the quiet p99:"
  echo
  python3 - "$ROWS" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault(r[1], []).append(r)
quiet = statistics.median(float(r[5]) for r in by["quiet"])
print("| variant | p50 ms | p99 ms | p99 / quiet p99 | errors |")
print("|---|---|---|---|---|")
for v in ("quiet", "rapid-reset", "continuation"):
    p50 = statistics.median(float(r[4]) for r in by[v])
    p99 = statistics.median(float(r[5]) for r in by[v])
    errors = sum(int(r[3]) for r in by[v])
    print("| %s | %.2f | %.2f | %.2f | %d |" % (v, p50, p99, p99 / quiet, errors))
PY
} >"$RESULTS"
cat "$RESULTS"
echo >&2
echo "written: ${RESULTS#"$ROOT"/}" >&2
