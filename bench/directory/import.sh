#!/usr/bin/env bash
# Benchmark (not a test): the client directory at a million clients. Generates CLIENTS NDJSON clients over
# TENANTS tenants and three plans (1 in 100 with an override), starts the packaged rules service on a database
# of its own, and times end to end (curl, from the first byte sent to the answer):
#   - the bulk import's dry run, the import itself, and the same import again (nothing changes);
#   - a full read of the directory as a new gateway does it: GET /api/v1/directory?since=0&limit=PAGE, page
#     after page until more is false.
# Writes bench/results/<UTC date-time>-directory-import.md with the command and the figures.
#
# Needs: java 17, curl, python3, createdb/dropdb/psql, a local PostgreSQL (trust auth for user postgres); the
# packaged service (built here if missing). Everything runs on loopback.
# Usage: bench/directory/import.sh   (env: CLIENTS [1000000] TENANTS [3000] PAGE [50000] JAVA_OPTS [-Xmx512m])
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLIENTS=${CLIENTS:-1000000}
TENANTS=${TENANTS:-3000}
PAGE=${PAGE:-50000}
JAVA_OPTS=${JAVA_OPTS:--Xmx512m}
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
DB=tollgate_bench_dir_$$
TOKEN=bench-token
# shellcheck source=../rules-service/lib.sh
. "$ROOT/bench/rules-service/lib.sh"
HELPER="$ROOT/bench/directory/directory.py"
WORK=$(mktemp -d)
STARTED=$(date -u +%Y-%m-%dT%H%MZ)

for tool in java curl python3 createdb dropdb psql; do
  command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done
if [ ! -f "$RULES_JAR" ]; then
  (cd "$ROOT" && ./mvnw -B -q -pl rules-service -am package -DskipTests)
fi

cleanup() {
  stop_rules_service
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "generating $CLIENTS clients over $TENANTS tenants" >&2
python3 "$HELPER" generate "$CLIENTS" "$TENANTS" "$WORK/clients.ndjson"
BYTES=$(stat -c %s "$WORK/clients.ndjson")

# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
start_rules_service "$WORK/service.log" $JAVA_OPTS

# the rules the clients' plans and overrides name
python3 "$HELPER" put-rules "$BASE" "$TOKEN"
echo "putting $TENANTS tenants" >&2
python3 "$HELPER" put-tenants "$BASE" "$TOKEN" "$WORK/clients.ndjson.tenants"

run_import() { # $1 = query string; prints "<status> <seconds> <answer>"
  curl -sS -X PUT -T "$WORK/clients.ndjson" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/x-ndjson' -o "$WORK/answer.json" -w '%{http_code} %{time_total}' \
    "$BASE/api/v1/clients$1"
  echo " $(cat "$WORK/answer.json")"
}
row() { # $1 = label, $2 = run_import output
  local status seconds answer
  read -r status seconds answer <<<"$2"
  [ "$status" = 200 ] || { echo "$1: HTTP $status $answer" >&2; tail -50 "$WORK/service.log" >&2; exit 1; }
  printf '| %s | %.1f | `%s` |\n' "$1" "$seconds" "$answer"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "importing (dry run, import, import again)" >&2
DRY=$(run_import "?dry_run=true")
IMPORT=$(run_import "")
AGAIN=$(run_import "")
echo "reading the whole directory" >&2
read -r PAGES ENTRIES READ_SECONDS LAST_SEQ <<<"$(python3 "$HELPER" read-all "$BASE" "$TOKEN" "$PAGE")"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
RSS_KB=$(ps -o rss= -p "$RULES_PID" | tr -d ' ')
STEPS=$(grep -o 'client import by .*' "$WORK/service.log" | sed 's/^/    /')

RESULT="$ROOT/bench/results/$STARTED-directory-import.md"
{
  echo "# Client directory: bulk import of $CLIENTS clients, full read"
  echo
  echo "- date: $STARTED"
  echo "- command: \`bench/directory/import.sh\` (CLIENTS=$CLIENTS TENANTS=$TENANTS PAGE=$PAGE JAVA_OPTS=\"$JAVA_OPTS\")"
  echo "- machine: $(nproc) cores, $(uname -sr); load average before: $LOAD_BEFORE, after: $LOAD_AFTER"
  echo "- rules service: $(git -C "$ROOT" describe --always --dirty), the fast-jar of this tree, $(java -version 2>&1 | head -1)"
  echo "- PostgreSQL: $(psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tAc 'show server_version') (shared_buffers $(psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tAc 'show shared_buffers')), on loopback"
  echo "- body: $BYTES bytes of NDJSON, $CLIENTS lines over $TENANTS tenants, plans free/pro/enterprise, 1 in 100 with an override"
  echo
  echo "## Import (end to end: curl from the first byte sent to the answer)"
  echo
  echo "| run | seconds | answer |"
  echo "|---|---|---|"
  row "dry run" "$DRY"
  row "import" "$IMPORT"
  row "same import again (no change)" "$AGAIN"
  echo
  echo "The service's own account of each (its log):"
  echo
  echo "$STEPS"
  echo
  echo "## Full read, as a new gateway does it"
  echo
  echo "| pages of $PAGE | entries | seconds | last seq |"
  echo "|---|---|---|---|"
  echo "| $PAGES | $ENTRIES | $READ_SECONDS | $LAST_SEQ |"
  echo
  echo "Rules service RSS after: $((RSS_KB / 1024)) MB."
} >"$RESULT"
cat "$RESULT"
