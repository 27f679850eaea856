#!/usr/bin/env bash
# What the limiter costs on the hot path. One gateway (the packaged jar), one private Redis, nginx as
# the backend and as the reference keepalive proxy, wrk on loopback; everything on this machine.
#
# In the same run, alternating ROUNDS times (after a warm-up of each; even rounds run the paths in reverse order):
#   off     GET /open/x     through the gateway, no rule matches (plain proxy)
#   on      GET /limited/x  through the gateway, one token-bucket rule that always allows (1 check)
#   nginx   GET /x          through nginx's keepalive proxy to the same backend
# and reads: req/s, p50/p99 (wrk --latency), gateway CPU per request (/proc/<pid>/stat utime+stime; for
# nginx, its proxy worker's: the backend is a second nginx),
# Redis calls and usec_per_call of EVALSHA, and checks: the bucket reads (GET) the script makes, one per
# check of one rule, which INFO commandstats counts too (many checks share one EVALSHA when coalesced).
#
# Needs: wrk, nginx, redis-server, redis-cli, java 17, and ./mvnw -B package -pl gateway-service done.
# Env: DURATION (10s) CONNECTIONS (50) THREADS (2) ROUNDS (3) LIGHT_CONNECTIONS (4) GATEWAY_JAVA_OPTS PATHS
#      GATEWAY_JAR (the jar measured as off / on; default the checkout's gateway-service/target/quarkus-app/quarkus-run.jar)
#      BASELINE_JAR (another build's quarkus-run.jar, measured alternately as base-off / base-on)
#      BASELINE_JAVA_OPTS (default GATEWAY_JAVA_OPTS; e.g. the same jar with one setting changed)  WARMUP (20s)
#      STORE (standalone | cluster: three primaries, no replicas, on free ports; Redis figures summed over them)
#      KEYS (1: every request carries the API key "bench"; N: a key drawn at random from N per request, by
#        bench/compare/keys.lua, so a cluster's checks spread over its shards)
#      RATE (0: as fast as the connections go; N, with KEYS > 1: keys.lua paces the warm-up and load runs to
#        N req/s, e.g. half of saturation, where a loop turn carries fewer checks to a script call; the light-load
#        runs stay unpaced)
#      RESTART=yes: each round after the first starts both gateways afresh and warms them again (WARMUP each)
#      PROFILE=yes: async-profiler (from Maven Central; Linux x86_64) samples each gateway's CPU during the
#        timed load runs (not the warm-up), and the report splits every path's CPU per request by layer
#        (bench/gateway/profile.py); PROFILE_INTERVAL (1ms) PROFILE_OUT (a directory to keep the collapsed
#        stacks in, for a flame graph)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
LIGHT_CONNECTIONS=${LIGHT_CONNECTIONS:-4}
# the launcher's default JVM flags (./tollgate up); add e.g. -XX:StartFlightRecording=filename=gw.jfr to profile
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
# which paths to measure (e.g. PATHS=on with a flight recording, to profile the limiter alone)
PATHS=${PATHS:-off on nginx}
# a second gateway jar (e.g. a build of an earlier commit) measured in the same run as base-off / base-on
BASELINE_JAR=${BASELINE_JAR:-}
BASELINE_JAVA_OPTS=${BASELINE_JAVA_OPTS:-$GATEWAY_JAVA_OPTS}
# per variant before the rounds: the JIT is still compiling for 20-30 s under load on a shared 2-core box
WARMUP=${WARMUP:-20s}
STORE=${STORE:-standalone}
KEYS=${KEYS:-1}
RATE=${RATE:-0}
[ "$RATE" = 0 ] || [ "$KEYS" != 1 ] || { echo "RATE needs KEYS > 1 (keys.lua paces)" >&2; exit 1; }
PROFILE=${PROFILE:-}
PROFILE_INTERVAL=${PROFILE_INTERVAL:-1ms}
PROFILE_OUT=${PROFILE_OUT:-}
JAR=${GATEWAY_JAR:-"$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"}
for tool in wrk nginx redis-server redis-cli java curl ${PROFILE:+jcmd unzip}; do
  command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done
