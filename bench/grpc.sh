#!/usr/bin/env bash
# Issue 23: gRPC and HTTP/2 to backends, side by side with HAProxy (`proto h2` on both sides).
#
# Part 1, gRPC unary: two grpc-java backends (src/test/java/dev/fairway/bench/GrpcBenchServer.java,
# one JVM) behind Fairway (`h2c://` backends, gRPC health checks) and behind HAProxy (`bind ...
# proto h2`, `server ... proto h2`); the load is grpc-java too (GrpcLoad.java: CONNS channels, each
# an HTTP/2 connection with STREAMS calls in flight, closed loop). ROUNDS rounds alternate the
# proxies; each prints requests/s, p50 and p99 from GrpcLoad's histogram, and the proxy's CPU time
# per call (user + system of its process over the measured seconds, /proc/PID/stat).
#
# Part 2, HTTP/1.1 client to an h2c backend: wrk against Fairway with the same two nginx servers
# spoken to over HTTP/1.1 (`http://`) and over h2c (`h2c://`, nginx `listen ... http2`), and
# HAProxy with `server ... proto h2` as the reference.
#
# Environment (defaults in brackets):
#   ROUNDS [5] CONNS ["10 50"] STREAMS [1] DURATION [10] (seconds) WARMUP [10] (seconds per run;
#   the first round of each proxy also gets FIRST_WARMUP [20])  WRK_THREADS [2]  PARTS ["1 2"]
#   JAVA_OPTS [README defaults: -Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC]  BASE_PORT [31300]
#   MAX_LOAD [1.5] LOAD_WAIT [60]: each round waits (at most LOAD_WAIT s) for a quiet machine
#   GRPC_CLIENT [grpc-java]: h2load loads part 1 instead of GrpcLoad (another client's view: unary
#   calls as h2load POSTs, -m STREAMS per connection; no system-call counts)
#   SYSCALLS [unset]: 1 adds each proxy's system calls and context switches per call (part 1; perf stat
#   over the measured seconds but the first and last, needs linux-perf and root)
#   BASELINE_JAR [unset]: part 1 also runs a second Fairway from this jar (an earlier build) in
#   every round, before or after target/fairway.jar by turns, and adds its columns and the ratio
#   of the two builds; BASELINE_INSTANCES [FAIRWAY_INSTANCES, 0] sets that Fairway's
#   proxy.instances (the same jar with another number of event loops, say) and BASELINE_JAVA_OPTS
#   [JAVA_OPTS] its JVM flags (the same jar with other flags)
set -euo pipefail

ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-"10 50"}
STREAMS=${STREAMS:-1}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-10}
FIRST_WARMUP=${FIRST_WARMUP:-20}
PARTS=${PARTS:-"1 2"}
BASE_PORT=${BASE_PORT:-31300}
MAX_LOAD=${MAX_LOAD:-1.5}
LOAD_WAIT=${LOAD_WAIT:-60}
JAVA_OPTS=${JAVA_OPTS:-"-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC"}
SYSCALLS=${SYSCALLS:-}
GRPC_CLIENT=${GRPC_CLIENT:-grpc-java}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in wrk nginx haproxy java curl mvn ${GRPC_CLIENT/#grpc-java/}; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
G1=$((BASE_PORT + 1)); G2=$((BASE_PORT + 2)); N1=$((BASE_PORT + 3)); N2=$((BASE_PORT + 4))
C1=$((BASE_PORT + 5)); C2=$((BASE_PORT + 6))
HG=$((BASE_PORT + 80)); FG=$((BASE_PORT + 81)); AG=$((BASE_PORT + 91))
H1=$((BASE_PORT + 82)); F1=$((BASE_PORT + 83)); A1=$((BASE_PORT + 92))
HC=$((BASE_PORT + 84)); FC=$((BASE_PORT + 85)); AC=$((BASE_PORT + 93))
FB=$((BASE_PORT + 86)); AB=$((BASE_PORT + 94))
ports_free "$G1" "$G2" "$N1" "$N2" "$C1" "$C2" "$HG" "$FG" "$AG" "$H1" "$F1" "$A1" "$HC" "$FC" "$AC" "$FB" "$AB"
[[ -z "${BASELINE_JAR:-}" || -f "$BASELINE_JAR" ]] || die "no BASELINE_JAR at $BASELINE_JAR"
ensure_jar
test_classpath GrpcLoad

WORK=$(mktemp -d /tmp/fairway-grpc.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

# haproxy_cfg FILE FRONT BACK1 BACK2 FRONT_OPTS SERVER_OPTS: one frontend, roundrobin over two servers
haproxy_cfg() {
  cat > "$1" <<CFG
global
  nbthread $(nproc)
  maxconn 4000
defaults
  mode http
  option http-keep-alive
  http-reuse always
  timeout connect 2s
  timeout client 30s
  timeout server 30s
frontend fe
  bind $HOST:$2 $5
  default_backend be
backend be
  balance roundrobin
  server b1 $HOST:$3 $6
  server b2 $HOST:$4 $6
CFG
  haproxy -c -q -f "$1" || die "HAProxy rejected $1"
}

# start_fairway NAME PORT ADMIN B1 B2: Fairway with JAVA_OPTS on PORT (BACKEND_SCHEME and
# HEALTH_CHECK_TYPE as fairway_config reads them)
start_fairway() {
  local name=$1
  fairway_config "$WORK/$name.json" "$2" "$3" "$4" "$5"
  # shellcheck disable=SC2086
  java $JAVA_OPTS -jar "${JAR:-$ROOT/target/fairway.jar}" -conf "$WORK/$name.json" > "$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  local deadline=$((SECONDS + 60))
  until curl -s -o /dev/null -m 2 "http://$HOST:$3/api/services" -H 'Authorization: Bearer bench-token'; do
    (( SECONDS < deadline )) || die "Fairway $name did not start (see $WORK/$name.log)"
    sleep 0.3
  done
}

grpc_load() { # TARGET CONNS WARMUP PID: prints "rps p50 p99 errors calls cpu-us-per-call syscalls/call cs/call" (PID: the proxy's)
  if [[ $GRPC_CLIENT == h2load ]]; then
    echo "$(h2load_grpc "$@") - -"
    return
  fi
  local counted=$(( DURATION > 4 ? DURATION - 2 : DURATION )) perf_pid=""
  if [[ -n $SYSCALLS ]]; then # perf counts the proxy over the measured seconds but the first and last
    (sleep "$(( $3 + (DURATION - counted) / 2 + 1 ))" && perf stat -x, -e raw_syscalls:sys_enter,context-switches \
      -p "$4" -o "$WORK/perf-stat.txt" -- sleep "$counted") > /dev/null 2>&1 &
    perf_pid=$!
  fi
  local out
  out=$(timeout $(( $3 + DURATION + 60 )) java -Xmx256m $QUIET -cp "$CP" dev.fairway.bench.GrpcLoad "$1" "$2" "$STREAMS" "$3" "$DURATION" "$4" \
    2>>"$WORK/grpcload.err" | awk -v hz="$(getconf CLK_TCK)" \
      '{ printf "%s %s %s %s %s %.1f\n", $1, $2, $3, $4, $5, ($5 > 0 ? $6 * 1e6 / hz / $5 : 0) }' | grep .) || out="0 0 0 -1 0 0"
  local per="- -"
  if [[ -n $perf_pid ]]; then
    wait "$perf_pid" || true
    per=$(awk -F, -v calls="$(cut -d' ' -f5 <<< "$out")" -v share="$counted/$DURATION" '
      BEGIN { split(share, s, "/"); n = calls * s[1] / s[2] }
      $3 == "raw_syscalls:sys_enter" { sc = $1 } $3 == "context-switches" { cs = $1 }
      END { if (n > 0 && sc != "") printf "%.2f %.2f\n", sc / n, cs / n; else print "- -" }' "$WORK/perf-stat.txt" 2>/dev/null || echo "- -")
    rm -f "$WORK/perf-stat.txt"
  fi
  echo "$out $per"
}

# h2load_grpc TARGET CONNS WARMUP PID: grpc_load's first six fields with h2load as the client
# (GRPC_CLIENT=h2load, common.sh's grpc_h2load): WARMUP seconds of warm-up, then DURATION measured.
h2load_grpc() {
  local t0 t1 rps p50 p99 err calls
  (( $3 > 0 )) && grpc_h2load "$1" "$2" "$3" > /dev/null
  t0=$(cpu_ticks "$4")
  read -r rps p50 p99 err calls <<< "$(grpc_h2load "$1" "$2" "$DURATION" "$WORK/h2load-calls.log")"
  t1=$(cpu_ticks "$4")
  awk -v r="$rps" -v a="$p50" -v b="$p99" -v e="$err" -v n="$calls" -v t="$(( t1 - t0 ))" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%s %s %s %s %s %.1f\n", r, a, b, e, n, (n > 0 ? t * 1e6 / hz / n : 0) }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f\n", a / b }'; }

if [[ " $PARTS " == *" 1 "* ]]; then
  java -Xmx256m $QUIET -cp "$CP" dev.fairway.bench.GrpcBenchServer "$HOST" "$G1" "$G2" > "$WORK/grpc-backends.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do [[ $(grep -c ready "$WORK/grpc-backends.log" || true) == 2 ]] && break; sleep 0.2; done
  haproxy_cfg "$WORK/haproxy-grpc.cfg" "$HG" "$G1" "$G2" "proto h2" "proto h2"
  haproxy -db -f "$WORK/haproxy-grpc.cfg" > "$WORK/haproxy-grpc.log" 2>&1 &
  PIDS+=($!); HPID=$!
  BACKEND_SCHEME=h2c HEALTH_CHECK_TYPE=grpc start_fairway fairway-grpc "$FG" "$AG" "$G1" "$G2"
  FPID=$!
  base_head="" base_rule=""
  if [[ -n "${BASELINE_JAR:-}" ]]; then
    FAIRWAY_INSTANCES=${BASELINE_INSTANCES:-${FAIRWAY_INSTANCES:-0}} JAR=$BASELINE_JAR BACKEND_SCHEME=h2c \
      HEALTH_CHECK_TYPE=grpc JAVA_OPTS=${BASELINE_JAVA_OPTS:-$JAVA_OPTS} start_fairway fairway-base "$FB" "$AB" "$G1" "$G2"
    BPID=$!
    base_head=" baseline req/s, p99 ms, CPU µs/call | Fairway/baseline req/s |" base_rule="---|---|"
  fi
  echo "## gRPC unary, grpc-java client and backends (STREAMS=$STREAMS per connection, ${DURATION}s runs)"
  echo
  echo "| conns | round | HAProxy req/s | Fairway req/s | ratio | HAProxy p50/p99 ms | Fairway p50/p99 ms | p99 ratio | errors H/F | CPU µs/call H/F |${SYSCALLS:+ syscalls/call H/F | context switches/call H/F |}$base_head"
  echo "|---|---|---|---|---|---|---|---|---|---|${SYSCALLS:+---|---|}$base_rule"
  for c in $CONNS; do
    : > "$WORK/rps.$c"; : > "$WORK/p99.$c"; : > "$WORK/base.$c"
    for r in $(seq "$ROUNDS"); do
      wait_for_load "$MAX_LOAD" "$LOAD_WAIT"
      w=$WARMUP; (( r == 1 )) && w=$FIRST_WARMUP
      base_cells=""
      read -r hr h50 h99 he _ hcpu hsc hcs < <(grpc_load "$HOST:$HG" "$c" "$w" "$HPID")
      if [[ -n "${BASELINE_JAR:-}" ]] && (( r % 2 == 0 )); then
        read -r br _ b99 _ _ bcpu _ < <(grpc_load "$HOST:$FB" "$c" "$w" "$BPID")
      fi
      read -r fr f50 f99 fe _ fcpu fsc fcs < <(grpc_load "$HOST:$FG" "$c" "$w" "$FPID")
      if [[ -n "${BASELINE_JAR:-}" ]]; then
        (( r % 2 == 1 )) && read -r br _ b99 _ _ bcpu _ < <(grpc_load "$HOST:$FB" "$c" "$w" "$BPID")
        ratio "$fr" "$br" >> "$WORK/base.$c"
        base_cells=" $br, $b99, $bcpu | $(ratio "$fr" "$br") |"
      fi
      ratio "$fr" "$hr" >> "$WORK/rps.$c"; ratio "$f99" "$h99" >> "$WORK/p99.$c"
      echo "| $c | $r | $hr | $fr | $(ratio "$fr" "$hr") | $h50 / $h99 | $f50 / $f99 | $(ratio "$f99" "$h99") | $he / $fe | $hcpu / $fcpu |${SYSCALLS:+ $hsc / $fsc | $hcs / $fcs |}$base_cells"
    done
    read -r lo med hi _ < <(stats < "$WORK/rps.$c"); read -r plo pmed phi _ < <(stats < "$WORK/p99.$c")
    base_median=""
    if [[ -n "${BASELINE_JAR:-}" ]]; then
      read -r blo bmed bhi _ < <(stats < "$WORK/base.$c")
      base_median=" | **$bmed** ($blo–$bhi) |"
    fi
    echo "| $c | median | | | **$med** ($lo–$hi) | | | **$pmed** ($plo–$phi) | | |$base_median"
  done
  echo
fi

if [[ " $PARTS " == *" 2 "* ]]; then
  start_nginx 1 "$N1"; start_nginx 2 "$N2"
  NGINX_H2C=1 start_nginx 3 "$C1"; NGINX_H2C=1 start_nginx 4 "$C2"
  haproxy_cfg "$WORK/haproxy-h2c.cfg" "$HC" "$C1" "$C2" "" "proto h2"
  haproxy -db -f "$WORK/haproxy-h2c.cfg" > "$WORK/haproxy-h2c.log" 2>&1 &
  PIDS+=($!)
  wait_http "$HC" / "$!" "HAProxy (h2 to backends)"
  start_fairway fairway-h1 "$F1" "$A1" "$N1" "$N2"
  BACKEND_SCHEME=h2c start_fairway fairway-h2c "$FC" "$AC" "$C1" "$C2"
  echo "## HTTP/1.1 client (wrk -t${WRK_THREADS:-2}), backends over HTTP/1.1 and over h2c (nginx, ${DURATION}s runs)"
  echo
  echo "| conns | path | round | Fairway→h1 req/s, p99 | Fairway→h2c req/s, p99 | HAProxy→h2 req/s, p99 | h2c/h1 | Fairway h2c / HAProxy h2: req/s, p99 |"
  echo "|---|---|---|---|---|---|---|---|"
  for c in $CONNS; do
    for path in / /64k; do
      key="$c${path//\//_}"; : > "$WORK/a.$key"; : > "$WORK/b.$key"; : > "$WORK/c.$key"
      for r in $(seq "$ROUNDS"); do
        wait_for_load "$MAX_LOAD" "$LOAD_WAIT"
        w=$WARMUP; (( r == 1 )) && w=$FIRST_WARMUP
        for p in "$F1" "$FC" "$HC"; do run_wrk "http://$HOST:$p$path" "$c" "${w}s" > /dev/null; done
        read -r ar ap ae _ < <(run_wrk "http://$HOST:$F1$path" "$c" "${DURATION}s")
        read -r br bp be _ < <(run_wrk "http://$HOST:$FC$path" "$c" "${DURATION}s")
        read -r cr cp ce _ < <(run_wrk "http://$HOST:$HC$path" "$c" "${DURATION}s")
        ratio "$br" "$ar" >> "$WORK/a.$key"; ratio "$br" "$cr" >> "$WORK/b.$key"; ratio "$bp" "$cp" >> "$WORK/c.$key"
        echo "| $c | $path | $r | $ar, $ap | $br, $bp | $cr, $cp | $(ratio "$br" "$ar") | $(ratio "$br" "$cr"), $(ratio "$bp" "$cp") |"
        (( ae + be + ce == 0 )) || log "errors: fairway-h1 $ae, fairway-h2c $be, haproxy $ce"
      done
      read -r _ m1 _ < <(stats < "$WORK/a.$key"); read -r _ m2 _ < <(stats < "$WORK/b.$key"); read -r _ m3 _ < <(stats < "$WORK/c.$key")
      echo "| $c | $path | median | | | | **$m1** | **$m2**, **$m3** |"
    done
  done
fi
