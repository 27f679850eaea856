#!/usr/bin/env bash
# The check alone: how close the gateway's Java store path gets to what Redis itself serves.
#
# One private Redis on a free port. In ONE run, alternating ROUNDS times, for many keys (10,000 client
# keys, round robin / random) and for one hot key:
#   jmh    CheckBenchmark: GuardedStore + RedisCounterStore (the gateway's classes, built by the benchmark's
#          BenchmarkStore, the Vert.x Redis client, one pinned connection per event loop) driving EVALSHA of check.lua, IN_FLIGHT checks outstanding,
#          as the gateway runs it: the checks a loop asks for in one turn in one call
#   jmh-single  the same with tollgate.store.coalesce=false: one EVALSHA per check, like redis-benchmark's,
#          so jmh-single / redis-benchmark is how close the Java client gets to what Redis serves
#   redis      redis-benchmark -c IN_FLIGHT sending the very same EVALSHA (same script, same ARGV layout)
#   pipelined  redis-benchmark -c LOOPS -P IN_FLIGHT/LOOPS: the same number in flight on as many
#              connections as the gateway pins, pipelined as the gateway's are: Redis's ceiling here
# and prints medians of checks/s and the ratios to redis-benchmark as a Markdown table, with the
# Redis CPU per call (INFO commandstats usec_per_call) of each.
#
# Needs: redis-server, redis-cli, redis-benchmark, java 17, python3. Builds the benchmark and the modules it
# depends on from this checkout (./mvnw -Pbench package -pl bench/check -am); MAVEN_ARGS reaches that build.
# Env: ROUNDS (3) IN_FLIGHT (50) LOOPS (2) WARMUP (2) ITERATIONS (3) ITERATION_SECONDS (3; not SECONDS, which
# bash keeps as its own clock) REQUESTS (200000)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/check"
ROUNDS=${ROUNDS:-3}
IN_FLIGHT=${IN_FLIGHT:-50}
LOOPS=${LOOPS:-2}
WARMUP=${WARMUP:-2}
ITERATIONS=${ITERATIONS:-3}
SECONDS_PER=${ITERATION_SECONDS:-3}
REQUESTS=${REQUESTS:-200000}
for tool in redis-server redis-cli redis-benchmark java python3; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (Debian: apt-get install redis-server redis-tools openjdk-17-jdk python3)" >&2; exit 1; }
done

(cd "$ROOT" && ./mvnw -B -q -Pbench package -DskipTests -pl bench/check -am) || { echo "build failed" >&2; exit 1; }
CP="$HERE/target/classes:$(cat "$HERE/target/classpath.txt")"

WORK=$(mktemp -d)
REDIS_PID=
cleanup() {
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 100); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.05; done

java -cp "$CP" io.tollgate.bench.check.PrintCheckCall script "$WORK/check.lua"
SHA=$(redis-cli -p "$PORT" -x SCRIPT LOAD <"$WORK/check.lua")
mapfile -t MANY < <(java -cp "$CP" io.tollgate.bench.check.PrintCheckCall args 'client-__rand_int__')
mapfile -t HOT < <(java -cp "$CP" io.tollgate.bench.check.PrintCheckCall args 'hot')
[ "${MANY[0]}" = "$SHA" ] || { echo "SHA-1 mismatch: Redis says $SHA, the catalog ${MANY[0]}" >&2; exit 1; }

# commandstats of EVALSHA: "calls usec"
evalsha() { redis-cli -p "$PORT" INFO commandstats | tr -d '\r' | awk -F'[=,:]' '/^cmdstat_evalsha:/{print $3, $5}'; }
usec_per_call() { # before after
  awk -v a="$1" -v b="$2" 'BEGIN{split(a,x," "); split(b,y," "); if (y[1]>x[1]) printf "%.2f", (y[2]-x[2])/(y[1]-x[1]); else print "-"}'
}

jmh() { # keys coalesce -> checks/s
  java -cp "$CP" org.openjdk.jmh.Main CheckBenchmark -f 1 -wi "$WARMUP" -w "${SECONDS_PER}s" -i "$ITERATIONS" \
    -r "${SECONDS_PER}s" -p keys="$1" -p inFlight="$IN_FLIGHT" -p loops="$LOOPS" -p coalesce="$2" \
    -jvmArgsAppend "-Dredis.url=redis://127.0.0.1:$PORT" -rf json -rff "$WORK/jmh.json" >"$WORK/jmh.log" 2>&1 \
    || { cat "$WORK/jmh.log" >&2; exit 1; }
  python3 -c 'import json,sys; print("%.0f" % json.load(open(sys.argv[1]))[0]["primaryMetric"]["score"])' "$WORK/jmh.json"
}

rbench() { # keys connections pipeline -> checks/s
  local opts=() args
  if [ "$1" = 1 ]; then args=("${HOT[@]:1}"); else opts=(-r 10000); args=("${MANY[@]:1}"); fi
  redis-benchmark -p "$PORT" -c "$2" -P "$3" -n "$REQUESTS" "${opts[@]}" --csv EVALSHA "$SHA" "${args[@]}" \
    | awk -F'","' 'NR==2{print int($2)}'
}

echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "in flight: $IN_FLIGHT (jmh: over $LOOPS event loops, pinned pipelined connections; redis-benchmark: $IN_FLIGHT connections)"
RESULTS="$WORK/results"
for r in $(seq 1 "$ROUNDS"); do
  for keys in 10000 1; do
    for who in jmh jmh-single redis pipelined; do
      before=$(evalsha)
      case $who in
        jmh) rate=$(jmh "$keys" true) ;;
        jmh-single) rate=$(jmh "$keys" false) ;;
        redis) rate=$(rbench "$keys" "$IN_FLIGHT" 1) ;;
        pipelined) rate=$(rbench "$keys" "$LOOPS" $((IN_FLIGHT / LOOPS))) ;;
      esac
      after=$(evalsha)
      echo "$r $keys $who $rate $(usec_per_call "$before" "$after")" | tee -a "$RESULTS" >&2
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RESULTS" "$IN_FLIGHT" "$LOOPS" $((IN_FLIGHT / LOOPS)) <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(keys, who, col):
    vals = [float(r[col]) for r in rows if r[1] == keys and r[2] == who and r[col] != "-"]
    return statistics.median(vals) if vals else float("nan")
print("| keys | gateway store path (JMH), checks/s | the same, one call per check (coalesce=false) | redis-benchmark -c %s, checks/s | redis-benchmark -c %s -P %s, checks/s | JMH ÷ pipelined | one per call ÷ -c %s | one per call ÷ pipelined | Redis µs/call (JMH / one per call / -c / -P) |"
      % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[2]))
print("|---|---|---|---|---|---|---|---|---|")
for keys, label in (("10000", "10,000 keys"), ("1", "one hot key")):
    j, s, b, p = med(keys, "jmh", 3), med(keys, "jmh-single", 3), med(keys, "redis", 3), med(keys, "pipelined", 3)
    print(f"| {label} | {j:,.0f} | {s:,.0f} | {b:,.0f} | {p:,.0f} | {j / p:.2f} | {s / b:.2f} | {s / p:.2f} | "
          f"{med(keys, 'jmh', 4):.2f} / {med(keys, 'jmh-single', 4):.2f} / {med(keys, 'redis', 4):.2f} / "
          f"{med(keys, 'pipelined', 4):.2f} |")
print("(medians of %d rounds; each round: %s)" % (len({r[0] for r in rows}), ", ".join(
    sorted({f"{r[1]} keys {r[2]}" for r in rows}))))
PY
