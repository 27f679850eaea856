#!/usr/bin/env bash
# What one check costs Redis, counted in instructions: a private redis-server runs under valgrind's
# callgrind, which counts the instructions it executes, the same count for the same binary and inputs
# however busy the machine is. So variants of the script compare exactly in one run, where
# usec_per_call (wall clock) moves by 20 % from run to run on a shared 2-core box.
#
# Per command: CALLS calls from one client (redis-benchmark -c 1, random keys over KEYSPACE) after a
# warm-up, the counters zeroed before and dumped after (callgrind_control), divided by CALLS: the
# instructions Redis executes per call, reading the request and writing the reply included.
# Rows: the check per algorithm, production form (now and cost "" = Redis TIME and 1; 100 a second,
# burst 100), next to what any such script pays before its own logic: EVALSHA of an empty script with
# no arguments and with the check's six, then TIME, GET and SET ... PXAT added one by one (the last is
# the floor: the check's three Redis calls, its arguments, no logic); and INCR for scale. Last, GROUP (13)
# clients of one key each checked together in one call (the gateway's coalesced form, CheckCall.together),
# per check: 13 checks per Redis read is what the gateway's coalescing reaches under load.
#
# CLUSTER=yes runs the server as a one-node Redis Cluster that serves every slot (Redis then checks each
# key a command or a script touches against its slots): the GROUP row is then check_on_node, the form a
# gateway sends a Cluster node (the first client's keys declared, the others in ARGV), since check with
# several clients' keys declared is refused there (CROSSSLOT).
# Usage: bench/scripts/counter-scripts-instructions.sh   (env CALLS=5000 KEYSPACE=10000 GROUP=13 CLUSTER=no)
#   BASELINE_SCRIPT=file   another check script's text that takes the same ARGV (e.g. an earlier commit's catalog), measured in the
#                          same run as "baseline check" rows, e.g.:
#     git stash; ./mvnw -q -pl counter-scripts compile; java -cp counter-scripts/target/classes \
#       io.tollgate.counter.CounterScripts >/tmp/before.lua; git stash pop; ./mvnw -q -pl counter-scripts compile
# Needs valgrind (callgrind_control), redis-server, redis-cli, redis-benchmark, java 17.
set -euo pipefail
cd "$(dirname "$0")/../.."

CALLS=${CALLS:-5000}
KEYSPACE=${KEYSPACE:-10000}
source bench/scripts/common.sh
need valgrind callgrind_control redis-server redis-cli redis-benchmark java python3
SCRIPT=$(check_script)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
CLUSTER=${CLUSTER:-no}
CLUSTER_FLAGS=()
[[ "$CLUSTER" != yes ]] || CLUSTER_FLAGS=(--cluster-enabled yes --cluster-config-file "$TMP/nodes.conf")
valgrind --tool=callgrind --callgrind-out-file="$TMP/callgrind.out" \
  redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$TMP" "${CLUSTER_FLAGS[@]}" \
  >"$TMP/valgrind.log" 2>&1 &
SERVER_PID=$!
cli() { redis-cli -p "$PORT" "$@"; }
for _ in $(seq 1 150); do
  [[ "$(cli PING 2>/dev/null)" == PONG ]] && break
  sleep 0.2
done
[[ "$(cli PING 2>/dev/null)" == PONG ]] || { cat "$TMP/valgrind.log" >&2; exit 1; }
if [[ "$CLUSTER" == yes ]]; then
  cli CLUSTER ADDSLOTSRANGE 0 16383 >/dev/null
  for _ in $(seq 1 150); do
    cli CLUSTER INFO | grep -q '^cluster_state:ok' && break
    sleep 0.2
  done
  cli CLUSTER INFO | grep -q '^cluster_state:ok' || { echo "the one-node cluster did not come up" >&2; exit 1; }
fi

