#!/usr/bin/env bash
# Throughput benchmark for issue 2: Fairway next to HAProxy, both in front of the same two
# nginx backends, measured with wrk in one run.
#
#   bench/throughput.sh                       # defaults below, about 5 minutes
#   ROUNDS=5 CONNS="50 200 400" bench/throughput.sh
#
# What it does, all on 127.0.0.1 and all under a mktemp directory:
#   1. builds target/fairway.jar if it is missing (mvn -q package -DskipTests);
#   2. starts two nginx backends (ports BACKEND1_PORT, BACKEND2_PORT; one worker each) that
#      answer "hello\n" on every path and a 64 KiB file on /64k;
#   3. starts HAProxy (nbthread = cores, roundrobin, keep-alive and http-reuse always to the
#      backends, X-Forwarded-For like Fairway) on HAPROXY_PORT;
#   4. starts Fairway (round-robin, capacity 1000 per backend so slots never limit, no demo)
#      on FAIRWAY_PORT with JAVA_OPTS;
#   5. checks every target answers both paths with the right body size, warms each up
#      (Fairway longer, for the JIT), then runs wrk --latency for each path and connection
#      count: the direct backend (reference ceiling, DIRECT_ROUNDS times), HAProxy and Fairway
#      (every round, their order swapped each round so drift and noise hit both alike);
#   6. prints one table: median requests/s and median p99 over the rounds, errors, and the
#      Fairway/HAProxy ratios. The raw per-run numbers go to RAW_OUT if set.
# Every process it starts is stopped on exit (trap), and every wait has a timeout.
#
# Environment (defaults in brackets):
#   ROUNDS [3]  CONNS ["50 200"]  DURATION [10s]  PATHS ["/ /64k"]  WRK_THREADS [2]
#   DIRECT_ROUNDS [1]        rounds that also measure the backend directly (0 = never)
#   WARMUP_FAIRWAY [5s]      wrk warm-up of Fairway per path (JIT); others get WARMUP_OTHER [2s]
#   FAIRWAY_INSTANCES [0]    proxy.instances (0 = one verticle per event loop)
#   JAVA_OPTS [see below]    JVM flags for Fairway
#   HAPROXY_THREADS [cores]  BACKEND1_PORT [19001] BACKEND2_PORT [19002]
#   HAPROXY_PORT [18080] FAIRWAY_PORT [18081] ADMIN_PORT [18091]
#   RAW_OUT [unset]          file to copy the raw TSV of every wrk run into
#   PROXY_CPUS [unset]       pin HAProxy and Fairway to these CPUs with taskset (e.g. "0": one
#                            core; HAProxy's nbthread then defaults to their count), for scaling
#   LOADGEN_CPUS [unset]     pin wrk likewise
#
# Besides requests/s and p99, each proxy run reports the proxy's CPU time per request (user +
# system, all threads, from /proc): "req/s per core" = 1 / that, what one fully busy core of this
# machine would serve, whatever share of the cores wrk and nginx took meanwhile.
#
# Note: wrk, the two nginx workers and the proxy under test share the same cores, so the
# numbers are a side-by-side comparison on one machine, not the proxy's ceiling.
set -euo pipefail

ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-"50 200"}
DURATION=${DURATION:-10s}
PATHS=${PATHS:-"/ /64k"}
WRK_THREADS=${WRK_THREADS:-2}
DIRECT_ROUNDS=${DIRECT_ROUNDS:-1}
WARMUP_FAIRWAY=${WARMUP_FAIRWAY:-5s}
WARMUP_OTHER=${WARMUP_OTHER:-2s}
FAIRWAY_INSTANCES=${FAIRWAY_INSTANCES:-0}
CORES=$(nproc)
if [[ -n ${PROXY_CPUS:-} ]]; then CORES=$(taskset -c "$PROXY_CPUS" nproc); fi
HAPROXY_THREADS=${HAPROXY_THREADS:-$CORES}
BACKEND1_PORT=${BACKEND1_PORT:-19001}
BACKEND2_PORT=${BACKEND2_PORT:-19002}
HAPROXY_PORT=${HAPROXY_PORT:-18080}
FAIRWAY_PORT=${FAIRWAY_PORT:-18081}
ADMIN_PORT=${ADMIN_PORT:-18091}
# JVM flags (docs/benchmarks.md): G1, ParallelGC and SerialGC measured within the noise of each
# other on the 2-core box, so these are sane operator defaults rather than a speed-up: a fixed,
# small heap (the proxy keeps little live data; no resizing), ParallelGC (cheapest barriers,
# young pauses ~1 ms median), pre-touched heap, Netty's leak detector off. Override JAVA_OPTS.
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAR=$ROOT/target/fairway.jar

# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"

