#!/usr/bin/env bash
# Issue 9 throughput targets: Fairway, HAProxy, the plain io.vertx:vertx-http-proxy reverse
# proxy (src/test/java/dev/fairway/bench/VertxHttpProxyBaseline.java) and a bare Netty proxy
# (NettyProxyBaseline.java: what the JVM and Netty alone do, no checks) side by side in one run,
# in front of the same two nginx backends on 127.0.0.1, measured with wrk. Each round measures
# every (path, connections) cell on all four, rotating their order every round; the table
# gives min/median/max requests/s over the rounds, the median p99, errors, and the ratios
# Fairway/HAProxy and Fairway/vertx-http-proxy (of the medians, and min/median/max of the
# per-round ratios). Same method as bench/throughput.sh, which stays the two-way comparison.
#
# Environment (defaults in brackets):
#   ROUNDS [5]  CONNS ["50 200"]  DURATION [10s]  PATHS ["/ /64k"]  WRK_THREADS [2]
#   WARMUP_JAVA [5s] (Fairway and the baseline, per path)  WARMUP_OTHER [2s]
#   JAVA_OPTS [bench/throughput.sh's flags] for both JVMs   HAPROXY_THREADS [cores]
#   BACKEND1_PORT [30001] BACKEND2_PORT [30002] HAPROXY_PORT [30080] FAIRWAY_PORT [30081]
#   VHP_PORT [30082] NETTY_PORT [30083] ADMIN_PORT [30091]   RAW_OUT [unset] copy of the raw TSV
#   MAX_LOAD [4] LOAD_WAIT [60]: before measuring, wait up to LOAD_WAIT s for the 1-min load < MAX_LOAD
#   FEATURES [default]: Fairway's configuration. default: as bench/throughput.sh (round-robin,
#     metrics.vertx on, access log off, health checks every 2 s); all: every feature on
#     (weighted-round-robin, health checks every 2 s as the README's default, metrics.vertx on,
#     JSON access log to Fairway's stdout, which goes to a file). Slots are on in both (capacity
#     1000 per backend). bench/features.sh checks every 100 ms to magnify their cost; here that
#     would also slow the other proxies, which share the two cores (docs/benchmarks.md, session 5).
#   ALL_HC_MS [2000] ALL_ACCESS_LOG [true]: FEATURES=all's health-check interval and access log
# Every process it starts is stopped on exit (trap); loopback only.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-"50 200"}
DURATION=${DURATION:-10s}
PATHS=${PATHS:-"/ /64k"}
WRK_THREADS=${WRK_THREADS:-2}
WARMUP_JAVA=${WARMUP_JAVA:-5s}
WARMUP_OTHER=${WARMUP_OTHER:-2s}
CORES=$(nproc)
HAPROXY_THREADS=${HAPROXY_THREADS:-$CORES}
BACKEND1_PORT=${BACKEND1_PORT:-30001}
BACKEND2_PORT=${BACKEND2_PORT:-30002}
HAPROXY_PORT=${HAPROXY_PORT:-30080}
FAIRWAY_PORT=${FAIRWAY_PORT:-30081}
VHP_PORT=${VHP_PORT:-30082}
NETTY_PORT=${NETTY_PORT:-30083}
ADMIN_PORT=${ADMIN_PORT:-30091}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"

for tool in wrk nginx haproxy java curl awk sort timeout nproc mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$ROUNDS'"
ports_free "$BACKEND1_PORT" "$BACKEND2_PORT" "$HAPROXY_PORT" "$FAIRWAY_PORT" "$VHP_PORT" "$NETTY_PORT" "$ADMIN_PORT"

ensure_jar
if [[ ! -f $ROOT/target/test-classes/dev/fairway/bench/NettyProxyBaseline.class || ! -f $ROOT/target/test-classpath.txt ]]; then
  log "compiling the baselines (test scope)"
  (cd "$ROOT" && mvn -q -B test-compile && mvn -q -B dependency:build-classpath -Dmdep.includeScope=test \
     -Dmdep.outputFile=target/test-classpath.txt) || die "test-compile failed"
fi

