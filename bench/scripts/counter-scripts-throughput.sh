#!/usr/bin/env bash
# Checks per second of the `check` script, per algorithm, next to plain INCR and SET on the same
# Redis in the same run; prints a Markdown table (ratio = script / INCR), the script's time inside
# Redis (INFO commandstats usec_per_call, wall clock) and, for a private server, the server's CPU time
# per operation (utime + stime from /proc, which other processes on a busy machine cannot inflate).
# Each figure is the best of ROUNDS runs.
#
# Usage: bench/scripts/counter-scripts-throughput.sh
#   REDIS_URL=redis://host:port  use that Redis instead of a private one (it gets bench keys rl:bench:*)
#   REQUESTS=200000              requests per run (-n), which bounds the time of each run
#   CLIENTS=50 KEYSPACE=100000   redis-benchmark -c and -r
#   ROUNDS=3                     runs per figure; the best one is kept
set -euo pipefail
cd "$(dirname "$0")/../.."

REQUESTS=${REQUESTS:-200000}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}
ROUNDS=${ROUNDS:-3}
PIPELINE=16

source bench/scripts/common.sh
need redis-server redis-cli redis-benchmark java
SCRIPT=$(check_script)

if [[ -n "${REDIS_URL:-}" ]]; then
  hostport=${REDIS_URL#redis://}
  HOST=${hostport%%:*}
  PORT=${hostport##*:}
else
  HOST=127.0.0.1
  for _ in $(seq 1 50); do
    PORT=$((20000 + RANDOM % 10000))
    (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null || break
  done
  redis-server --port "$PORT" --bind "$HOST" --save "" --appendonly no --dir "$TMP" >"$TMP/redis.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 100); do
    [[ "$(redis-cli -h "$HOST" -p "$PORT" PING 2>/dev/null)" == PONG ]] && break
    sleep 0.1
  done
fi
cli() { redis-cli -h "$HOST" -p "$PORT" "$@"; }
SHA=$(cli SCRIPT LOAD "$SCRIPT")
# The floor of any such script: the same three Redis calls with no logic, no validation, a constant value.
FLOOR_SHA=$(cli SCRIPT LOAD "local t = redis.call('TIME') redis.call('GET', KEYS[1]) \
redis.call('SET', KEYS[1], 'xxxxxxxxxxxxxxxxxxxxxxxxx', 'PXAT', t[1] * 1000 + 60000) return { 1, 0, 0, 0 }")


# rps NAME PIPELINE COMMAND...: requests per second of one bounded redis-benchmark run
rps() {
  local pipeline=$1; shift
  redis-benchmark -h "$HOST" -p "$PORT" -c "$CLIENTS" -n "$REQUESTS" -r "$KEYSPACE" -P "$pipeline" --csv "$@" \
    | awk -F'","' 'NR == 2 { print $2 }'
}

# usec_per_call COMMAND: Redis's own time per call, from a fresh INFO commandstats
usec_per_call() {
  cli INFO commandstats | tr -d '\r' | awk -F'usec_per_call=' -v c="cmdstat_$1:" 'index($0, c) == 1 { split($2, a, ","); print a[1] }'
}

# server CPU time so far in microseconds (utime + stime), or empty for a server we did not start
cpu_us() {
  [[ -n "$SERVER_PID" ]] || return 0
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000000 / hz }' "/proc/$SERVER_PID/stat"
}

max() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a ? b : a) }'; }

declare -A P1 P16 USEC CPU
measure() {
  local name=$1 cmd=$2; shift 2
  for _ in $(seq 1 "$ROUNDS"); do
    cli CONFIG RESETSTAT >/dev/null
    local cpu0 cpu1
    cpu0=$(cpu_us)
    P1[$name]=$(max "${P1[$name]:-}" "$(rps 1 "$@")")
    cpu1=$(cpu_us)
    USEC[$name]=$(min "${USEC[$name]:-}" "$(usec_per_call "$cmd")")
    [[ -z "$cpu0" ]] || CPU[$name]=$(min "${CPU[$name]:-}" "$(awk -v a="$cpu0" -v b="$cpu1" -v n="$REQUESTS" 'BEGIN { printf "%.2f", (b - a) / n }')")
    P16[$name]=$(max "${P16[$name]:-}" "$(rps "$PIPELINE" "$@")")
  done
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
measure INCR incr INCR 'rl:bench:incr:{__rand_int__}'
measure SET set SET 'rl:bench:set:{__rand_int__}' 1
measure floor evalsha EVALSHA "$FLOOR_SHA" 1 'rl:bench:floor:{__rand_int__}'
for alg in token_bucket gcra sliding_window fixed_window; do
  # production form: now = "" (Redis TIME), cost "" (1); 100 a second, burst 100
  measure "$alg" evalsha EVALSHA "$SHA" 1 "rl:bench:$alg:{__rand_int__}" '' '' "$alg" 100 1000 100
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "| command | ops/s | ÷ INCR | ops/s -P $PIPELINE | ÷ INCR -P $PIPELINE | usec_per_call in Redis | server CPU µs/op |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for name in INCR SET floor token_bucket gcra sliding_window fixed_window; do
  label="check ($name)"
  [[ $name == INCR || $name == SET ]] && label=$name
  [[ $name == floor ]] && label="floor script (TIME + GET + SET PXAT, no logic)"
  printf '| %s | %.0f | %s | %.0f | %s | %s | %s |\n' "$label" "${P1[$name]}" "$(ratio "${P1[$name]}" "${P1[INCR]}")" \
    "${P16[$name]}" "$(ratio "${P16[$name]}" "${P16[INCR]}")" "${USEC[$name]}" "${CPU[$name]:-n/a}"
done
echo
echo "load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "redis-benchmark -c $CLIENTS -n $REQUESTS -r $KEYSPACE, best of $ROUNDS; $(redis-server --version | awk '{print $3}'); $(date -u '+%Y-%m-%d %H:%M UTC'); nproc $(nproc); $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
