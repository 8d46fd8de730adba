#!/usr/bin/env bash
# Shared capacity (issue 25): three Fairway members in a cluster in front of ONE backend of
# capacity 20, skewed load (24 client loops through member 0, 3 through each other member).
# Prints the members' shares of the backend every 500 ms, the backend's peak concurrency (it must
# stay <= 20) and requests/s.
#
# Loopback only, bounded (~1-2 min with the jar built), stops and cleans up by itself.
#   1. builds target/fairway.jar and the test classes if missing;
#   2. starts dev.fairway.bench.ClusterCapacityLoad (test classpath): its backend holds each
#      request 50-100 ms and records its peak concurrency;
#   3. starts three members (java -jar target/fairway.jar -cluster) with a Hazelcast config on
#      three free loopback ports; the first alone, the others once it serves;
#   4. the load tool waits until all three list a share, runs SECONDS (15) of load and prints.
#
# Usage: bench/cluster-capacity.sh    env: SECONDS_OF_LOAD=15 LOOPS=24,3,3 CAPACITY=20 LEASE_MS=250
#        SHARE_CAPACITY=false runs the same without sharing (each member uses the whole capacity)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HOST=127.0.0.1
WORK=$(mktemp -d /tmp/fairway-cluster-capacity.XXXXXX)
PIDS=()
source "$ROOT/bench/lib/common.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

LOAD_S=${SECONDS_OF_LOAD:-15}
LOOPS=${LOOPS:-24,3,3}
CAPACITY=${CAPACITY:-20}
LEASE_MS=${LEASE_MS:-250}
SHARE_CAPACITY=${SHARE_CAPACITY:-true}
TOKEN=bench-cluster-capacity-token-0123

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

resolve_jar
test_classpath ClusterCapacityLoad

HZ=($(free_port) $(free_port) $(free_port))
PROXY=($(free_port) $(free_port) $(free_port))
ADMIN=($(free_port) $(free_port) $(free_port))

timeout $((LOAD_S + 200)) java -Xmx192m -XX:+UseSerialGC $QUIET -cp "$CP" dev.fairway.bench.ClusterCapacityLoad \
  --proxies "$(IFS=,; echo "${PROXY[*]}")" --admins "$(IFS=,; echo "${ADMIN[*]}")" --loops "$LOOPS" \
  --seconds "$LOAD_S" --capacity "$CAPACITY" > "$WORK/load.out" 2> "$WORK/load.log" &
LOAD_PID=$!
PIDS+=($LOAD_PID)
for _ in $(seq 300); do grep -q '^backend port' "$WORK/load.out" 2>/dev/null && break; sleep 0.1; done
BACKEND_PORT=$(sed -n 's/^backend port //p' "$WORK/load.out")
[[ -n $BACKEND_PORT ]] || die "the load tool's backend did not start (see $WORK/load.log)"
log "backend on $HOST:$BACKEND_PORT, capacity $CAPACITY; members: proxy ${PROXY[*]}, admin ${ADMIN[*]}"

start_member() {
  local i=$1
  hazelcast_xml ${HZ[$i]} "${HZ[@]}" > "$WORK/cluster-$i.xml"
  cat > "$WORK/config-$i.json" <<JSON
{ "proxy": { "host": "$HOST", "port": ${PROXY[$i]}, "instances": 1, "drainGraceMs": 0, "drainTimeoutMs": 1000 },
  "admin": { "host": "$HOST", "port": ${ADMIN[$i]}, "token": "$TOKEN" },
  "cluster": { "shareCapacity": $SHARE_CAPACITY, "leaseIntervalMs": $LEASE_MS },
  "services": [{ "name": "api", "strategy": "least-loaded",
    "slots": { "waitTimeoutMs": 20000 },
    "healthCheck": { "path": "/health", "intervalMs": 500, "timeoutMs": 400, "healthyThreshold": 1 },
    "backends": [{ "id": "b1", "url": "http://$HOST:$BACKEND_PORT", "capacity": $CAPACITY }] }] }
JSON
  java -Xmx256m -XX:+UseSerialGC -jar "$JAR" -cluster -cluster-conf "$WORK/cluster-$i.xml" -conf "$WORK/config-$i.json" \
    > "$WORK/member-$i.log" 2>&1 &
  PIDS+=($!)
}

start_member 0
wait_http "${ADMIN[0]}" /health "${PIDS[-1]}" "member 0"
start_member 1
start_member 2

wait "$LOAD_PID" || die "the load tool failed (exit $?; see $WORK/load.log)"
cat "$WORK/load.out"
grep -h "capacity lease\|shared capacity" "$WORK"/member-*.log | sed 's/^/  /' | head -n 10 || true
