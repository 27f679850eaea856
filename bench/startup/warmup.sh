#!/usr/bin/env bash
# Benchmark (not a test): what the gateway's start-up warm-up (gateway-service/README.md, "Observability")
# costs in time to ready and what it saves in the latency of the first requests after ready.
#
# The modes take turns, a fresh gateway per start (the packaged fast-jar, the launcher's JVM flags):
#   warmup     the warm-up as configured by default
#   warmup:N   the warm-up with tollgate.warmup.requests=N
#   none       tollgate.warmup.requests=0: the store checks only, no request through the gateway
# Each start measures:
#   ready    ms from launch to the first 200 of /q/health/ready, polled every 5 ms (first_answer.py), and the
#            gateway's CPU time (user + system) at that moment
#   first    right after ready, REQUESTS requests over CONNECTIONS connections (wrk -t1 and first_n.lua): GET
#            /items/<n> with one of 50 API keys under a rule that never rejects, so each is a check on Redis
#            and a proxied answer from the backend; p50, p99 and max as wrk measures them
#   warmed   then WARM_SECONDS of load (wrk -t1 -c$CONNECTIONS), then REQUESTS more the same way: the warmed
#            baseline of the same start
#   fallback decisions by the failure mode (tollgate_decisions_total{outcome="fallback_*"}) and store timeouts
#            during the first REQUESTS
# The rules service is down (the gateway starts from a rules snapshot, as in a restart during its outage);
# Redis is a private redis-server and the backend nginx answering 200 "ok", both on free ports on loopback.
# Prints each start, then the medians per mode with the ratios the goal is stated in: first p99 ÷ warmed p99
# of the same start, and ÷ the warmed baseline of the run (the median warmed p99 of all its starts).
#
# Needs: java (17+; JAVA), wrk, nginx, redis-server, curl, python3, and the packaged gateway
# (gateway-service/target/quarkus-app, built here if missing).
# Env: ROUNDS [3]  REQUESTS [1000]  CONNECTIONS [8]  WARM_SECONDS [10]  FIRST_SECONDS [5] (wrk's run for
#      REQUESTS: it waits that long whatever the count)  WARMUP_MAX_TIME [the default]  MODES ["warmup none"]
#      JAVA [java]  JAVA_OPTS [the launcher's]  KEEP_WORK [no]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/startup"
ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-1000}
CONNECTIONS=${CONNECTIONS:-8}
WARM_SECONDS=${WARM_SECONDS:-10}
FIRST_SECONDS=${FIRST_SECONDS:-5}
MODES=${MODES:-"warmup none"}
JAVA=${JAVA:-java}
JAVA_OPTS=${JAVA_OPTS:-"-XX:+UseSerialGC -Xmx64m -XX:TrimNativeHeapInterval=1000 -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1"}
APP="$ROOT/gateway-service/target/quarkus-app"

for tool in "$JAVA" wrk nginx redis-server curl python3; do
  command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }
done
[ -f "$APP/quarkus-run.jar" ] || (cd "$ROOT" && ./mvnw -B -q package -DskipTests -pl gateway-service -am)

LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
WORK=$(mktemp -d -t tollgate-warmup.XXXXXX)
PIDS=()
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
stop() { # stop <pid>: SIGTERM, then wait, bounded
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 1 300); do [ -e "/proc/$1" ] || return 0; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
  for pid in "${PIDS[@]}"; do stop "$pid"; done
  [ -f "$WORK/backend.pid" ] && kill -QUIT "$(cat "$WORK/backend.pid")" 2>/dev/null || true
  [ "${KEEP_WORK:-no}" = yes ] || rm -rf "$WORK"
}
trap cleanup EXIT

REDIS=$(free_port)
redis-server --port "$REDIS" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
BACKEND=$(free_port)
sed -e "s#@WORK@#$WORK#g" -e "s#@PORT@#$BACKEND#g" -e "s#@WORKERS@#1#g" "$ROOT/bench/compare/backend.nginx.conf" \
  >"$WORK/backend.conf"
nginx -c "$WORK/backend.conf" -e "$WORK/backend-error.log"
for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$BACKEND/" && break; sleep 0.05; done
RULES_DOWN=$(free_port) # nothing listens there: the gateway starts from its snapshot
RULES='{"version":1,"rules":[{"id":"bench.items","match":{"path":"/items/**"},"key":"api_key","limit":1000000000,"period":"1s"}]}'

metric_sum() { # metric_sum <management port> <regex>: the sum of the metrics lines that match
  curl -fs "http://127.0.0.1:$1/q/metrics" | awk -v re="$2" '$0 ~ re {s += $NF} END {printf "%d", s}'
}
FALLBACK='^tollgate_decisions_total[{].*outcome="fallback_[a-z]+".*rule="bench.items"'
TIMEOUT='^tollgate_store_errors_total[{]kind="timeout"'
cpu_ms() { # user + system CPU of a process, in ms
  awk -v hz="$(getconf CLK_TCK)" '{printf "%d", ($14 + $15) * 1000 / hz}' "/proc/$1/stat"
}
first_n() { # first_n <port>: "<answers> <non-2xx> <p50 µs> <p99 µs> <max µs>"
  wrk -t1 -c"$CONNECTIONS" -d"${FIRST_SECONDS}s" --timeout 5s -s "$HERE/first_n.lua" "http://127.0.0.1:$1" -- "$REQUESTS" | tail -1
}

