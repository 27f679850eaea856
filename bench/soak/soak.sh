#!/usr/bin/env bash
# Soak: steady load over many distinct API keys through the running stack (./tollgate up), bounded in time.
# Reports RSS of every process at warm-up and at the end, Redis memory and key count, errors, and how long
# the keys take to expire once the load stops.
#
#   bench/soak/soak.sh            (env: DURATION seconds [600], KEYS [100000], CONNECTIONS per gateway [4],
#                                  WARMUP seconds [60], DRAIN_LIMIT seconds [180])
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
RUN="$ROOT/.tollgate/run"
DURATION=${DURATION:-600}
KEYS=${KEYS:-100000}
CONNECTIONS=${CONNECTIONS:-4}
WARMUP=${WARMUP:-60}
DRAIN_LIMIT=${DRAIN_LIMIT:-180}
GATEWAY_PORTS=${TOLLGATE_GATEWAY_PORTS:-"8080 8082 8083"}
REDIS_BASE_PORT=${TOLLGATE_REDIS_BASE_PORT:-7101}

command -v wrk >/dev/null || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq wrk >/dev/null; } ||
  { echo "soak: wrk is missing (apt-get install wrk)" >&2; exit 1; }
[ -f "$RUN/gateway-1.pid" ] && kill -0 "$(cat "$RUN/gateway-1.pid")" 2>/dev/null ||
  { echo "soak: the stack does not run: ./tollgate up first" >&2; exit 1; }

rss_mb() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo "-"; }
snapshot() { # name=rss_mb for every process the launcher started
  local f
  for f in "$RUN"/*.pid; do echo "$(basename "$f" .pid)=$(rss_mb "$(cat "$f")")"; done
}
primaries() {
  redis-cli -p "$REDIS_BASE_PORT" cluster nodes | awk '$3 ~ /master/ && $3 !~ /fail/ {split($2, a, "[:@]"); print a[2]}'
}
redis_keys() { local p n=0; for p in $(primaries); do n=$((n + $(redis-cli -p "$p" dbsize))); done; echo $n; }
redis_memory() { local p; for p in $(primaries); do printf '%s:%s ' "$p" "$(redis-cli -p "$p" info memory | awk -F: '/^used_memory_human/ {gsub("\r", "", $2); print $2}')"; done; }

out=$(mktemp -d)
echo "soak: ${DURATION}s over $KEYS keys, $CONNECTIONS connections per gateway ($GATEWAY_PORTS), load average $(cut -d' ' -f1 /proc/loadavg)"
before=$(snapshot)
for port in $GATEWAY_PORTS; do
  KEYS=$KEYS wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 5s -s bench/soak/random-keys.lua \
    "http://127.0.0.1:$port" >"$out/wrk-$port.txt" 2>&1 &
done
sleep "$WARMUP"
warm=$(snapshot)
warm_keys=$(redis_keys)
sleep $((DURATION - WARMUP - 5))
end=$(snapshot)
peak_keys=$(redis_keys)
peak_memory=$(redis_memory)
wait
stopped=$SECONDS
drained=""
while [ $((SECONDS - stopped)) -lt "$DRAIN_LIMIT" ]; do
  left=$(redis_keys)
  if [ "$left" -le $((peak_keys / 100)) ]; then drained=$((SECONDS - stopped)); break; fi
  sleep 5
done
after_memory=$(redis_memory)

echo
echo "| process | RSS before (MB) | after ${WARMUP}s warm-up (MB) | at end (MB) | growth after warm-up |"
echo "|---|---|---|---|---|"
for entry in $end; do
  name=${entry%%=*}
  b=$(echo "$before" | tr ' ' '\n' | sed -n "s/^$name=//p")
  w=$(echo "$warm" | tr ' ' '\n' | sed -n "s/^$name=//p")
  e=${entry#*=}
  growth=$(awk -v w="$w" -v e="$e" 'BEGIN { if (w > 0) printf "%+.1f%%", (e - w) * 100 / w; else print "-" }')
  echo "| $name | $b | $w | $e | $growth |"
done
echo
grep -h '^SOAK' "$out"/wrk-*.txt | awk '{for (i = 2; i <= NF; i++) {split($i, kv, "="); s[kv[1]] += kv[2]; if (kv[1] ~ /p99/ && kv[2] > p99) p99 = kv[2]}}
  END {printf "answers: %d allowed, %d limited (429), %d errors (5xx), %d socket errors; worst p99 %.1f ms; %.0f req/s\n",
       s["ok"], s["limited"], s["errors"], s["socket_errors"], p99 / 1000, (s["ok"] + s["limited"] + s["errors"]) / '"$DURATION"'}'
echo "Redis keys: $warm_keys after warm-up, $peak_keys 5 s before the end; memory then: $peak_memory"
echo "after the load stopped: keys fell to 1% of the peak in ${drained:-more than $DRAIN_LIMIT }s; memory then: $after_memory"
rm -rf "$out"
