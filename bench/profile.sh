#!/usr/bin/env bash
# Where Fairway's CPU goes under load: perf samples (cpu-clock, kernel and Java frames, Java
# symbols from `jcmd Compiler.perfmap`) of the Fairway process while wrk loads it through two
# nginx backends on 127.0.0.1; prints the hottest symbols (self time) and the share of time in the
# kernel, Netty, Fairway and the JVM.
#
#   bench/profile.sh
#   URLPATH=/64k CONNS=200 bench/profile.sh
#   H2_STREAMS=10 bench/profile.sh      (h2load over h2c, 10 streams per connection, instead of wrk)
#   GRPC=1 CONNS=10 bench/profile.sh    (gRPC unary as in bench/grpc.sh part 1: grpc-java load and
#                                        backends, h2c:// with gRPC health checks; STREAMS [1] calls per connection;
#                                        GRPC_CLIENT=h2load: h2load's POSTs as the load, bench/lib/common.sh grpc_h2load)
#
# Environment (defaults in brackets): DURATION [10s] (perf records 6 s in its middle)  CONNS [50]
#   URLPATH [/]  WARMUP [8s; 30s with H2_STREAMS: the JIT settles later on HTTP/2, bench/warmup.sh]  TOP [40]  KEEP [unset: a path to keep perf.data at]  METRICS_VERTX [true]  ACCESS_LOG [false]
#   JAVA_OPTS [bench/throughput.sh's flags]  JAR [target/fairway.jar] (e.g. a build of an earlier commit)
#   BASE_PORT [31500]: backends BASE+1, BASE+2, Fairway
#   BASE+81, admin BASE+91
# Needs perf (linux-perf), root. Loopback only; every process it starts is stopped on exit.
set -euo pipefail

DURATION=${DURATION:-10s}
CONNS=${CONNS:-50}
URLPATH=${URLPATH:-/}
WARMUP=${WARMUP:-$([[ -n ${H2_STREAMS:-} ]] && echo 30s || echo 8s)}
TOP=${TOP:-40}
BASE_PORT=${BASE_PORT:-31500}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
H2_STREAMS=${H2_STREAMS:-}
for tool in wrk nginx java jcmd perf curl awk ${H2_STREAMS:+h2load}; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
resolve_jar
GRPC=${GRPC:-}
[[ -n $GRPC ]] && test_classpath GrpcLoad

B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); FP=$((BASE_PORT + 81)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$FP" "$AP"
WORK=$(mktemp -d /tmp/fairway-profile.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -n $GRPC ]]; then
  start_grpc "$B1" "$B2"
  URLPATH=""
else
  start_nginx 1 "$B1"
  start_nginx 2 "$B2"
fi
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2" round-robin 1000 3600000 \
  "${METRICS_VERTX:-true}" "${ACCESS_LOG:-false}"
# shellcheck disable=SC2086 # a list of flags
java $JAVA_OPTS -XX:+PreserveFramePointer -jar "$JAR" -conf "$WORK/fairway.json" \
  > "$WORK/fairway.log" 2>&1 &
PIDS+=($!); FPID=$!
if [[ -n $GRPC ]]; then
  wait_http "$AP" /api/services "$FPID" "Fairway's admin API"
else
  wait_http "$FP" "$URLPATH" "$FPID" Fairway
fi
run_load "http://$HOST:$FP$URLPATH" "$CONNS" "$WARMUP" > /dev/null

# a gRPC load is a new client JVM: it warms up its own JIT before the seconds it measures
[[ -n $GRPC ]] && export GRPC_WARMUP=8
run_load "http://$HOST:$FP$URLPATH" "$CONNS" "$DURATION" > "$WORK/wrk.txt" &
wrk_pid=$!
sleep $(( 2 + ${GRPC_WARMUP:-0} ))
perf record -q -F 1999 -g -p "$FPID" -o "$WORK/perf.data" -- sleep 6 2>/dev/null
wait "$wrk_pid"
jcmd "$FPID" Compiler.perfmap > /dev/null
read -r rps p99 _ < "$WORK/wrk.txt"
tool_label=wrk; [[ -n $H2_STREAMS ]] && tool_label="h2load -m$H2_STREAMS"; [[ -n $GRPC ]] && tool_label="gRPC unary x${STREAMS:-1}"
echo "Fairway, $tool_label -c$CONNS $URLPATH: $rps req/s, ${H2_STREAMS:+mean}${H2_STREAMS:-p99} $p99 ms, $(date -u +%Y-%m-%dT%H:%MZ), load $(loadavg)"
perf report -i "$WORK/perf.data" --no-children --sort sym --stdio -q -g none 2>/dev/null | grep '%' > "$WORK/report.txt"
[[ -n ${KEEP:-} ]] && cp "$WORK/perf.data" "$KEEP"
sed -n "1,${TOP}p" "$WORK/report.txt"
echo
echo "self time by part:"
awk '
  /%/ { p = $1; sub("%", "", p); s = $0; m = s; sub(/\(.*/, "", m); n = split(m, w, " "); m = w[n]
        if (s ~ /\[k\]/) k += p
        else if (m ~ /^dev\.fairway/) f += p
        else if (m ~ /^io\.netty/) n2 += p
        else if (m ~ /^(io\.vertx|io\.micrometer)/) v += p
        else if (m ~ /^(java|jdk|sun)\./) j += p
        else o += p }
  END { printf "  kernel %.1f %%, Netty %.1f %%, Fairway %.1f %%, Vert.x+Micrometer %.1f %%, JDK classes %.1f %%, other (JIT stubs, GC, interpreter, libc) %.1f %%\n", k, n2, f, v, j, o }' "$WORK/report.txt"
