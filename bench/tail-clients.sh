#!/usr/bin/env bash
# Whose tail is it? HAProxy, Fairway and a bare Netty proxy (src/test/java/dev/fairway/bench/
# NettyProxyBaseline.java: the JVM and Netty alone, no checks, one event loop per core) side by
# side in front of the same two nginx backends on 127.0.0.1, each loaded in turn by two clients:
# wrk (percentiles from its own histogram, through a Lua done() hook) and h2load --h1 (percentiles
# from its per-request log). The order of the three proxies rotates every round. With INSIDE=1
# Fairway also writes its access log, and the table gains Fairway's own time per request
# (totalMs: from the request's head to the response's end, for the same wrk runs), so a tail the
# client sees can be told apart from one inside the proxy. wrk corrects its percentiles for
# coordinated omission (each slow request also counts as the requests a steady client would have
# sent meanwhile), h2load's log does not; the "p99 as wrk counts it" column applies wrk's
# correction to h2load's latencies too (bench/wrk_correct.py), so the two clients can be compared on
# either statistic.
#
#   bench/tail-clients.sh
#   CONNS="1 10 50" ROUNDS=5 INSIDE=1 bench/tail-clients.sh
#
# Environment (defaults in brackets): CONNS ["1 10"]  ROUNDS [3]  DURATION [6] (seconds)
#   WRK_THREADS [1] (h2load runs as many; at most one per connection)  CLIENTS ["wrk h2load"]  INSIDE [unset]
#   JAVA_OPTS [README's: -Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC] for both JVMs  WARMUP [12s] (each JVM, wrk)
#   JAR [target/fairway.jar]  BASE_PORT [31800]: backends BASE+1, BASE+2, HAProxy BASE+80,
#   Fairway BASE+81, the Netty proxy BASE+83, admin BASE+91
# Needs wrk, h2load (nghttp2-client), haproxy, nginx. Loopback only; every process it starts is
# stopped on exit.
set -euo pipefail

CONNS=${CONNS:-"1 10"}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-6}
WRK_THREADS=${WRK_THREADS:-1}
CLIENTS=${CLIENTS:-"wrk h2load"}
WARMUP=${WARMUP:-12s}
JAVA_OPTS=${JAVA_OPTS:-"-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC"}
BASE_PORT=${BASE_PORT:-31800}
HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in wrk h2load haproxy nginx java curl python3; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
resolve_jar
test_classpath NettyProxyBaseline