for tool in wrk nginx haproxy java curl awk sort timeout nproc mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool' (Debian: apt-get install -y ${tool/java/openjdk-17-jre-headless})"
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$ROUNDS'"
[[ $DIRECT_ROUNDS =~ ^[0-9]+$ ]] || die "DIRECT_ROUNDS must be an integer >= 0, got '$DIRECT_ROUNDS'"
[[ $DURATION =~ ^[0-9]+[smh]?$ ]] || die "DURATION must look like 10s, got '$DURATION'"

ports_free "$BACKEND1_PORT" "$BACKEND2_PORT" "$HAPROXY_PORT" "$FAIRWAY_PORT" "$ADMIN_PORT"

if [[ ! -f $JAR ]]; then
  command -v mvn >/dev/null 2>&1 || die "target/fairway.jar is missing and mvn is not installed"
  log "building $JAR"
  (cd "$ROOT" && mvn -q -B package -DskipTests) || die "build failed"
fi

WORK=$(mktemp -d /tmp/fairway-bench.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- backends: two nginx, one worker each --------------------------------------------------
start_nginx 1 "$BACKEND1_PORT"
start_nginx 2 "$BACKEND2_PORT"
log "nginx backends on $HOST:$BACKEND1_PORT and $HOST:$BACKEND2_PORT"

# ---- HAProxy --------------------------------------------------------------------------------
start_haproxy "$HAPROXY_THREADS" "$BACKEND1_PORT" "$BACKEND2_PORT" "$HOST:$HAPROXY_PORT"
HAPROXY_PID=${PIDS[-1]}
log "HAProxy on $HOST:$HAPROXY_PORT (nbthread $HAPROXY_THREADS)"

# ---- Fairway --------------------------------------------------------------------------------
cat > "$WORK/fairway.json" <<EOF
{
  "proxy": { "host": "$HOST", "port": $FAIRWAY_PORT, "instances": $FAIRWAY_INSTANCES },
  "admin": { "host": "$HOST", "port": $ADMIN_PORT, "token": "bench-token" },
  "subsetting": { "clientId": 0, "clientCount": 1 },
  "services": [
    {
      "name": "bench",
      "match": { "host": "*", "pathPrefix": "/" },
      "strategy": "round-robin",
      "subsetSize": 0,
      "slots": { "capacity": 1000, "waitTimeoutMs": 1000, "maxWaiting": 10000 },
      "timeouts": { "connectMs": 2000, "responseMs": 30000 },
      "healthCheck": { "path": "/health", "intervalMs": 2000, "timeoutMs": 1000,
                       "healthyThreshold": 2, "unhealthyThreshold": 3 },
      "backends": [
        { "id": "b1", "url": "http://$HOST:$BACKEND1_PORT" },
        { "id": "b2", "url": "http://$HOST:$BACKEND2_PORT" }
      ]
    }
  ]
}
EOF
# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
$PROXY_PIN java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!)
FAIRWAY_PID=$!
wait_http "$FAIRWAY_PORT" / "$FAIRWAY_PID" Fairway
log "Fairway on $HOST:$FAIRWAY_PORT (instances $FAIRWAY_INSTANCES; JAVA_OPTS: $JAVA_OPTS)"

# ---- sanity: every target serves both bodies in full ----------------------------------------
declare -A PORT_OF=([backend]=$BACKEND1_PORT [haproxy]=$HAPROXY_PORT [fairway]=$FAIRWAY_PORT)
declare -A PID_OF=([haproxy]=$HAPROXY_PID [fairway]=$FAIRWAY_PID)
TICKS=$(getconf CLK_TCK)
for t in backend haproxy fairway; do
  for path in $PATHS; do
    out=$(curl -s -o /dev/null -m 5 -w '%{http_code} %{size_download}' "http://$HOST:${PORT_OF[$t]}$path" || true)
    [[ ${out%% *} == 200 ]] || die "$t answered '$out' on $path; expected 200"
  done
  out=$(curl -s -o /dev/null -m 5 -w '%{size_download}' "http://$HOST:${PORT_OF[$t]}/64k" || true)
  [[ $out == 65536 ]] || die "$t sent $out bytes on /64k; expected 65536"
done

# ---- measuring ------------------------------------------------------------------------------
RAW=$WORK/raw.tsv
printf 'round\ttarget\tpath\tconns\trps\tp99_ms\terrors\tcpu_us_per_req\n' > "$RAW"
MAXCONN=$(for c in $CONNS; do echo "$c"; done | sort -n | tail -1)

# target_wrk TARGET PATH CONNS DURATION: prints "rps p99_ms errors cpu_us_per_req" (errors =
# non-2xx/3xx + socket errors; the CPU time per request is the proxy's, "-" for the backend)
target_wrk() {
  local pid=${PID_OF[$1]:-} before after out
  [[ -n $pid ]] && before=$(cpu_ticks "$pid")
  out=$(run_wrk "http://$HOST:${PORT_OF[$1]}$2" "$3" "$4")
  if [[ -n $pid ]]; then
    after=$(cpu_ticks "$pid")
    awk -v o="$out" -v t="$TICKS" -v a="$after" -v b="$before" \
      'BEGIN { split(o, f, " "); printf "%s %s %s %.1f\n", f[1], f[2], f[3], (a - b) / t * 1e6 / f[4] }'
  else
    echo "$(cut -d' ' -f1-3 <<< "$out") -"
  fi
}

