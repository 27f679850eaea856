#!/usr/bin/env bash
# The training run of a JVM image's AOT cache (JDK 25, JEP 483/514/515), run in a stage FROM the runtime
# image itself: an AOT cache is only used by the JDK build and the JVM flags that made it.
#   aot-train <port> <health port> <path>...    in the app's folder (quarkus-run.jar), env JAVA_OPTS = the
#   runtime's flags; <health port> serves /q/* (the management interface, or <port> for an app without one)
# Starts the app with -XX:AOTCacheOutput=app.aot, waits for /q/health/live, sends each path 50 GETs (/q/* to
# the health port; what they answer does not matter: the classes they load do), stops the app with SIGTERM
# (the JVM writes the cache as it exits) and fails when no cache was written.
set -euo pipefail
port=$1
health_port=$2
shift 2
# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
java ${JAVA_OPTS:-} -XX:AOTCacheOutput=app.aot -jar quarkus-run.jar &
pid=$!
for _ in $(seq 1 600); do
  curl -fs -o /dev/null "http://127.0.0.1:$health_port/q/health/live" && break
  kill -0 "$pid" 2>/dev/null || { echo "aot-train: the app exited before it answered" >&2; exit 1; }
  sleep 0.2
done
for path in "$@"; do
  case $path in /q/*) target=$health_port ;; *) target=$port ;; esac
  for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$target$path" || true; done
done
kill -TERM "$pid"
wait "$pid" || true
[ -s app.aot ] || { echo "aot-train: no app.aot written" >&2; exit 1; }
