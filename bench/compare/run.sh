#!/usr/bin/env bash
# Benchmark (not a test; not part of ./tollgate test): Tollgate side by side with its peers, in ONE run,
# on loopback, everything on this machine, on free ports chosen now, bounded in time.
#
# 1. Requests: wrk -t$THREADS -c$CONNECTIONS, keys.lua spreading GETs over $KEYS API keys, $ROUNDS rounds,
#    each round running every variant once in turn (A B C ... A B C ...), after a warm-up of each:
#      direct          the backend itself (nginx `return 200`)
#      nginx           nginx as a plain keep-alive reverse proxy to the backend
#      tollgate-off    the packaged gateway, no rule matches (a plain proxy)
#      tollgate-rule   the gateway, one token-bucket rule per API key that never rejects (1 check: one bucket read)
#      tollgate-flood  as tollgate-rule, while a second wrk (-c$FLOOD_CONNECTIONS) floods the gateway from
#                      ONE API key that a 1-a-second rule rejects
#      scg             Spring Cloud Gateway + RedisRateLimiter keyed by X-API-Key (bench/peers), same Redis
#    Per run: req/s, p50/p99/p99.9 (wrk's histogram, from keys.lua's done()), non-2xx, CPU µs per request
#    of the process under test (/proc/<pid>/stat utime+stime; nginx: master + workers), Redis commands per
#    request and script calls (EVALSHA + EVAL) per request from INFO commandstats before and after, Redis
#    CPU µs per request.
# 2. Latency at half saturation: tollgate-off and tollgate-rule alternately, paced by keys.lua's delay()
#    to half of tollgate-rule's median req/s measured in part 1 (wrk has no fixed rate and Debian has no
#    wrk2): p99 added by the limiter = p99(rule) - p99(off) at the same offered rate. The control, in turn with
#    them: tollgate-hop, the gateway with no rule sending /hop/ through the nginx proxy to the backend, so
#    one more loopback round trip to a C server that does next to nothing (as the check's trip to Redis):
#    p99(hop) - p99(off) is what one such round trip adds to the p99 on this machine at this rate.
# 3. Footprint: launch to the first proxied 200 that the limiter checked (startup/first_answer.py, polled every
#    5 ms), RSS at that answer, and VmRSS/RssAnon after LOAD_SECONDS of the same wrk load, median of
#    FOOTPRINT_RUNS starts (the modes take turns; the load on the last start of each mode):
#      tollgate-jvm17     fast-jar, `java`, with the launcher's default flags ($LAUNCH_OPTS, MALLOC_ARENA_MAX=2)
#      tollgate-aotjar25  gateway-service/target/aot-jar on JDK 25, the same flags, an AOT cache trained here (skipped
#                         when there is no aot-jar or no JDK 25; BUILD_AOT_JAR=yes builds the aot-jar)
#      scg-default        the peer with the JVM's defaults
#      scg-small          the peer with -XX:+UseSerialGC -Xmx64m
# Then summarise.py prints the Markdown tables (medians, ratios, goals).
# 4. The check alone (part "check"): bench/check/run.sh, JMH over the gateway's store path against
#    redis-benchmark's EVALSHA on a Redis of its own, alternating, with its own table (bench/README.md).
#
# Needs: wrk, nginx, redis-server, redis-cli, java (17+), curl, python3 (installed with apt-get when run as
# root, else named and the run stops); builds the gateway's fast-jar and the peer's jar when missing.
# Env: DURATION [10] seconds per run, WARMUP [10] per JVM variant (nginx: 2)   ROUNDS [3]   CONNECTIONS [50]   THREADS [2]   KEYS [10000]
#      SCG_WARMUP [30] (its JIT takes longer to settle)   VARIANTS [all six, in the order above]
#      FLOOD_CONNECTIONS [10]   BACKEND_WORKERS [1]   PROXY_WORKERS [auto]   PACED_ROUNDS [$ROUNDS]
#      FOOTPRINT_RUNS [3]   LOAD_SECONDS [60]   PARTS ["requests paced footprint check"]
#      TOLLGATE_JAVA_OPTS ["-XX:+UseSerialGC -Xmx64m"]   SCG_JAVA_OPTS [""] (request part)
#      JAVA25_HOME [the temurin-25 under /usr/lib/jvm]   BUILD_AOT_JAR [no]   KEEP_WORK [no]
#      GATEWAY_JAR [gateway-service/target/quarkus-app/quarkus-run.jar]   AOT_DIR [gateway-service/target/aot-jar]
#      MAX_SECONDS [1500]: the whole run is stopped (and cleaned up) past this
#      REDIS_SCHED [other]: fifo runs the bench's Redis real-time (chrt -f 1, root), so it never waits for a
#                  core behind wrk, nginx or the gateway: a diagnosis of the paced p99, as if Redis had a core
#      GATEWAY_SCHED [other]: fifo runs Tollgate's event-loop threads real-time the same way (its other
#                  threads, JIT and GC among them, stay as they are): the same diagnosis for the gateway
#      Both also take slice:US: the threads stay ordinary (SCHED_OTHER, their nice kept) but ask the
#                  scheduler for a slice of US µs (Linux >= 6.12, EEVDF; slice.py), so a wake-up may preempt
#                  a task with a longer slice instead of waiting for it (default slice here: slice.py get);
#                  the gateway's slice is set on all its threads
#      RULE_LIMIT [1000000000] RULE_PERIOD [1s]: bench.keys's rate (its burst is 10^9, so it never rejects here).
#                  By default a bucket is full again a nanosecond after a spend, so it expires at once and
#                  every check writes a new key (the store's worst case); RULE_LIMIT=1 RULE_PERIOD=1h keeps
#                  every bucket for the whole run (each check rewrites a key that is there)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/compare"
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-10}
SCG_WARMUP=${SCG_WARMUP:-30}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
KEYS=${KEYS:-10000}
FLOOD_CONNECTIONS=${FLOOD_CONNECTIONS:-10}
BACKEND_WORKERS=${BACKEND_WORKERS:-1}
PROXY_WORKERS=${PROXY_WORKERS:-auto}
PACED_ROUNDS=${PACED_ROUNDS:-$ROUNDS}
FOOTPRINT_RUNS=${FOOTPRINT_RUNS:-3}
LOAD_SECONDS=${LOAD_SECONDS:-60}
PARTS=${PARTS:-"requests paced footprint check"}
TOLLGATE_JAVA_OPTS=${TOLLGATE_JAVA_OPTS:-"-XX:+UseSerialGC -Xmx64m"}
SCG_JAVA_OPTS=${SCG_JAVA_OPTS:-}
SMALL_OPTS="-XX:+UseSerialGC -Xmx64m"
# the footprint's Tollgate modes run with the launcher's default flags and malloc arenas (./tollgate, docker/)
LAUNCH_OPTS=${LAUNCH_OPTS:-"$SMALL_OPTS -XX:TrimNativeHeapInterval=1000 -Dio.netty.allocator.numDirectArenas=1 -Dio.netty.allocator.numHeapArenas=1"}
LAUNCH_ENV="MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}"
GATEWAY_JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
AOT_DIR=${AOT_DIR:-"$ROOT/gateway-service/target/aot-jar"}
MAX_SECONDS=${MAX_SECONDS:-1500}
REDIS_SCHED=${REDIS_SCHED:-other}
GATEWAY_SCHED=${GATEWAY_SCHED:-other}
RULE_LIMIT=${RULE_LIMIT:-1000000000}
RULE_PERIOD=${RULE_PERIOD:-1s}
PEER_DIR="$ROOT/bench/peers/spring-cloud-gateway"
PEER_JAR="$PEER_DIR/target/scg-peer.jar"
COMMAND_LINE="bench/compare/run.sh${*:+ $*}"
STARTED=$(date +%s)

say() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
has() { [[ " $PARTS " == *" $1 "* ]]; }

# ------------------------------------------------------------------------------------------------ tools
declare -A PACKAGE_OF=([wrk]=wrk [nginx]=nginx [redis-server]=redis-server [redis-cli]=redis-tools
  [java]=openjdk-17-jdk-headless [curl]=curl [python3]=python3)
missing=()
for tool in wrk nginx redis-server redis-cli java curl python3; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    packages=()
    for tool in "${missing[@]}"; do packages+=("${PACKAGE_OF[$tool]}"); done
    say "installing ${packages[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
  else
    echo "missing: ${missing[*]} (Debian packages: $(for t in "${missing[@]}"; do printf '%s ' "${PACKAGE_OF[$t]}"; done))" >&2
    exit 1
  fi
fi
if [ -z "${JAVA25_HOME:-}" ]; then
  JAVA25_HOME=/usr/lib/jvm/$(ls /usr/lib/jvm 2>/dev/null | grep temurin-25 | head -1)
fi
JAVA25="$JAVA25_HOME/bin/java"

# ------------------------------------------------------------------------------------------------ builds
if [ ! -f "$GATEWAY_JAR" ] && [ "$GATEWAY_JAR" = "$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar" ]; then
  say "building the gateway (fast-jar)"
  (cd "$ROOT" && ./mvnw -B -q package -DskipTests -pl gateway-service -am)
