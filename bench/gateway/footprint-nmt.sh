#!/usr/bin/env bash
# Where a gateway's memory goes after a minute of load. One gateway (the packaged jar) with the launcher's JVM flags
# and Native Memory Tracking, one private Redis, nginx as the backend (lib.sh), one token-bucket rule that never
# rejects, wrk on loopback with a key drawn from KEYS per request (bench/compare/keys.lua). After LOAD_SECONDS of
# load it reads the process's RSS (VmRSS, RssAnon, RssFile) and what the JVM says it committed, by NMT category
# (jcmd VM.native_memory summary): heap, metaspace (class), code cache (code), thread stacks, GC, compiler,
# symbols, direct buffers (other), the rest. It measures; it asserts nothing.
#
# Needs: wrk, nginx, redis-server, redis-cli, java (JAVA, default java on PATH), jcmd, curl, and the packaged gateway
# (./mvnw -B -pl gateway-service -am package -DskipTests).
# Env: LOAD_SECONDS (60) KEYS (10000) CONNECTIONS (50) GATEWAY_JAR (this tree's) GATEWAY_JAVA_OPTS (the launcher's
#      default, ./tollgate) MALLOC_ARENA_MAX (2, as the launcher) RESULTS (bench/results/<UTC date-time>-footprint-nmt.md)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOAD_SECONDS=${LOAD_SECONDS:-60}
KEYS=${KEYS:-10000}
CONNECTIONS=${CONNECTIONS:-50}
JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
LAUNCHER_OPTS=$(sed -n 's/^JAVA_OPTS=\${TOLLGATE_JAVA_OPTS:-"\(.*\)"}$/\1/p' "$ROOT/tollgate")
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:-$LAUNCHER_OPTS}
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
RESULTS=${RESULTS:-"$ROOT/bench/results/$STAMP-footprint-nmt.md"}

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need wrk nginx redis-server redis-cli java jcmd curl
[ -f "$JAR" ] || { echo "build first: ./mvnw -B -pl gateway-service -am package -DskipTests" >&2; exit 1; }
[ -n "$GATEWAY_JAVA_OPTS" ] || { echo "could not read the launcher's JVM flags from ./tollgate" >&2; exit 1; }

backend
start_store standalone
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[{"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key",
"algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000}]}
JSON
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
start_gateway gw "$JAR" "$GATEWAY_JAVA_OPTS -XX:NativeMemoryTracking=summary"
PID=${GW_PID[gw]}
rss() { awk -v k="$1:" '$1==k{printf "%.0f", $2/1024}' "/proc/$PID/status"; }
RSS_READY=$(rss VmRSS)
PATH_TO=/limited/x KEYS="$KEYS" THREADS=2 RATE=0 \
  wrk -t2 -c"$CONNECTIONS" -d"${LOAD_SECONDS}s" -s "$ROOT/bench/compare/keys.lua" "http://127.0.0.1:${GW_PORT[gw]}" >"$WORK/wrk.txt"
RPS=$(awk '/Requests\/sec/{print $2}' "$WORK/wrk.txt")
jcmd "$PID" VM.native_memory summary scale=KB >"$WORK/nmt.txt"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# Where the gateway's memory goes after ${LOAD_SECONDS} s of load"
  echo
  echo "\`bench/gateway/footprint-nmt.sh\` (LOAD_SECONDS=$LOAD_SECONDS KEYS=$KEYS CONNECTIONS=$CONNECTIONS), $STAMP;"
  run_context
  echo "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX; $RPS req/s during the load."
  echo
  echo "| what | MB |"
  echo "|---|---|"
  echo "| RSS when ready | $RSS_READY |"
  echo "| RSS after the load (VmRSS) | $(rss VmRSS) |"
  echo "| of it anonymous (RssAnon) | $(rss RssAnon) |"
  echo "| of it files, the JDK's and the jars' (RssFile) | $(rss RssFile) |"
  echo
  echo "What the JVM committed, by Native Memory Tracking category (NMT itself included):"
  echo
  echo "| category | committed MB |"
  echo "|---|---|"
  awk '/^Total:/{match($0,/committed=[0-9]+KB/); printf "| **total** | %.1f |\n", substr($0,RSTART+10,RLENGTH-12)/1024}
       /^-[ ]+[A-Za-z]/{name=$0; sub(/^-[ ]+/,"",name); sub(/ \(.*/,"",name); match($0,/committed=[0-9]+KB/);
         if (RSTART) printf "| %s | %.1f |\n", name, substr($0,RSTART+10,RLENGTH-12)/1024}' "$WORK/nmt.txt"
  echo
  echo '<details><summary>jcmd VM.native_memory summary</summary>'
  echo
  echo '```'
  cat "$WORK/nmt.txt"
  echo '```'
  echo '</details>'
} >"$RESULTS"
cat "$RESULTS" | sed -n '1,40p'
echo "results: $RESULTS" >&2
