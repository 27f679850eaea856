# Sourced by the gateway benches (limiter-overhead.sh, store-timeout.sh) once ROOT is set: a temporary
# directory WORK and the processes started in it (PIDS, the nginx instances), stopped on exit; free ports;
# nginx instances; the store (one Redis, or a Redis Cluster of three primaries); gateways of the packaged
# jar, each from a rules snapshot copied from $WORK/rules.json, proxying to $BACKEND.

need() { # need TOOL...: stops at the first tool missing from PATH
  local tool
  for tool in "$@"; do command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }; done
}
need_package() { # need_package TOOL PACKAGE: installs Debian's PACKAGE for a missing TOOL when root, else stops
  command -v "$1" >/dev/null && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing $1 ($2)..." >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
  fi
  command -v "$1" >/dev/null || { echo "missing: $1 (Debian package $2)" >&2; exit 1; }
}

WORK=$(mktemp -d)
PIDS=()
NGINX_NAMES=()
cleanup() {
  local pid name
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for name in "${NGINX_NAMES[@]}"; do
    [ -f "$WORK/$name.pid" ] && kill "$(cat "$WORK/$name.pid")" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
cpu() { # cpu PID...: user + system clock ticks the processes used so far
  local pid sum=0
  for pid in "$@"; do sum=$((sum + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done
  echo "$sum"
}
script_calls() { # script_calls PORT: EVALSHA and EVAL calls the Redis on PORT served so far
  redis-cli -p "$1" INFO commandstats | tr -d '\r' | awk -F'[:=,]' '
    /^cmdstat_(evalsha|eval):/ { n += $3 } END { print n + 0 }'
}

# nginx_conf NAME SERVER-BLOCK: an nginx of one worker, its pid in $WORK/NAME.pid
nginx_conf() {
  cat >"$WORK/$1.conf" <<NGINX
worker_processes 1;
pid $WORK/$1.pid;
error_log $WORK/$1-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/$1-body; proxy_temp_path $WORK/$1-proxy;
  fastcgi_temp_path $WORK/$1-fcgi; uwsgi_temp_path $WORK/$1-uwsgi; scgi_temp_path $WORK/$1-scgi;
  keepalive_requests 1000000;
  $2
}
NGINX
  NGINX_NAMES+=("$1")
  nginx -c "$WORK/$1.conf" -e "$WORK/$1-error.log"
}
# backend: the upstream of every gateway, an nginx answering 200 "ok"
backend() {
  BACKEND=$(free_port)
  nginx_conf backend "server { listen 127.0.0.1:$BACKEND; location / { return 200 \"ok\\n\"; } }"
}

# The store: STORE_KIND (standalone | cluster); REDIS_PORTS and REDIS_PIDS list its nodes (same order),
# REDIS_HOSTS and CLIENT_TYPE say it to a gateway.
REDIS_PORTS=() REDIS_PIDS=()
# a cluster node also listens on its port + 10000 (the cluster bus): both must be free and below 65536
free_node_port() {
  python3 -c '
import random, socket
while True:
    port = random.randint(20000, 45000)
    try:
        for p in (port, port + 10000):
            s = socket.socket(); s.bind(("127.0.0.1", p)); s.close()
        print(port); break
    except OSError:
        pass'
}
# redis_node I: starts node I on REDIS_PORTS[I]; a Cluster node keeps its nodes-<port>.conf in WORK, so a
# node started again on its port rejoins the cluster with its slots (its data is gone: no persistence)
redis_node() {
  local port=${REDIS_PORTS[$1]}
  # shellcheck disable=SC2046 # the cluster options are a list
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
    $([ "$STORE_KIND" = cluster ] && echo "--cluster-enabled yes --cluster-config-file nodes-$port.conf") \
    >>"$WORK/redis-$port.log" 2>&1 &
  REDIS_PIDS[$1]=$!
  PIDS+=($!)
}
# store_answers: every node answers PING and, on a Cluster, says cluster_state:ok (bounded: 10 s)
store_answers() {
  local port
  for port in "${REDIS_PORTS[@]}"; do
    for _ in $(seq 1 100); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done
    redis-cli -p "$port" PING >/dev/null 2>&1 || return 1
    [ "$STORE_KIND" = cluster ] || continue
    for _ in $(seq 1 100); do redis-cli -p "$port" CLUSTER INFO | grep -q 'cluster_state:ok' && break; sleep 0.1; done
    redis-cli -p "$port" CLUSTER INFO | grep -q 'cluster_state:ok' || return 1
  done
}
# start_store KIND: one Redis, or a cluster of three primaries without replicas, on free ports
start_store() {
  local i port
  STORE_KIND=$1 REDIS_PORTS=() REDIS_PIDS=()
  for i in $([ "$STORE_KIND" = cluster ] && echo 0 1 2 || echo 0); do
    REDIS_PORTS[i]=$(free_node_port)
    redis_node "$i"
  done
  for port in "${REDIS_PORTS[@]}"; do
    for _ in $(seq 1 100); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.05; done
  done
  REDIS_HOSTS="redis://127.0.0.1:${REDIS_PORTS[0]}"
  CLIENT_TYPE=standalone
  if [ "$STORE_KIND" = cluster ]; then
    redis-cli --cluster create $(printf '127.0.0.1:%s ' "${REDIS_PORTS[@]}") --cluster-replicas 0 --cluster-yes >"$WORK/cluster.log" 2>&1 \
      || { cat "$WORK/cluster.log" >&2; exit 1; }
    REDIS_HOSTS=$(printf 'redis://127.0.0.1:%s,' "${REDIS_PORTS[@]}"); REDIS_HOSTS=${REDIS_HOSTS%,}
    CLIENT_TYPE=cluster
  fi
  store_answers || { echo "the $STORE_KIND store did not come up" >&2; exit 1; }
}

# has_management JAR: whether that build serves /q/* on a management interface (a BASELINE_JAR of an older
# build serves it on its public port)
has_management() {
  local app
  for app in "$(dirname "$1")"/app/*.jar; do
    unzip -p "$app" application.properties 2>/dev/null | grep -q '^quarkus.management.enabled=true' && return 0
  done
  return 1
}

# start_gateway NAME JAR JAVA_OPTS: one gateway on a free port (and its management interface on another) with
# the rules of $WORK/rules.json (its own snapshot copy), ready and limiting GET /limited/x of the API key
# "bench"; GW_PORT[NAME], GW_MGMT[NAME] (where /q/health and /q/metrics are), GW_PID[NAME]
declare -A GW_PORT GW_MGMT GW_PID
# profiler_agent: async-profiler 4.2 (Maven Central; Linux x86_64) unpacked under $WORK, and $WORK/profiles made
# for the stacks; prints the agent's path, for -agentpath (loaded idle, started and stopped through jcmd)
profiler_agent() {
  "$ROOT/mvnw" -B -q -N -f "$ROOT/pom.xml" dependency:copy -Dartifact=tools.profiler:async-profiler:4.2:jar:linux-x64 \
    -DoutputDirectory="$WORK/ap" >&2
  unzip -q -o "$WORK"/ap/async-profiler-*.jar 'linux-x64/*' -d "$WORK/ap"
  mkdir -p "$WORK/profiles"
  echo "$WORK/ap/linux-x64/libasyncProfiler.so"
}
# profiler GW start|stop [FILE] [INTERVAL]: starts sampling CPU every INTERVAL, or stops and writes collapsed
# stacks to FILE, through the agent at $AGENT; jcmd's parser splits name=value pairs, so the options go in quotes
profiler() {
  jcmd "${GW_PID[$1]}" JVMTI.agent_load "$AGENT" "\"$2${3:+,file=$3,collapsed}${4:+,event=cpu,interval=$4}\"" >/dev/null
}
launch_gateway() { # NAME JAR JAVA_OPTS: started, not yet ready
  local name=$1 jar=$2 opts=$3 port management
  port=$(free_port)
  management=$port
  has_management "$jar" && management=$(free_port)
  cp "$WORK/rules.json" "$WORK/rules-$name.json"
  # shellcheck disable=SC2086 # the JVM options are a list
  QUARKUS_HTTP_PORT=$port QUARKUS_MANAGEMENT_PORT=$management TOLLGATE_GATEWAY_UPSTREAM="http://127.0.0.1:$BACKEND" \
    QUARKUS_REDIS_HOSTS="$REDIS_HOSTS" QUARKUS_REDIS_CLIENT_TYPE=$CLIENT_TYPE TOLLGATE_RULES_URL="http://127.0.0.1:1" \
    TOLLGATE_RULES_WATCH=false TOLLGATE_RULES_SNAPSHOT="$WORK/rules-$name.json" \
    java $opts -jar "$jar" >"$WORK/gateway-$name.log" 2>&1 &
  GW_PID[$name]=$!
  GW_PORT[$name]=$port
  GW_MGMT[$name]=$management
  PIDS+=($!)
}
await_gateway() { # NAME: ready (30 s at most) and limiting
  local port=${GW_PORT[$1]} management=${GW_MGMT[$1]}
  for _ in $(seq 1 150); do
    curl -fs "http://127.0.0.1:$management/q/health/ready" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fs "http://127.0.0.1:$management/q/health/ready" >/dev/null || { cat "$WORK/gateway-$1.log"; exit 1; }
  curl -fs -H 'X-API-Key: bench' "http://127.0.0.1:$port/limited/x" -o /dev/null -D - | grep -i '^ratelimit-policy' >/dev/null \
    || { echo "the limited path of $1 is not limited" >&2; exit 1; }
}
start_gateway() { launch_gateway "$@" && await_gateway "$1"; }

# run_context: the lines under a results file's command: the commit, the machine, the gateway's JVM options and
# the load average around the run (LOAD_BEFORE, LOAD_AFTER), so a figure can be read against how busy it was.
run_context() {
  local opts=$GATEWAY_JAVA_OPTS
  [ -z "${AGENT:-}" ] || opts=${opts//$AGENT/<async-profiler>} # a temporary path, not the run's
  echo "at $(git -C "$ROOT" rev-parse --short HEAD); $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GB", $2/1048576}' /proc/meminfo), $(java -version 2>&1 | head -1);"
  echo "gateway JVM: \`$opts\`; load average before: $LOAD_BEFORE, after: $LOAD_AFTER."
}