fi
if [ ! -f "$PEER_JAR" ] || [ -n "$(find "$PEER_DIR/pom.xml" "$PEER_DIR/src" -newer "$PEER_JAR" -type f | head -1)" ]; then
  say "building the Spring Cloud Gateway peer"
  (cd "$ROOT" && ./mvnw -B -q -f bench/peers/spring-cloud-gateway/pom.xml package -DskipTests)
fi
if has footprint && [ "${BUILD_AOT_JAR:-no}" = yes ] && [ ! -f "$AOT_DIR/quarkus-run.jar" ]; then
  say "building the gateway's aot-jar"
  props="$ROOT/gateway-service/target/quarkus-artifact.properties"
  saved=$(cat "$props" 2>/dev/null || true)
  (cd "$ROOT" && ./mvnw -B -q package -DskipTests -pl gateway-service -am -Dquarkus.package.jar.type=aot-jar \
    -Dquarkus.package.output-directory=aot-jar)
  [ -z "$saved" ] || printf '%s\n' "$saved" >"$props"
fi

# ------------------------------------------------------------------------------------------------ processes
WORK=$(mktemp -d -t tollgate-compare.XXXXXX)
PIDS=()
# the watchdog: TERM to this script past MAX_SECONDS (the trap below then stops everything it started)
(
  trap 'kill "$nap" 2>/dev/null; exit 0' TERM
  sleep "$MAX_SECONDS" &
  nap=$!
  wait "$nap" && echo "past MAX_SECONDS=$MAX_SECONDS: stopping" >&2 && kill -TERM $$
) &
WATCHDOG=$!
# stop <pid>: SIGTERM, bounded wait, then SIGKILL
stop() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  kill -TERM "$WATCHDOG" 2>/dev/null || true
  for pid in "${PIDS[@]}"; do stop "$pid"; done
  for f in "$WORK/proxy.pid" "$WORK/backend.pid"; do [ -f "$f" ] && stop "$(cat "$f")"; done
  if [ "${KEEP_WORK:-no}" = yes ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_for() { # wait_for <seconds> <command...>: polls every 0.2 s
  local deadline=$(($(date +%s) + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}
checked() { # checked <url> <header>: a 200 carrying the limiter's header
  curl -fs -o /dev/null -D - -H 'X-API-Key: probe' "$1" | tr -d '\r' | grep -qi "^$2:"
}

BACKEND=$(free_port); PROXY=$(free_port); REDIS=$(free_port); TOLLGATE=$(free_port); SCG=$(free_port)
TOLLGATE_MANAGEMENT=$(free_port) # the gateway's health and metrics
nginx_conf() { # nginx_conf <template> <port> <workers>
  sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$2|g" -e "s|@BACKEND_PORT@|$BACKEND|g" -e "s|@WORKERS@|$3|g" \
    "$HERE/$1.nginx.conf" >"$WORK/$1.conf"
  nginx -c "$WORK/$1.conf" -e "$WORK/$1-error.log"
}
nginx_conf backend "$BACKEND" "$BACKEND_WORKERS"
wait_for 10 curl -fs "http://127.0.0.1:$BACKEND/"
redis-server --port "$REDIS" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
PIDS+=("$REDIS_PID")
wait_for 10 redis-cli -p "$REDIS" ping
case $REDIS_SCHED in # a diagnosis, not a setting of any figure in the README's table
  other) ;;
  fifo) chrt -a -f -p 1 "$REDIS_PID" || { echo "REDIS_SCHED=fifo: chrt could not (it needs root)" >&2; exit 1; } ;;
  slice:*) python3 "$HERE/slice.py" "${REDIS_SCHED#slice:}" $(ls /proc/"$REDIS_PID"/task) ;;
  *) echo "REDIS_SCHED: 'other', 'fifo' or 'slice:US', not '$REDIS_SCHED'" >&2; exit 1 ;;
esac

cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
 {"id":"bench.keys","match":{"path":"/limited/**"},"key":"api_key","algorithm":"token_bucket",
  "limit":$RULE_LIMIT,"period":"$RULE_PERIOD","burst":1000000000},
 {"id":"bench.flood","match":{"path":"/flood/**"},"key":"api_key","algorithm":"token_bucket",
  "limit":1,"period":"1s","burst":1}]}