WORK=$(mktemp -d /tmp/fairway-perf.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$BACKEND1_PORT"
start_nginx 2 "$BACKEND2_PORT"
log "nginx backends on $HOST:$BACKEND1_PORT and $HOST:$BACKEND2_PORT"

start_haproxy "$HAPROXY_THREADS" "$BACKEND1_PORT" "$BACKEND2_PORT" "$HOST:$HAPROXY_PORT"
log "HAProxy on $HOST:$HAPROXY_PORT (nbthread $HAPROXY_THREADS)"

FEATURES=${FEATURES:-default}
case $FEATURES in
  # exactly as bench/throughput.sh runs it (round-robin, capacity 1000, metrics.vertx default)
  default) fairway_config "$WORK/fairway.json" "$FAIRWAY_PORT" "$ADMIN_PORT" "$BACKEND1_PORT" "$BACKEND2_PORT" ;;
  all) fairway_config "$WORK/fairway.json" "$FAIRWAY_PORT" "$ADMIN_PORT" "$BACKEND1_PORT" "$BACKEND2_PORT" \
         weighted-round-robin 1000 "${ALL_HC_MS:-2000}" true "${ALL_ACCESS_LOG:-true}" ;;
  *) die "FEATURES must be default or all, got '$FEATURES'" ;;
esac
log "Fairway features: $FEATURES"
# shellcheck disable=SC2086
java $JAVA_OPTS -jar "$ROOT/target/fairway.jar" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!); FAIRWAY_PID=$!
wait_http "$FAIRWAY_PORT" / "$FAIRWAY_PID" Fairway
log "Fairway on $HOST:$FAIRWAY_PORT"

# shellcheck disable=SC2086
java $JAVA_OPTS -Dlogback.configurationFile="$ROOT/src/main/resources/logback.xml" -cp "$ROOT/target/test-classes:$(cat "$ROOT/target/test-classpath.txt")" \
  dev.fairway.bench.VertxHttpProxyBaseline "$HOST" "$VHP_PORT" "$HOST:$BACKEND1_PORT" "$HOST:$BACKEND2_PORT" \
  > "$WORK/vhp.log" 2>&1 &
PIDS+=($!); VHP_PID=$!
wait_http "$VHP_PORT" / "$VHP_PID" vertx-http-proxy
log "$(grep -m1 "baseline on" "$WORK/vhp.log")"

# shellcheck disable=SC2086
java $JAVA_OPTS -cp "$ROOT/target/test-classes:$(cat "$ROOT/target/test-classpath.txt")" \
  dev.fairway.bench.NettyProxyBaseline "$HOST" "$NETTY_PORT" "$HOST:$BACKEND1_PORT" "$HOST:$BACKEND2_PORT" \
  > "$WORK/netty.log" 2>&1 &
PIDS+=($!); NETTY_PID=$!
wait_http "$NETTY_PORT" / "$NETTY_PID" netty-baseline
log "bare Netty baseline on $HOST:$NETTY_PORT"

declare -A PORT_OF=([haproxy]=$HAPROXY_PORT [fairway]=$FAIRWAY_PORT [vhp]=$VHP_PORT [netty]=$NETTY_PORT)
for t in haproxy fairway vhp netty; do
  out=$(curl -s -o /dev/null -m 5 -w '%{http_code} %{size_download}' "http://$HOST:${PORT_OF[$t]}/64k" || true)
  [[ $out == "200 65536" ]] || die "$t answered '$out' on /64k; expected '200 65536'"
done

RAW=$WORK/raw.tsv
printf 'round\ttarget\tpath\tconns\trps\tp99_ms\terrors\tload1\n' > "$RAW"
MAXCONN=$(for c in $CONNS; do echo "$c"; done | sort -n | tail -1)

wait_for_load "${MAX_LOAD:-4}" "${LOAD_WAIT:-60}"
log "warming up (Java targets ${WARMUP_JAVA} per path, HAProxy ${WARMUP_OTHER})"
for path in $PATHS; do
  run_wrk "http://$HOST:$FAIRWAY_PORT$path" "$MAXCONN" "$WARMUP_JAVA" > /dev/null
  run_wrk "http://$HOST:$VHP_PORT$path" "$MAXCONN" "$WARMUP_JAVA" > /dev/null
  run_wrk "http://$HOST:$NETTY_PORT$path" "$MAXCONN" "$WARMUP_JAVA" > /dev/null
  run_wrk "http://$HOST:$HAPROXY_PORT$path" "$MAXCONN" "$WARMUP_OTHER" > /dev/null
done

