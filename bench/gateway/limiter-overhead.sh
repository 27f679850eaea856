#!/usr/bin/env bash
# What the limiter costs on the hot path. One gateway (the packaged jar), one private Redis, nginx as
# the backend and as the reference keepalive proxy, wrk on loopback; everything on this machine.
#
# In the same run, alternating ROUNDS times (after a warm-up of each):
#   off     GET /open/x     through the gateway, no rule matches (plain proxy)
#   on      GET /limited/x  through the gateway, one token-bucket rule that always allows (1 EVALSHA)
#   nginx   GET /x          through nginx's keepalive proxy to the same backend
# and reads: req/s, p50/p99 (wrk --latency), gateway CPU per request (/proc/<pid>/stat utime+stime),
# Redis calls and usec_per_call of EVALSHA (INFO commandstats).
#
# Needs: wrk, nginx, redis-server, redis-cli, java 17, and ./mvnw -B package -pl gateway-service done.
# Env: DURATION (10s) CONNECTIONS (50) THREADS (2) ROUNDS (3) LIGHT_CONNECTIONS (4) GATEWAY_JAVA_OPTS
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
LIGHT_CONNECTIONS=${LIGHT_CONNECTIONS:-4}
# the launcher's default JVM flags (./tollgate up); add e.g. -XX:StartFlightRecording=filename=gw.jfr to profile
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
JAR="$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"
for tool in wrk nginx redis-server redis-cli java curl; do
  command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done
[ -f "$JAR" ] || { echo "build first: ./mvnw -B package -DskipTests -pl gateway-service" >&2; exit 1; }

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
BACKEND=$(free_port); PROXY=$(free_port); REDIS=$(free_port); GATEWAY=$(free_port)

cat >"$WORK/nginx.conf" <<NGINX
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy;
  fastcgi_temp_path $WORK/fcgi; uwsgi_temp_path $WORK/uwsgi; scgi_temp_path $WORK/scgi;
  keepalive_requests 1000000;
  upstream backend { server 127.0.0.1:$BACKEND; keepalive 64; }
  server { listen 127.0.0.1:$BACKEND; location / { return 200 "ok\n"; } }
  server {
    listen 127.0.0.1:$PROXY;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
NGINX
nginx -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log"

redis-server --port "$REDIS" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
PIDS+=($!)

cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[{"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key",
"algorithm":"token_bucket","limit":1000000000,"period":"1s","burst":1000000000}]}
JSON
QUARKUS_HTTP_PORT=$GATEWAY TOLLGATE_GATEWAY_UPSTREAM="http://127.0.0.1:$BACKEND" \
  QUARKUS_REDIS_HOSTS="redis://127.0.0.1:$REDIS" TOLLGATE_RULES_URL="http://127.0.0.1:1" \
  TOLLGATE_RULES_WATCH=false TOLLGATE_RULES_SNAPSHOT="$WORK/rules.json" \
  java $GATEWAY_JAVA_OPTS -jar "$JAR" >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
PIDS+=($GW_PID)
for _ in $(seq 1 150); do
  curl -fs "http://127.0.0.1:$GATEWAY/q/health/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://127.0.0.1:$GATEWAY/q/health/ready" >/dev/null || { cat "$WORK/gateway.log"; exit 1; }
