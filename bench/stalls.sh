#!/usr/bin/env bash
# Slow moments or slow requests? HAProxy and Fairway side by side in front of the same two nginx
# backends, loaded in turn by h2load over HTTP/1.1 (--h1), which logs every request's start and
# duration. For each run it prints the percentiles, then where the slowest 1 % fell in time:
# "episodes" (runs of 10 ms windows holding slow requests, gaps of up to 20 ms merged) and the
# share of slow requests inside the busiest 5 % of windows. A proxy whose slow requests cluster
# there stalls now and then, all connections at once; one whose slow requests spread evenly is
# slow on some connections. Also per request: the proxy's user and system CPU and its voluntary
# (it slept) and involuntary (it was preempted) context switches, from /proc.
#
#   bench/stalls.sh
#   ROUNDS=5 CONNS=200 URLPATH=/64k bench/stalls.sh
#
# Environment (defaults in brackets): ROUNDS [3]  DURATION [8] (seconds)  CONNS [50]  URLPATH [/]
#   WARMUP [15s] (wrk, Fairway; HAProxy gets 3s)  JAVA_OPTS [README's: -Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC]
#   JAR [target/fairway.jar]  BASE_PORT [31600]: backends BASE+1, BASE+2, HAProxy BASE+80,
#   Fairway BASE+81, admin BASE+91
# Loopback only; every process it starts is stopped on exit.
# shellcheck source=bench/lib/common.sh
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-8}
CONNS=${CONNS:-50}
URLPATH=${URLPATH:-/}
WARMUP=${WARMUP:-15s}
BASE_PORT=${BASE_PORT:-31600}
JAVA_OPTS=${JAVA_OPTS:-"-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC"}
HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib/common.sh"

for tool in h2load wrk nginx haproxy java curl python3 timeout mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool' (Debian: nghttp2-client for h2load)"
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$ROUNDS'"
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "DURATION must be whole seconds, got '$DURATION'"
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); HP=$((BASE_PORT + 80)); FP=$((BASE_PORT + 81)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$HP" "$FP" "$AP"
resolve_jar

WORK=$(mktemp -d /tmp/fairway-stalls.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
start_haproxy "$(nproc)" "$B1" "$B2" "$HOST:$HP"
HAPROXY_PID=${PIDS[-1]}
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2"
# shellcheck disable=SC2086 # a list of flags
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!)
FAIRWAY_PID=$!
wait_http "$FP" / "$FAIRWAY_PID" Fairway
declare -A PORT_OF=([haproxy]=$HP [fairway]=$FP) PID_OF=([haproxy]=$HAPROXY_PID [fairway]=$FAIRWAY_PID)

log "warming up: Fairway $WARMUP, HAProxy 3s"
run_wrk "http://$HOST:$FP$URLPATH" "$CONNS" "$WARMUP" > /dev/null
run_wrk "http://$HOST:$HP$URLPATH" "$CONNS" 3s > /dev/null

# counters PID: user and system ticks, voluntary and involuntary switches over all its threads
counters() {
  local t v=0 n=0
  for t in /proc/"$1"/task/*/status; do
    read -r a b < <(awk '/^voluntary_ctxt/ { v = $2 } /^nonvoluntary_ctxt/ { n = $2 } END { print v + 0, n + 0 }' "$t" 2>/dev/null || echo "0 0")
    v=$((v + a)); n=$((n + b))
  done
  echo "$(awk '{ print $14, $15 }' "/proc/$1/stat") $v $n"
}

printf 'proxy\tround\tlog\tcounters_before\tcounters_after\n' > "$WORK/runs.tsv"
for (( r = 1; r <= ROUNDS; r++ )); do
  if (( r % 2 == 1 )); then order="haproxy fairway"; else order="fairway haproxy"; fi
  for p in $order; do
    logf=$WORK/$p-$r.log
    before=$(counters "${PID_OF[$p]}")
    timeout $(( DURATION + 30 )) $LOADGEN_PIN h2load --h1 -t 1 -c "$CONNS" -D "$DURATION" --log-file="$logf" \
      "http://$HOST:${PORT_OF[$p]}$URLPATH" > "$WORK/h2load.out" 2>&1 || die "h2load against $p failed: $(tail -3 "$WORK/h2load.out")"
    after=$(counters "${PID_OF[$p]}")
    printf '%s\t%d\t%s\t%s\t%s\n' "$p" "$r" "$logf" "$before" "$after" >> "$WORK/runs.tsv"
    log "round $r/$ROUNDS $p done"
  done
done

echo
echo "HAProxy and Fairway, h2load --h1 -t1 -c$CONNS $URLPATH, $ROUNDS rounds of ${DURATION}s, $(date -u +%Y-%m-%dT%H:%MZ); Fairway JAVA_OPTS: $JAVA_OPTS"
python3 - "$WORK/runs.tsv" "$(getconf CLK_TCK)" <<'PY'
import sys, statistics
runs = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
tick = 1e6 / int(sys.argv[2])
print("| proxy | round | req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | episodes | slow in top 5 % of windows | user µs/req | sys µs/req | voluntary cs/kreq | involuntary cs/kreq |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
summary = {}
for proxy, rnd, logf, before, after in runs:
    rows = [tuple(map(int, l.split()[:3])) for l in open(logf) if l.strip()]
    rows = [r for r in rows if r[1] // 100 == 2]
    t0 = min(r[0] for r in rows); t1 = max(r[0] + r[2] for r in rows)
    lat = sorted(r[2] for r in rows); n = len(lat)
    pct = lambda q: lat[min(n - 1, int(q * n))] / 1000
    p99 = lat[int(0.99 * n)]
    windows = {}
    for r in rows:
        w = (r[0] + r[2] - t0) // 10000
        windows[w] = windows.get(w, 0) + (1 if r[2] >= p99 else 0)
    slow = sum(windows.values())
    busiest = sorted(windows.values(), reverse=True)[:max(1, len(windows) // 20)]
    episodes, last = 0, None
    for w in sorted(k for k, v in windows.items() if v):
        if last is None or w - last > 2:
            episodes += 1
        last = w
    b = list(map(int, before.split())); a = list(map(int, after.split()))
    rps = n / ((t1 - t0) / 1e6)
    vals = (rps, pct(.5), pct(.9), pct(.99), pct(.999), episodes, sum(busiest) / max(1, slow),
            (a[0] - b[0]) * tick / n, (a[1] - b[1]) * tick / n, (a[2] - b[2]) * 1000 / n, (a[3] - b[3]) * 1000 / n)
    summary.setdefault(proxy, []).append(vals)
    print("| %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %d | %.0f %% | %.1f | %.1f | %.0f | %.0f |" % ((proxy, rnd) + vals[:6] + (100 * vals[6],) + vals[7:]))
print()
print("Medians over the rounds:")
print("| proxy | req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | episodes | slow in top 5 % | user µs/req | sys µs/req | voluntary cs/kreq | involuntary cs/kreq |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for proxy, vs in summary.items():
    m = [statistics.median(v[i] for v in vs) for i in range(11)]
    print("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f %% | %.1f | %.1f | %.0f | %.0f |" % ((proxy,) + tuple(m[:6]) + (100 * m[6],) + tuple(m[7:])))
PY
