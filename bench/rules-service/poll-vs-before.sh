#!/usr/bin/env bash
# Benchmark (not a test): the gateway's conditional poll on this build against an earlier one, in the same run.
# Two packaged rules services, each on a PostgreSQL database of its own with the same 20 rules: this tree's
# (called with a gateway-scope token: token check and the shared gateway registry on the path) and BEFORE_JAR's
# (called with its admin token). wrk sends GET /api/v1/rules with If-None-Match naming the current version,
# Authorization and Tollgate-Gateway (answered 304) to each in turn, ROUNDS rounds after a warm-up of each, the
# order swapped from round to round. The table gives req/s per round, the ratio this / before per round and the
# ratio of the medians; and each service's CPU a poll (its JVM's user + system time over the round ÷ the polls
# answered), which a busy machine disturbs far less than req/s: polls per CPU-second is what req/s would be with
# the cores to itself.
#
# Writes bench/results/<UTC date-time>-poll-vs-before.md. Needs wrk, curl, java 17, psql/createdb/dropdb and a
# local PostgreSQL (trust auth for user postgres); this tree's packaged rules service and the earlier one's
# (in a worktree of its own: ./mvnw -B -q -pl rules-service -am package -DskipTests there).
# Usage: BEFORE_JAR=<worktree>/rules-service/target/quarkus-app/quarkus-run.jar bench/rules-service/poll-vs-before.sh
#   env: BEFORE (a name for the earlier build, e.g. its commit) DURATION [10s] WARMUP [10s] ROUNDS [6]
#        CONNECTIONS [50] THREADS [2] JAVA_OPTS [-Xmx256m]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${BEFORE_JAR:?name the earlier build: BEFORE_JAR=<its rules-service/target/quarkus-app/quarkus-run.jar>}"
BEFORE=${BEFORE:-earlier build}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-10s}
ROUNDS=${ROUNDS:-6}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
JAVA_OPTS=${JAVA_OPTS:--Xmx256m}
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
TOKEN=bench-token
GATEWAY_TOKEN=bench-gateway-token
STARTED=$(date -u +%Y-%m-%dT%H%MZ)
# shellcheck source=lib.sh
. "$ROOT/bench/rules-service/lib.sh"
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
[ -f "$RULES_JAR" ] || { echo "package this tree first: ./mvnw -B -q -pl rules-service -am package -DskipTests" >&2; exit 1; }
LOGS=$(mktemp -d)
THIS_JAR=$RULES_JAR

declare -A PID_OF DB_OF BASE_OF AUTH_OF
stop_all() {
  local name
  for name in "${!PID_OF[@]}"; do
    RULES_PID=${PID_OF[$name]} DB=${DB_OF[$name]} stop_rules_service
  done
  rm -rf "$LOGS"
}
trap stop_all EXIT

# start NAME JAR AUTH JAVA_OPTION...: one service on a database of its own, 20 rules, polled with AUTH
start() {
  local name=$1 jar=$2 auth=$3 i
  shift 3
  DB=tollgate_bench_poll_${name}_$$ RULES_JAR=$jar
  # shellcheck disable=SC2086 # the JVM options are a list
  start_rules_service "$LOGS/$name.log" $JAVA_OPTS "$@"
  PID_OF[$name]=$RULES_PID DB_OF[$name]=$DB BASE_OF[$name]=$BASE AUTH_OF[$name]=$auth
  for i in $(seq 1 20); do
    curl -fs -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
      -d "{\"id\":\"bench.r$i\",\"match\":{\"path\":\"/svc$i/**\"},\"key\":\"api_key\",\"limit\":100,\"period\":\"1m\"}" \
      "$BASE/api/v1/rules"
  done
}
start this "$THIS_JAR" "$GATEWAY_TOKEN" \
  -Dtollgate.admin.tokens.gateways.token=$GATEWAY_TOKEN -Dtollgate.admin.tokens.gateways.scope=gateway
start before "$BEFORE_JAR" "$TOKEN"