[ -f "$JAR" ] || { echo "build first: ./mvnw -B package -DskipTests -pl gateway-service" >&2; exit 1; }

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
backend
PROXY=$(free_port)

if [ -n "$PROFILE" ]; then
  # loaded idle with each gateway; started and stopped through jcmd around each timed run (see run)
  AGENT=$(profiler_agent)
  GATEWAY_JAVA_OPTS="$GATEWAY_JAVA_OPTS -agentpath:$AGENT"
  BASELINE_JAVA_OPTS="$BASELINE_JAVA_OPTS -agentpath:$AGENT"
fi

# the reference proxy, an nginx of one worker apart from the backend's, whose worker's CPU is read like the
# gateway's
nginx_conf proxy "upstream backend { server 127.0.0.1:$BACKEND; keepalive 64; }
  server {
    listen 127.0.0.1:$PROXY;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection \"\"; }
  }"
start_store "$STORE"

cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[{"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key",
"algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000}]}
JSON

start_gateway new "$JAR" "$GATEWAY_JAVA_OPTS"
VARIANTS="off on"
if [ -n "$BASELINE_JAR" ]; then
  start_gateway base "$BASELINE_JAR" "$BASELINE_JAVA_OPTS"
  VARIANTS="base-off base-on off on"
fi
VARIANTS="$VARIANTS nginx"

# url_of VARIANT, gw_of VARIANT
url_of() {
  case $1 in
    off) echo "http://127.0.0.1:${GW_PORT[new]}/open/x" ;;
    on) echo "http://127.0.0.1:${GW_PORT[new]}/limited/x" ;;
    base-off) echo "http://127.0.0.1:${GW_PORT[base]}/open/x" ;;
    base-on) echo "http://127.0.0.1:${GW_PORT[base]}/limited/x" ;;
    nginx) echo "http://127.0.0.1:$PROXY/x" ;;
  esac
}
gw_of() { case $1 in base-*) echo base ;; nginx) echo none ;; *) echo new ;; esac; }

ticks() { # GW -> "user+sys sys" clock ticks of that gateway, or of the proxy nginx's worker for none
  local pid
  if [ "$1" = none ]; then pid=$(pgrep -P "$(cat "$WORK/proxy.pid")" | head -1); else pid=${GW_PID[$1]}; fi
  awk '{print $14 + $15, $15}' "/proc/$pid/stat"
}
redis_ticks() { local pid total=0; for pid in "${REDIS_PIDS[@]}"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done; echo "$total"; }
# every node's INFO section $1, one after the other (the awk readers below sum over them)
redis_info() { local port; for port in "${REDIS_PORTS[@]}"; do redis-cli -p "$port" INFO "$1"; done | tr -d '\r'; }
heap() { # GW -> "<young GCs> <eden KB> <eden used KB>" of that gateway (jstat -gc), "-" for nginx
  if [ "$1" = none ]; then echo -; else jstat -gc "${GW_PID[$1]}" | awk 'NR == 2 {print $13, $5, $6}'; fi
}
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; } # the machine: user nice system irq softirq steal
reads() { redis_info stats | awk -F: '/^total_reads_processed:/{ n += $2 } END { print n + 0 }'; }
evalsha() { # "<EVALSHA calls> <their usec> <GET calls>"
  redis_info commandstats | awk -F'[=,:]' '
    /^cmdstat_evalsha:/ { c += $3; u += $5 } /^cmdstat_get:/ { g += $3 } END { print c + 0, u + 0, g + 0 }'
}
TICK=$(getconf CLK_TCK)

