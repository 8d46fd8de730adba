#!/usr/bin/env bash
# How long each proxy's threads wait for a CPU once they are runnable: HAProxy and Fairway side by
# side in front of the same two nginx backends on 127.0.0.1, loaded in turn by wrk (the order
# swapped every other round). Around each run it reads /proc/PID/task/*/schedstat (the kernel's
# per-thread time on a CPU, time runnable but waiting in the run queue, and slices run) of the
# proxy, and of wrk and the backends, and prints per thread group: CPU ms, run-queue wait ms,
# slices, and the wait per slice. A request waits for the proxy's thread at least twice (its
# request, its response), and for the backend's and wrk's, so these waits add to its latency
# besides the proxy's own work; the VM thread's wait stretches the JVM's safepoints (collections).
#
#   bench/runqueue.sh
#   CONNS=10 WRK_THREADS=1 ROUNDS=5 bench/runqueue.sh
#   FAIRWAY_INSTANCES=2 bench/runqueue.sh          (two proxy verticles: two busy event loops)
#
# Environment (defaults in brackets): ROUNDS [3]  DURATION [8s]  CONNS [50]  WRK_THREADS [2]
#   URLPATH [/]  WARMUP [12s] (Fairway; HAProxy gets 3s)  JAVA_OPTS [README's: -Xms64m -Xmx192m -Xmn32m
#   -XX:+UseSerialGC]  JAR [target/fairway.jar]  FAIRWAY_INSTANCES [0]  HAPROXY_THREADS [cores]
#   BASE_PORT [31700]: backends BASE+1, BASE+2, HAProxy BASE+80, Fairway BASE+81, admin BASE+91
# Loopback only; every process it starts is stopped on exit.
# shellcheck source=bench/lib/common.sh
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-8s}
CONNS=${CONNS:-50}
URLPATH=${URLPATH:-/}
WARMUP=${WARMUP:-12s}
JAVA_OPTS=${JAVA_OPTS:-"-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC"}
BASE_PORT=${BASE_PORT:-31700}
HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib/common.sh"
for tool in wrk nginx haproxy java curl awk; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); HP=$((BASE_PORT + 80)); FP=$((BASE_PORT + 81)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$HP" "$FP" "$AP"
resolve_jar

WORK=$(mktemp -d /tmp/fairway-runqueue.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
NGINX_PIDS="$(pgrep -d' ' -P "${PIDS[0]}") $(pgrep -d' ' -P "${PIDS[1]}")"
start_haproxy "${HAPROXY_THREADS:-$(nproc)}" "$B1" "$B2" "$HOST:$HP"
HPID=${PIDS[-1]}
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2" round-robin 1000 3600000
# shellcheck disable=SC2086
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
FPID=$!; PIDS+=("$FPID")
wait_http "$FP" / "$FPID" Fairway
log "warming up: Fairway $WARMUP, HAProxy 3s"
run_wrk "http://$HOST:$FP$URLPATH" "$CONNS" "$WARMUP" > /dev/null
run_wrk "http://$HOST:$HP$URLPATH" "$CONNS" 3s > /dev/null

# snap PID...: "group tid run_ns wait_ns slices" per thread of each process; a thread's group is
# its name with digits and the JVM's truncation folded (vert.x-eventloo → event loop)
snap() {
  local pid t
  for pid in "$@"; do
    for t in /proc/"$pid"/task/*; do
      [[ -r $t/schedstat ]] || continue
      printf '%s|%s|%s\n' "${t##*/}" "$(tr -d '0-9' < "$t/comm" | sed 's/ *$//')" "$(cat "$t/schedstat" 2>/dev/null || echo '0 0 0')"
    done
  done
}
# delta BEFORE AFTER: per group "group run_ms wait_ms slices" for threads present in both
delta() {
  join -t'|' <(sort "$1") <(sort "$2") | awk -F'|' '
    { split($3, a, " "); split($5, b, " "); g = $2
      if (g ~ /^vert\.x-eventloo/) g = "event loops"; else if (g ~ /Compiler/) g = "JIT compilers"
      run[g] += (b[1] - a[1]) / 1e6; wait[g] += (b[2] - a[2]) / 1e6; sl[g] += b[3] - a[3] }
    END { for (g in run) if (run[g] >= 1) printf "%s|%.0f|%.0f|%d\n", g, run[g], wait[g], sl[g] }'
}

RESULTS=$WORK/results
: > "$RESULTS"
order=(haproxy fairway)
for round in $(seq 1 "$ROUNDS"); do
  for name in "${order[@]}"; do
    if [[ $name == haproxy ]]; then pid=$HPID port=$HP; else pid=$FPID port=$FP; fi
    snap "$pid" > "$WORK/a"; snap $NGINX_PIDS > "$WORK/na"
    timeout $(( $(secs "$DURATION") + 30 )) wrk -t "${WRK_THREADS:-2}" -c "$CONNS" -d "$DURATION" --latency \
      "http://$HOST:$port$URLPATH" > "$WORK/wrk.out" 2>&1 &
    wpid=$!
    sleep 0.2
    wrkpid=$(pgrep -n -P "$wpid" wrk || echo "$wpid")
    snap "$wrkpid" > "$WORK/wa"
    sleep $(( $(secs "$DURATION") - 1 ))
    snap "$wrkpid" > "$WORK/wb"
    wait "$wpid" || die "wrk failed: $(cat "$WORK/wrk.out")"
    snap "$pid" > "$WORK/b"; snap $NGINX_PIDS > "$WORK/nb"
    rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$WORK/wrk.out")
    p99=$(awk '$1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
                             printf "%.3f", u == "us" ? v / 1000 : u == "s" ? v * 1000 : v }' "$WORK/wrk.out")
    log "round $round $name: $rps req/s, p99 $p99 ms"
    { delta "$WORK/a" "$WORK/b" | sed "s/^/$name|$round|proxy|/"
      delta "$WORK/na" "$WORK/nb" | sed "s/^/$name|$round|backends|/"
      delta "$WORK/wa" "$WORK/wb" | sed "s/^/$name|$round|wrk|/"
      echo "$name|$round|req/s|$rps|$p99"; } >> "$RESULTS"
  done
  order=("${order[1]}" "${order[0]}")
done

echo
echo "Run-queue waits, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), wrk -t${WRK_THREADS:-2} -c$CONNS $URLPATH, $ROUNDS rounds of $DURATION; JAVA_OPTS $JAVA_OPTS; medians over the rounds"
echo "(wrk's own threads measured over its run less 1.2 s; each column is its own median, the wait per slice the median of the rounds' ratios)"
echo
echo "| proxy under load | req/s | p99 ms |"
echo "|---|---:|---:|"
# median COLUMN NAME: the median over the rounds of the req/s line's field COLUMN (4 req/s, 5 p99)
median() { awk -F'|' -v n="$2" -v c="$1" '$1 == n && $3 == "req/s" { print $c }' "$RESULTS" | sort -g | awk '{ v[NR] = $1 } END { print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
for name in haproxy fairway; do
  echo "| $name | $(median 4 "$name") | $(median 5 "$name") |"
done
echo
echo "| proxy under load | process | thread group | CPU ms | run-queue wait ms | slices | wait per slice ms |"
echo "|---|---|---|---:|---:|---:|---:|"
awk -F'|' '$3 != "req/s" { k = $1 "|" $3 "|" $4; keys[k]; n[k]++; run[k, n[k]] = $5; wait[k, n[k]] = $6; sl[k, n[k]] = $7
                           per[k, n[k]] = $7 ? $6 / $7 : 0 }
  function med(arr, k, c,   i, j, v, t) { for (i = 1; i <= c; i++) v[i] = arr[k, i]
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (v[int((c + 1) / 2)] + v[int(c / 2) + 1]) / 2 }
  END { for (k in keys) { split(k, p, "|"); r = med(run, k, n[k]); w = med(wait, k, n[k]); s = med(sl, k, n[k])
          if (r >= 5) printf "| %s | %s | %s | %.0f | %.0f | %d | %.3f |\n", p[1], p[2], p[3], r, w, s, med(per, k, n[k]) } }' "$RESULTS" |
  sort -t'|' -k2,2 -k3,3 -k5,5nr
