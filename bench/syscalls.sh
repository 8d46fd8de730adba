#!/usr/bin/env bash
# Per-request kernel work of HAProxy and Fairway side by side: system calls, context switches and
# CPU time (user + system, and each apart) per request of the proxy process, counted with perf stat
# and /proc/PID/stat while wrk
# loads it, in front of the same two nginx backends on 127.0.0.1. Tells whether a gap in
# requests/s is the proxy's own CPU per request or its syscall pattern.
#
#   bench/syscalls.sh
#   ROUNDS=3 URLPATH=/64k bench/syscalls.sh
#
# Each round loads HAProxy, then Fairway (order swapped every other round) with wrk for DURATION
# and counts perf events over COUNT seconds in the middle of it.
#
# Environment (defaults in brackets): ROUNDS [2]  DURATION [8s]  COUNT [5]  CONNS [50]  URLPATH [/]
#   WARMUP [8s] (Fairway; HAProxy gets 3s)  JAVA_OPTS [bench/throughput.sh's flags]
#   JAR [target/fairway.jar] (another build of Fairway, e.g. one made at an earlier commit)
#   BASE_PORT [31400]: backends BASE+1, BASE+2, HAProxy BASE+80, Fairway BASE+81, admin BASE+91
# Needs perf (linux-perf) with access to the raw_syscalls tracepoint (root). Loopback only; every
# process it starts is stopped on exit.
set -euo pipefail

ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-8s}
COUNT=${COUNT:-5}
CONNS=${CONNS:-50}
URLPATH=${URLPATH:-/}
WARMUP=${WARMUP:-8s}
BASE_PORT=${BASE_PORT:-31400}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in wrk nginx haproxy java perf curl; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
resolve_jar

B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); HP=$((BASE_PORT + 80)); FP=$((BASE_PORT + 81)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$HP" "$FP" "$AP"
WORK=$(mktemp -d /tmp/fairway-syscalls.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
start_haproxy "$(nproc)" "$B1" "$B2" "$HOST:$HP"
declare -A PID PORT
PID[haproxy]=${PIDS[-1]}; PORT[haproxy]=$HP
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2" round-robin 1000 2000 true false
# shellcheck disable=SC2086 # a list of flags
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!); PID[fairway]=$!; PORT[fairway]=$FP
wait_http "$FP" "$URLPATH" "${PID[fairway]}" Fairway
run_wrk "http://$HOST:$FP$URLPATH" "$CONNS" "$WARMUP" > /dev/null
run_wrk "http://$HOST:$HP$URLPATH" "$CONNS" 3s > /dev/null

echo "syscalls, context switches and CPU per request, $(nproc) cores, wrk -c$CONNS $URLPATH, $(date -u +%Y-%m-%dT%H:%MZ)"
for (( r = 1; r <= ROUNDS; r++ )); do
  order=(haproxy fairway)
  (( r % 2 == 0 )) && order=(fairway haproxy)
  for name in "${order[@]}"; do
    l=$(loadavg)
    run_wrk "http://$HOST:${PORT[$name]}$URLPATH" "$CONNS" "$DURATION" > "$WORK/wrk.txt" &
    wrk_pid=$!
    sleep 1
    read -r u0 s0 < <(awk '{print $14, $15}' "/proc/${PID[$name]}/stat")
    perf stat -x, -e raw_syscalls:sys_enter,context-switches,task-clock -p "${PID[$name]}" -o "$WORK/perf.txt" \
      -- sleep "$COUNT" 2>/dev/null
    read -r u1 s1 < <(awk '{print $14, $15}' "/proc/${PID[$name]}/stat")
    wait "$wrk_pid"
    read -r rps _ <<< "$(cat "$WORK/wrk.txt")"
    awk -F, -v n="$name" -v r="$rps" -v s="$COUNT" -v round="$r" -v l="$l" -v ut=$((u1 - u0)) -v st=$((s1 - s0)) \
        -v hz="$(getconf CLK_TCK)" '
      /raw_syscalls/ {sc = $1} /context-switches/ {cs = $1} /task-clock/ {t = $1}
      END { n_req = r * s; printf "round %d  %-8s %8.0f req/s  syscalls/req %5.2f  cs/req %5.3f  cpu µs/req %5.1f (user %4.1f, sys %4.1f)  load %s\n",
            round, n, r, sc / n_req, cs / n_req, t * 1000 / n_req, ut / hz * 1e6 / n_req, st / hz * 1e6 / n_req, l }' "$WORK/perf.txt"
  done
done
