#!/usr/bin/env bash
# Builds the services as native executables:
#   src-native/build.sh [gateway-service|rules-service ...]     (default: both)
# With GraalVM or Mandrel installed (GRAALVM_HOME set, or native-image on PATH) it compiles here;
# otherwise, with docker or podman, it compiles inside the Mandrel builder image; otherwise it says
# what to install. Executables land in <service>/target/*-runner.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

services=("$@")
[ ${#services[@]} -gt 0 ] || services=(gateway-service rules-service)
modules=$(IFS=,; echo "${services[*]}")

if [ -n "${GRAALVM_HOME:-}" ] && [ -x "$GRAALVM_HOME/bin/native-image" ] || command -v native-image >/dev/null 2>&1; then
  exec ./mvnw -B package -Pnative -DskipTests -pl "$modules" -am
fi
for engine in docker podman; do
  if command -v "$engine" >/dev/null 2>&1 && "$engine" info >/dev/null 2>&1; then
    exec ./mvnw -B package -Pnative -DskipTests -pl "$modules" -am \
      -Dquarkus.native.container-build=true -Dquarkus.native.container-runtime="$engine"
  fi
done
cat >&2 <<MSG
src-native/build.sh: no way to compile natively here. Install ONE of:
  - GraalVM for JDK 21+ or Mandrel 23.1+, and set GRAALVM_HOME to it (native-image compiles locally), or
  - a running docker or podman engine (the build then runs in the Mandrel builder image).
MSG
exit 1
