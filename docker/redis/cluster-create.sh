#!/bin/sh
# One-shot: waits for the 8 nodes, then makes 4 primaries + 4 replicas (no-op if the cluster exists).
set -eu
nodes=""
for i in 1 2 3 4 5 6 7 8; do
  host="redis-$i"
  until redis-cli -h "$host" ping >/dev/null 2>&1; do sleep 1; done
  nodes="$nodes $(getent hosts "$host" | awk '{print $1}'):6379"
done
if redis-cli -h redis-1 cluster info | grep -q 'cluster_state:ok'; then
  echo "cluster already created"
  exit 0
fi
redis-cli --cluster create $nodes --cluster-replicas 1 --cluster-yes