ARGS=('' token_bucket 100 1000 100 1) # the check's six ARGV for one key: now, then the key's five
load() { cli SCRIPT LOAD "$1"; }
EMPTY=$(load "return { 1, 0, 0, 0 }")
TIME=$(load "local t = redis.call('TIME') return { 1, 0, 0, 0 }")
GET=$(load "local t = redis.call('TIME') redis.call('GET', KEYS[1]) return { 1, 0, 0, 0 }")
FLOOR=$(load "local t = redis.call('TIME') redis.call('GET', KEYS[1]) \
redis.call('SET', KEYS[1], 'xxxxxxxxxxxxxxxxxxxxxxxxx', 'PXAT', string.format('%d', t[1] * 1000 + 60000)) return { 1, 0, 0, 0 }")
CHECK=$(load "$SCRIPT")
BASELINE=
[[ -z "${BASELINE_SCRIPT:-}" ]] || BASELINE=$(load "$(cat "$BASELINE_SCRIPT")")

# per_call NAME COMMAND...: instructions per call of COMMAND ({__rand_int__} in a key is randomised)
declare -A IR
per_call() {
  local name=$1; shift
  redis-benchmark -p "$PORT" -c 1 -n 500 -r "$KEYSPACE" "$@" >/dev/null
  callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
  redis-benchmark -p "$PORT" -c 1 -n "$CALLS" -r "$KEYSPACE" "$@" >/dev/null
  callgrind_control -d "$name" "$SERVER_PID" >/dev/null 2>&1
  local dump
  dump=$(ls -t "$TMP"/callgrind.out.* | head -1)
  IR[$name]=$(awk -v n="$CALLS" '/^totals:/ { printf "%.0f", $2 / n }' "$dump")
}

per_call incr INCR 'rl:bench:incr:{__rand_int__}'
per_call empty EVALSHA "$EMPTY" 1 'rl:bench:empty:{__rand_int__}'
per_call empty6 EVALSHA "$EMPTY" 1 'rl:bench:empty6:{__rand_int__}' "${ARGS[@]}"
per_call time EVALSHA "$TIME" 1 'rl:bench:time:{__rand_int__}' "${ARGS[@]}"
per_call get EVALSHA "$GET" 1 'rl:bench:get:{__rand_int__}' "${ARGS[@]}"
per_call floor EVALSHA "$FLOOR" 1 'rl:bench:floor:{__rand_int__}' "${ARGS[@]}"
for alg in token_bucket gcra sliding_window fixed_window; do
  per_call "$alg" EVALSHA "$CHECK" 1 "rl:bench:$alg:{__rand_int__}" '' "$alg" 100 1000 100 1
  [[ -z "$BASELINE" ]] || per_call "base-$alg" EVALSHA "$BASELINE" 1 "rl:bench:base-$alg:{__rand_int__}" '' "$alg" 100 1000 100 1
done
# a settlement (what a request really used, 3 less than its reservation) of a token bucket the check above wrote
per_call settle EVALSHA "$CHECK" 1 "rl:bench:token_bucket:{__rand_int__}" '' token_bucket 100 1000 100 s-3
# GROUP clients checked together in one call, as the gateway coalesces them: their keys, their policies,
# then each one's key count (1); all allowed (standalone Redis: no slot to share)
GROUP=${GROUP:-13}
group_keys=() group_args=() group_counts=()
for ((i = 1; i <= GROUP; i++)); do
  group_keys+=("rl:bench:group$i:{__rand_int__}")
  group_args+=(token_bucket 100 1000 100 1)
  group_counts+=(1)