log "warming up (Fairway ${WARMUP_FAIRWAY} per path for the JIT, others ${WARMUP_OTHER})"
for path in $PATHS; do
  target_wrk fairway "$path" "$MAXCONN" "$WARMUP_FAIRWAY" > /dev/null
  target_wrk haproxy "$path" "$MAXCONN" "$WARMUP_OTHER" > /dev/null
  if (( DIRECT_ROUNDS > 0 )); then target_wrk backend "$path" "$MAXCONN" "$WARMUP_OTHER" > /dev/null; fi
done

for (( r = 1; r <= ROUNDS; r++ )); do
  if (( r % 2 == 1 )); then order="haproxy fairway"; else order="fairway haproxy"; fi
  if (( r <= DIRECT_ROUNDS )); then order="backend $order"; fi
  for path in $PATHS; do
    for c in $CONNS; do
      for t in $order; do
        res=$(target_wrk "$t" "$path" "$c" "$DURATION")
        read -r rps p99 err cpu <<< "$res"
        printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$t" "$path" "$c" "$rps" "$p99" "$err" "$cpu" >> "$RAW"
        log "round $r/$ROUNDS  $t $path c=$c: $rps req/s, p99 $p99 ms, errors $err, CPU $cpu us/request"
      done
    done
  done
done
kill -0 "$FAIRWAY_PID" 2>/dev/null || die "Fairway died during the run"
if [[ -n ${RAW_OUT:-} ]]; then cp "$RAW" "$RAW_OUT"; fi

# ---- table ----------------------------------------------------------------------------------
# median COLUMN TARGET PATH CONNS: median of that column over the rounds ("-" if never measured)
median() {
  awk -F'\t' -v col="$1" -v t="$2" -v p="$3" -v c="$4" \
      'NR > 1 && $2 == t && $3 == p && $4 == c { print $col }' "$RAW" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
          if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
total_errors() {
  awk -F'\t' -v t="$1" -v p="$2" -v c="$3" 'NR > 1 && $2 == t && $3 == p && $4 == c { s += $7 } END { print s + 0 }' "$RAW"
}

echo
echo "Fairway vs HAProxy, $(nproc) cores${PROXY_CPUS:+ (proxies pinned to CPUs $PROXY_CPUS)}, wrk -t$WRK_THREADS, $ROUNDS rounds of $DURATION (medians), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "Fairway JAVA_OPTS: $JAVA_OPTS; proxy.instances $FAIRWAY_INSTANCES; HAProxy nbthread $HAPROXY_THREADS"
echo
printf '| %-8s | %-5s | %5s | %10s | %8s | %6s | %11s | %11s | %10s | %10s |\n' \
  target path conns "req/s" "p99 ms" errors "req/s ratio" "p99 ratio" "CPU us/req" "req/s/core"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ---------- ------- ------: -----------: ---------: -------: ------------: ------------: -----------: -----------:
for path in $PATHS; do
  for c in $CONNS; do
    for t in backend haproxy fairway; do
      rps=$(median 5 "$t" "$path" "$c")
      [[ $rps == - ]] && continue
      p99=$(median 6 "$t" "$path" "$c")
      err=$(total_errors "$t" "$path" "$c")
      rr=""; pr=""
      if [[ $t == fairway ]]; then
        hr=$(median 5 haproxy "$path" "$c"); hp=$(median 6 haproxy "$path" "$c")
        rr=$(awk -v a="$rps" -v b="$hr" 'BEGIN { printf "%.2f", a / b }')
        pr=$(awk -v a="$p99" -v b="$hp" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
      fi
      cpu=$(median 8 "$t" "$path" "$c"); per=""
      if [[ $t == backend ]]; then cpu=""; else per=$(awk -v u="$cpu" 'BEGIN { printf "%.0f", 1e6 / u }'); fi
      printf '| %-8s | %-5s | %5s | %10.0f | %8.2f | %6s | %11s | %11s | %10s | %10s |\n' \
        "$t" "$path" "$c" "$rps" "$p99" "$err" "$rr" "$pr" "$cpu" "$per"
    done
  done
done
echo
echo "req/s ratio = Fairway/HAProxy median requests/s; p99 ratio = Fairway/HAProxy median p99 (issue 27 asks >= 1.00 and <= 1.20)."
echo "CPU us/req = the proxy's CPU time (user + system) per request; req/s/core = 1e6 / that."
echo "backend = one nginx worker measured directly ($DIRECT_ROUNDS of $ROUNDS rounds), a reference, not a proxy."
