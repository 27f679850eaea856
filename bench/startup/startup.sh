#!/usr/bin/env bash
# Benchmark (not a test): how fast each service starts on the JVM, and how much memory it holds, in five
# modes: plain JDK 17 (jvm17), JDK 17 with AppCDS (appcds17), plain JDK 25 (jvm25), JDK 25 with the AOT
# cache (aot25; JEP 483/514/515), all four on the default fast-jar, and the AOT cache on Quarkus's aot-jar
# packaging (aotjar25: every class on the JVM's own class path, so the cache can hold all of them).
#
# Time = from launch to the first successful answer of a real request, polled every 5 ms:
#   rules-service   GET /api/v1/rules -> 200 (PostgreSQL, one rule)
#   demo-backend    GET /anything -> 200
#   gateway-service GET /anything through the gateway to a running demo-backend -> 200 (a rule applies,
#                   so the first answer includes a counter check on Redis)
# RSS = VmRSS of the java process right after that answer, and after LOAD_SECONDS of wrk load (one more
# start per mode, not timed), with its anonymous part (RssAnon: what is not a mapped file such as the
# jars or a CDS/AOT archive, whose clean pages the kernel can drop and share between processes). The modes take turns (run 1 of each mode, then run 2 ...).
# AppCDS and AOT modes first make their archive in a training run that serves real requests (wrk, 5 s),
# stopped with SIGTERM so the JVM writes the archive as it exits.
#
# Needs: JDK 17 as `java`, a JDK 25 (JAVA25_HOME, else the temurin-25 under /usr/lib/jvm), python3, wrk,
# curl, createdb/dropdb, a local PostgreSQL (trust auth for postgres) and Redis, and the packaged jars
# (built here if missing). Everything runs on loopback, on free ports, from copies of the packaged apps
# under a temporary directory (the archives are written there, never into target/).
# Usage: bench/startup/startup.sh [rules-service] [demo-backend] [gateway-service]
#   env: RUNS [5]  LOAD_SECONDS [60]  LOAD_CONNECTIONS [16]  MODES ["jvm17 appcds17 jvm25 aot25 aotjar25"]
#        JAVA_OPTS [] (added to every java command, training runs too)  KEEP_WORK [no]
#        NMT [no]  yes: after the load, print jcmd VM.native_memory summary to stderr (JAVA_OPTS must then
#                  hold -XX:NativeMemoryTracking=summary)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/startup"
RUNS=${RUNS:-5}
LOAD_SECONDS=${LOAD_SECONDS:-60}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-16}
MODES=${MODES:-"jvm17 appcds17 jvm25 aot25 aotjar25"}
JAVA_OPTS=${JAVA_OPTS:-}
JAVA17=${JAVA17:-java}
if [ -z "${JAVA25_HOME:-}" ]; then
  JAVA25_HOME=/usr/lib/jvm/$(ls /usr/lib/jvm | grep temurin-25 | head -1)
fi
JAVA25="$JAVA25_HOME/bin/java"
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
TOKEN=bench-token
DB=tollgate_startup_$$
SERVICES=("$@")
[ ${#SERVICES[@]} -gt 0 ] || SERVICES=(rules-service demo-backend gateway-service)

for tool in python3 wrk curl createdb dropdb; do
  command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }
done
"$JAVA25" -version 2>&1 | grep -q 'version "25' || { echo "no JDK 25 at $JAVA25_HOME (set JAVA25_HOME)" >&2; exit 1; }
for svc in rules-service demo-backend "${SERVICES[@]}"; do
  if [ ! -f "$ROOT/$svc/target/quarkus-app/quarkus-run.jar" ]; then
    (cd "$ROOT" && ./mvnw -B -q package -DskipTests -pl "$svc" -am)
  fi
done

# the aot-jar packaging goes to target/aot-jar, beside the fast-jar in target/quarkus-app, which stays
# what the integration tests and ./tollgate run (Quarkus records the last package built: it is put back)
if [[ " $MODES " == *" aotjar25 "* ]]; then
  for svc in "${SERVICES[@]}"; do
    fast="$ROOT/$svc/target/quarkus-app/quarkus-run.jar"
    aot="$ROOT/$svc/target/aot-jar/quarkus-run.jar"
    [ -f "$aot" ] && [ "$aot" -nt "$fast" ] && continue
    props="$ROOT/$svc/target/quarkus-artifact.properties"
    saved=$(cat "$props")
    (cd "$ROOT" && ./mvnw -B -q package -DskipTests -pl "$svc" -am -Dquarkus.package.jar.type=aot-jar \
      -Dquarkus.package.output-directory=aot-jar)
    printf '%s\n' "$saved" >"$props"
  done
fi

LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
WORK=$(mktemp -d -t tollgate-startup.XXXXXX)
PIDS=()
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# stop <pid>: SIGTERM, then wait (an archive is written at exit, which can take a while), bounded
stop() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 1200); do [ -e "/proc/$pid" ] || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  for pid in "${PIDS[@]}"; do stop "$pid"; done
  dropdb -h "$PG_HOST" -p "$PG_PORT" -U postgres --if-exists "$DB" 2>/dev/null || true
  [ "${KEEP_WORK:-no}" = yes ] || rm -rf "$WORK"
}
trap cleanup EXIT

