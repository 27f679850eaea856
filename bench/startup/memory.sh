#!/usr/bin/env bash
# Benchmark (not a test): which JVM flags bound a service's RSS after a minute of load, and what they cost in
# throughput. Each variant is one bench/startup/startup.sh run of the aot-jar with its own AOT cache
# (MODES=aotjar25: trained with the variant's flags), one timed start and one start under LOAD_SECONDS of
# wrk; the variants take turns, ROUNDS times, so a change in the machine's load hits them alike.
# Usage: bench/startup/memory.sh [service]     (default gateway-service)
#   env: ROUNDS [2]  LOAD_SECONDS [60]  VARIANTS: lines "name|JVM flags|environment" (default below)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SERVICE=${1:-gateway-service}
ROUNDS=${ROUNDS:-2}
BASE="-XX:+UseSerialGC -Xmx64m"
# glibc's per-thread malloc arenas, native memory the JVM frees but glibc keeps, Netty's pooled arenas
NATIVE="-XX:TrimNativeHeapInterval=1000 -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1"
VARIANTS=${VARIANTS:-"base|$BASE|
native|$BASE $NATIVE|MALLOC_ARENA_MAX=2
native-heap48|-XX:+UseSerialGC -Xmx48m $NATIVE -XX:ReservedCodeCacheSize=32m|MALLOC_ARENA_MAX=2
native-heap48-c1|-XX:+UseSerialGC -Xmx48m $NATIVE -XX:ReservedCodeCacheSize=32m -XX:TieredStopAtLevel=1|MALLOC_ARENA_MAX=2"}

OUT=$(mktemp -d -t tollgate-memory.XXXXXX)
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
for round in $(seq 1 "$ROUNDS"); do
  while IFS='|' read -r name flags environment; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086 # environment is a list of NAME=value
    env $environment MODES=aotjar25 RUNS=1 JAVA_OPTS="$flags" "$HERE/startup.sh" "$SERVICE" \
      >"$OUT/$name-$round.md" 2>"$OUT/$name-$round.log"
    row=$(grep "^| $SERVICE | aotjar25 |" "$OUT/$name-$round.md")
    echo "$name|$flags|$environment|$row" >>"$OUT/rows"
    echo "round $round $name: $row" >&2
  done <<<"$VARIANTS"
done

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load average $LOAD_BEFORE before, $(cut -d' ' -f1 /proc/loadavg) after" \
  "rounds: $ROUNDS  load: wrk -t2 -c16 -d${LOAD_SECONDS:-60}s  service: $SERVICE (aot-jar, JDK 25, AOT cache per variant)"
echo
echo "| variant | flags | environment | RSS after load (MB), each round | anonymous (MB) | req/s | first answer (ms) |"
echo "|---|---|---|---|---|---|---|"
while IFS='|' read -r name flags environment; do
  [ -n "$name" ] || continue
  # after name|flags|environment, startup.sh's row: | service | mode | first | each | rss-first | rss-load | anon | rate | non-2xx |
  awk -F'|' -v n="$name" -v f="$flags" -v e="$environment" '
    $1 == n { rss = rss sep $10+0; anon = anon sep $11+0; rate = rate sep $12+0; first = first sep $7+0; sep = " " }
    END { printf "| %s | `%s` | %s | %s | %s | %s | %s |\n", n, f, (e == "" ? "-" : "`" e "`"), rss, anon, rate, first }
  ' "$OUT/rows"
done <<<"$VARIANTS"
echo "(logs and each run's table: $OUT)" >&2
