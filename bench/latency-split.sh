#!/usr/bin/env bash
# Where a request's time goes: the latency wrk sees against the time Fairway itself measures for
# the same requests (the access log's totalMs: from the request's head to the response's end).
# The difference is time outside the request's handling: in socket buffers before an event loop
# reads the request, or after Fairway has written the response.
#
#   bench/latency-split.sh                    # cleartext, keep-alive, 50 connections, 10 s
#   CONNS=200 DURATION=20s bench/latency-split.sh
#
# All on 127.0.0.1 under a mktemp directory: two nginx backends, one Fairway with the access log
# on (JSON), a warm-up, then one measured wrk run; prints wrk's percentiles and those of
# Fairway's totalMs over every request of that run. Every process stops on exit.
#
# Environment (defaults in brackets): CONNS [50] DURATION [10s] WARMUP [10s] WRK_THREADS [2]
#   JAR [target/fairway.jar] JAVA_OPTS [as bench/tls.sh] BASE_PORT [19200]
set -euo pipefail

CONNS=${CONNS:-50}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-10s}
WRK_THREADS=${WRK_THREADS:-2}
BASE_PORT=${BASE_PORT:-19200}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}
HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"

for tool in wrk nginx java curl awk sort timeout mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
B1=$((BASE_PORT + 11)); B2=$((BASE_PORT + 12)); FP=$((BASE_PORT + 80)); AP=$((BASE_PORT + 90))
ports_free "$B1" "$B2" "$FP" "$AP"
resolve_jar

WORK=$(mktemp -d /tmp/fairway-split.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
cat > "$WORK/fairway.json" <<JSON
{ "proxy": { "host": "$HOST", "port": $FP },
  "admin": { "host": "$HOST", "port": $AP, "token": "bench-token" },
  "accessLog": { "enabled": true, "format": "json" },
  "services": [ { "name": "bench", "match": { "host": "*", "pathPrefix": "/" },
    "slots": { "capacity": 1000, "waitTimeoutMs": 1000, "maxWaiting": 10000 },
    "healthCheck": { "path": "/health", "intervalMs": 2000, "timeoutMs": 1000 },
    "backends": [ { "id": "b1", "url": "http://$HOST:$B1" }, { "id": "b2", "url": "http://$HOST:$B2" } ] } ] }
JSON
# shellcheck disable=SC2086
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!)
wait_http "$FP" / "$!" Fairway
log "warming up for $WARMUP"
run_wrk "http://$HOST:$FP/" "$CONNS" "$WARMUP" > /dev/null
: > "$WORK/fairway.log"
log "measuring for $DURATION"
out=$(timeout $(( $(secs "$DURATION") + 30 )) wrk -t "$WRK_THREADS" -c "$CONNS" -d "$DURATION" --latency \
  "http://$HOST:$FP/") || die "wrk failed: $out"
sleep 1 # the last access-log lines
echo "latency split, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t$WRK_THREADS -c$CONNS -d$DURATION, keep-alive, cleartext"
awk '$1 == "50%" || $1 == "75%" || $1 == "90%" || $1 == "99%" { printf "wrk %s %s\n", $1, $2 } /^Requests\/sec/ { print "wrk req/s", $2 }' <<< "$out"
grep -ao '"totalMs":[0-9.]*' "$WORK/fairway.log" | cut -d: -f2 | sort -n | awk '{ a[NR] = $1 } END {
  if (NR == 0) { print "no access-log lines"; exit 1 }
  printf "fairway totalMs: %d requests, p50 %.2fms p75 %.2fms p90 %.2fms p99 %.2fms p99.9 %.2fms max %.2fms\n",
    NR, a[int(NR * 0.5)], a[int(NR * 0.75)], a[int(NR * 0.9)], a[int(NR * 0.99)], a[int(NR * 0.999)], a[NR] }'
