# Sourced by the benches that run the packaged rules service on a PostgreSQL database of their own.
# The caller sets ROOT, PG_HOST, PG_PORT, DB (a name of its own) and TOKEN, and calls stop_rules_service on exit.

RULES_JAR="$ROOT/rules-service/target/quarkus-app/quarkus-run.jar"
RULES_PID=

rules_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_rules_service LOG [JAVA_OPTION...]: creates database DB, starts the jar on free loopback ports with the admin
# token TOKEN, and returns once it is ready (60 s at most); sets BASE (the API) and MANAGEMENT (health, metrics).
start_rules_service() {
  local log=$1
  shift
  local port management_port
  port=$(rules_free_port)
  management_port=$(rules_free_port)
  createdb -h "$PG_HOST" -p "$PG_PORT" -U postgres "$DB"
  QUARKUS_HTTP_PORT=$port QUARKUS_MANAGEMENT_PORT=$management_port \
  QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://$PG_HOST:$PG_PORT/$DB" \
  QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://$PG_HOST:$PG_PORT/$DB" \
  TOLLGATE_ADMIN_TOKEN=$TOKEN \
    java "$@" -jar "$RULES_JAR" >"$log" 2>&1 &
  RULES_PID=$!
  BASE=http://127.0.0.1:$port
  MANAGEMENT=http://127.0.0.1:$management_port
  for _ in $(seq 1 120); do
    curl -fs "$MANAGEMENT/q/health/ready" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  cat "$log" >&2
  echo "the rules service was not ready within 60 s" >&2
  return 1
}

# stop_rules_service: the service stopped and its database dropped (safe to call when it never started).
stop_rules_service() {
  if [ -n "$RULES_PID" ]; then kill "$RULES_PID" 2>/dev/null || true; wait "$RULES_PID" 2>/dev/null || true; fi
  dropdb -h "$PG_HOST" -p "$PG_PORT" -U postgres --if-exists "$DB" || true
}