JSON
# tollgate_env <port> [management port]: the gateway from the rules snapshot alone (no rules service), on the
# private Redis; its management interface on the port given, or a free one
tollgate_env() {
  echo "QUARKUS_HTTP_PORT=$1" "QUARKUS_MANAGEMENT_PORT=${2:-$(free_port)}" "TOLLGATE_GATEWAY_UPSTREAM=http://127.0.0.1:$BACKEND" \
    "QUARKUS_REDIS_HOSTS=redis://127.0.0.1:$REDIS" "TOLLGATE_RULES_URL=http://127.0.0.1:1" \
    "TOLLGATE_RULES_WATCH=false" "TOLLGATE_RULES_SNAPSHOT=$WORK/rules.json"
}
scg_env() {
  echo "SERVER_PORT=$1" "PEER_UPSTREAM=http://127.0.0.1:$BACKEND" "SPRING_DATA_REDIS_HOST=127.0.0.1" \
    "SPRING_DATA_REDIS_PORT=$REDIS"
}

waits() { # waits <pid...>: "<ns waited on a run queue> <times put on a core>", all their threads (schedstat)
  cat $(printf '/proc/%s/task/*/schedstat ' "$@") 2>/dev/null | awk '{w += $2; n += $3} END {print w + 0, n + 0}'
}
per_wake() { # per_wake "<w0 n0>" "<w1 n1>": mean µs waited on a run queue per time put on a core
  awk -v a="$1" -v b="$2" 'BEGIN {split(a, x, " "); split(b, y, " "); n = y[2] - x[2]
    if (n > 0) printf "%.1f", (y[1] - x[1]) / n / 1000; else printf "-"}'
}
cpu_ticks() { # cpu_ticks <pid...>: utime + stime of the processes, in clock ticks
  local total=0 pid
  for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done
  echo "$total"
}
nginx_pids() { # the master and its workers
  local master; master=$(cat "$WORK/$1.pid")
  echo "$master" $(cat /proc/"$master"/task/*/children 2>/dev/null)
}
redis_stats() { # "<all commands but INFO> <EVAL+EVALSHA calls> <GET calls: bucket reads, script-inner>"
  redis-cli -p "$REDIS" INFO commandstats | tr -d '\r' | awk -F'[:=,]' '
    /^cmdstat_/ { if ($1 != "cmdstat_info") all += $3; if ($1 ~ /^cmdstat_eval(sha)?(_ro)?$/) scripts += $3 }
    /^cmdstat_get:/ { gets = $3 }
    END { print all + 0, scripts + 0, gets + 0 }'
}
decisions() { # decisions <rule>: "<rejected by the store> <allowed> <cached rejections> <fallbacks>"
  curl -fs "http://127.0.0.1:$TOLLGATE_MANAGEMENT/q/metrics" | awk -v rule="rule=\"$1\"" '
    /^tollgate_decisions_total\{/ && index($0, rule) {
      match($0, /outcome="[a-z_]+"/); o = substr($0, RSTART + 9, RLENGTH - 10); v[o] += $NF }
    END { printf "%d %d %d %d\n", v["rejected"], v["allowed"], v["cached_rejected"],
      v["fallback_allowed"] + v["fallback_rejected"] }'
}
result_field() { sed -n "s/.*[ ]$2=\([0-9.]*\).*/\1/p" <<<"$1"; }
TICK=$(getconf CLK_TCK)

# wrk_run <url> <path> <seconds> [connections [rate [fixed key [threads]]]]: the RESULT line of keys.lua
wrk_run() {
  local url=$1 path=$2 seconds=$3 conns=${4:-$CONNECTIONS} rate=${5:-0} fixed=${6:-} threads=${7:-$THREADS}
  PATH_TO="$path" KEYS="$KEYS" FIXED_KEY="$fixed" RATE="$rate" THREADS="$threads" \
    wrk -t"$threads" -c"$conns" -d"${seconds}s" --timeout 5s -s "$HERE/keys.lua" "$url" | grep '^RESULT'
}

# measure <part> <variant> <round> <url> <path> <rate> <pid...>: one run, one line in runs.tsv
measure() {
  local part=$1 variant=$2 round=$3 url=$4 path=$5 rate=$6; shift 6
  local c0 c1 r0 r1 s0 s1 g0 g1 out flood_out f0 f1 redis_c0 redis_c1
  c0=$(cpu_ticks "$@"); redis_c0=$(cpu_ticks "$REDIS_PID"); read -r r0 s0 g0 < <(redis_stats)
  local w0 w1 redis_w0 redis_w1
  w0=$(waits "$@"); redis_w0=$(waits "$REDIS_PID")
  [ "$variant" != tollgate-flood ] || f0=$(decisions bench.flood)
  local k0=- k1=- fallbacks=-
  [ "$variant" != tollgate-rule ] && [ "$variant" != tollgate-flood ] || k0=$(decisions bench.keys)
  if [ "$variant" = tollgate-flood ]; then
    wrk_run "$url" /flood/x "$DURATION" "$FLOOD_CONNECTIONS" 0 flooder 1 >"$WORK/flood.out" &
    local flood_pid=$!
    out=$(wrk_run "$url" "$path" "$DURATION" "$CONNECTIONS" "$rate")
    wait "$flood_pid"
    flood_out=$(cat "$WORK/flood.out")
  else
    out=$(wrk_run "$url" "$path" "$DURATION" "$CONNECTIONS" "$rate")
  fi
  c1=$(cpu_ticks "$@"); redis_c1=$(cpu_ticks "$REDIS_PID"); read -r r1 s1 g1 < <(redis_stats)
  w1=$(waits "$@"); redis_w1=$(waits "$REDIS_PID")
  local reqs answered
  reqs=$(result_field "$out" requests)
  answered=$reqs
  if [ "$variant" = tollgate-flood ]; then
    f1=$(decisions bench.flood)
    local flood_reqs; flood_reqs=$(result_field "$flood_out" requests)
    answered=$((reqs + flood_reqs))
    read -r a_rej a_all a_cache a_fall <<<"$f0"; read -r b_rej b_all b_cache b_fall <<<"$f1"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$(result_field "$out" rps)" \
      "$(result_field "$flood_out" rps)" "$flood_reqs" "$(result_field "$flood_out" non2xx)" \
      $((b_rej - a_rej)) $((b_all - a_all)) $((b_cache - a_cache)) $((b_fall - a_fall)) "$DURATION" >>"$WORK/flood.tsv"
  fi
  if [ "$k0" != - ]; then
    k1=$(decisions bench.keys)
    fallbacks=$(($(cut -d' ' -f4 <<<"$k1") - $(cut -d' ' -f4 <<<"$k0")))
  fi
  # part variant round rate rps requests p50 p99 p999 non2xx socket_errors cpu_us/req redis_cmds/req
  # script_calls/req redis_cpu_us/req fallbacks gets/req wait_us redis_wait_us (CPU per request answered:
  # with the flood, its requests count too; Redis figures per legitimate request; waits: mean µs a thread
  # of the process under test, or Redis, waited on a run queue each time it was put on a core)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$part" "$variant" "$round" "$rate" \
    "$(result_field "$out" rps)" "$reqs" "$(result_field "$out" p50_us)" "$(result_field "$out" p99_us)" \
    "$(result_field "$out" p999_us)" "$(result_field "$out" non2xx)" "$(result_field "$out" socket_errors)" \
    "$(awk -v a="$c0" -v b="$c1" -v n="$answered" -v hz="$TICK" 'BEGIN{printf "%.1f", (b-a)*1e6/hz/n}')" \
    "$(awk -v a="$r0" -v b="$r1" -v n="$reqs" 'BEGIN{printf "%.3f", (b-a)/n}')" \
    "$(awk -v a="$s0" -v b="$s1" -v n="$reqs" 'BEGIN{printf "%.3f", (b-a)/n}')" \
    "$(awk -v a="$redis_c0" -v b="$redis_c1" -v n="$answered" -v hz="$TICK" 'BEGIN{printf "%.1f", (b-a)*1e6/hz/n}')" \
    "$fallbacks" "$(awk -v a="$g0" -v b="$g1" -v n="$reqs" 'BEGIN{printf "%.3f", (b-a)/n}')" \
    "$(per_wake "$w0" "$w1")" "$(per_wake "$redis_w0" "$redis_w1")" >>"$WORK/runs.tsv"
  say "$part $variant round $round: $out"
}

{
  echo "date	$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "machine	$(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB RAM ($(free -m | awk '/^Mem:/{print $2}') MiB), $(uname -sr)"
  echo "load_before	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "command	$COMMAND_LINE"
  echo "settings	wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s over $KEYS keys, $ROUNDS rounds, warm-up ${WARMUP}s (SCG ${SCG_WARMUP}s, nginx 2s), flood wrk -t1 -c$FLOOD_CONNECTIONS, nginx backend workers $BACKEND_WORKERS, proxy workers $PROXY_WORKERS, Redis scheduled $REDIS_SCHED, gateway event loops scheduled $GATEWAY_SCHED, bench.keys $RULE_LIMIT per $RULE_PERIOD"
  echo "tollgate_java	$(java -version 2>&1 | head -1) $TOLLGATE_JAVA_OPTS (fast-jar)"
  echo "scg_java	$(java -version 2>&1 | head -1) ${SCG_JAVA_OPTS:-(JVM defaults)}"
  echo "versions	$(nginx -v 2>&1 | sed 's/.*: //'), Redis $(redis-server --version | sed 's/.* v=\([^ ]*\).*/\1/'), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
} >"$WORK/meta.tsv"

# ------------------------------------------------------------------------------------------------ 1 and 2
if has requests || has paced; then
  nginx_conf proxy "$PROXY" "$PROXY_WORKERS"
  # shellcheck disable=SC2046,SC2086 # the env and options are lists
  # /hop/ goes through the nginx proxy: tollgate-hop, the paced part's control
  env $(tollgate_env "$TOLLGATE" "$TOLLGATE_MANAGEMENT") java $TOLLGATE_JAVA_OPTS -Dtollgate.gateway.routes.hop.prefix=/hop \
    -Dtollgate.gateway.routes.hop.url="http://127.0.0.1:$PROXY" -jar "$GATEWAY_JAR" >"$WORK/tollgate.log" 2>&1 &
  TOLLGATE_PID=$!; PIDS+=("$TOLLGATE_PID")
  # shellcheck disable=SC2046,SC2086
  env $(scg_env "$SCG") java $SCG_JAVA_OPTS -jar "$PEER_JAR" >"$WORK/scg.log" 2>&1 &
  SCG_PID=$!; PIDS+=("$SCG_PID")
  wait_for 10 curl -fs "http://127.0.0.1:$PROXY/" || { echo "nginx proxy did not answer" >&2; exit 1; }
  wait_for 120 checked "http://127.0.0.1:$TOLLGATE/limited/x" RateLimit-Policy \
    || { tail -30 "$WORK/tollgate.log" >&2; echo "tollgate did not answer a checked 200" >&2; exit 1; }
  case $GATEWAY_SCHED in # a diagnosis, as REDIS_SCHED
    other) ;;
    fifo)
      for task in /proc/"$TOLLGATE_PID"/task/*; do
        if [[ "$(cat "$task/comm")" == vert.x-eventloo* ]]; then
          chrt -f -p 1 "${task##*/}" || { echo "GATEWAY_SCHED=fifo: chrt could not (it needs root)" >&2; exit 1; }
        fi
      done ;;
    slice:*) # every thread, so the ones started later (they inherit it) have it too
      python3 "$HERE/slice.py" "${GATEWAY_SCHED#slice:}" $(ls /proc/"$TOLLGATE_PID"/task) ;;
    *) echo "GATEWAY_SCHED: 'other', 'fifo' or 'slice:US', not '$GATEWAY_SCHED'" >&2; exit 1 ;;
  esac
  wait_for 120 checked "http://127.0.0.1:$SCG/x" X-RateLimit-Remaining \
    || { tail -30 "$WORK/scg.log" >&2; echo "the SCG peer did not answer a checked 200" >&2; exit 1; }
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'X-API-Key: flooder' "http://127.0.0.1:$TOLLGATE/flood/x")" = 200 ] \
    && [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'X-API-Key: flooder' "http://127.0.0.1:$TOLLGATE/flood/x")" = 429 ] \
    || { echo "the flood rule does not reject its second request" >&2; exit 1; }

  # variant -> "url path pids"
  declare -A TARGET=(
    [direct]="http://127.0.0.1:$BACKEND /x backend"
    [nginx]="http://127.0.0.1:$PROXY /x proxy"
    [tollgate-off]="http://127.0.0.1:$TOLLGATE /open/x $TOLLGATE_PID"
    [tollgate-rule]="http://127.0.0.1:$TOLLGATE /limited/x $TOLLGATE_PID"
    [tollgate-hop]="http://127.0.0.1:$TOLLGATE /hop/x $TOLLGATE_PID"
    [tollgate-flood]="http://127.0.0.1:$TOLLGATE /limited/x $TOLLGATE_PID"
    [scg]="http://127.0.0.1:$SCG /x $SCG_PID"
  )
  read -r -a VARIANTS <<<"${VARIANTS:-direct nginx tollgate-off tollgate-rule tollgate-flood scg}"
  pids_of() { case $1 in backend | proxy) nginx_pids "$1" ;; *) echo "$1" ;; esac; }
  # run_variant <part> <variant> <round> <rate>
  run_variant() {
    local url path who
    read -r url path who <<<"${TARGET[$2]}"
    # shellcheck disable=SC2046
    measure "$1" "$2" "$3" "$url" "$path" "$4" $(pids_of "$who")
  }

  say "warm-up: ${WARMUP}s of Tollgate, ${SCG_WARMUP}s of SCG, 2 s of nginx"
  for variant in "${VARIANTS[@]}"; do
    [ "$variant" = tollgate-flood ] && continue
    read -r url path _ <<<"${TARGET[$variant]}"
    case $variant in
      direct | nginx) wrk_run "$url" "$path" 2 >/dev/null ;;
      scg) wrk_run "$url" "$path" "$SCG_WARMUP" >/dev/null ;;
      *) wrk_run "$url" "$path" "$WARMUP" >/dev/null ;;
    esac
  done
  [[ " ${VARIANTS[*]} " != *" tollgate-flood "* ]] \
    || wrk_run "http://127.0.0.1:$TOLLGATE" /flood/x "$WARMUP" "$FLOOD_CONNECTIONS" 0 flooder 1 >/dev/null

  if has requests; then
    for round in $(seq 1 "$ROUNDS"); do
      for variant in "${VARIANTS[@]}"; do run_variant requests "$variant" "$round" 0; done
    done
  fi
  if has paced; then
    if [ -n "${PACED_RATE:-}" ]; then
      rate=$PACED_RATE
    else
      rate=$(awk -F'\t' '$1=="requests" && $2=="tollgate-rule" {print $5}' "$WORK/runs.tsv" 2>/dev/null \
        | sort -n | awk '{v[NR]=$1} END{if (NR) printf "%d", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2) / 2}')
      [ -n "$rate" ] || { echo "paced needs the requests part or PACED_RATE" >&2; exit 1; }
    fi
    echo "paced_rate	$rate" >>"$WORK/meta.tsv"
    # the gateway's store latency histogram around the paced rounds: only tollgate-rule's requests check,
    # so the difference is how long their checks took (summarise.py reads quantiles off the buckets)
    store_latency() { curl -fs "http://127.0.0.1:$TOLLGATE_MANAGEMENT/q/metrics" | grep '^tollgate_store_latency_seconds_bucket' || true; }
    wrk_run "http://127.0.0.1:$TOLLGATE" /hop/x 2 >/dev/null # the control's upstream connections
    store_latency >"$WORK/store-latency-before.txt"
    for round in $(seq 1 "$PACED_ROUNDS"); do
      for variant in tollgate-off tollgate-hop tollgate-rule; do run_variant paced "$variant" "$round" "$rate"; done
    done
    store_latency >"$WORK/store-latency-after.txt"
  fi
  curl -fs "http://127.0.0.1:$TOLLGATE_MANAGEMENT/q/metrics" | grep -E '^tollgate_(decisions_total|store_errors_total)' \
    >"$WORK/tollgate-metrics.txt" || true
  for pid in "$TOLLGATE_PID" "$SCG_PID"; do stop "$pid"; done
  stop "$(cat "$WORK/proxy.pid")"
