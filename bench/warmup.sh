#!/usr/bin/env bash
# How long a freshly started Fairway takes to reach its steady speed: it is started cold, then
# loaded for INTERVALS back-to-back intervals; each line gives the interval's requests/s and how
# many methods the JIT compiled (and threw away, "made not entrant") during it, from
# -XX:+PrintCompilation. What a backend sees in the first seconds after a rolling restart of
# Fairway, and how long a benchmark must warm up before it measures.
#
#   bench/warmup.sh
#   H2_STREAMS=10 bench/warmup.sh      (h2load over h2c, 10 streams per connection, instead of wrk)
#
# Environment (defaults in brackets): INTERVALS [6]  INTERVAL [10s]  CONNS [50]  URLPATH [/]
#   JAVA_OPTS [bench/throughput.sh's flags]  JAR [target/fairway.jar]
#   BASE_PORT [31700]: backends BASE+1, BASE+2, Fairway BASE+81, admin BASE+91
# Loopback only; every process it starts is stopped on exit.
set -euo pipefail

INTERVALS=${INTERVALS:-6}
INTERVAL=${INTERVAL:-10s}
CONNS=${CONNS:-50}
URLPATH=${URLPATH:-/}
BASE_PORT=${BASE_PORT:-31700}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
H2_STREAMS=${H2_STREAMS:-}
for tool in wrk nginx java curl awk ${H2_STREAMS:+h2load}; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
[[ $INTERVALS =~ ^[1-9][0-9]*$ ]] || die "INTERVALS must be a positive integer, got '$INTERVALS'"
resolve_jar

B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); FP=$((BASE_PORT + 81)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$FP" "$AP"
WORK=$(mktemp -d /tmp/fairway-warmup.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2"
# shellcheck disable=SC2086 # a list of flags
java $JAVA_OPTS -XX:+PrintCompilation -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!); FPID=$!
wait_http "$FP" "$URLPATH" "$FPID" Fairway

tool_label=wrk; [[ -n $H2_STREAMS ]] && tool_label="h2load -m$H2_STREAMS"
echo "Fairway from a cold start, $tool_label -c$CONNS $URLPATH, $INTERVALS intervals of $INTERVAL, $(date -u +%Y-%m-%dT%H:%MZ), load $(loadavg)"
echo
echo "| interval | from s | req/s | methods compiled | made not entrant | errors |"
echo "|---:|---:|---:|---:|---:|---:|"
for (( i = 1; i <= INTERVALS; i++ )); do
  before=$(wc -l < "$WORK/fairway.log")
  read -r rps _ err _ <<< "$(run_load "http://$HOST:$FP$URLPATH" "$CONNS" "$INTERVAL")"
  after=$(wc -l < "$WORK/fairway.log")
  lines=$(sed -n "$((before + 1)),${after}p" "$WORK/fairway.log")
  compiled=$(grep -c '::' <<< "$lines" || true)
  dropped=$(grep -c 'made not entrant' <<< "$lines" || true)
  echo "| $i | $(( (i - 1) * $(secs "$INTERVAL") )) | $rps | $((compiled - dropped)) | $dropped | $err |"
done