# poll NAME DURATION: wrk's req/s for the conditional poll of NAME; every answer must be 304
poll() {
  local base=${BASE_OF[$1]} auth=${AUTH_OF[$1]} etag status out
  etag=$(curl -fsI -H "Authorization: Bearer $auth" "$base/api/v1/rules" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
  status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $auth" -H "If-None-Match: $etag" "$base/api/v1/rules")
  [ "$status" = 304 ] || { echo "$1: expected 304 for If-None-Match $etag, got $status" >&2; exit 1; }
  local ticks_before ticks_after requests
  ticks_before=$(cpu_ticks "${PID_OF[$1]}")
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2" -H "Authorization: Bearer $auth" -H "If-None-Match: $etag" \
    -H 'Tollgate-Gateway: bench-gateway' "$base/api/v1/rules")
  ticks_after=$(cpu_ticks "${PID_OF[$1]}")
  if grep -q "Non-2xx or 3xx" <<<"$out"; then echo "$1: answers other than 304" >&2; echo "$out" >&2; exit 1; fi
  requests=$(awk '/requests in/{print $1}' <<<"$out")
  # req/s, then the service's CPU per poll in µs (user + system, of its JVM only: not PostgreSQL's)
  echo "$(awk '/Requests\/sec/{print $2}' <<<"$out") $(awk -v t=$((ticks_after - ticks_before)) -v hz="$(getconf CLK_TCK)" \
    -v n="$requests" 'BEGIN{printf "%.1f", t * 1e6 / hz / n}')"
}
# cpu_ticks PID: the process's user + system CPU, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

poll this "$WARMUP" >/dev/null
poll before "$WARMUP" >/dev/null
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
ROWS="" THIS=() EARLIER=() THIS_CPU=() EARLIER_CPU=()
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then
    read -r a ac <<<"$(poll this "$DURATION")"; read -r b bc <<<"$(poll before "$DURATION")"; order="this, then before"
  else
    read -r b bc <<<"$(poll before "$DURATION")"; read -r a ac <<<"$(poll this "$DURATION")"; order="before, then this"
  fi
  THIS+=("$a") EARLIER+=("$b") THIS_CPU+=("$ac") EARLIER_CPU+=("$bc")
  ROWS+="| $round | $order | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a/b}') | $ac | $bc | $(awk -v a="$ac" -v b="$bc" 'BEGIN{printf "%.2f", b/a}') |"$'\n'
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
M_THIS=$(median "${THIS[@]}")
M_BEFORE=$(median "${EARLIER[@]}")
M_THIS_CPU=$(median "${THIS_CPU[@]}")
M_BEFORE_CPU=$(median "${EARLIER_CPU[@]}")

RESULT="$ROOT/bench/results/$STARTED-poll-vs-before.md"
{
  echo "# The conditional poll: this build against $BEFORE"
  echo
  echo "- date: $STARTED"
  echo "- command: \`BEFORE_JAR=... BEFORE=\"$BEFORE\" bench/rules-service/poll-vs-before.sh\` (DURATION=$DURATION WARMUP=$WARMUP ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS THREADS=$THREADS)"
  echo "- this build: $(git -C "$ROOT" describe --always --dirty); $(nproc) cores, $(java -version 2>&1 | head -1), JVM \`$JAVA_OPTS\`"
  echo "- load average before: $LOAD_BEFORE, after: $LOAD_AFTER; PostgreSQL $(psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tAc 'show server_version' | cut -d' ' -f1) on loopback"
  echo "- the poll: \`GET /api/v1/rules\`, \`If-None-Match\` naming the current version, \`Authorization: Bearer\` (this build: a"
  echo "  gateway-scope token; before: its admin token), \`Tollgate-Gateway: bench-gateway\`; every answer 304"
  echo
  echo "| round | order | this build, req/s | $BEFORE, req/s | ratio | this build, CPU µs a poll | $BEFORE, CPU µs a poll | polls per CPU-second, this ÷ before |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  printf '%s' "$ROWS"
  echo
  echo "Medians: this build $M_THIS req/s, $BEFORE $M_BEFORE req/s; ratio of the medians: **$(awk -v a="$M_THIS" -v b="$M_BEFORE" 'BEGIN{printf "%.2f", a/b}')**."
  echo "The service's CPU a poll (its JVM only), medians: this build $M_THIS_CPU µs, $BEFORE $M_BEFORE_CPU µs; polls per"
  echo "CPU-second, this ÷ before: **$(awk -v a="$M_THIS_CPU" -v b="$M_BEFORE_CPU" 'BEGIN{printf "%.2f", b/a}')** (what req/s would be on a machine"
  echo "with nothing else running, whose cores the two builds share alike; req/s on a busy machine follow what else runs)."
} >"$RESULT"
cat "$RESULT"