fi

# ------------------------------------------------------------------------------------------------ 3
if has footprint; then
  MODES=(tollgate-jvm17)
  if [ -f "$AOT_DIR/quarkus-run.jar" ] && "$JAVA25" -version 2>&1 | grep -q 'version "25'; then
    MODES+=(tollgate-aotjar25)
    cp -r "$AOT_DIR" "$WORK/aot-jar"
    say "training the aot-jar's AOT cache (JDK 25)"
    port=$(free_port)
    # shellcheck disable=SC2046,SC2086
    env $(tollgate_env "$port") $LAUNCH_ENV "$JAVA25" $LAUNCH_OPTS -XX:AOTCacheOutput="$WORK/gateway.aot" \
      -jar "$WORK/aot-jar/quarkus-run.jar" >"$WORK/aot-training.log" 2>&1 &
    train_pid=$!; PIDS+=("$train_pid")
    if wait_for 120 checked "http://127.0.0.1:$port/limited/x" RateLimit-Policy; then
      wrk_run "http://127.0.0.1:$port" /limited/x 5 4 >/dev/null
      wrk_run "http://127.0.0.1:$port" /open/x 2 4 >/dev/null
    fi
    stop "$train_pid"
    if [ ! -f "$WORK/gateway.aot" ]; then
      say "no AOT cache was written (see the training log); tollgate-aotjar25 skipped"
      echo "note	tollgate-aotjar25 skipped: the training run wrote no AOT cache" >>"$WORK/meta.tsv"
      MODES=(tollgate-jvm17)
    fi
  else
    echo "note	tollgate-aotjar25 skipped: no gateway-service/target/aot-jar or no JDK 25" >>"$WORK/meta.tsv"
  fi
  MODES+=(scg-default scg-small)
  echo "note	footprint: Tollgate with the launcher's flags: $LAUNCH_ENV $LAUNCH_OPTS" >>"$WORK/meta.tsv"

  FIRST_ANSWER="$HERE/../startup/first_answer.py"
  # launch_mode <mode> <port> <log>: "pid ms rss_kB" of startup/first_answer.py
  launch_mode() {
    local mode=$1 port=$2 log=$3
    # shellcheck disable=SC2046,SC2086
    case $mode in
      tollgate-jvm17)
        env $(tollgate_env "$port") $LAUNCH_ENV python3 "$FIRST_ANSWER" "http://127.0.0.1:$port/limited/x" 200 "$log" --api-key fp \
          --wait-header RateLimit-Policy -- java $LAUNCH_OPTS -jar "$GATEWAY_JAR" ;;
      tollgate-aotjar25)
        env $(tollgate_env "$port") $LAUNCH_ENV python3 "$FIRST_ANSWER" "http://127.0.0.1:$port/limited/x" 200 "$log" --api-key fp \
          --wait-header RateLimit-Policy -- "$JAVA25" $LAUNCH_OPTS -XX:AOTCache="$WORK/gateway.aot" \
          -jar "$WORK/aot-jar/quarkus-run.jar" ;;
      scg-default)
        env $(scg_env "$port") python3 "$FIRST_ANSWER" "http://127.0.0.1:$port/x" 200 "$log" --api-key fp \
          --wait-header X-RateLimit-Remaining -- java -jar "$PEER_JAR" ;;
      scg-small)
        env $(scg_env "$port") python3 "$FIRST_ANSWER" "http://127.0.0.1:$port/x" 200 "$log" --api-key fp \
          --wait-header X-RateLimit-Remaining -- java $SMALL_OPTS -jar "$PEER_JAR" ;;
    esac
  }
  for run in $(seq 1 "$FOOTPRINT_RUNS"); do
    for mode in "${MODES[@]}"; do
      port=$(free_port)
      if ! read -r pid ms rss < <(launch_mode "$mode" "$port" "$WORK/$mode-$run.log"); then
        say "$mode start $run: no checked answer (see its log)"
        printf '%s\t%s\t-\t-\t-\t-\t-\n' "$mode" "$run" >>"$WORK/footprint.tsv"
        continue
      fi
      PIDS+=("$pid")
      load_rps=- rss_load=- anon_load=-
      if [ "$run" = "$FOOTPRINT_RUNS" ]; then
        case $mode in tollgate-*) path=/limited/x ;; *) path=/x ;; esac
        out=$(wrk_run "http://127.0.0.1:$port" "$path" "$LOAD_SECONDS")
        load_rps=$(result_field "$out" rps)
        rss_load=$(awk '/^VmRSS:/{print $2}' "/proc/$pid/status")
        anon_load=$(awk '/^RssAnon:/{print $2}' "/proc/$pid/status")
      fi
      say "$mode start $run: first checked answer ${ms} ms, RSS $((rss / 1024)) MB; after load: $rss_load kB at $load_rps req/s"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$run" "$ms" "$rss" "$rss_load" "$anon_load" "$load_rps" \
        >>"$WORK/footprint.tsv"
      stop "$pid"
    done
  done
fi

{
  echo "load_after	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "elapsed	$(($(date +%s) - STARTED)) s"
} >>"$WORK/meta.tsv"
python3 "$HERE/summarise.py" "$WORK"

if has check; then
  echo
  echo "## The check alone (bench/check/run.sh)"
  "$ROOT/bench/check/run.sh"
fi
