#!/usr/bin/env bash
# Evidence that the proxy streams: the packaged gateway runs with a 40 MB heap and 16 MB of direct
# memory, and 50 MB go up and 50 MB come down through it (nginx as the backend). A proxy that held a
# body whole could not. The downloads are charged by rules with settle (in-process store): the binary by its
# bytes (response_bytes), a JSON answer of the same size by the usage after its one long string
# (json:/usage/total_tokens), so the meters that read usage as an answer streams are under the same heap.
# Prints the sizes moved, the settlements, the gateway's peak RSS and whether it stayed up.
#
# Needs: nginx, curl, java 17, python3, and ./mvnw -B package -pl gateway-service done.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAR="$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"
SIZE_MB=${SIZE_MB:-50}
[ -f "$JAR" ] || { echo "build first: ./mvnw -B package -DskipTests -pl gateway-service" >&2; exit 1; }

WORK=$(mktemp -d)
GW_PID=
cleanup() {
  [ -n "$GW_PID" ] && kill "$GW_PID" 2>/dev/null || true
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
BACKEND=$(free_port); GATEWAY=$(free_port); MANAGEMENT=$(free_port)

mkdir -p "$WORK/www"
head -c "$((SIZE_MB * 1024 * 1024))" /dev/urandom >"$WORK/www/big.bin"
python3 - "$WORK/www/big.json" "$SIZE_MB" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    out.write('{"id": "big", "content": "')
    chunk = "token " * 10922
    for _ in range(int(sys.argv[2]) * 16):
        out.write(chunk)
    out.write('", "usage": {"total_tokens": 123456}}')
PY
chmod 755 "$WORK" "$WORK/www"; chmod 644 "$WORK/www/big.bin" "$WORK/www/big.json"   # nginx workers are not root
cat >"$WORK/nginx.conf" <<NGINX
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy;
  fastcgi_temp_path $WORK/fcgi; uwsgi_temp_path $WORK/uwsgi; scgi_temp_path $WORK/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$BACKEND;
    root $WORK/www;
    location /upload { client_body_in_file_only off; proxy_pass http://127.0.0.1:$BACKEND/sink; }
    location /sink { return 200 "received\n"; }
  }
}
NGINX
nginx -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log"

cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
{"id":"bytes.out","match":{"path":"/big.bin"},"key":"global","limit":1,"period":"1h","burst":1000000000,
 "unit":"content-bytes","settle":{"from":"response_bytes"}},
{"id":"tokens.out","match":{"path":"/big.json"},"key":"global","limit":1,"period":"1h","burst":1000000000,
 "unit":"tokens","settle":{"from":"json:/usage/total_tokens"}}]}
JSON
QUARKUS_HTTP_PORT=$GATEWAY QUARKUS_MANAGEMENT_PORT=$MANAGEMENT TOLLGATE_GATEWAY_UPSTREAM="http://127.0.0.1:$BACKEND" TOLLGATE_STORE_TYPE=memory \
  TOLLGATE_RULES_URL="http://127.0.0.1:1" TOLLGATE_RULES_WATCH=false TOLLGATE_RULES_SNAPSHOT="$WORK/rules.json" \
  java -Xmx40m -XX:MaxDirectMemorySize=16m -jar "$JAR" >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
for _ in $(seq 1 150); do
  curl -fs "http://127.0.0.1:$MANAGEMENT/q/health/ready" >/dev/null 2>&1 && break
  sleep 0.2
done

peak=0
watch_rss() { while kill -0 "$GW_PID" 2>/dev/null; do
  r=$(awk '/VmHWM/{print $2}' "/proc/$GW_PID/status" 2>/dev/null || echo 0); echo "$r" >"$WORK/hwm"; sleep 0.2; done; }
watch_rss & WATCH=$!

down=$(curl -s -o /dev/null -w "%{http_code} %{size_download}" "http://127.0.0.1:$GATEWAY/big.bin" || true)
json=$(curl -s -o /dev/null -w "%{http_code} %{size_download}" "http://127.0.0.1:$GATEWAY/big.json" || true)
up=$(head -c "$((SIZE_MB * 1024 * 1024))" /dev/urandom | curl -s -o /dev/null -w '%{http_code} %{size_upload}' \
  -H 'Content-Type: application/octet-stream' --data-binary @- "http://127.0.0.1:$GATEWAY/upload")
kill "$WATCH" 2>/dev/null || true
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), gateway -Xmx40m -XX:MaxDirectMemorySize=16m"
echo "download through the gateway: $down bytes; a JSON answer of one long string: $json bytes"
echo "settlements: $(curl -fs "http://127.0.0.1:$MANAGEMENT/q/metrics" | grep '^tollgate_settlements_total' | tr '\n' ' ')"
echo "upload through the gateway: status and bytes $up"
echo "gateway peak RSS (VmHWM): $(cat "$WORK/hwm") kB; still up: $(kill -0 "$GW_PID" 2>/dev/null && echo yes || echo no)"
grep -iE "OutOfMemory|ERROR" "$WORK/gateway.log" | head -5 || true
