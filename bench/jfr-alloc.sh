#!/usr/bin/env bash
# Issue 9: allocation per request on Fairway's request path, with JFR. Starts two nginx backends
# and Fairway (the same config and JVM flags as bench/throughput.sh), warms up with wrk, then for
# each path records JFR (settings=profile: jdk.ObjectAllocationSample, ExecutionSample,
# ThreadAllocationStatistics at the chunk's start and end) around one wrk run, and prints
# allocated bytes per request and the top allocation and CPU sites (bench/jfr_report.py).
#
# The recording command it uses, for reference:
#   jcmd PID JFR.start name=perf settings=profile filename=OUT.jfr
#   wrk -t2 -c50 -d20s http://127.0.0.1:PORT/PATH
#   jcmd PID JFR.stop name=perf
#
# Environment (defaults in brackets):
#   PATHS ["/ /64k"] CONNS [50] DURATION [20s] WARMUP [15s; 30s with H2_STREAMS] METRICS_VERTX [true]
#   H2_STREAMS [unset]: load with h2load over h2c, that many streams per connection, instead of wrk
#   GRPC [unset]: gRPC unary calls instead (bench/grpc.sh part 1's grpc-java load and backends,
#   STREAMS [1] calls per connection; PATHS is ignored; GRPC_CLIENT=h2load: h2load's POSTs as the load)
#   JAR [target/fairway.jar] (another build of Fairway, e.g. one made at an earlier commit)
#   JAVA_OPTS [bench/throughput.sh's flags]  BASE_PORT [31000]  OUT_DIR [unset: keep .jfr files there]
set -euo pipefail

PATHS=${PATHS:-"/ /64k"}
CONNS=${CONNS:-50}
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-$([[ -n ${H2_STREAMS:-} ]] && echo 30s || echo 15s)}
METRICS_VERTX=${METRICS_VERTX:-true}
BASE_PORT=${BASE_PORT:-31000}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
H2_STREAMS=${H2_STREAMS:-}
for tool in wrk nginx java jcmd jfr python3 curl ${H2_STREAMS:+h2load}; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); FP=$((BASE_PORT + 81)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$FP" "$AP"
resolve_jar
GRPC=${GRPC:-}
[[ -n $GRPC ]] && test_classpath GrpcLoad

WORK=$(mktemp -d /tmp/fairway-jfr.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -n $GRPC ]]; then
  start_grpc "$B1" "$B2"
  PATHS=/grpc
else
  start_nginx 1 "$B1"
  start_nginx 2 "$B2"
fi
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2" round-robin 1000 2000 "$METRICS_VERTX"
# shellcheck disable=SC2086
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
FPID=$!; PIDS+=("$FPID")
if [[ -n $GRPC ]]; then
  wait_http "$AP" /api/services "$FPID" "Fairway's admin API"
else
  wait_http "$FP" / "$FPID" Fairway
fi

for path in $PATHS; do
  log "warming up $path for $WARMUP"
  run_load "http://$HOST:$FP$path" "$CONNS" "$WARMUP" > /dev/null
  name=$(tr -c 'a-z0-9\n' '_' <<< "${path#/}"); name=${name:-root}
  jfr=$WORK/$name.jfr
  timeout 30 jcmd "$FPID" JFR.start name=perf settings=profile filename="$jfr" > /dev/null || die "JFR.start failed"
  l=$(loadavg)
  read -r rps p99 err reqs <<< "$(run_load "http://$HOST:$FP$path" "$CONNS" "$DURATION")"
  timeout 60 jcmd "$FPID" JFR.stop name=perf > /dev/null || die "JFR.stop failed"
  echo
  tool="wrk -t2"; [[ -n $H2_STREAMS ]] && tool="h2load -t2 -m$H2_STREAMS (p99: mean)"
  [[ -n $GRPC ]] && tool="gRPC unary x${STREAMS:-1}"
  echo "### $path, $tool -c$CONNS -d$DURATION: $rps req/s, p99 $p99 ms, $err errors, load $l; metrics.vertx $METRICS_VERTX; JAVA_OPTS $JAVA_OPTS"
  echo
  python3 "$ROOT/bench/jfr_report.py" "$jfr" "$reqs" 12
  if [[ -n ${OUT_DIR:-} ]]; then mkdir -p "$OUT_DIR"; cp "$jfr" "$OUT_DIR/${name}-metrics-${METRICS_VERTX}.jfr"; fi
done
