#!/usr/bin/env bash
# Fairway against Fairway: several builds, configs or JVM flags side by side in one run, in front
# of the same two nginx backends on 127.0.0.1, measured alternately with wrk (the order reversed
# every other round). Prints one line per run; with PERF=1 also context switches and CPU time per
# request of the measured process (perf stat).
#
#   VARIANTS="before:/tmp/old.jar after:target/fairway.jar" bench/compare.sh
#   VARIANTS="off:target/fairway.jar:0:false:false on:target/fairway.jar:0:false:true" PERF=1 bench/compare.sh
#   VARIANTS="serial:target/fairway.jar:0:true:false:-Xmx192m,-XX:+UseSerialGC par:target/fairway.jar" bench/compare.sh
#
# A variant is NAME:JAR[:INSTANCES[:METRICS_VERTX[:ACCESS_LOG[:JAVA_OPTS]]]] with JAVA_OPTS's flags
# separated by commas (defaults: 0, true, false, bench/throughput.sh's flags). Every Fairway runs
# round-robin, capacity 1000, health checks hourly (bench/lib/common.sh's fairway_config).
#
# Environment (defaults in brackets): VARIANTS [required]  ROUNDS [3]  DURATION [8s]  CONNS [50]
#   H2_STREAMS [unset: wrk over HTTP/1.1; N: h2load over h2c with N streams per connection, and
#   the p99 column is h2load's mean request time]
#   URLPATH [/]  WARMUP [5s; 20s with H2_STREAMS, see bench/warmup.sh]  PERF [0]  BASE_PORT [32000]: backends BASE+1, BASE+2, variant i on
#   BASE+100+i, its admin on BASE+200+i
# Every process it starts is stopped on exit (trap); loopback only.
set -euo pipefail

VARIANTS=${VARIANTS:?set VARIANTS, e.g. "before:/tmp/old.jar after:target/fairway.jar"}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-8s}
CONNS=${CONNS:-50}
URLPATH=${URLPATH:-/}
WARMUP=${WARMUP:-$([[ -n ${H2_STREAMS:-} ]] && echo 20s || echo 5s)}
PERF=${PERF:-0}
BASE_PORT=${BASE_PORT:-32000}
DEFAULT_OPTS="-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in wrk nginx java curl awk ${H2_STREAMS:+h2load}; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
if [[ $PERF == 1 ]]; then command -v perf >/dev/null 2>&1 || die "PERF=1 needs perf (Debian: linux-perf)"; fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer"
read -r -a VS <<< "$VARIANTS"
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2))
ALL_PORTS=("$B1" "$B2")
for i in "${!VS[@]}"; do ALL_PORTS+=($((BASE_PORT + 100 + i)) $((BASE_PORT + 200 + i))); done
ports_free "${ALL_PORTS[@]}"

WORK=$(mktemp -d /tmp/fairway-compare.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"

declare -A PORT PID
NAMES=()
for i in "${!VS[@]}"; do
  IFS=: read -r name jar inst mv al opts <<< "${VS[$i]}"
  [[ -n $name && -f $jar ]] || die "variant '${VS[$i]}': no such jar '$jar'"
  opts=${opts//,/ }
  PORT[$name]=$((BASE_PORT + 100 + i))
  FAIRWAY_INSTANCES=${inst:-0} fairway_config "$WORK/$name.json" "${PORT[$name]}" $((BASE_PORT + 200 + i)) "$B1" "$B2" \
    round-robin 1000 3600000 "${mv:-true}" "${al:-false}"
  # shellcheck disable=SC2086 # a list of flags
  java ${opts:-$DEFAULT_OPTS} -jar "$jar" -conf "$WORK/$name.json" > "$WORK/$name.log" 2>&1 &
  PIDS+=($!); PID[$name]=$!
  wait_http "${PORT[$name]}" "$URLPATH" "${PID[$name]}" "Fairway ($name)"
  log "$name: $jar, instances ${inst:-0}, metrics.vertx ${mv:-true}, accessLog ${al:-false}, JAVA_OPTS ${opts:-$DEFAULT_OPTS}"
  NAMES+=("$name")
done
for name in "${NAMES[@]}"; do run_load "http://$HOST:${PORT[$name]}$URLPATH" "$CONNS" "$WARMUP" > /dev/null; done

tool_label=wrk; [[ -n ${H2_STREAMS:-} ]] && tool_label="h2load -m$H2_STREAMS (p99 column: mean)"
echo "Fairway side by side, $(nproc) cores, $tool_label -c$CONNS $URLPATH, $ROUNDS rounds of $DURATION, $(date -u +%Y-%m-%dT%H:%MZ)"
for (( r = 1; r <= ROUNDS; r++ )); do
  order=("${NAMES[@]}")
  if (( r % 2 == 0 )); then for (( a = 0, b = ${#order[@]} - 1; a < b; a++, b-- )); do t=${order[a]}; order[a]=${order[b]}; order[b]=$t; done; fi
  for name in "${order[@]}"; do
    l=$(loadavg)
    extra=""
    if [[ $PERF == 1 ]]; then
      perf stat -e context-switches,task-clock -p "${PID[$name]}" -o "$WORK/perf.txt" -- sleep "$(secs "$DURATION")" &
      PERF_PID=$!
    fi
    read -r rps p99 err reqs <<< "$(run_load "http://$HOST:${PORT[$name]}$URLPATH" "$CONNS" "$DURATION")"
    if [[ $PERF == 1 ]]; then
      wait "$PERF_PID" || true
      extra=$(awk -v n="$reqs" '/context-switches/ { gsub(",", "", $1); cs = $1 } /task-clock/ { gsub(",", "", $1); tc = $1 }
        END { if (n > 0) printf "  cs/req %.2f  cpu_us/req %.1f", cs / n, tc * 1000 / n }' "$WORK/perf.txt")
    fi
    printf 'round %d  %-12s %8s req/s  p99 %7s ms  errors %s%s  load %s\n' "$r" "$name" "$rps" "$p99" "$err" "$extra" "$l"
  done
done
for name in "${NAMES[@]}"; do kill -0 "${PID[$name]}" 2>/dev/null || die "Fairway ($name) died"; done
