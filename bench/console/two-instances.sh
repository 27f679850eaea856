#!/usr/bin/env bash
# Benchmark (not a test): a console page served by two rules-service instances behind nginx (round robin, no
# stickiness), against the same page served by one instance directly, in headless Chromium, in the same run,
# taking turns, a cold cache each load: domInteractive (Navigation Timing) and the page's console-ready mark,
# medians over ROUNDS loads each after a round not counted. The goal: two ÷ one ≤ 1.2.
#
# Runs io.tollgate.e2e.bench.ConsoleThroughBalancerBench (e2e's test classes) on the e2e harness: the packaged
# rules service (twice, on one database of its own on the local PostgreSQL), Debian's nginx, chromium and
# chromium-driver. Builds what it needs from the checkout, installs nothing into the Maven repository.
# Writes bench/results/<UTC date-time>-console-two-instances.md.
# Env: ROUNDS (15) PAGE (/console/rules)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-15}
PAGE=${PAGE:-/console/rules}
for tool in java chromium chromedriver python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool on PATH (apt-get install chromium chromium-driver nginx)" >&2; exit 1; }
done
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "missing nginx (apt-get install nginx)" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
./mvnw -B -q package -DskipTests -Dformat.skip -pl rules-service,demo-backend -am >"$WORK/build.log" 2>&1 \
  || { cat "$WORK/build.log" >&2; exit 1; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
./mvnw -B -q -pl e2e -am verify -Dformat.skip -Dtest=ConsoleThroughBalancerBench -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=none -Dtollgate.e2e.full-jit=true -Dtollgate.bench.out="$WORK/table.md" -Dtollgate.bench.rounds="$ROUNDS" \
  -Dtollgate.bench.page="$PAGE" \
  >"$WORK/run.log" 2>&1 || { cat "$WORK/run.log" >&2; exit 1; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT="$ROOT/bench/results/$STAMP-console-two-instances.md"
{
  echo "# A console page through two rules-service instances behind nginx, against one instance"
  echo
  echo "Command: \`ROUNDS=$ROUNDS bench/console/two-instances.sh\`"
  echo "at $(git rev-parse --short HEAD); $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GB", $2/1048576}' /proc/meminfo), $(chromium --version 2>/dev/null | head -1),"
  echo "$("$(command -v nginx || echo /usr/sbin/nginx)" -v 2>&1), $(java -version 2>&1 | head -1); each instance the packaged fast-jar as the e2e"
  echo "harness runs it (\`-Xmx256m -XX:+UseSerialGC\`), both on one PostgreSQL database; the page shows 20 rules."
  echo "Load average before: $LOAD_BEFORE, after: $LOAD_AFTER. Browser, nginx and services share the machine, on loopback."
  echo
  cat "$WORK/table.md"
} >"$OUT"
cat "$OUT"
echo "written: $OUT" >&2
