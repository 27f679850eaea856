#!/usr/bin/env bash
# What the canonical reading of a request path costs the gateway per request, as a difference against the same
# request with its canonical path already given, measured in ONE JMH run (CanonicalPathBenchmark): a typical path
# (already canonical: the common case) and a respelled one (escapes, a dot segment, //).
#
# Needs: java 17, python3. Builds the benchmark from this checkout (./mvnw -Pbench package -pl bench/check -am).
# Env: FORKS (2) WARMUP (3) ITERATIONS (5) ITERATION_SECONDS (1)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/check"
(cd "$ROOT" && ./mvnw -B -q -Pbench package -DskipTests -Dformat.skip -pl bench/check -am) || { echo "build failed" >&2; exit 1; }
CP="$HERE/target/classes:$(cat "$HERE/target/classpath.txt")"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp "$CP" org.openjdk.jmh.Main CanonicalPathBenchmark -f "${FORKS:-2}" -wi "${WARMUP:-3}" -w "${ITERATION_SECONDS:-1}s" \
  -i "${ITERATIONS:-5}" -r "${ITERATION_SECONDS:-1}s" -rf json -rff "$WORK/jmh.json" >"$WORK/jmh.log" 2>&1 \
  || { cat "$WORK/jmh.log" >&2; exit 1; }
python3 - "$WORK/jmh.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
score = {(r["benchmark"].rsplit(".", 1)[1], r["params"]["path"]): (r["primaryMetric"]["score"], r["primaryMetric"]["scoreError"]) for r in rows}
print("| path | canonical, ns | given, ns | added per request, ns |")
print("|---|---|---|---|")
for path in sorted({p for _, p in score}, key=len):
    c, ce = score[("canonical", path)]
    g, ge = score[("given", path)]
    print(f"| `{path}` | {c:.1f} ± {ce:.1f} | {g:.1f} ± {ge:.1f} | {c - g:.1f} |")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