# run VARIANT CONNECTIONS -> prints: variant req/s p50 p99 requests cpu_us sys_us evalsha_per_req usec_per_call
#   redis_cpu_us machine_cpu_us (the private Redis's CPU and the whole machine's busy CPU, per request)
#   checks_per_read (checks per socket read of Redis: how well the gateway's coalescing batches them)
#   checks_per_req usec_per_check checks_per_evalsha
#   heap_kb_per_req (bytes the gateway allocated on its heap per request, in KB: each young collection
#   empties a full eden, so young GCs x eden + the change in eden's use; "-" for nginx)
run() { # run <path> <connections> [req/s, 0 = unpaced]
  local name=$1 conns=$2 rate=${3:-0} gw out c0 c1 e0 e1 reqs r0 r1 m0 m1 q0 q1 h0 h1
  gw=$(gw_of "$name")
  # PROFILE_ROUND is set for the timed load runs: their samples go to one file per path and round
  local stacks=""
  if [ -n "$PROFILE" ] && [ -n "${PROFILE_ROUND:-}" ] && [ "$gw" != none ]; then
    stacks="$WORK/profiles/$name.$PROFILE_ROUND.collapsed"
    profiler "$gw" start "" "$PROFILE_INTERVAL"
  fi
  c0=$(ticks "$gw"); e0=$(evalsha); r0=$(redis_ticks); m0=$(busy_ticks); q0=$(reads); h0=$(heap "$gw")
  if [ "$KEYS" = 1 ]; then
    out=$(wrk -t"$THREADS" -c"$conns" -d"$DURATION" --latency -H 'X-API-Key: bench' "$(url_of "$name")")
  else
    local url; url=$(url_of "$name")
    out=$(PATH_TO="/$(cut -d/ -f4- <<<"$url")" KEYS="$KEYS" THREADS="$THREADS" RATE="$rate" \
      wrk -t"$THREADS" -c"$conns" -d"$DURATION" --latency -s "$ROOT/bench/compare/keys.lua" "$(cut -d/ -f1-3 <<<"$url")")
  fi
  c1=$(ticks "$gw"); e1=$(evalsha); r1=$(redis_ticks); m1=$(busy_ticks); q1=$(reads); h1=$(heap "$gw")
  [ -z "$stacks" ] || profiler "$gw" stop "$stacks"
  reqs=$(echo "$out" | awk '/requests in/{print $1}')
  local rps p50 p99
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  p50=$(echo "$out" | awk '$1=="50%"{print $2}')
  p99=$(echo "$out" | awk '$1=="99%"{print $2}')
  awk -v n="$name" -v rps="$rps" -v p50="$p50" -v p99="$p99" -v r="$reqs" -v hz="$TICK" \
    -v c0="$c0" -v c1="$c1" -v e0="${e0:-0 0}" -v e1="${e1:-0 0}" -v rc=$((r1 - r0)) -v mc=$((m1 - m0)) -v q=$((q1 - q0 - 2)) -v h0="$h0" -v h1="$h1" 'BEGIN{
      split(c0, a, " "); split(c1, b, " "); split(e0, x, " "); split(e1, y, " ");
      cpu = sprintf("%.1f", (b[1]-a[1])*1e6/hz/r);
      sys = sprintf("%.1f", (b[2]-a[2])*1e6/hz/r);
      per = (y[1] > x[1]) ? sprintf("%.2f", (y[2]-x[2])/(y[1]-x[1])) : "-";
      checks = y[3] - x[3];
      batch = (checks > 0 && q > 0) ? sprintf("%.1f", checks/q) : "-";
      per_check = (checks > 0) ? sprintf("%.2f", (y[2]-x[2])/checks) : "-";
      together = (y[1] > x[1]) ? sprintf("%.1f", checks/(y[1]-x[1])) : "-";
      heap = "-";
      if (h0 != "-") { split(h0, g, " "); split(h1, k, " "); heap = sprintf("%.1f", ((k[1]-g[1])*k[2] + k[3]-g[3])/r) }
      printf "%s %s %s %s %s %s %s %.3f %s %.1f %.1f %s %.3f %s %s %s\n", n, rps, p50, p99, r, cpu, sys, (y[1]-x[1])/r, per,
        rc*1e6/hz/r, mc*1e6/hz/r, batch, checks/r, per_check, together, heap }'
}

echo "warm-up..." >&2
for v in $VARIANTS; do DURATION=$WARMUP run "$v" "$CONNECTIONS" "$RATE" >/dev/null; done