B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); HP=$((BASE_PORT + 80)); FP=$((BASE_PORT + 81))
NP=$((BASE_PORT + 83)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$HP" "$FP" "$NP" "$AP"
WORK=$(mktemp -d /tmp/fairway-tail.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
start_haproxy "$(nproc)" "$B1" "$B2" "$HOST:$HP"
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2" round-robin 1000 3600000 true \
  "$([[ -n ${INSIDE:-} ]] && echo true || echo false)"
# shellcheck disable=SC2086 # a list of flags
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!)
wait_http "$FP" / "$!" Fairway
# shellcheck disable=SC2086
java $JAVA_OPTS -cp "$CP" dev.fairway.bench.NettyProxyBaseline "$HOST" "$NP" "$HOST:$B1" "$HOST:$B2" \
  > "$WORK/netty.log" 2>&1 &
PIDS+=($!)
wait_http "$NP" / "$!" netty-baseline

cat > "$WORK/pct.lua" <<'LUA'
done = function(summary, latency, requests)
  local out = ""
  for _, p in ipairs({50, 90, 99, 99.9}) do
    out = out .. string.format(" %.3f", latency:percentile(p) / 1000)
  end
  io.write(string.format("PCT %d %.3f", summary.requests, summary.duration / 1e6) .. out .. "\n")
end
LUA

declare -A PORT_OF=([haproxy]=$HP [fairway]=$FP [netty]=$NP)
TARGETS=(haproxy fairway netty)
log "warming up: each JVM $WARMUP, HAProxy 3s"
for c in $CONNS; do
  run_wrk "http://$HOST:$FP/" "$c" "$WARMUP" "$WRK_THREADS" > /dev/null
  run_wrk "http://$HOST:$NP/" "$c" "$WARMUP" "$WRK_THREADS" > /dev/null
  run_wrk "http://$HOST:$HP/" "$c" 3s "$WRK_THREADS" > /dev/null
done

# One line per run: conns client target round requests seconds p50 p90 p99 p99.9 [inside p50 p99 p99.9]
RUNS=$WORK/runs.txt
: > "$RUNS"
for (( r = 1; r <= ROUNDS; r++ )); do
  for c in $CONNS; do
    th=$(( WRK_THREADS < c ? WRK_THREADS : c ))
    for (( k = 0; k < 3; k++ )); do
      t=${TARGETS[$(( (k + r) % 3 ))]}
      url="http://$HOST:${PORT_OF[$t]}/"
      for client in $CLIENTS; do
        if [[ $client == wrk ]]; then
          lines=$(wc -l < "$WORK/fairway.log")
          out=$(timeout $((DURATION + 30)) wrk -t "$th" -c "$c" -d "${DURATION}s" -s "$WORK/pct.lua" "$url") \
            || die "wrk against $t failed: $out"
          stats=$(grep '^PCT' <<< "$out" | cut -d' ' -f2-)
          inside=""
          if [[ -n ${INSIDE:-} && $t == fairway ]]; then
            inside=$(tail -n +"$((lines + 1))" "$WORK/fairway.log" | python3 -c '
import json, sys
v = sorted(json.loads(l[l.index("{"):])["totalMs"] for l in sys.stdin if "\"totalMs\"" in l)
n = len(v)
print(" ".join("%.3f" % v[min(n - 1, int(q * n))] for q in (.5, .99, .999)) if n else "")')
          fi
        else
          rm -f "$WORK/h2load.log"
          timeout $((DURATION + 30)) h2load --h1 -t "$th" -c "$c" -D "$DURATION" \
            --log-file="$WORK/h2load.log" "$url" > "$WORK/h2load.out" 2>&1 \
            || die "h2load against $t failed: $(tail -3 "$WORK/h2load.out")"
          stats=$("$ROOT/bench/wrk_correct.py" h2load "$WORK/h2load.log" "$c")
          inside=""
        fi
        echo "$c $client $t $r $stats $inside" >> "$RUNS"
        log "round $r/$ROUNDS c=$c $client $t: $stats${inside:+ | inside $inside}"
      done
    done
  done
done

echo
echo "Tails by client: HAProxy, Fairway and a bare Netty proxy, $ROUNDS rounds of ${DURATION}s, $WRK_THREADS client thread(s), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "JVM flags (Fairway and the Netty proxy): $JAVA_OPTS; medians over the rounds, latencies in ms"
python3 - "$RUNS" <<'PY'
import sys, statistics
from collections import defaultdict
cells = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    cells[(int(f[0]), f[1], f[2])].append([float(x) for x in f[4:]])
med = lambda rows, i: statistics.median(r[i] for r in rows) if rows and all(len(r) > i for r in rows) else None
print("| conns | client | proxy | req/s | p50 | p90 | p99 | p99.9 | p99 / HAProxy's | p99 as wrk counts it (ratio) | Fairway inside p50 / p99 / p99.9 |")
print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
def corrected(rows, client):
    return med(rows, 4) if client == "wrk" else med(rows, 6)
for (c, client, t) in sorted(cells, key=lambda k: (k[0], k[1], ["haproxy", "fairway", "netty"].index(k[2]))):
    rows = cells[(c, client, t)]
    base_rows = cells.get((c, client, "haproxy"), [])
    rps = statistics.median(r[0] / r[1] for r in rows)
    p99 = med(rows, 4); base = med(base_rows, 4)
    cor, cor_base = corrected(rows, client), corrected(base_rows, client)
    inside = "" if client != "wrk" or med(rows, 6) is None else "%.3f / %.3f / %.3f" % (med(rows, 6), med(rows, 7), med(rows, 8))
    print("| %d | %s | %s | %.0f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s |" % (
        c, client, t, rps, med(rows, 2), med(rows, 3), p99, med(rows, 5),
        "%.2f" % (p99 / base) if base else "",
        "%.3f (%.2f)" % (cor, cor / cor_base) if cor is not None and cor_base else "", inside))
PY
