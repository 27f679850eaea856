#!/usr/bin/env bash
# What the gateway's WebSocket relay costs. One gateway (the packaged jar) relaying to the demo backend's
# /ws/echo (the packaged demo-backend jar, which sends every message back), a private Redis; the client
# (WsBench.java, Vert.x's WebSocket client, run as a single-file program on the gateway's own Vert.x and Netty
# jars) opens its sockets through the gateway and straight to the backend, the two taking turns each round
# (even rounds in reverse order), after a warm-up of both:
#   latency     one socket, LATENCY_MESSAGES text messages of SIZE bytes one after the other (each sent when
#               the last came back): p50, p90, p99, p99.9 of the round trip; p50 and p99 added by the gateway
#   throughput  SOCKETS sockets, each keeping WINDOW messages outstanding, sending until it has sent
#               PER_SOCKET or DURATION seconds have passed, then waiting for its echoes: messages echoed per second,
#               through the gateway ÷ direct
# Each row carries the gateway's and the backend's CPU per echoed message (utime + stime of /proc/<pid>/stat).
# The upgrade through the gateway is checked by one rule on /ws/**, a token bucket that never rejects (one check
# per socket; frames are not counted).
#
# Needs: java 17, redis-server, redis-cli, curl, python3, and the
# packaged gateway and demo backend (./mvnw -B -pl demo-backend,gateway-service -am package -DskipTests).
# Env: ROUNDS (3) LATENCY_MESSAGES (20000) LATENCY_WARMUP (20000) SIZE (100) SOCKETS (8) WINDOW (64)
#      DURATION (8: seconds) PER_SOCKET (500000) WARMUP_SECONDS (15: throughput warm-up per variant)
#      GATEWAY_JAR (this tree's) GATEWAY_JAVA_OPTS (-XX:+UseSerialGC -Xmx64m) BACKEND_JAVA_OPTS (-XX:+UseSerialGC -Xmx128m)
#      CLIENT_JAVA_OPTS (-XX:+UseSerialGC -Xmx256m) RESULTS (bench/results/<UTC date-time>-websocket.md)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-3}
LATENCY_MESSAGES=${LATENCY_MESSAGES:-20000}
LATENCY_WARMUP=${LATENCY_WARMUP:-20000}
SIZE=${SIZE:-100}
SOCKETS=${SOCKETS:-8}
WINDOW=${WINDOW:-64}
DURATION=${DURATION:-8}
PER_SOCKET=${PER_SOCKET:-500000}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
BACKEND_JAVA_OPTS=${BACKEND_JAVA_OPTS:--XX:+UseSerialGC -Xmx128m}
CLIENT_JAVA_OPTS=${CLIENT_JAVA_OPTS:--XX:+UseSerialGC -Xmx256m}
JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
BACKEND_JAR="$ROOT/demo-backend/target/quarkus-app/quarkus-run.jar"
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
RESULTS=${RESULTS:-"$ROOT/bench/results/$STAMP-websocket.md"}

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need java redis-server redis-cli curl python3
for jar in "$JAR" "$BACKEND_JAR"; do
  [ -f "$jar" ] || { echo "build first: ./mvnw -B -pl demo-backend,gateway-service -am package -DskipTests" >&2; exit 1; }
done
# the client's classpath: Vert.x core and Netty as the gateway ships them
LIB="$ROOT/gateway-service/target/quarkus-app/lib/main"
CP=$(printf '%s:' "$LIB"/io.vertx.vertx-core-*.jar "$LIB"/io.netty.*.jar "$LIB"/com.fasterxml.jackson.core.jackson-core-*.jar)

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# the backend: the demo backend, on a free port (launch_gateway sends every gateway to $BACKEND)
BACKEND=$(free_port)
# shellcheck disable=SC2086 # the JVM options are a list
java $BACKEND_JAVA_OPTS -Dquarkus.http.port="$BACKEND" -jar "$BACKEND_JAR" >"$WORK/backend.log" 2>&1 &
BACKEND_PID=$!
PIDS+=("$BACKEND_PID")
for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$BACKEND/anything" -o /dev/null 2>&1 && break; sleep 0.2; done
curl -fs "http://127.0.0.1:$BACKEND/anything" -o /dev/null || { cat "$WORK/backend.log" >&2; exit 1; }

start_store standalone
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
{"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key",
 "algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"bench.ws","match":{"methods":["GET"],"path":"/ws/**"},"key":"api_key",
 "algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000}]}
JSON
start_gateway gw "$JAR" "$GATEWAY_JAVA_OPTS"

START=$(date +%s)
ROWS="$WORK/rows"
# shellcheck disable=SC2086 # the JVM options are a list
java $CLIENT_JAVA_OPTS -cp "$CP" "$ROOT/bench/protocols/WsBench.java" \
  direct_port="$BACKEND" gateway_port="${GW_PORT[gw]}" path=/ws/echo \
  gateway_pid="${GW_PID[gw]}" backend_pid="$BACKEND_PID" hz="$(getconf CLK_TCK)" \
  rounds="$ROUNDS" latency_messages="$LATENCY_MESSAGES" latency_warmup="$LATENCY_WARMUP" size="$SIZE" \
  sockets="$SOCKETS" window="$WINDOW" seconds="$DURATION" per_socket="$PER_SOCKET" \
  warmup_seconds="$WARMUP_SECONDS" >"$ROWS"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(($(date +%s) - START))
METRICS=$(curl -fs "http://127.0.0.1:${GW_MGMT[gw]}/q/metrics")
RELAYED=$(awk '/^tollgate_websockets_relayed_total/ {print $2 + 0}' <<<"$METRICS")
DECISIONS=$(grep '^tollgate_decisions_total{.*bench.ws' <<<"$METRICS" | sed 's/^/    /' || true)

{
  echo "# WebSocket relay: through the gateway against straight to the backend"
  echo
  echo "\`bench/protocols/websocket.sh\` (ROUNDS=$ROUNDS LATENCY_MESSAGES=$LATENCY_MESSAGES LATENCY_WARMUP=$LATENCY_WARMUP SIZE=$SIZE"
  echo "SOCKETS=$SOCKETS WINDOW=$WINDOW DURATION=$DURATION PER_SOCKET=$PER_SOCKET WARMUP_SECONDS=$WARMUP_SECONDS),"
  echo "$(date -u +%Y-%m-%dT%H:%MZ); $(run_context | tr '\n' ' ')"
  echo "Backend JVM: \`$BACKEND_JAVA_OPTS\`; client JVM: \`$CLIENT_JAVA_OPTS\`."
  echo
  echo "The demo backend's \`/ws/echo\` straight (*direct*) and through one gateway (*gateway*) whose rule \`bench.ws\`"
  echo "(\`/ws/**\`, a token bucket that never rejects) checks each upgrade once. Text messages of $SIZE bytes. Warm-up"
  echo "before the rounds: $WARMUP_SECONDS s of the throughput load and $LATENCY_WARMUP sequential messages on each"
  echo "variant. The whole client run took $ELAPSED s; the gateway relayed $RELAYED sockets."
  echo
  python3 "$ROOT/bench/protocols/summarise.py" ws "$ROWS"
  echo
  echo "The rule's decisions (one per socket):"
  echo
  echo "$DECISIONS"
} >"$RESULTS"
cat "$RESULTS"
echo >&2
echo "written: ${RESULTS#"$ROOT"/}" >&2