createdb -h "$PG_HOST" -p "$PG_PORT" -U postgres "$DB"
DEMO_PORT=$(free_port)
RULES_PORT=$(free_port)

# env_of <service> <port>: the environment a service runs with; the gateway and the rules service serve health
# and metrics on a management port of their own: MANAGEMENT_PORT, or a free one
env_of() {
  local svc=$1 port=$2
  echo "QUARKUS_HTTP_PORT=$port"
  [ "$svc" = demo-backend ] || echo "QUARKUS_MANAGEMENT_PORT=${MANAGEMENT_PORT:-$(free_port)}"
  case $svc in
    rules-service)
      echo "QUARKUS_DATASOURCE_REACTIVE_URL=postgresql://$PG_HOST:$PG_PORT/$DB"
      echo "QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://$PG_HOST:$PG_PORT/$DB"
      echo "TOLLGATE_ADMIN_TOKEN=$TOKEN" ;;
    gateway-service)
      echo "TOLLGATE_GATEWAY_UPSTREAM=http://127.0.0.1:$DEMO_PORT"
      echo "TOLLGATE_RULES_URL=http://127.0.0.1:$RULES_PORT"
      echo "TOLLGATE_RULES_SNAPSHOT=$WORK/gateway-rules-snapshot.json"
      echo "QUARKUS_REDIS_HOSTS=$REDIS_URL" ;;
  esac
}
path_of() { [ "$1" = rules-service ] && echo /api/v1/rules || echo /anything; }

# launch <service> <app dir> <port> <log> <java> [java options...]: prints "pid ms rss_kB"
launch() {
  local svc=$1 dir=$2 port=$3 log=$4 java=$5
  shift 5
  local envs
  mapfile -t envs < <(env_of "$svc" "$port")
  # shellcheck disable=SC2086 # JAVA_OPTS is a list of options
  (cd "$dir" && env "${envs[@]}" python3 "$HERE/first_answer.py" "http://127.0.0.1:$port$(path_of "$svc")" 200 "$log" \
    -- "$java" $JAVA_OPTS "$@" -jar quarkus-run.jar)
}

# The other services a gateway needs, started once from the packaged apps (plain JDK 17).
read -r pid _ < <(launch demo-backend "$ROOT/demo-backend/target/quarkus-app" "$DEMO_PORT" "$WORK/demo-helper.log" "$JAVA17")
PIDS+=("$pid")
read -r pid _ < <(launch rules-service "$ROOT/rules-service/target/quarkus-app" "$RULES_PORT" "$WORK/rules-helper.log" "$JAVA17")
PIDS+=("$pid")
# one rule that matches everything with a limit never reached: every proxied request is counted on Redis
curl -fs -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"id":"bench.all","match":{"path":"/**"},"key":"ip","limit":1000000000,"period":"1s"}' \
  "http://127.0.0.1:$RULES_PORT/api/v1/rules"

# train <service> <app dir> <java> <archive option>: a run that serves real requests and writes an archive at exit
train() {
  local svc=$1 dir=$2 java=$3 option=$4 port management pid
  port=$(free_port)
  management=$port
  [ "$svc" = demo-backend ] || management=$(free_port)
  read -r pid _ < <(MANAGEMENT_PORT=$management launch "$svc" "$dir" "$port" \
    "$WORK/$svc-train-$(basename "${option#*=}").log" "$java" "$option")
  wrk -t1 -c4 -d5s "http://127.0.0.1:$port$(path_of "$svc")" >/dev/null
  curl -fs -o /dev/null "http://127.0.0.1:$management/q/health/ready" || true
  stop "$pid"
}

rss_kb() { awk '/^VmRSS:/{print $2}' "/proc/$1/status"; }
median() { sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# prepare <service> <mode>: copies the packaged app and, for the archive modes, runs the training;
# sets JAVA_OF[mode] and OPTS_OF[mode]
declare -A JAVA_OF OPTS_OF TIMES RSSS
prepare() {
  local svc=$1 mode=$2 dir="$WORK/$1-$2"
  if [ "$mode" = aotjar25 ]; then cp -a "$ROOT/$svc/target/aot-jar" "$dir"; else cp -a "$ROOT/$svc/target/quarkus-app" "$dir"; fi
  case $mode in
    jvm17) JAVA_OF[$mode]=$JAVA17; OPTS_OF[$mode]= ;;
    jvm25) JAVA_OF[$mode]=$JAVA25; OPTS_OF[$mode]= ;;
    appcds17) JAVA_OF[$mode]=$JAVA17; OPTS_OF[$mode]=-XX:SharedArchiveFile=app-cds.jsa
      train "$svc" "$dir" "$JAVA17" -XX:ArchiveClassesAtExit=app-cds.jsa
      [ -f "$dir/app-cds.jsa" ] || { echo "$svc: no app-cds.jsa written" >&2; exit 1; } ;;
    aot25 | aotjar25) JAVA_OF[$mode]=$JAVA25; OPTS_OF[$mode]=-XX:AOTCache=app.aot
      train "$svc" "$dir" "$JAVA25" -XX:AOTCacheOutput=app.aot
      [ -f "$dir/app.aot" ] || { echo "$svc: no app.aot written" >&2; exit 1; } ;;
    *) echo "unknown mode $mode" >&2; exit 1 ;;
  esac
}