curl -fs -H 'X-API-Key: bench' "http://127.0.0.1:$GATEWAY/limited/x" -o /dev/null -D - | grep -i '^ratelimit-policy' >/dev/null \
  || { echo "the limited path is not limited" >&2; exit 1; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$GW_PID/stat"; }
sys_ticks() { awk '{print $15}' "/proc/$GW_PID/stat"; }
evalsha() { redis-cli -p "$REDIS" INFO commandstats | tr -d '\r' | awk -F'[=,:]' '/^cmdstat_evalsha:/{print $3, $5}'; }
TICK=$(getconf CLK_TCK)

# run NAME URL CONNECTIONS -> prints: name req/s p50 p99 requests cpu_us_per_req evalsha_per_req usec_per_call
run() {
  local name=$1 url=$2 conns=$3 out t0 t1 e0 e1 reqs
  t0=$(cpu_ticks); s0=$(sys_ticks); e0=$(evalsha)
  out=$(wrk -t"$THREADS" -c"$conns" -d"$DURATION" --latency -H 'X-API-Key: bench' "$url")
  t1=$(cpu_ticks); s1=$(sys_ticks); e1=$(evalsha)
  reqs=$(echo "$out" | awk '/requests in/{print $1}')
  local rps p50 p99
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  p50=$(echo "$out" | awk '$1=="50%"{print $2}')
  p99=$(echo "$out" | awk '$1=="99%"{print $2}')
  local calls0 calls1 usec0 usec1
  read -r calls0 usec0 <<<"${e0:-0 0}"; read -r calls1 usec1 <<<"${e1:-0 0}"
  local cpu_us sys_us evals per_call
  cpu_us=$(awk -v a="$t0" -v b="$t1" -v r="$reqs" -v hz="$TICK" 'BEGIN{printf "%.1f", (b-a)*1e6/hz/r}')
  sys_us=$(awk -v a="$s0" -v b="$s1" -v r="$reqs" -v hz="$TICK" 'BEGIN{printf "%.1f", (b-a)*1e6/hz/r}')
  evals=$(awk -v a="$calls0" -v b="$calls1" -v r="$reqs" 'BEGIN{printf "%.3f", (b-a)/r}')
  per_call=$(awk -v a="$calls0" -v b="$calls1" -v x="$usec0" -v y="$usec1" 'BEGIN{ if (b>a) printf "%.2f", (y-x)/(b-a); else print "-"}')
  echo "$name $rps $p50 $p99 $reqs $cpu_us $evals $per_call $sys_us"
}

echo "warm-up..." >&2
DURATION=5s run warm "http://127.0.0.1:$GATEWAY/open/x" "$CONNECTIONS" >/dev/null
DURATION=5s run warm "http://127.0.0.1:$GATEWAY/limited/x" "$CONNECTIONS" >/dev/null
DURATION=3s run warm "http://127.0.0.1:$PROXY/x" "$CONNECTIONS" >/dev/null

echo "date: $(date -u +%Y-%m-%dT%H:%MZ), load average before: $(cut -d' ' -f1-3 /proc/loadavg), wrk -t$THREADS -c$CONNECTIONS -d$DURATION"
echo "| round | path | req/s | p50 | p99 | gateway CPU µs/req (of it kernel) | EVALSHA/req | Redis µs/EVALSHA |"
echo "|---|---|---|---|---|---|---|---|"
for r in $(seq 1 "$ROUNDS"); do
  for spec in "off http://127.0.0.1:$GATEWAY/open/x" "on http://127.0.0.1:$GATEWAY/limited/x" "nginx http://127.0.0.1:$PROXY/x"; do
    set -- $spec
    run "$1" "$2" "$CONNECTIONS" | awk -v r="$r" '{printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r, $1, $2, $3, $4, ($1=="nginx"?"-":$6" ("$9")"), $7, $8}'
  done
done
echo
echo "light load (wrk -c$LIGHT_CONNECTIONS): latency added by the limiter"
echo "| path | req/s | p50 | p99 | gateway CPU µs/req |"
echo "|---|---|---|---|---|"
for spec in "off http://127.0.0.1:$GATEWAY/open/x" "on http://127.0.0.1:$GATEWAY/limited/x"; do
  set -- $spec
  run "$1" "$2" "$LIGHT_CONNECTIONS" | awk '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $6}'
done
echo
echo "decisions of bench.limited over the whole run (fallbacks mean the store missed tollgate.store.timeout):"
curl -fs "http://127.0.0.1:$GATEWAY/q/metrics" | grep '^tollgate_decisions_total{.*bench.limited' | sed 's/^/    /'
curl -fs "http://127.0.0.1:$GATEWAY/q/metrics" | grep -E '^tollgate_store_errors_total' | sed 's/^/    /'
echo "    breaker openings: $(grep -c 'breaker open' "$WORK/gateway.log" || true)"
