#!/usr/bin/env bash
# Issue 9: the cost of each Fairway feature in requests/s. One run starts two nginx backends and
# one Fairway process per configuration (each on its own port), then measures them alternately
# with wrk (same connections, path and duration for all), rotating the order every round so the
# configurations share the machine's noise. Reports median (and min/max) requests/s per config
# and each feature's cost against the minimal baseline: of the medians, and the median of the
# per-round paired costs.
#
# Configurations (all: one service, two backends, proxy.instances 0):
#   base     round-robin, slots.capacity 1000 (never binds), healthCheck.intervalMs 3600000,
#            metrics.vertx false, accessLog off
#   wrr      base + strategy weighted-round-robin
#   slots64  base + slots.capacity 64 per backend (50 connections over 2 backends: near binding)
#   slots24  base + slots.capacity 24 per backend (48 slots < 50 connections: requests wait)
#   hc100    base + healthCheck.intervalMs 100
#   metrics  base + metrics.vertx true (README default)
#   alog     base + accessLog.enabled (JSON lines through the async appender to Fairway's stdout,
#            which the script sends to a file)
#   all      weighted-round-robin + capacity 64 + health checks every 100 ms + metrics.vertx true
#            + access log
#   reqid    base, but every request brings its own X-Request-Id (kept, not generated)
#   rules    base + requestHeaders set/add/remove and responseHeaders set/remove (issue 26)
#   trace    base + tracing on (sampleRatio 1: a span per request, exported over OTLP/HTTP to a
#            third nginx that answers 200 and discards)
#   trace1   base + tracing with sampleRatio 0.01 (traceparent propagated, 1 % of spans exported)
#   traceall trace + access log + metrics.vertx true
#
# Environment (defaults in brackets):
#   ROUNDS [5] CONNS [50] DURATION [10s] URLPATH [/] WRK_THREADS [2] WARMUP [5s]
#   (the third nginx, BASE+3, is the OTLP sink of the trace configurations)
#   CONFIGS ["base wrr slots64 slots24 hc100 metrics all"]
#   JAVA_OPTS [bench/throughput.sh's flags]  BASE_PORT [31600]: backends BASE+1, BASE+2,
#   Fairway i on BASE+81+i, its admin on BASE+181+i   MAX_LOAD [4] LOAD_WAIT [60]  RAW_OUT [unset]
set -euo pipefail

ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-50}
DURATION=${DURATION:-10s}
URLPATH=${URLPATH:-/}
WRK_THREADS=${WRK_THREADS:-2}
WARMUP=${WARMUP:-5s}
CONFIGS=${CONFIGS:-"base wrr slots64 slots24 hc100 metrics alog all"}
BASE_PORT=${BASE_PORT:-31600}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in wrk nginx java curl awk sort timeout jq; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer"
read -r -a CFG <<< "$CONFIGS"
[[ ${CFG[0]} == base ]] || die "CONFIGS must start with base (the reference)"
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); OTLP=$((BASE_PORT + 3))
ALL_PORTS=("$B1" "$B2" "$OTLP")
for i in "${!CFG[@]}"; do ALL_PORTS+=($((BASE_PORT + 81 + i)) $((BASE_PORT + 181 + i))); done
ports_free "${ALL_PORTS[@]}"
ensure_jar

WORK=$(mktemp -d /tmp/fairway-features.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
start_nginx 3 "$OTLP"

# edit_config FILE JQ_FILTER: rewrites a generated config in place
edit_config() { jq "$2" "$1" > "$1.new" && mv "$1.new" "$1"; }
# wrk's -H needs "Name: value" with the space, or it drops the header
REQID_HEADER="X-Request-Id: bench-0123456789abcdef"

declare -A PORT PID
for i in "${!CFG[@]}"; do
  name=${CFG[$i]}
  strategy=round-robin cap=1000 hc=3600000 mv=false al=false
  case $name in
    base) ;;
    wrr) strategy=weighted-round-robin ;;
    slots64) cap=64 ;;
    slots24) cap=24 ;;
    hc100) hc=100 ;;
    metrics) mv=true ;;
    alog) al=true ;;
    all) strategy=weighted-round-robin cap=64 hc=100 mv=true al=true ;;
    reqid|rules|trace|trace1) ;;
    traceall) mv=true al=true ;;
    *) die "unknown config '$name'" ;;
  esac
  PORT[$name]=$((BASE_PORT + 81 + i))
  fairway_config "$WORK/$name.json" "${PORT[$name]}" $((BASE_PORT + 181 + i)) "$B1" "$B2" "$strategy" "$cap" "$hc" "$mv" "$al"
  case $name in
    rules) edit_config "$WORK/$name.json" '.services[0].requestHeaders = {"set": {"X-Env": "bench"},
      "add": {"X-Via": "fairway"}, "remove": ["X-Debug"]}
      | .services[0].responseHeaders = {"set": {"X-Served-By": "fairway"}, "remove": ["Server"]}' ;;
    trace|traceall) edit_config "$WORK/$name.json" ".tracing = {\"endpoint\": \"http://$HOST:$OTLP/v1/traces\"}" ;;
    trace1) edit_config "$WORK/$name.json" ".tracing = {\"endpoint\": \"http://$HOST:$OTLP/v1/traces\", \"sampleRatio\": 0.01}" ;;
  esac
  # shellcheck disable=SC2086
  java $JAVA_OPTS -jar "$ROOT/target/fairway.jar" -conf "$WORK/$name.json" > "$WORK/$name.log" 2>&1 &
  PIDS+=($!); PID[$name]=$!
