#!/usr/bin/env bash
# The figures behind the default of tollgate.store.timeout. One gateway (the packaged jar) per timeout in
# TIMEOUTS, started with -Dtollgate.store.timeout=<it>, all on one private store, an nginx backend, wrk on
# loopback; every store in STORE in turn (standalone: one Redis; cluster: three primaries, no replicas).
# The rules: bench.limited (/limited/**, failure_mode local) and bench.open (/fail-open/**, failure_mode
# open), token buckets per API key that never reject (10^9 a second, burst 10^9); keys.lua draws each
# request's key from KEYS.
#
# 1. Saturation: wrk -t$THREADS -c$CONNECTIONS on bench.limited, the gateways taking turns for ROUNDS rounds
#    after a warm-up of each. Per run: req/s and p99 (wrk), and from the gateway's /q/metrics before and
#    after: its decisions of bench.limited by outcome, tollgate_store_errors_total by kind, and the late
#    answers and over-admissions where the gateway counts them. The table gives, per store and timeout,
#    failure-mode decisions (fallback_allowed + fallback_rejected) per 1,000 decisions of the rule and
#    store timeouts (kind="timeout") per 1,000 of them, over all rounds.
# 2. Redis down: per store, timeout and outage in OUTAGES, a fresh outage started just before two wrk
#    -t1 -c$DOWN_CONNECTIONS of DOWN_DURATION seconds run at once, one per rule:
#      up      no outage: the same load with the store answering, the reference
#      killed  every node SIGKILLed: calls are refused
#      paused  every node in CLIENT PAUSE ALL for the run and 1 s more (UNPAUSE would wait for the pause
#              itself): calls get no answer
#    Per rule: p50, p99, p99.9 and max latency of the answers, their statuses; per run: failure-mode
#    decisions, store errors by kind, the time from the gateway's first failure-mode decision to its
#    breaker opening (both from its log). Then the store comes back (killed nodes start again on their
#    ports; a pause ends by itself) and the time until a check is answered by it again with the breaker
#    closed (recovery, at most RECOVERY_LIMIT) is measured before the next outage.
# store_timeout.py prints the tables; the report goes to stdout and to bench/results/<UTC date and
# time>-store-timeout.md with the command, the commit and the load average before and after.
#
# Needs: wrk, nginx, redis-server, redis-cli, java 17, curl, python3, unzip.
# Env: TIMEOUTS ("20ms 50ms 100ms")  STORE ("standalone cluster")  PARTS ("saturation down")
#      KEYS (10000)  CONNECTIONS (50)  THREADS (2)  WARMUP (10 s per gateway)  DURATION (8 s)  ROUNDS (2)
#      OUTAGES ("up killed paused")  DOWN_CONNECTIONS (8 per rule)  DOWN_DURATION (5 s)  RECOVERY_LIMIT (30 s)
#      UNANSWERED_AFTER (500ms: -Dtollgate.store.breaker.unanswered-after, passed when the jar's GatewayConfig
#        has the key; empty: never)
#      GATEWAY_JAVA_OPTS (-XX:+UseSerialGC -Xmx64m)  GATEWAY_OPTS (more -D settings for every gateway)
#      JAR (default gateway-service/target/quarkus-app/quarkus-run.jar, built with ./mvnw when missing or
#        older than the sources it is built from)  RESULTS (the report's path)  MAX_SECONDS (900: the run
#        stops, cleaned up, past this)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KNOBS="TIMEOUTS STORE PARTS KEYS CONNECTIONS THREADS WARMUP DURATION ROUNDS OUTAGES DOWN_CONNECTIONS DOWN_DURATION
  RECOVERY_LIMIT UNANSWERED_AFTER GATEWAY_JAVA_OPTS GATEWAY_OPTS JAR MAX_SECONDS"
COMMAND_LINE=""
for knob in $KNOBS; do
  [ -z "${!knob+x}" ] || COMMAND_LINE+="$knob=$(printf '%q' "${!knob}") "
