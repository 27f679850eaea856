#!/usr/bin/env bash
# Benchmark (not a test): launch to first proxied answer of a gateway started by `./tollgate up`, with the
# launcher's default (JDK 25, aot-jar, AOT cache) and without it (TOLLGATE_AOT=no: fast-jar on `java`).
#
# Needs a running stack (./tollgate up). Each start stops the last gateway of the stack (the launcher's
# PID file names it), then times `./tollgate up`, which starts that one gateway again, from the launch of
# the launcher to the first 200 of GET /anything through that gateway (bench/startup/first_answer.py,
# polling every 5 ms). The time therefore includes the launcher's own checks (tools, build, Redis,
# PostgreSQL, the other services) before it starts the JVM. The modes take turns; RSS is the gateway's
# VmRSS once the launcher has returned. The stack is left running, its last gateway in the launcher's default mode.
# Usage: bench/startup/launcher.sh   env: RUNS [5]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/startup"
RUNS=${RUNS:-5}
PORTS=(${TOLLGATE_GATEWAY_PORTS:-8080 8082 8083})
PORT=${PORTS[-1]}
NAME=gateway-${#PORTS[@]}
PIDFILE="$ROOT/.tollgate/run/$NAME.pid"
[ -f "$PIDFILE" ] || { echo "no $NAME runs: ./tollgate up first" >&2; exit 1; }
WORK=$(mktemp -d -t tollgate-launcher.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

stop_gateway() {
  local pid
  pid=$(cat "$PIDFILE")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do [ -e "/proc/$pid" ] || break; sleep 0.1; done
  rm -f "$PIDFILE"
}

# the fast-jar is built (when stale) by one launcher run in that mode, before any start is timed
stop_gateway
TOLLGATE_AOT=no "$ROOT/tollgate" up >"$WORK/prepare.log" 2>&1

median() { sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
declare -A TIMES RSSS
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
for run in $(seq 1 "$RUNS"); do
  for mode in aot no; do
    stop_gateway
    read -r _ ms rss < <(python3 "$HERE/first_answer.py" "http://127.0.0.1:$PORT/anything" 200 "$WORK/$mode-$run.log" \
      -- env TOLLGATE_AOT="$mode" "$ROOT/tollgate" up)
    # the launcher has returned or is printing its summary by now; wait for it before the next start
    for _ in $(seq 1 300); do grep -q 'Stop everything' "$WORK/$mode-$run.log" && break; sleep 0.1; done
    rss=$(awk '/^VmRSS:/{print $2}' "/proc/$(cat "$PIDFILE")/status")
    TIMES[$mode]+="$ms "
    RSSS[$mode]+="$rss "
    echo "run $run, TOLLGATE_AOT=$mode: $ms ms, RSS $((rss / 1024)) MB" >&2
  done
done

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load average $LOAD_BEFORE before, $(cut -d' ' -f1 /proc/loadavg) after  runs: $RUNS"
echo
echo "| launcher mode | first proxied answer, median (ms) | each start (ms) | RSS when up returns, median (MB) |"
echo "|---|---|---|---|"
for mode in aot no; do
  label="JDK 25, aot-jar + AOT cache (default)"
  [ $mode = no ] && label="fast-jar on \`java\` (TOLLGATE_AOT=no)"
  printf '| %s | %s | %s | %s |\n' "$label" "$(tr ' ' '\n' <<<"${TIMES[$mode]}" | grep . | median)" "${TIMES[$mode]% }" \
    "$(tr ' ' '\n' <<<"${RSSS[$mode]}" | grep . | median | awk '{printf "%.0f", $1 / 1024}')"
done
