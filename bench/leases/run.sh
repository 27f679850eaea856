#!/usr/bin/env bash
# What token leases buy: three gateways of the packaged jar, one Redis, an nginx backend; one wrk per gateway,
# side by side. Variants, each measured in every round, the order rotating from round to round:
#   none      a path without a rule (the baseline)
#   hot       ONE API key on a token bucket whose limit is at least 1.25 × the baseline's req/s (so the key runs
#             at about 80 % of its limit at saturation, at most), leases on
#   hot-off   the same rule with "lease": "off": every request checked in the store
#   keys      10,000 API keys on a token bucket that never rejects, leases on
#   keys-off  the same with "lease": "off"
#   rejected  ONE API key flooding a rule of 1 an hour: every request but the first rejected
# The gateways hold a ladder of hot rules (limits from 2,000 to about 60,000 a second, 12 % apart); after a
# warm-up, a calibration run of the baseline picks the lowest limit of at least 1.25 × its req/s, and the
# rounds send the hot variants to that rule's path. Per variant and round: req/s (the three wrk summed), gateway CPU per request (the three gateways),
# Redis CPU per request and Redis calls per request (INFO commandstats: EVALSHA and EVAL).
#
# Goals (issue "token leases"): hot / none req/s >= 0.9, hot's store calls per request <= 0.05 and Redis CPU per
# request <= 1 µs; keys / keys-off req/s >= 0.98; rejected: 0 store calls per rejected request.
#
# Writes bench/results/<UTC date-time>-leases.md. Needs wrk, nginx, redis-server, redis-cli, python3, curl and
# ./mvnw -B install -DskipTests -pl gateway-service -am done.
# Env: DURATION (10s) WARMUP (8s) ROUNDS (3) CONNECTIONS (16 per gateway) GATEWAY_JAVA_OPTS
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-8s}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-16}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx128m"}
JAR="$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"
[ -f "$JAR" ] || { echo "no $JAR: ./mvnw -B install -DskipTests -pl gateway-service -am" >&2; exit 1; }

# shellcheck source=../gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need wrk nginx redis-server redis-cli curl python3

backend
start_store standalone
REDIS_PORT=${REDIS_PORTS[0]}
REDIS_PID=${REDIS_PIDS[0]}
GATEWAYS=(gw1 gw2 gw3)

LADDER=$(python3 -c 'print(" ".join(str(int(2000 * 1.12 ** i)) for i in range(31)))')
hot_rules() { # one hot rule and its "lease": "off" twin per limit of the ladder
  local limit
  for limit in $LADDER; do
    echo "{\"id\":\"hot-$limit\",\"match\":{\"path\":\"/hot-$limit/**\"},\"key\":\"api_key\",\"limit\":$limit,\"period\":\"1s\",\"burst\":$limit},"
    echo "{\"id\":\"hot-off-$limit\",\"match\":{\"path\":\"/hot-off-$limit/**\"},\"key\":\"api_key\",\"limit\":$limit,\"period\":\"1s\",\"burst\":$limit,\"lease\":\"off\"},"
  done
}
rules() { # the rule set of every gateway
  cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
{"id":"limited","match":{"path":"/limited/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
$(hot_rules)
{"id":"keys","match":{"path":"/keys/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000},
{"id":"keys-off","match":{"path":"/keys-off/**"},"key":"api_key","limit":1000000000,"period":"1s","burst":1000000000,
 "lease":"off"},
{"id":"rejected","match":{"path":"/rejected/**"},"key":"api_key","limit":1,"period":"1h","burst":1}]}
JSON
}
start_fleet() {
  local name
  for name in "${GATEWAYS[@]}"; do
    echo 3 >"$WORK/rules-$name.json.gateways" # the fleet's size, as the rules service would tell it
    launch_gateway "$name" "$JAR" "$GATEWAY_JAVA_OPTS"
  done
  for name in "${GATEWAYS[@]}"; do await_gateway "$name"; done
}

TICK=$(getconf CLK_TCK)
run() { # run VARIANT DURATION -> "variant rps gateway_cpu_us redis_cpu_us redis_calls_per_request non200_share"
  local variant=$1 path=$1 g0 g1 r0 r1 c0 c1 name keys=1 fixed=hot-client expect=0
  case $variant in
    none) path=free ;;
    hot | hot-off) path=$variant-$HOT_LIMIT expect=1 ;; # a 429 says the key ran past its limit: reported
    keys | keys-off) keys=10000 fixed= ;;
    rejected) fixed="rejected-$RANDOM$RANDOM" expect=1 ;;
  esac
  local loads=()
  g0=$(cpu "${GW_PID[@]}") r0=$(cpu "$REDIS_PID") c0=$(script_calls "$REDIS_PORT")
  for name in "${GATEWAYS[@]}"; do
    PATH_TO=/$path/x KEYS=$keys FIXED_KEY=$fixed KEY_PREFIX=client- THREADS=1 \
      wrk -t1 -c"$CONNECTIONS" -d"$2" --latency -s "$ROOT/bench/compare/keys.lua" \
      "http://127.0.0.1:${GW_PORT[$name]}" >"$WORK/wrk-$name.out" &
    loads+=($!)
  done
  wait "${loads[@]}"
  g1=$(cpu "${GW_PID[@]}") r1=$(cpu "$REDIS_PID") c1=$(script_calls "$REDIS_PORT")
  cat "$WORK"/wrk-gw*.out | awk -v variant="$variant" -v g=$((g1 - g0)) -v r=$((r1 - r0)) -v c=$((c1 - c0)) \
    -v hz="$TICK" -v expect="$expect" '/^RESULT/{
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      n += v["requests"]; rps += v["rps"]; bad += v["non2xx"] + v["socket_errors"] }
    END {
      if (!expect && bad > 0) { print variant " answered other than 200: " bad > "/dev/stderr"; exit 1 }
      printf "%s %.0f %.1f %.3f %.4f %.4f\n", variant, rps, g * 1e6 / hz / n, r * 1e6 / hz / n, c / n, bad / n }'
}