done
COMMAND_LINE+="bench/gateway/store-timeout.sh"
TIMEOUTS=${TIMEOUTS:-20ms 50ms 100ms}
STORE=${STORE:-standalone cluster}
PARTS=${PARTS:-saturation down}
KEYS=${KEYS:-10000}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
WARMUP=${WARMUP:-10}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-2}
OUTAGES=${OUTAGES:-up killed paused}
DOWN_CONNECTIONS=${DOWN_CONNECTIONS:-8}
DOWN_DURATION=${DOWN_DURATION:-5}
RECOVERY_LIMIT=${RECOVERY_LIMIT:-30}
UNANSWERED_AFTER=${UNANSWERED_AFTER-500ms}
GATEWAY_JAVA_OPTS=${GATEWAY_JAVA_OPTS:--XX:+UseSerialGC -Xmx64m}
GATEWAY_OPTS=${GATEWAY_OPTS:-}
DEFAULT_JAR="$ROOT/gateway-service/target/quarkus-app/quarkus-run.jar"
JAR=${JAR:-$DEFAULT_JAR}
MAX_SECONDS=${MAX_SECONDS:-900}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
RESULTS=${RESULTS:-$ROOT/bench/results/$STAMP-store-timeout.md}
STARTED=$(date +%s)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
say() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
has() { [[ " $PARTS " == *" $1 "* ]]; }

# shellcheck source=bench/gateway/lib.sh
. "$ROOT/bench/gateway/lib.sh"
need wrk nginx redis-server redis-cli java curl python3 unzip

