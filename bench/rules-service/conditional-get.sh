#!/usr/bin/env bash
# Benchmark (not a test): how fast the rules service answers a gateway's conditional poll
# (GET /api/v1/rules with If-None-Match naming the current version -> 304), against a plain
# GET /q/health/live on the same instance (its management interface), in the same run, alternating ROUNDS times.
#
# Needs: wrk, curl, psql/createdb/dropdb, a local PostgreSQL (trust auth for user postgres),
# and the packaged service (built here if missing). Everything runs on loopback.
# Usage: bench/rules-service/conditional-get.sh     (env: DURATION [10s] CONNECTIONS [50] THREADS [2] ROUNDS [3])
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
DB=tollgate_bench_$$
TOKEN=bench-token
# shellcheck source=lib.sh
. "$ROOT/bench/rules-service/lib.sh"
LOG=$(mktemp)

command -v wrk >/dev/null || { echo "wrk is missing (apt-get install -y wrk)" >&2; exit 1; }
if [ ! -f "$RULES_JAR" ]; then
  (cd "$ROOT" && ./mvnw -B -q -pl rules-service package -DskipTests)
fi

cleanup() {
  stop_rules_service
  rm -f "$LOG"
}
trap cleanup EXIT
start_rules_service "$LOG"

# a realistic small set: 20 rules
for i in $(seq 1 20); do
  curl -fs -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"id\":\"bench.r$i\",\"match\":{\"path\":\"/svc$i/**\"},\"key\":\"api_key\",\"limit\":100,\"period\":\"1m\"}" \
    "$BASE/api/v1/rules"
done
ETAG=$(curl -fsI -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/rules" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" -H "If-None-Match: $ETAG" "$BASE/api/v1/rules")
[ "$STATUS" = 304 ] || { echo "expected 304 for If-None-Match $ETAG, got $STATUS" >&2; exit 1; }

run() { # $1 = label, rest = wrk arguments; prints requests/s
  local out
  local label=$1; shift
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$@")
  if grep -q "Non-2xx or 3xx" <<<"$out"; then echo "$label: unexpected status codes" >&2; echo "$out" >&2; exit 1; fi
  awk '/Requests\/sec/{print $2}' <<<"$out"
}

# warm-up (JIT), not reported
wrk -t"$THREADS" -c"$CONNECTIONS" -d5s -H "Authorization: Bearer $TOKEN" -H "If-None-Match: $ETAG" -H 'Tollgate-Gateway: bench' "$BASE/api/v1/rules" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d5s "$MANAGEMENT/q/health/live" >/dev/null

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(nproc) cores  wrk -t$THREADS -c$CONNECTIONS -d$DURATION  rules: 20, version ${ETAG}"
echo
echo "| round | GET /api/v1/rules 304 (req/s) | GET /q/health/live (req/s) | ratio 304 / live |"
echo "|---|---|---|---|"
SUM304=0; SUMLIVE=0
for round in $(seq 1 "$ROUNDS"); do
  r304=$(run conditional -H "Authorization: Bearer $TOKEN" -H "If-None-Match: $ETAG" -H 'Tollgate-Gateway: bench' "$BASE/api/v1/rules")
  rlive=$(run live "$MANAGEMENT/q/health/live")
  ratio=$(awk -v a="$r304" -v b="$rlive" 'BEGIN{printf "%.2f", a/b}')
  echo "| $round | $r304 | $rlive | $ratio |"
  SUM304=$(awk -v s="$SUM304" -v a="$r304" 'BEGIN{print s+a}')
  SUMLIVE=$(awk -v s="$SUMLIVE" -v a="$rlive" 'BEGIN{print s+a}')
done
awk -v a="$SUM304" -v b="$SUMLIVE" -v n="$ROUNDS" \
  'BEGIN{printf "| mean | %.0f | %.0f | %.2f |\n", a/n, b/n, a/b}'