rules
start_fleet
VARIANTS=(none hot hot-off keys keys-off rejected)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "warm-up..." >&2
HOT_LIMIT=$(echo "$LADDER" | awk '{print $1}')
for variant in "${VARIANTS[@]}"; do run "$variant" "$WARMUP" >/dev/null 2>&1 || true; done
echo "calibration: the baseline's req/s..." >&2
run none "$WARMUP" >/dev/null
BASE=$(run none "$DURATION" | awk '{print $2}')
HOT_LIMIT=$(for limit in $LADDER; do [ "$limit" -ge "$(python3 -c "print(int($BASE * 1.25))")" ] && { echo "$limit"; break; }; done)
[ -n "$HOT_LIMIT" ] || { echo "the baseline's $BASE req/s is above the ladder" >&2; exit 1; }
echo "baseline $BASE req/s: the hot rule allows $HOT_LIMIT a second" >&2
for variant in hot hot-off; do run "$variant" "$WARMUP" >/dev/null; done
: >"$WORK/runs"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  for i in "${!VARIANTS[@]}"; do
    run "${VARIANTS[$(((i + round - 1) % ${#VARIANTS[@]}))]}" "$DURATION" >>"$WORK/runs"
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
LEASE_METRICS=$(curl -fs "http://127.0.0.1:${GW_MGMT[gw1]}/q/metrics" | grep -E "^tollgate_leases_[a-z_]+(_total)?\\{rule=\"hot-$HOT_LIMIT\"\\}" || true)

STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT="$ROOT/bench/results/$STAMP-leases.md"
{
  echo "# What token leases buy"
  echo
  echo "Command: \`DURATION=$DURATION WARMUP=$WARMUP ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS bench/leases/run.sh\`"
  run_context
  echo "Three gateways and three wrk (one per gateway, $CONNECTIONS connections each), Redis and nginx share the"
  echo "machine's cores. Calibration: $BASE req/s without a rule, so the hot rule allows $HOT_LIMIT a second."
  echo
  python3 - "$WORK/runs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, *values = line.split()
    runs.setdefault(name, []).append([float(v) for v in values])
def median(name, i):
    return statistics.median(r[i] for r in runs[name])
labels = {"none": "no rule", "hot": "one key at ~80 % of its limit, leases on",
          "hot-off": "the same, \"lease\": \"off\"", "keys": "10,000 keys, leases on",
          "keys-off": "10,000 keys, \"lease\": \"off\"", "rejected": "one key, every request but the first rejected"}
print("| variant | what | req/s | gateway CPU per request, µs | Redis CPU per request, µs | Redis calls per request | not 200 |")
print("|---|---|---:|---:|---:|---:|---:|")
for name in labels:
    print(f"| {name} | {labels[name]} | {median(name, 0):,.0f} | {median(name, 1):.1f} | {median(name, 2):.3f} "
          f"| {median(name, 3):.4f} | {median(name, 4):.1%} |")
print()
print(f"- hot / none, req/s: **{median('hot', 0) / median('none', 0):.3f}** (goal: >= 0.9); hot-off / none: "
      f"{median('hot-off', 0) / median('none', 0):.3f}.")
print(f"- hot: Redis calls per request **{median('hot', 3):.4f}** (goal: <= 0.05), Redis CPU per request "
      f"**{median('hot', 2):.3f} µs** (goal: <= 1 µs).")
print(f"- keys / keys-off, req/s: **{median('keys', 0) / median('keys-off', 0):.3f}** (goal: >= 0.98).")
print(f"- rejected: Redis calls per request **{median('rejected', 3):.4f}** (goal: 0 per rejected request).")
print()
print("Rounds (req/s):")
for name in labels:
    print(f"- {name}: " + ", ".join(f"{r[0]:,.0f}" for r in runs[name]))
PY
  echo
  echo "Leases of the hot rule on gw1 at the end:"
  echo
  echo '```'
  echo "$LEASE_METRICS"
  echo '```'
} >"$OUT"
cat "$OUT"
echo "written: $OUT" >&2