TARGETS=(haproxy fairway vhp netty)
N=${#TARGETS[@]}
for (( r = 1; r <= ROUNDS; r++ )); do
  order=""
  for (( j = 0; j < N; j++ )); do order+="${TARGETS[$(( (r - 1 + j) % N ))]} "; done
  for path in $PATHS; do
    for c in $CONNS; do
      for t in $order; do
        l=$(loadavg)
        read -r rps p99 err _ <<< "$(run_wrk "http://$HOST:${PORT_OF[$t]}$path" "$c" "$DURATION")"
        printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$t" "$path" "$c" "$rps" "$p99" "$err" "$l" >> "$RAW"
        log "round $r/$ROUNDS $t $path c=$c: $rps req/s, p99 $p99 ms, errors $err"
      done
    done
  done
done
kill -0 "$FAIRWAY_PID" 2>/dev/null || die "Fairway died during the run"
kill -0 "$VHP_PID" 2>/dev/null || die "the vertx-http-proxy baseline died during the run"
kill -0 "$NETTY_PID" 2>/dev/null || die "the Netty baseline died during the run"
if [[ -n ${RAW_OUT:-} ]]; then cp "$RAW" "$RAW_OUT"; fi

col() { awk -F'\t' -v col="$1" -v t="$2" -v p="$3" -v c="$4" 'NR > 1 && $2 == t && $3 == p && $4 == c { print $col }' "$RAW"; }
# per-round ratio of column COL between targets A and B
ratios() {
  awk -F'\t' -v col="$1" -v a="$2" -v b="$3" -v p="$4" -v c="$5" '
    NR > 1 && $3 == p && $4 == c { v[$1 "," $2] = $col; r[$1] = 1 }
    END { for (k in r) if (v[k "," b] > 0) printf "%.3f\n", v[k "," a] / v[k "," b] }' "$RAW"
}
loads=$(awk -F'\t' 'NR > 1 { print $8 }' "$RAW" | stats)

echo
echo "Fairway vs HAProxy vs vertx-http-proxy vs bare Netty, $CORES cores, wrk -t$WRK_THREADS, $ROUNDS rounds of $DURATION, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "JAVA_OPTS (all JVMs): $JAVA_OPTS; HAProxy nbthread $HAPROXY_THREADS; 1-min load average during runs min/median/max: $(cut -d' ' -f1-3 <<< "$loads")"
echo
printf '| %-8s | %-5s | %5s | %26s | %12s | %6s |\n' target path conns "req/s min / median / max" "p99 ms (med)" errors
printf '|%s|%s|%s|%s|%s|%s|\n' ---------- ------- ------: ---------------------------: -------------: -------:
for path in $PATHS; do
  for c in $CONNS; do
    for t in haproxy netty vhp fairway; do
      read -r mn md mx _ <<< "$(col 5 "$t" "$path" "$c" | stats)"
      read -r _ p99 _ _ <<< "$(col 6 "$t" "$path" "$c" | stats)"
      err=$(col 7 "$t" "$path" "$c" | awk '{ s += $1 } END { print s + 0 }')
      name=$t; [[ $t == vhp ]] && name=vhttp-px; [[ $t == netty ]] && name=netty-px
      printf '| %-8s | %-5s | %5s | %26s | %12.2f | %6s |\n' "$name" "$path" "$c" \
        "$(printf '%.0f / %.0f / %.0f' "$mn" "$md" "$mx")" "$p99" "$err"
    done
  done
done
echo
printf '| %-5s | %5s | %-22s | %-22s | %-22s | %-22s |\n' path conns "req/s F/HAProxy" "req/s F/vertx-http-proxy" "p99 F/HAProxy" "req/s netty-px/HAProxy"
printf '|%s|%s|%s|%s|%s|%s|\n' ------- ------: ------------------------ -------------------------- ------------------------ ------------------------
for path in $PATHS; do
  for c in $CONNS; do
    cells=()
    for spec in "5 fairway haproxy" "5 fairway vhp" "6 fairway haproxy" "5 netty haproxy"; do
      read -r cl one other <<< "$spec"
      read -r _ a _ _ <<< "$(col "$cl" "$one" "$path" "$c" | stats)"
      read -r _ b _ _ <<< "$(col "$cl" "$other" "$path" "$c" | stats)"
      read -r rmn rmd rmx _ <<< "$(ratios "$cl" "$one" "$other" "$path" "$c" | stats)"
      cells+=("$(awk -v a="$a" -v b="$b" -v x="$rmn" -v y="$rmd" -v z="$rmx" 'BEGIN { printf "%.2f (rounds %.2f/%.2f/%.2f)", a / b, x, y, z }')")
    done
    printf '| %-5s | %5s | %-22s | %-22s | %-22s | %-22s |\n' "$path" "$c" "${cells[0]}" "${cells[1]}" "${cells[2]}" "${cells[3]}"
  done
done
echo
echo "Ratios: of the medians; in brackets min/median/max of the per-round ratios. Targets (issue 9):"
echo "req/s F/HAProxy >= 1.0, req/s F/vertx-http-proxy >= 1.5, p99 F/HAProxy <= 1.2."