done
# the same GROUP keys settled together (s-3 each, the gateway's coalesced settlements); and the floor of any
# settlement that updates the bucket in place: per key a GET and a SET ... PXAT, no logic, the same arguments
settle_args=()
for ((i = 1; i <= GROUP; i++)); do settle_args+=(token_bucket 100 1000 100 s-3); done
GROUP_FLOOR=$(load "local t = redis.call('TIME') for i = 1, #KEYS do redis.call('GET', KEYS[i]) \
redis.call('SET', KEYS[i], 'xxxxxxxxxxxxxxxxxxxxxxxxx', 'PXAT', string.format('%d', t[1] * 1000 + 60000)) end return { 1, 0, 0, 0 }")
if [[ "$CLUSTER" != yes ]]; then
  per_call group_settle EVALSHA "$CHECK" "$GROUP" "${group_keys[@]}" '' "${settle_args[@]}" "${group_counts[@]}"
  per_call group_floor EVALSHA "$GROUP_FLOOR" "$GROUP" "${group_keys[@]}" '' "${group_args[@]}" "${group_counts[@]}"
  per_call group_empty EVALSHA "$EMPTY" "$GROUP" "${group_keys[@]}" '' "${group_args[@]}" "${group_counts[@]}"
fi
if [[ "$CLUSTER" == yes ]]; then
  ON_NODE=$(load "$(check_script check_on_node)")
  per_call group EVALSHA "$ON_NODE" 1 "${group_keys[0]}" "$((GROUP - 1))" "${group_keys[@]:1}" '' \
    "${group_args[@]}" "${group_counts[@]}"
  GROUP_FORM=check_on_node
else
  per_call group EVALSHA "$CHECK" "$GROUP" "${group_keys[@]}" '' "${group_args[@]}" "${group_counts[@]}"
  GROUP_FORM=check
fi

echo "| command | instructions per call | ÷ floor |"
echo "|---|---:|---:|"
row() { printf '| %s | %s | %s |\n' "$1" "${IR[$2]}" "$(awk -v a="${IR[$2]}" -v b="${IR[floor]}" 'BEGIN { printf "%.2f", a / b }')"; }
row "INCR" incr
row "EVALSHA of an empty script, no ARGV" empty
row "the same with the check's six ARGV" empty6
row "+ TIME" time
row "+ GET" get
row "+ SET ... PXAT: the floor (the check's calls and arguments, no logic)" floor
for alg in token_bucket gcra sliding_window fixed_window; do
  row "check ($alg)" "$alg"
  [[ -z "$BASELINE" ]] || row "baseline check ($alg), ÷ this one's: $(awk -v a="${IR[base-$alg]}" -v b="${IR[$alg]}" 'BEGIN { printf "%.3f", a / b }')" "base-$alg"
done
row "settlement (token_bucket, s-3), ÷ its check's: $(awk -v a="${IR[settle]}" -v b="${IR[token_bucket]}" 'BEGIN { printf "%.2f", a / b }')" settle
printf '| %s (token_bucket), %s clients together in one call: per check | %s | %s |\n' "$GROUP_FORM" "$GROUP" \
  "$(awk -v a="${IR[group]}" -v g="$GROUP" 'BEGIN { printf "%.0f", a / g }')" \
  "$(awk -v a="${IR[group]}" -v g="$GROUP" -v b="${IR[floor]}" 'BEGIN { printf "%.2f", a / g / b }')"
if [[ "$CLUSTER" != yes ]]; then
  per_key() { awk -v a="${IR[$1]}" -v g="$GROUP" -v b="${IR[floor]}" 'BEGIN { printf "%.0f | %.2f", a / g, a / g / b }'; }
  printf '| check, %s settlements (token_bucket, s-3) together in one call: per settlement | %s |\n' "$GROUP" "$(per_key group_settle)"
  printf '| %s keys in one call, each a GET and a SET ... PXAT, no logic: per key | %s |\n' "$GROUP" "$(per_key group_floor)"
  printf '| %s keys in one call, an empty script: per key | %s |\n' "$GROUP" "$(per_key group_empty)"
fi
echo
echo "callgrind, $CALLS calls each after 500 warm-up calls, redis-benchmark -c 1 -r $KEYSPACE; cluster mode: $CLUSTER;" \
  "$(redis-server --version | awk '{print $3}'); $(date -u '+%Y-%m-%d %H:%M UTC'); check script $(cli SCRIPT LOAD "$SCRIPT" | cut -c1-12)"
