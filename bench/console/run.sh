#!/usr/bin/env bash
# Benchmark (not a test): what each console page weighs and how soon it is interactive, in a real headless
# Chromium (Debian's chromium and chromium-driver), against the packaged rules service on a database of its own.
#
# For each page, with a cold cache (emptied before the load) and a warm one: the bytes transferred (Navigation and
# Resource Timing transferSize: the document, its assets and the API calls it makes), domInteractive, and the
# page's own console-ready mark when it sets one; the median over ROUNDS loads, after a round not counted. The
# baseline is the login page of the same service, loaded without a session in the same rounds: the machine is
# shared and noisy, so the table gives each page's time as a ratio to it as well.
#
# Writes bench/results/<UTC date-time>-console.md. Needs java 17, chromium, chromedriver, curl, python3,
# createdb/dropdb and a local PostgreSQL (trust auth for user postgres), and the modules installed
# (./mvnw -B install -DskipTests): the driver (io.tollgate.e2e.bench.ConsoleWeight) is in e2e's test classes.
# Env: ROUNDS (5) PG_HOST (127.0.0.1) PG_PORT (5432)
#      RULES_JAVA_OPTS (the launcher's: -XX:+UseSerialGC -Xmx64m ... -XX:TieredStopAtLevel=1)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-5}
PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
RULES_JAVA_OPTS=${RULES_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx64m -XX:TrimNativeHeapInterval=1000 -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1 -XX:TieredStopAtLevel=1"}
DB=tollgate_bench_console_$$
TOKEN=bench-console-token
# shellcheck source=../rules-service/lib.sh
. "$ROOT/bench/rules-service/lib.sh"

for tool in java chromium chromedriver curl python3 createdb dropdb; do
  command -v "$tool" >/dev/null || { echo "missing $tool on PATH (chromium, chromedriver: apt-get install chromium chromium-driver)" >&2; exit 1; }
done
[ -f "$RULES_JAR" ] || { echo "no $RULES_JAR: ./mvnw -B install -DskipTests" >&2; exit 1; }

WORK=$(mktemp -d)
cleanup() {
  stop_rules_service
  rm -rf "$WORK"
}
trap cleanup EXIT

(cd "$ROOT" && ./mvnw -B -q -pl e2e test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$WORK/classpath.txt" >"$WORK/build.log" 2>&1) \
  || { cat "$WORK/build.log" >&2; echo "build failed: install the modules first: ./mvnw -B install -DskipTests" >&2; exit 1; }

# shellcheck disable=SC2086 # the options are words
MALLOC_ARENA_MAX=2 start_rules_service "$WORK/rules-service.log" $RULES_JAVA_OPTS

# what the pages show: a realistic small set of 20 rules, one of them edited (a history of two revisions),
# a tenant with a client that has an override
write() { # write METHOD PATH JSON [HEADER]
  curl -fs -o /dev/null -X "$1" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' ${4:+-H "$4"} \
    -d "$3" "$BASE$2"
}
for i in $(seq 1 20); do
  write POST /api/v1/rules "{\"id\":\"bench.r$i\",\"match\":{\"path\":\"/svc$i/**\"},\"key\":\"api_key\",\"limit\":100,\"period\":\"1m\"}"
done
write PUT /api/v1/rules/bench.r1 '{"id":"bench.r1","match":{"path":"/svc1/**"},"key":"api_key","limit":120,"period":"1m"}'
write PUT /api/v1/tenants/bench-tenant '{"label":"Bench tenant"}'
write PUT /api/v1/clients/key '{"tenant":"bench-tenant","label":"Bench client","overrides":{"bench.r2":{"limit":10}}}' \
  'X-API-Key: bench-key'

PAGES="/console/rules /console/rules/new /console/rules/bench.r1/edit /console/rules/bench.r1/history /console/import
/console/clients /console/tenants/bench-tenant /console/live /console/explain"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2086 # one argument per page
(cd "$ROOT" && java -cp "e2e/target/test-classes:$(cat "$WORK/classpath.txt")" io.tollgate.e2e.bench.ConsoleWeight \
  "$BASE" "$TOKEN" "$WORK/loads.jsonl" "$ROUNDS" $PAGES) >"$WORK/driver.log" 2>&1 \
  || { cat "$WORK/driver.log" >&2; exit 1; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT="$ROOT/bench/results/$STAMP-console.md"
{
  echo "# The console: page weight and time to interactive in headless Chromium"
  echo
  echo "Command: \`ROUNDS=$ROUNDS bench/console/run.sh\`"
  echo "at $(git -C "$ROOT" rev-parse --short HEAD); $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GB", $2/1048576}' /proc/meminfo), $(chromium --version 2>/dev/null | head -1),"
  echo "$(java -version 2>&1 | head -1); rules service: the packaged fast-jar, \`$RULES_JAVA_OPTS\`, its own PostgreSQL database;"
  echo "load average before: $LOAD_BEFORE, after: $LOAD_AFTER. Browser and service share the machine, on loopback."
  echo
  python3 "$ROOT/bench/console/table.py" "$WORK/loads.jsonl"
} >"$OUT"
cat "$OUT"
echo "written: $OUT" >&2