RESULTS="$WORK/results"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg), wrk -t$THREADS -c$CONNECTIONS -d$DURATION, warm-up $WARMUP each, store: $STORE (${#REDIS_PORTS[@]} node(s)), keys: $KEYS, rate: $RATE, gateway JVM: ${GATEWAY_JAVA_OPTS//${AGENT:-"<none>"}/<async-profiler>}${BASELINE_JAR:+, baseline JVM: ${BASELINE_JAVA_OPTS//${AGENT:-"<none>"}/<async-profiler>}}"
echo "| round | path | req/s | p50 | p99 | gateway CPU µs/req (of it kernel) | checks/req | EVALSHA/req | checks per EVALSHA | Redis µs per check | Redis CPU µs/req | machine CPU µs/req | checks per Redis read | heap allocated KB/req |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
# RESTART=yes: each round after the first starts both gateways afresh and warms them again, so that no jar's
# figure rests on one JVM's compiled code (which differs from start to start by more than the effects measured)
restart_gateways() {
  local name
  for name in new ${BASELINE_JAR:+base}; do
    kill "${GW_PID[$name]}" 2>/dev/null || true
    wait "${GW_PID[$name]}" 2>/dev/null || true
  done
  start_gateway new "$JAR" "$GATEWAY_JAVA_OPTS"
  if [ -n "$BASELINE_JAR" ]; then start_gateway base "$BASELINE_JAR" "$BASELINE_JAVA_OPTS"; fi
  for v in $VARIANTS; do DURATION=$WARMUP run "$v" "$CONNECTIONS" "$RATE" >/dev/null; done
}
# odd rounds run the paths in order, even rounds in reverse, so no path always runs first (or last) in a round
in_turn() { if (( $1 % 2 )); then echo "$VARIANTS"; else echo "$VARIANTS" | tr ' ' '\n' | tac | tr '\n' ' '; fi; }
for r in $(seq 1 "$ROUNDS"); do
  if [ -n "${RESTART:-}" ] && [ "$r" -gt 1 ]; then restart_gateways; fi
  for v in $(in_turn "$r"); do
    [[ " $PATHS " == *" ${v#base-} "* ]] || continue
    PROFILE_ROUND=$r run "$v" "$CONNECTIONS" "$RATE" | tee -a "$RESULTS" \
      | awk -v r="$r" '{printf "| %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s |\n", r, $1, $2, $3, $4, $6, $7, $13, $8, $15, $14, $10, $11, $12, $16}'
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "medians over the rounds:"
python3 "$ROOT/bench/gateway/medians.py" load "$RESULTS"
if [ -n "$PROFILE" ]; then
  echo
  echo "where the gateway's CPU goes (async-profiler, CPU-time samples every $PROFILE_INTERVAL of each timed run above):"
  python3 "$ROOT/bench/gateway/profile.py" "$RESULTS" "$WORK/profiles" "$PROFILE_INTERVAL"
  if [ -n "$PROFILE_OUT" ]; then mkdir -p "$PROFILE_OUT" && cp "$WORK"/profiles/*.collapsed "$PROFILE_OUT"/; fi
fi
echo
echo "light load (wrk -c$LIGHT_CONNECTIONS, $ROUNDS rounds taking turns): latency added by the limiter"
echo "| round | path | req/s | p50 | p99 | gateway CPU µs/req |"
echo "|---|---|---|---|---|---|"
LIGHT="$WORK/light"
for r in $(seq 1 "$ROUNDS"); do
  for v in $(in_turn "$r"); do
    [[ $v != nginx && " $PATHS " == *" ${v#base-} "* ]] || continue
    run "$v" "$LIGHT_CONNECTIONS" | tee -a "$LIGHT" \
      | awk -v r="$r" '{printf "| %s | %s | %s | %s | %s | %s |\n", r, $1, $2, $3, $4, $6}'
  done
done
[ -s "$LIGHT" ] && python3 "$ROOT/bench/gateway/medians.py" light "$LIGHT"
echo
echo "decisions of bench.limited over the whole run (fallbacks mean the store missed tollgate.store.timeout):"
curl -fs "http://127.0.0.1:${GW_MGMT[new]}/q/metrics" | grep '^tollgate_decisions_total{.*bench.limited' | sed 's/^/    /'
curl -fs "http://127.0.0.1:${GW_MGMT[new]}/q/metrics" | grep -E '^tollgate_store_errors_total' | sed 's/^/    /'
echo "    breaker openings: $(grep -c 'breaker open' "$WORK/gateway-new.log" || true)"