done
for name in "${CFG[@]}"; do
  wait_http "${PORT[$name]}" "$URLPATH" "${PID[$name]}" "Fairway ($name)"
  log "Fairway $name on $HOST:${PORT[$name]}: $(grep -o '"strategy": "[a-z-]*"\|"capacity": [0-9]*\|"intervalMs": [0-9]*\|"vertx": [a-z]*\|"enabled": [a-z]*' "$WORK/$name.json" | tr '\n' ' ')"
done

wait_for_load "${MAX_LOAD:-4}" "${LOAD_WAIT:-60}"
log "warming up each for $WARMUP"
for name in "${CFG[@]}"; do run_wrk "http://$HOST:${PORT[$name]}$URLPATH" "$CONNS" "$WARMUP" > /dev/null; done

RAW=$WORK/raw.tsv
printf 'round\tconfig\trps\tp99_ms\terrors\tload1\n' > "$RAW"
n=${#CFG[@]}
for (( r = 1; r <= ROUNDS; r++ )); do
  for (( j = 0; j < n; j++ )); do
    name=${CFG[$(( (j + r - 1) % n ))]}
    l=$(loadavg)
    args=(); if [[ $name == reqid ]]; then args=(-H "$REQID_HEADER"); fi
    read -r rps p99 err _ <<< "$(run_wrk "http://$HOST:${PORT[$name]}$URLPATH" "$CONNS" "$DURATION" "" "${args[@]}")"
    printf '%d\t%s\t%s\t%s\t%s\t%s\n' "$r" "$name" "$rps" "$p99" "$err" "$l" >> "$RAW"
    log "round $r/$ROUNDS $name: $rps req/s, p99 $p99 ms, errors $err"
  done
done
for name in "${CFG[@]}"; do kill -0 "${PID[$name]}" 2>/dev/null || die "Fairway ($name) died"; done
if [[ -n ${RAW_OUT:-} ]]; then cp "$RAW" "$RAW_OUT"; fi

col() { awk -F'\t' -v col="$1" -v t="$2" 'NR > 1 && $2 == t { print $col }' "$RAW"; }
paired() {
  awk -F'\t' -v a="$1" 'NR > 1 { v[$1 "," $2] = $3; r[$1] = 1 }
    END { for (k in r) if (v[k ",base"] > 0) printf "%.2f\n", 100 * (v[k ",base"] - v[k "," a]) / v[k ",base"] }' "$RAW"
}
loads=$(awk -F'\t' 'NR > 1 { print $6 }' "$RAW" | stats)
read -r _ base _ _ <<< "$(col 3 base | stats)"
echo
echo "Fairway feature costs, $(nproc) cores, wrk -t$WRK_THREADS -c$CONNS $URLPATH, $ROUNDS rounds of $DURATION, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "JAVA_OPTS: $JAVA_OPTS; 1-min load average during runs min/median/max: $(cut -d' ' -f1-3 <<< "$loads")"
echo
printf '| %-8s | %24s | %8s | %6s | %14s | %24s |\n' config "req/s min / median / max" "p99 ms" errors "cost (medians)" "cost per round min/med/max"
printf '|%s|%s|%s|%s|%s|%s|\n' ---------- --------------------------: ---------: -------: ---------------: --------------------------:
for name in "${CFG[@]}"; do
  read -r mn md mx _ <<< "$(col 3 "$name" | stats)"
  read -r _ p99 _ _ <<< "$(col 4 "$name" | stats)"
  err=$(col 5 "$name" | awk '{ s += $1 } END { print s + 0 }')
  if [[ $name == base ]]; then cost="-"; pc="-"; else
    cost=$(awk -v a="$md" -v b="$base" 'BEGIN { printf "%+.1f %%", 100 * (b - a) / b }')
    read -r x y z _ <<< "$(paired "$name" | stats)"; pc=$(printf '%+.1f / %+.1f / %+.1f %%' "$x" "$y" "$z")
  fi
  printf '| %-8s | %24s | %8.2f | %6s | %14s | %24s |\n' "$name" "$(printf '%.0f / %.0f / %.0f' "$mn" "$md" "$mx")" "$p99" "$err" "$cost" "$pc"
done
echo
echo "cost = (base - config) / base requests/s: positive = slower than base."
