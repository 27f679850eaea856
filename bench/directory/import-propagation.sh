#!/usr/bin/env bash
# Benchmark (not a test): how long a bulk import of CLIENTS clients takes to reach every gateway. Starts the
# packaged rules service on a PostgreSQL database of its own and three packaged gateways (in-process counters,
# the watch stream up, a gateway-scope token), then RUNS times: imports CLIENTS clients (run 1 creates them,
# each later run changes every one of them: its label names the run) and a last line, a client whose override
# of bench.orders names the run; then asks every gateway for /orders/1 with that client's key until its
# RateLimit-Policy carries the run's limit. One sample: from the import's answer to the last gateway's first such
# answer, and the CPU each process used meanwhile (what the wall time is made of on a shared machine). After the
# runs: each gateway's peak resident memory (VmHWM) and its heap in use after a full GC.
# Writes bench/results/<UTC date-time>-import-propagation.md with the command and the figures.
#
# Needs: java 17 (jcmd), curl, python3, nginx, createdb/dropdb/psql and a local PostgreSQL (trust auth for user
# postgres); the packaged services (./mvnw -B -q -pl rules-service,gateway-service -am package -DskipTests).
# Everything runs on loopback.
# Usage: bench/directory/import-propagation.sh
#   env: CLIENTS [20000; at most 999999: an import holds at most 1,000,000 lines] RUNS [5] TENANTS [CLIENTS / 333, at least 1] RULES_JAVA_OPTS [-Xmx512m]
#        GATEWAY_JAVA_OPTS [the launcher's, with -Xmx 64 MB and 80 MB per million clients]
#        GATEWAY_JAR [this tree's packaged gateway]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLIENTS=${CLIENTS:-20000}
RUNS=${RUNS:-5}
TENANTS=${TENANTS:-$(((CLIENTS / 333) > 0 ? CLIENTS / 333 : 1))}
RULES_JAVA_OPTS=${RULES_JAVA_OPTS:--Xmx512m}
HEAP_MB=$((64 + (80 * CLIENTS + 999999) / 1000000))
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx${HEAP_MB}m -XX:TrimNativeHeapInterval=1000 -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1"}
GATEWAY_JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
DB=tollgate_bench_prop_$$
TOKEN=bench-token
GATEWAY_TOKEN=bench-gateway-token
MARK=ak_bench_last_line
HELPER="$ROOT/bench/directory/directory.py"
STARTED=$(date -u +%Y-%m-%dT%H%MZ)

# shellcheck source=../gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
# shellcheck source=../rules-service/lib.sh
. "$ROOT/bench/rules-service/lib.sh"
need java jcmd curl python3 nginx createdb dropdb psql
[ -f "$RULES_JAR" ] && [ -f "$GATEWAY_JAR" ] \
  || { echo "package the services first: ./mvnw -B -q -pl rules-service,gateway-service -am package -DskipTests" >&2; exit 1; }
trap 'stop_rules_service; cleanup' EXIT

# shellcheck disable=SC2086 # the JVM options are a list
start_rules_service "$WORK/rules-service.log" $RULES_JAVA_OPTS \
  -Dtollgate.admin.tokens.gateways.token=$GATEWAY_TOKEN -Dtollgate.admin.tokens.gateways.scope=gateway
python3 "$HELPER" put-rules "$BASE" "$TOKEN"
python3 "$HELPER" generate "$CLIENTS" "$TENANTS" "$WORK/clients.ndjson"
python3 "$HELPER" put-tenants "$BASE" "$TOKEN" "$WORK/clients.ndjson.tenants"

backend
GATEWAYS=()
for name in g1 g2 g3; do
  port=$(free_port)
  management=$(free_port)
  # shellcheck disable=SC2086 # the JVM options are a list
  QUARKUS_HTTP_PORT=$port QUARKUS_MANAGEMENT_PORT=$management TOLLGATE_GATEWAY_UPSTREAM="http://127.0.0.1:$BACKEND" \
    TOLLGATE_STORE_TYPE=memory TOLLGATE_RULES_URL="$BASE" TOLLGATE_RULES_TOKEN=$GATEWAY_TOKEN \
    TOLLGATE_RULES_SNAPSHOT="$WORK/rules-$name.json" TOLLGATE_GATEWAY_INSTANCE_ID="bench-$name" \
    java $GATEWAY_JAVA_OPTS -jar "$GATEWAY_JAR" >"$WORK/gateway-$name.log" 2>&1 &
  GW_PID[$name]=$!
  PIDS+=($!)
  GW_MGMT[$name]=$management
  GATEWAYS+=("http://127.0.0.1:$port")