RESULTS="$WORK/results.tsv"
: >"$RESULTS"
for round in $(seq 1 "$ROUNDS"); do
  for mode in $MODES; do
    port=$(free_port)
    management=$(free_port)
    printf '%s\n' "$RULES" >"$WORK/rules.json"
    envs=(QUARKUS_HTTP_PORT="$port" QUARKUS_MANAGEMENT_PORT="$management" TOLLGATE_GATEWAY_UPSTREAM="http://127.0.0.1:$BACKEND"
      TOLLGATE_RULES_URL="http://127.0.0.1:$RULES_DOWN" TOLLGATE_RULES_SNAPSHOT="$WORK/rules.json"
      QUARKUS_REDIS_HOSTS="redis://127.0.0.1:$REDIS" TOLLGATE_GATEWAY_INSTANCE_ID="bench-warmup-$mode" MALLOC_ARENA_MAX=2)
    case $mode in
      none) envs+=(TOLLGATE_WARMUP_REQUESTS=0) ;;
      warmup:*) envs+=(TOLLGATE_WARMUP_REQUESTS="${mode#warmup:}") ;;
      warmup) ;;
      *) echo "unknown mode $mode" >&2; exit 1 ;;
    esac
    if [ -n "${WARMUP_MAX_TIME:-}" ]; then envs+=(TOLLGATE_WARMUP_MAX_TIME="$WARMUP_MAX_TIME"); fi
    # shellcheck disable=SC2086 # JAVA_OPTS is a list of options
    read -r pid ready _ < <(cd "$APP" && env "${envs[@]}" python3 "$HERE/first_answer.py" \
      "http://127.0.0.1:$management/q/health/ready" 200 "$WORK/gateway-$mode-$round.log" -- "$JAVA" $JAVA_OPTS -jar quarkus-run.jar)
    PIDS+=("$pid")
    cpu=$(cpu_ms "$pid")
    fallback0=$(metric_sum "$management" "$FALLBACK")
    timeouts0=$(metric_sum "$management" "$TIMEOUT")
    read -r n bad p50 p99 max < <(first_n "$port")
    fallback=$(($(metric_sum "$management" "$FALLBACK") - fallback0))
    timeouts=$(($(metric_sum "$management" "$TIMEOUT") - timeouts0))
    # the warm-up's own line, written once its last request is answered (after ready when the bound ended it):
    # "warm-up: <n> requests through the gateway in <ms> ms"
    exercise=$(sed -nE 's/.*warm-up: ([0-9]+) requests through the gateway in ([0-9]+) ms.*/\1 in \2 ms/p' \
      "$WORK/gateway-$mode-$round.log" | head -1)
    wrk -t1 -c"$CONNECTIONS" -d"${WARM_SECONDS}s" -s "$HERE/first_n.lua" "http://127.0.0.1:$port" -- 100000000 >/dev/null
    read -r wn wbad wp50 wp99 wmax < <(first_n "$port")
    stop "$pid"
    if [ "$n" -lt "$REQUESTS" ] || [ "$wn" -lt "$REQUESTS" ]; then
      echo "$mode round $round: only $n / $wn answers within ${FIRST_SECONDS}s (raise FIRST_SECONDS)" >&2
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$round" "$ready" "$cpu" "$p50" "$p99" "$max" \
      "$wp50" "$wp99" "$wmax" "$fallback" "$timeouts" "$((bad + wbad))" "${exercise:--}" >>"$RESULTS"
    echo "$mode round $round: ready ${ready} ms (CPU ${cpu} ms), first $REQUESTS p50/p99/max ${p50}/${p99}/${max} µs," \
      "warmed ${wp50}/${wp99}/${wmax} µs, fallback $fallback, timeouts $timeouts" >&2
  done
done

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(nproc) cores, load average $LOAD_BEFORE before, $(cut -d' ' -f1 /proc/loadavg) at the end"
echo "java: $("$JAVA" -version 2>&1 | head -1)  JAVA_OPTS: $JAVA_OPTS  rounds: $ROUNDS  first/warmed: $REQUESTS requests over" \
  "$CONNECTIONS connections  warming load: ${WARM_SECONDS}s  warm-up max time: ${WARMUP_MAX_TIME:-default}"
echo
echo "| mode | round | warm-up requests | ready (ms) | CPU at ready (ms) | first p50 (ms) | first p99 (ms) | first max (ms) | warmed p50 (ms) | warmed p99 (ms) | first p99 ÷ warmed p99 | fallback decisions in first | store timeouts in first | non-2xx |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
awk -F'\t' '{printf "| %s | %s | %s | %d | %d | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f | %d | %d | %d |\n",
  $1, $2, $14, $3, $4, $5/1000, $6/1000, $7/1000, $8/1000, $9/1000, $6/$9, $11, $12, $13}' "$RESULTS"
echo
python3 - "$RESULTS" "$MODES" <<'EOF'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
modes = sys.argv[2].split()
med = lambda mode, i: statistics.median(float(r[i]) for r in rows if r[0] == mode)
base = statistics.median(float(r[8]) for r in rows)
print(f"warmed baseline (median warmed p99 of every start): {base / 1000:.2f} ms")
print()
print("| mode (medians) | ready (ms) | CPU at ready (ms) | first p50 (ms) | first p99 (ms) | warmed p99 (ms) "
      "| first p99 ÷ warmed p99, same start | first p99 ÷ warmed baseline | fallback decisions in first |")
print("|---|---|---|---|---|---|---|---|---|")
for mode in modes:
    same = statistics.median(float(r[5]) / float(r[8]) for r in rows if r[0] == mode)
    print(f"| {mode} | {med(mode, 2):.0f} | {med(mode, 3):.0f} | {med(mode, 4) / 1000:.2f} | {med(mode, 5) / 1000:.2f} "
          f"| {med(mode, 8) / 1000:.2f} | {same:.2f} | {med(mode, 5) / base:.2f} | {med(mode, 10):.0f} |")
EOF
