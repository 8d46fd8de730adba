#!/usr/bin/env bash
# Issue 9, "HTTP/2 where it helps": does Fairway accept cleartext HTTP/2 (h2c) from clients, by
# prior knowledge and by Upgrade, and how does h2load see it next to HAProxy (h2c on a bind with
# `proto h2`)? Both proxies talk HTTP/1.1 to the same two nginx backends on 127.0.0.1.
# Modes: h2 with -m 10 streams per connection, h2 with -m 1, and HTTP/1.1 (h2load --h1) as the
# same-tool reference; ROUNDS rounds alternating the targets; medians of req/s.
#
# Environment (defaults in brackets):
#   ROUNDS [3] CONNS [50] DURATION [5] (seconds) PATHS ["/ /64k"] H2LOAD_THREADS [2]
#   WARMUP [15] (seconds of h2m10 and of h1 per path before the rounds: Fairway's HTTP/2 path
#   takes 20–30 s of load before the JIT settles, see docs/benchmarks.md, session 7)
#   JAVA_OPTS [bench/throughput.sh's flags]  BASE_PORT [31200]  MAX_LOAD [4] LOAD_WAIT [30]
set -euo pipefail

ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-50}
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-15}
PATHS=${PATHS:-"/ /64k"}
H2LOAD_THREADS=${H2LOAD_THREADS:-2}
BASE_PORT=${BASE_PORT:-31200}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in h2load nginx haproxy java curl; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool' (h2load: apt-get install -y nghttp2-client)"
done
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); H1P=$((BASE_PORT + 80)); H2P=$((BASE_PORT + 82)); FP=$((BASE_PORT + 81)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$H1P" "$H2P" "$FP" "$AP"
ensure_jar

WORK=$(mktemp -d /tmp/fairway-h2.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
start_haproxy "$(nproc)" "$B1" "$B2" "$HOST:$H1P" "$HOST:$H2P proto h2"
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2"
# shellcheck disable=SC2086
java $JAVA_OPTS -jar "$ROOT/target/fairway.jar" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
FPID=$!; PIDS+=("$FPID")
wait_http "$FP" / "$FPID" Fairway

echo "## h2c acceptance (curl)"
echo
echo "| target | request | HTTP version answered | status |"
echo "|---|---|---|---|"
probe() {
  local name=$1 port=$2 flag=$3 out
  out=$(curl -s -o /dev/null -m 5 $flag -w '%{http_version} %{http_code}' "http://$HOST:$port/" || echo "- failed")
  echo "| $name | curl $flag | ${out% *} | ${out##* } |"
}
probe fairway "$FP" --http2-prior-knowledge
probe fairway "$FP" --http2
probe haproxy-h2c "$H2P" --http2-prior-knowledge
probe haproxy-h1 "$H1P" --http2
echo

# h2load_run PORT PATH MODE [SECONDS]: prints "rps succeeded failed mean_ms"
h2load_run() {
  local port=$1 path=$2 mode=$3 secs=${4:-$DURATION} args out
  case $mode in
    h2m10) args=(-m 10) ;;
    h2m1) args=(-m 1) ;;
    h1) args=(--h1 -m 1) ;;
  esac
  out=$(timeout $(( secs + 40 )) h2load -t "$H2LOAD_THREADS" -c "$CONNS" -D "$secs" "${args[@]}" \
        "http://$HOST:$port$path" 2>&1) || true
  local rps mean fail _ succ
  if read -r rps mean fail _ succ < <(parse_h2load <<< "$out"); then
    printf '%s %s %s %.2f\n' "$rps" "$succ" "$fail" "$mean"
  else
    echo "0 0 0 0"
  fi
  echo "$out" >> "$WORK/h2load.out"
}

wait_for_load "${MAX_LOAD:-4}" "${LOAD_WAIT:-30}"
declare -A PORT_OF=([fairway]=$FP [haproxy]=$H2P)
RAW=$WORK/raw.tsv
: > "$RAW"
for path in $PATHS; do   # warm-up
  h2load_run "$FP" "$path" h2m10 "$WARMUP" > /dev/null; h2load_run "$FP" "$path" h1 "$WARMUP" > /dev/null
done
for (( r = 1; r <= ROUNDS; r++ )); do
  if (( r % 2 )); then order="haproxy fairway"; else order="fairway haproxy"; fi
  for path in $PATHS; do
    for mode in h2m10 h2m1 h1; do
      for t in $order; do
        port=${PORT_OF[$t]}; [[ $t == haproxy && $mode == h1 ]] && port=$H1P
        l=$(loadavg)
        res=$(h2load_run "$port" "$path" "$mode")
        printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$path" "$mode" "$res" "$l" | tr ' ' '\t' >> "$RAW"
        log "round $r $t $path $mode: $res"
      done
    done
  done
done

echo "## h2load, $(nproc) cores, -t$H2LOAD_THREADS -c$CONNS -D$DURATION, $ROUNDS rounds (median req/s), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average during runs min/median/max: $(awk -F'\t' '{ print $8 }' "$RAW" | stats | cut -d' ' -f1-3)"
echo
echo "| path | mode | HAProxy req/s | Fairway req/s | Fairway/HAProxy | Fairway failed | Fairway mean ms | HAProxy mean ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for path in $PATHS; do
  for mode in h2m10 h2m1 h1; do
    med() { awk -F'\t' -v t="$1" -v p="$path" -v m="$mode" -v c="$2" '$1 == t && $2 == p && $3 == m { print $c }' "$RAW" | stats | cut -d' ' -f2; }
    h=$(med haproxy 4); f=$(med fairway 4)
    ff=$(awk -F'\t' -v p="$path" -v m="$mode" '$1 == "fairway" && $2 == p && $3 == m { s += $6 } END { print s + 0 }' "$RAW")
    echo "| $path | $mode | $h | $f | $(awk -v a="$f" -v b="$h" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') | $ff | $(med fairway 7) | $(med haproxy 7) |"
  done
done
echo
echo "h2m10 / h2m1: HTTP/2 cleartext by prior knowledge with 10 / 1 concurrent streams per connection; h1: h2load --h1 (HTTP/1.1 keep-alive, no pipelining)."