# the default jar is built when missing or older than a source of the modules it is built from
APP_JAR=$(ls "$ROOT"/gateway-service/target/quarkus-app/app/*.jar 2>/dev/null | head -1)
if [ "$JAR" = "$DEFAULT_JAR" ] && { [ ! -f "$JAR" ] || [ -z "$APP_JAR" ] || [ -n "$(find "$ROOT"/{gateway-service,counter-scripts,rules-domain}/{pom.xml,src} \
  "$ROOT/pom.xml" -newer "$APP_JAR" -type f 2>/dev/null | head -1)" ]; }; then
  say "building the gateway (fast-jar)"
  (cd "$ROOT" && ./mvnw -B -q package -DskipTests -Dformat.skip=true -pl gateway-service -am) >&2
fi
[ -f "$JAR" ] || { echo "no gateway jar at $JAR" >&2; exit 1; }
# the breaker key goes only to a jar whose config has it (SmallRye Config refuses a start with an unknown key)
BREAKER_OPT=""
if [ -n "$UNANSWERED_AFTER" ]; then
  if unzip -p "$(dirname "$JAR")"/app/*.jar 'io/tollgate/gateway/config/GatewayConfig*.class' 2>/dev/null | grep -aq unansweredAfter; then
    BREAKER_OPT="-Dtollgate.store.breaker.unanswered-after=$UNANSWERED_AFTER"
  else
    say "the jar has no tollgate.store.breaker.unanswered-after: not passed"
  fi
fi

# the watchdog: TERM to this script past MAX_SECONDS (the EXIT trap then stops everything it started)
(
  trap 'kill "$nap" 2>/dev/null; exit 0' TERM
  sleep "$MAX_SECONDS" &
  nap=$!
  wait "$nap" && echo "past MAX_SECONDS=$MAX_SECONDS: stopping" >&2 && kill -TERM $$
) &
PIDS+=($!)
trap 'exit 130' INT TERM

backend
cat >"$WORK/rules.json" <<JSON
{"version":1,"rules":[
 {"id":"bench.limited","match":{"path":"/limited/**"},"key":"api_key","algorithm":"token_bucket",
  "limit":1000000000,"period":"1s","burst":1000000000,"failure_mode":"local"},
 {"id":"bench.open","match":{"path":"/fail-open/**"},"key":"api_key","algorithm":"token_bucket",
  "limit":1000000000,"period":"1s","burst":1000000000,"failure_mode":"open"}]}
JSON

# wrk_run NAME PATH SECONDS CONNECTIONS THREADS: keys.lua's RESULT line (a request unanswered for 10 s counts
# as a socket error, not in the latencies)
wrk_run() {
  PATH_TO="$2" KEYS="$KEYS" THREADS="$5" wrk -t"$5" -c"$4" -d"${3}s" --timeout 10s \
    -s "$ROOT/bench/compare/keys.lua" "http://127.0.0.1:${GW_PORT[$1]}" | grep '^RESULT' || echo "RESULT none"
}
# snapshot NAME FILE: the gateway's limiter and store metrics
snapshot() {
  curl -fs "http://127.0.0.1:${GW_MGMT[$1]}/q/metrics" \
    | grep -E '^tollgate_(decisions_total|store_errors_total|store_late_answers_total|fallback_overadmitted_total|store_breaker_state)' \
      >"$2" || true
}
metric() { # metric NAME PATTERN: the sum of the gateway's metric lines matching PATTERN
  curl -fs "http://127.0.0.1:${GW_MGMT[$1]}/q/metrics" | awk -v p="$2" '$0 ~ p { n += $NF } END { print n + 0 }'
}
# recover NAME: ms until a check of bench.limited is allowed by the store and the breaker is closed,
# "none" past RECOVERY_LIMIT
recover() {
  local started now allowed
  started=$(date +%s%3N)
  while :; do
    allowed=$(metric "$1" '^tollgate_decisions_total.*outcome="allowed".*rule="bench.limited"')
    curl -fs -o /dev/null -H 'X-API-Key: probe' "http://127.0.0.1:${GW_PORT[$1]}/limited/x" || true
    now=$(date +%s%3N)
    if [ "$(metric "$1" '^tollgate_decisions_total.*outcome="allowed".*rule="bench.limited"')" != "$allowed" ] \
      && [ "$(metric "$1" '^tollgate_store_breaker_state')" = 0 ]; then
      echo $((now - started))
      return
    fi
    [ $((now - started)) -lt $((RECOVERY_LIMIT * 1000)) ] || { echo none; return; }
    sleep 0.05
  done
}
RUNS="$WORK/runs.tsv"
: >"$RUNS"
# row PART STORE TIMEOUT LABEL RULE RESULT BEFORE AFTER LOG RECOVERY-MS: one run of one rule (LOG: what the
# gateway logged during the run; RECOVERY-MS: "-" but after an outage)
row() { local IFS=$'\t'; echo "$*" >>"$RUNS"; }

run=0
for store in $STORE; do
  [[ $store == standalone || $store == cluster ]] || { echo "STORE: standalone and/or cluster, not $store" >&2; exit 1; }
  say "$store: store and gateways"
  start_store "$store"
  for t in $TIMEOUTS; do
    # shellcheck disable=SC2086 # the options are lists
    launch_gateway "$store-$t" "$JAR" "$GATEWAY_JAVA_OPTS -Dtollgate.store.timeout=$t $BREAKER_OPT $GATEWAY_OPTS"
  done
  for t in $TIMEOUTS; do await_gateway "$store-$t"; done
  say "$store: warm-up, ${WARMUP}s per gateway"
  for t in $TIMEOUTS; do wrk_run "$store-$t" /limited/x "$WARMUP" "$CONNECTIONS" "$THREADS" >/dev/null; done

  if has saturation; then
    for round in $(seq 1 "$ROUNDS"); do
      for t in $TIMEOUTS; do
        run=$((run + 1))
        log="$WORK/gateway-$store-$t.log"
        offset=$(stat -c %s "$log")
        snapshot "$store-$t" "$WORK/$run.before"
        out=$(wrk_run "$store-$t" /limited/x "$DURATION" "$CONNECTIONS" "$THREADS")
        snapshot "$store-$t" "$WORK/$run.after"
        tail -c +$((offset + 1)) "$log" >"$WORK/$run.log"
        row saturation "$store" "$t" "$round" bench.limited "$out" "$WORK/$run.before" "$WORK/$run.after" \
          "$WORK/$run.log" -
        say "$store $t round $round: $out"
      done
    done
  fi

  if has down; then
    for t in $TIMEOUTS; do
      gw="$store-$t"
      for outage in $OUTAGES; do
        run=$((run + 1))
        log="$WORK/gateway-$gw.log"
        offset=$(stat -c %s "$log")
        snapshot "$gw" "$WORK/$run.before"
        case $outage in
          up) ;;
          killed)
            for i in "${!REDIS_PIDS[@]}"; do kill -KILL "${REDIS_PIDS[i]}"; done
            for i in "${!REDIS_PIDS[@]}"; do wait "${REDIS_PIDS[i]}" 2>/dev/null || true; done ;;
          paused)
            for port in "${REDIS_PORTS[@]}"; do
              redis-cli -p "$port" CLIENT PAUSE $((DOWN_DURATION * 1000 + 1000)) ALL >/dev/null
            done ;;
          *) echo "OUTAGES: up, killed and/or paused, not $outage" >&2; exit 1 ;;
        esac
        wrk_run "$gw" /limited/x "$DOWN_DURATION" "$DOWN_CONNECTIONS" 1 >"$WORK/$run.bench.limited" &
        local_wrk=$!
        wrk_run "$gw" /fail-open/x "$DOWN_DURATION" "$DOWN_CONNECTIONS" 1 >"$WORK/$run.bench.open" &
        open_wrk=$!
        wait "$local_wrk" "$open_wrk"
        snapshot "$gw" "$WORK/$run.after"
        tail -c +$((offset + 1)) "$log" >"$WORK/$run.log"
        if [ "$outage" = killed ]; then
          for i in "${!REDIS_PORTS[@]}"; do redis_node "$i"; done
        fi
        store_answers || { echo "the $store store did not come back" >&2; exit 1; }
        recovery=-
        [ "$outage" = up ] || recovery=$(recover "$gw")
        for rule in bench.limited bench.open; do
          row down "$store" "$t" "$outage" "$rule" "$(cat "$WORK/$run.$rule")" "$WORK/$run.before" \
            "$WORK/$run.after" "$WORK/$run.log" "$recovery"
        done
        say "$store $t $outage: local $(cat "$WORK/$run.bench.limited"); open $(cat "$WORK/$run.bench.open"); recovery $recovery ms"
      done
    done
  fi
  for t in $TIMEOUTS; do kill "${GW_PID[$store-$t]}" 2>/dev/null || true; wait "${GW_PID[$store-$t]}" 2>/dev/null || true; done
  for pid in "${REDIS_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
done

mkdir -p "$(dirname "$RESULTS")"
{
  echo "# tollgate.store.timeout: failure-mode decisions at saturation, latency with Redis down"
  echo
  echo "- date: $(date -u -d "@$STARTED" +%Y-%m-%dT%H:%MZ), $(($(date +%s) - STARTED)) s"
  echo "- command: \`$COMMAND_LINE\`"
  echo "- machine: $(nproc) cores, $(uname -sr); load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- gateway: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" status --porcelain -- gateway-service 2>/dev/null | grep -q . && echo ' with uncommitted changes in gateway-service'), $( [ "$JAR" = "$DEFAULT_JAR" ] && echo 'the fast-jar of this tree' || echo "JAR=$JAR"), $(java -version 2>&1 | head -1), $GATEWAY_JAVA_OPTS ${BREAKER_OPT:-(tollgate.store.breaker.unanswered-after not passed)}${GATEWAY_OPTS:+ $GATEWAY_OPTS}"
  echo "- $(redis-server --version | sed 's/ sha=.*//'), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2), keys: $KEYS"
  echo "- saturation: wrk -t$THREADS -c$CONNECTIONS, ${DURATION} s a run, $ROUNDS round(s), warm-up ${WARMUP} s per gateway"
  echo "- down: two wrk -t1 -c$DOWN_CONNECTIONS (one per rule), ${DOWN_DURATION} s, from the moment the outage begins"
  echo
  python3 "$ROOT/bench/gateway/store_timeout.py" "$RUNS"
} | tee "$RESULTS"
say "written: ${RESULTS#"$ROOT"/}"