done
for name in g1 g2 g3; do
  for _ in $(seq 1 150); do
    curl -fs "http://127.0.0.1:${GW_MGMT[$name]}/q/health/ready" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fs "http://127.0.0.1:${GW_MGMT[$name]}/q/health/ready" >/dev/null \
    || { cat "$WORK/gateway-$name.log" >&2; exit 1; }
done

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
SAMPLES=()
ROWS=""
for run in $(seq 1 "$RUNS"); do
  limit=$((100 + run))
  python3 "$HELPER" generate "$CLIENTS" "$TENANTS" "$WORK/run.ndjson" " run $run"
  echo "{\"key\":\"$MARK\",\"tenant\":\"t00000\",\"overrides\":{\"bench.orders\":{\"limit\":$limit,\"period\":\"1m\"}}}" \
    >>"$WORK/run.ndjson"
  read -r seconds seq cpu_rules cpu_g1 cpu_g2 cpu_g3 <<<"$(CPU_PIDS="rules=$RULES_PID g1=${GW_PID[g1]} g2=${GW_PID[g2]} g3=${GW_PID[g3]}" \
    python3 "$HELPER" propagate "$BASE" "$TOKEN" "$WORK/run.ndjson" "$MARK" "$limit" /orders/1 "${GATEWAYS[@]}")"
  [ -n "$seconds" ] || { echo "run $run failed" >&2; tail -n 5 "$WORK"/gateway-g*.log >&2; exit 1; }
  echo "run $run: ${seconds} s (seq $seq; CPU s $cpu_rules $cpu_g1 $cpu_g2 $cpu_g3)" >&2
  SAMPLES+=("$seconds")
  ROWS+="| $run | $seq | $seconds | ${cpu_rules#*=} | ${cpu_g1#*=} / ${cpu_g2#*=} / ${cpu_g3#*=} |"$'\n'
  sleep 2 # the gateways write their snapshots a second after a change: let that pass before the next run
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
P50=$(printf '%s\n' "${SAMPLES[@]}" | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')

MEMORY=""
for name in g1 g2 g3; do
  pid=${GW_PID[$name]}
  hwm=$(awk '/VmHWM/{print int($2/1024)}' "/proc/$pid/status")
  jcmd "$pid" GC.run >/dev/null
  heap=$(jcmd "$pid" GC.heap_info | awk '/generation|heap/ {for(i=1;i<=NF;i++) if($i=="used") {v=$(i+1); sub(/K.*/,"",v); s+=v}} END {print int(s/1024)}')
  MEMORY+="| $name | $hwm | $heap |"$'\n'
done
COPIES=$(grep -hoE 'client directory (copied whole|rebuilt|caught up)' "$WORK"/gateway-g*.log | wc -l)

RESULT="$ROOT/bench/results/$STARTED-import-propagation.md"
{
  echo "# A bulk import of $CLIENTS clients reaching three gateways"
  echo
  echo "- date: $STARTED"
  echo "- command: \`bench/directory/import-propagation.sh\` (CLIENTS=$CLIENTS RUNS=$RUNS TENANTS=$TENANTS)"
  echo "- at $(git -C "$ROOT" describe --always --dirty); $(nproc) cores, $(java -version 2>&1 | head -1); load average before: $LOAD_BEFORE, after: $LOAD_AFTER"
  echo "- gateway JVM: \`$GATEWAY_JAVA_OPTS\`; rules service JVM: \`$RULES_JAVA_OPTS\`"
  echo "- PostgreSQL $(psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tAc 'show server_version' | cut -d' ' -f1), on loopback"
  echo
  echo "Seconds from the import's answer until every gateway applies its last line, and the CPU seconds each process"
  echo "used meanwhile; run 1 creates $CLIENTS clients (and the last line's client), each later run changes every one"
  echo "of them."
  echo
  echo "| run | seq after the import | seconds | CPU s, rules service | CPU s, gateways |"
  echo "|---|---:|---:|---:|---:|"
  printf '%s' "$ROWS"
  echo
  echo "p50: **$P50 s**. Copies put in force whole by the gateways over the runs (log lines \"client directory copied whole\", \"rebuilt\" or \"caught up\"), their start included: $COPIES."
  echo
  echo "| gateway | peak RSS, MB | heap in use after a full GC, MB |"
  echo "|---|---:|---:|"
  printf '%s' "$MEMORY"
} >"$RESULT"
cat "$RESULT"