RESULTS="$WORK/results.tsv"
: >"$RESULTS"
for svc in "${SERVICES[@]}"; do
  for mode in $MODES; do prepare "$svc" "$mode"; TIMES[$mode]=; RSSS[$mode]=; done
  # the modes take turns, start after start, so that a change in the machine's load hits them alike
  for run in $(seq 1 "$RUNS"); do
    for mode in $MODES; do
      # shellcheck disable=SC2086 # OPTS_OF holds zero or one option
      read -r pid ms rss < <(launch "$svc" "$WORK/$svc-$mode" "$(free_port)" "$WORK/$svc-$mode-$run.log" \
        "${JAVA_OF[$mode]}" ${OPTS_OF[$mode]})
      stop "$pid"
      TIMES[$mode]+="$ms "; RSSS[$mode]+="$rss "
      echo "$svc $mode run $run: ${ms} ms, RSS $((rss / 1024)) MB" >&2
    done
  done
  for mode in $MODES; do
    port=$(free_port)
    # shellcheck disable=SC2086
    read -r pid _ < <(launch "$svc" "$WORK/$svc-$mode" "$port" "$WORK/$svc-$mode-load.log" "${JAVA_OF[$mode]}" ${OPTS_OF[$mode]})
    out=$(wrk -t2 -c"$LOAD_CONNECTIONS" -d"${LOAD_SECONDS}s" --timeout 2s "http://127.0.0.1:$port$(path_of "$svc")")
    rate=$(awk '/Requests\/sec/{printf "%.0f", $2}' <<<"$out")
    bad=$(awk '/Non-2xx/{print $NF}' <<<"$out")
    loaded=$(rss_kb "$pid")
    anon=$(awk '/^RssAnon:/{print $2}' "/proc/$pid/status")
    if [ "${NMT:-no}" = yes ]; then
      # where the memory is (needs -XX:NativeMemoryTracking=summary in JAVA_OPTS), by the JDK that runs it
      "$(dirname "$(readlink -f "$(command -v "${JAVA_OF[$mode]}")")")/jcmd" "$pid" VM.native_memory summary >&2
    fi
    stop "$pid"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$svc" "$mode" "$(tr ' ' '\n' <<<"${TIMES[$mode]}" | grep . | median)" \
      "${TIMES[$mode]% }" "$(tr ' ' '\n' <<<"${RSSS[$mode]}" | grep . | median)" "$loaded" "$rate" "${bad:-0}" "$anon" >>"$RESULTS"
    echo "$svc $mode after ${LOAD_SECONDS}s of load: RSS $((loaded / 1024)) MB (anonymous $((anon / 1024)) MB), $rate req/s" >&2
  done
done

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(nproc) cores, $(free -m | awk '/^Mem:/{print $2}') MB RAM," \
  "load average $LOAD_BEFORE before, $(cut -d' ' -f1 /proc/loadavg) at the end  runs: $RUNS  load: wrk -t2 -c$LOAD_CONNECTIONS -d${LOAD_SECONDS}s" \
  "${JAVA_OPTS:+ JAVA_OPTS: $JAVA_OPTS}"
echo "JDK 17: $("$JAVA17" -version 2>&1 | head -1)  JDK 25: $("$JAVA25" -version 2>&1 | head -1)"
echo
echo "| service | mode | first answer, median (ms) | each start (ms) | RSS at first answer, median (MB) | RSS after load (MB) | of which anonymous (MB) | load (req/s) | non-2xx |"
echo "|---|---|---|---|---|---|---|---|---|"
awk -F'\t' '{printf "| %s | %s | %d | %s | %.0f | %.0f | %.0f | %s | %s |\n", $1, $2, $3, $4, $5/1024, $6/1024, $9/1024, $7, $8}' "$RESULTS"
