# Sourced by the counter-script benches, from the repository root: the tool check, the check script's
# text, and a temporary directory plus one server process that are cleaned up on exit.

# need TOOL...: stops with the first tool missing from PATH
need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "missing $tool on PATH" >&2; exit 1; }
  done
}

# check_script [check_on_node]: the text of the check script (or of the Cluster form), from the built
# catalog (built once when missing)
check_script() {
  if [[ ! -f counter-scripts/target/classes/io/tollgate/counter/CounterScripts.class ]]; then
    ./mvnw -B -q -pl counter-scripts compile -Dformat.skip=true >&2
  fi
  java -cp counter-scripts/target/classes io.tollgate.counter.CounterScripts "$@"
}

TMP=$(mktemp -d)
SERVER_PID= # set by the bench when it starts a server of its own
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
