#!/usr/bin/env bash
# Issue 9 memory targets, Fairway alone in front of two nginx backends on 127.0.0.1:
#  A. resident size (VmRSS sampled every 0.5 s, and VmHWM) of the Fairway JVM under wrk load
#     (path / then /64k, LOAD_CONNS connections, LOAD_DURATION each); target <= 256 MB; and,
#     2 s before each phase ends, where that resident size is, from Fairway's own /metrics:
#     heap used (the old generation apart), pooled buffers, metaspace, code, the rest;
#  B. a fresh Fairway: RSS after a short warm-up, then while 10,000 idle keep-alive client
#     connections are held open (bench/idle_conns.py: each sends one GET, then idles HOLD s);
#     target: at most 100 MB more. Also the live heap (used after a forced full GC, jcmd GC.run)
#     before and with the connections open, which isolates the Java objects per connection, and
#     the classes that grew most (jcmd GC.class_histogram).
# JAVA_OPTS defaults to the README's heap settings (-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC); JAVA_OPTS=" "
# (a blank) measures the JVM's own defaults instead.
#
# Environment (defaults in brackets):
#   JAVA_OPTS ["-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC"]  LOAD_CONNS [200]  LOAD_DURATION [20s]  IDLE_CONNS [10000]  HOLD [10]
#   IDLE_H2 [0; 1: the idle connections speak h2c, each after one GET on stream 1]
#   H2_STREAMS [unset]: A loads with h2load over h2c, that many streams per connection, instead of wrk
#   TLS [0; 1: Fairway also listens with TLS (proxy.tls, a self-signed EC P-256 certificate made
#     with openssl) on BASE+83, and A's load and B's idle connections go there: wrk over HTTPS,
#     h2load over TLS (ALPN h2) with H2_STREAMS, bench/idle_conns.py with IDLE_TLS=1]
#   LOAD_CLOSE [0; 1: A's wrk sends `Connection: close`, a new connection (with TLS=1, a full
#     handshake) per request]
#   NGINX_H2C=1 BACKEND_SCHEME=h2c: HTTP/2 (h2c) backends instead of HTTP/1.1 (bench/lib/common.sh)
#   JAR [target/fairway.jar] (e.g. a build of an earlier commit)
#   BASE_PORT [31400]: backends BASE+1, BASE+2, Fairway BASE+81 (its TLS listener BASE+83), admin BASE+91
set -euo pipefail

JAVA_OPTS=${JAVA_OPTS:-"-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC"}
LOAD_CONNS=${LOAD_CONNS:-200}
LOAD_DURATION=${LOAD_DURATION:-20s}
IDLE_CONNS=${IDLE_CONNS:-10000}
HOLD=${HOLD:-10}
BASE_PORT=${BASE_PORT:-31400}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in wrk nginx java curl python3 awk ss ${H2_STREAMS:+h2load}; do command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"; done
TLS=${TLS:-0}
LOAD_CLOSE=${LOAD_CLOSE:-0}
[[ $LOAD_CLOSE == 1 && -n ${H2_STREAMS:-} ]] && die "LOAD_CLOSE=1 is for wrk's load; unset H2_STREAMS"
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); FP=$((BASE_PORT + 81)); TP=$((BASE_PORT + 83)); AP=$((BASE_PORT + 91))
ports_free "$B1" "$B2" "$FP" "$TP" "$AP"
need=$(( IDLE_CONNS + 2000 ))
if (( $(ulimit -n) < need )); then ulimit -n "$need" 2>/dev/null || die "ulimit -n $(ulimit -n) < $need open files"; fi
resolve_jar

WORK=$(mktemp -d /tmp/fairway-memory.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx 1 "$B1"
start_nginx 2 "$B2"
fairway_config "$WORK/fairway.json" "$FP" "$AP" "$B1" "$B2"
# LP: the port the load and the idle connections go to; SCHEME their URLs' scheme
LP=$FP SCHEME=http
if [[ $TLS == 1 ]]; then
  self_signed_cert "$WORK"
  python3 - "$WORK/fairway.json" "$TP" "$WORK/site.pem" "$WORK/site.key" <<'PY'
import json, sys
path, port, cert, key = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
config = json.load(open(path))
config["proxy"]["tls"] = {"port": port, "certificates": [{"certPath": cert, "keyPath": key}]}
json.dump(config, open(path, "w"), indent=2)
PY
  LP=$TP SCHEME=https
fi
# extra arguments for run_load: an empty thread count (run_wrk's default), then wrk's own
LOAD_ARGS=()
[[ $LOAD_CLOSE == 1 ]] && LOAD_ARGS=("" -H "Connection: close")

kb() { awk -v k="$2" '$1 == k ":" { print $2 }' "/proc/$1/status"; }
mb() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1024 }'; }
start_fairway() {
  # shellcheck disable=SC2086
  java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway-$1.log" 2>&1 &
  FPID=$!; PIDS+=("$FPID")
  wait_http "$FP" / "$FPID" "Fairway ($1)"
}
# live_heap_kb PID NAME: class histogram to $WORK/histo-NAME (it forces a full GC first), then
# prints its total (the live objects after that GC) in kB, whatever the collector
live_heap_kb() {
  timeout 60 jcmd "$1" GC.class_histogram > "$WORK/histo-$2" 2>&1 || true
  awk '$1 == "Total" { printf "%d\n", $3 / 1024 }' "$WORK/histo-$2"
}
# breakdown: where Fairway's resident size is, from its own /metrics (RuntimeMeters): resident,
# heap used (old generation apart) and committed, the pooled buffers outside the heap, metaspace
# and code (the heap's resident part is what was touched, between used and committed: the whole
# young generation once it has cycled); and the backend connections open, and those Fairway
# closed in the last minute (its side's TIME_WAIT sockets), whose objects die in the old generation
breakdown() {
  curl -s -m 5 "http://$HOST:$AP/metrics" | awk '
    function v() { return $NF + 0 }
    /^process_resident_memory_bytes /                           { rss = v() }
    /^jvm_memory_used_bytes\{area="heap"/                        { heap += v(); if ($0 ~ /Tenured|Old Gen/) old += v() }
    /^jvm_memory_committed_bytes\{area="heap"/                   { heapc += v() }
    /^jvm_memory_used_bytes\{area="nonheap".*id="Metaspace"/     { meta = v() }
    /^jvm_memory_used_bytes\{area="nonheap".*id="CodeHeap/       { code += v() }
    /^netty_allocator_memory_used\{.*memory_type="direct"/       { direct += v() }
    END { printf "RSS %.1f MB; heap used %.1f of %.1f committed (old generation %.1f), pooled buffers %.1f, metaspace %.1f, code %.1f",
            rss / 1048576, heap / 1048576, heapc / 1048576, old / 1048576, direct / 1048576, meta / 1048576,
            code / 1048576 }'
  echo "; backend connections open $(ss -Htn state established "( dport = :$B1 or dport = :$B2 )" | wc -l), closed by Fairway in the last minute $(ss -Htn state time-wait "( dport = :$B1 or dport = :$B2 )" | wc -l)"
}
stop_fairway() { kill "$FPID"; for _ in $(seq 100); do kill -0 "$FPID" 2>/dev/null || return 0; sleep 0.1; done; kill -9 "$FPID" 2>/dev/null || true; }
# sample PID SECONDS: samples VmRSS every 0.5 s for SECONDS (or until the file $3 exists, if given), prints the max in kB
sample_max() {
  local pid=$1 until=$((SECONDS + $2)) stop=${3:-} m=0 v
  while (( SECONDS < until )); do
    v=$(kb "$pid" VmRSS); (( v > m )) && m=$v
    [[ -n $stop && -f $stop ]] && break
    sleep 0.5
  done
  echo "$m"
}

# shellcheck disable=SC2086
HEAP=$(java $JAVA_OPTS -XX:+PrintFlagsFinal -version 2>/dev/null | awk '$2 == "MaxHeapSize" || $2 == "InitialHeapSize" { printf "%s=%.0fMB ", $2, $4 / 1048576 } $2 ~ /^Use(G1|Parallel|Serial|Z)GC$/ && $4 == "true" { printf "%s ", $2 }')
log "JVM: JAVA_OPTS='$JAVA_OPTS' -> $HEAP"

# ---- A: under load ---------------------------------------------------------------------------
start_fairway load
sleep 2
idleA=$(kb "$FPID" VmRSS)
peak=0
declare -A parts
for path in / /64k; do
  l=$(loadavg)
  run_load "$SCHEME://$HOST:$LP$path" "$LOAD_CONNS" "$LOAD_DURATION" "${LOAD_ARGS[@]}" > "$WORK/wrk.out" &
  wrk_sub=$!
  ( sleep $(( $(secs "$LOAD_DURATION") - 2 )); breakdown > "$WORK/parts${path//\//_}" ) &
  parts_sub=$!
  m=$(sample_max "$FPID" "$(( $(secs "$LOAD_DURATION") + 1 ))")
  wait "$wrk_sub" || die "the load generator failed"
  read -r rps _ err _ < "$WORK/wrk.out"
  (( m > peak )) && peak=$m
  log "A: $path c=$LOAD_CONNS: $rps req/s, $err errors, max sampled VmRSS $(mb "$m") MB (load $l)"
  wait "$parts_sub" || true
  parts[$path]=$(cat "$WORK/parts${path//\//_}")
done
hwm=$(kb "$FPID" VmHWM)
afterA=$(kb "$FPID" VmRSS)
stop_fairway

# ---- B: idle keep-alive connections -----------------------------------------------------------
start_fairway idle
run_wrk "$SCHEME://$HOST:$LP/" 50 5s > /dev/null   # JIT and pools warm, as in service
sleep 3
liveBefore=$(live_heap_kb "$FPID" before)
before=$(kb "$FPID" VmRSS)
lB=$(loadavg)
rm -f "$WORK/ready"
IDLE_TLS=$TLS python3 "$ROOT/bench/idle_conns.py" "$HOST" "$LP" "$IDLE_CONNS" "$HOLD" "$WORK/ready" > "$WORK/idle.out" 2>&1 &
cpid=$!; PIDS+=("$cpid")
for _ in $(seq 1200); do [[ -f $WORK/ready ]] && break; kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
[[ -f $WORK/ready ]] || die "the idle client did not open its connections: $(cat "$WORK/idle.out")"
estab=$(ss -Htn state established "( sport = :$LP )" | wc -l)
during=$(sample_max "$FPID" "$(( HOLD / 2 ))")
liveDuring=$(live_heap_kb "$FPID" during)
afterGc=$(kb "$FPID" VmRSS)
wait "$cpid" || log "idle client reported failures"
hwmB=$(kb "$FPID" VmHWM)
sleep 1
afterClose=$(kb "$FPID" VmRSS)
threads=$(awk '$1 == "Threads:" { print $2 }' "/proc/$FPID/status")
stop_fairway

echo
echo "Fairway memory, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ); JAVA_OPTS='$JAVA_OPTS' ($HEAP)"
echo
echo "| phase | RSS MB | note |"
echo "|---|---:|---|"
echo "| A: idle after start | $(mb "$idleA") | |"
tool=wrk; [[ -n ${H2_STREAMS:-} ]] && tool="h2load -m$H2_STREAMS"
[[ $LOAD_CLOSE == 1 ]] && tool="$tool, Connection: close"
[[ $TLS == 1 ]] && tool="$tool over TLS"
[[ ${BACKEND_SCHEME:-http} != http ]] && tool="$tool, ${BACKEND_SCHEME} backends"
idleKind=HTTP/1.1; [[ ${IDLE_H2:-} == 1 ]] && idleKind="h2c (IDLE_H2=1)"
[[ $TLS == 1 ]] && { idleKind="TLS ${idleKind%% *}"; idleKind=${idleKind/h2c/h2}; }
echo "| A: under load, max sampled VmRSS | $(mb "$peak") | $tool -c$LOAD_CONNS, / then /64k, $LOAD_DURATION each |"
echo "| A: VmHWM (peak resident) | $(mb "$hwm") | target <= 256 MB |"
echo "| A: after load | $(mb "$afterA") | |"
echo "| B: fresh start + 5 s wrk warm-up, before (after a full GC) | $(mb "$before") | load $lB; live heap $(mb "$liveBefore") MB |"
echo "| B: $IDLE_CONNS idle $idleKind keep-alive connections open, max sampled | $(mb "$during") | $estab established on the proxy port; $(head -1 "$WORK/idle.out") |"
echo "| B: connections open, after a full GC | $(mb "$afterGc") | live heap $(mb "$liveDuring") MB |"
echo "| B: VmHWM | $(mb "$hwmB") | |"
echo "| B: after they closed | $(mb "$afterClose") | $threads threads |"
echo
echo "B delta (max during - before): $(mb $(( during - before ))) MB for $IDLE_CONNS connections ($(awk -v d=$(( during - before )) -v n="$IDLE_CONNS" 'BEGIN { printf "%.1f", d * 1024 / n }') bytes each); target <= 100 MB"
echo "B live heap delta (after full GCs): $(mb $(( liveDuring - liveBefore ))) MB ($(awk -v d=$(( liveDuring - liveBefore )) -v n="$IDLE_CONNS" 'BEGIN { printf "%.1f", d * 1024 / n }') bytes each)"
echo "idle client: $(tail -1 "$WORK/idle.out")"
echo "A, 2 s before the end of the / phase (Fairway's /metrics): ${parts[/]}"
echo "A, 2 s before the end of the /64k phase: ${parts[/64k]}"
echo
echo "Largest growth of live objects by class with the connections open (jcmd GC.class_histogram, during - before):"
echo
echo "| class | instances | MB |"
echo "|---|---:|---:|"
awk '$1 ~ /^[0-9]+:$/ { n[$4] += (FILENAME ~ /during/ ? $2 : -$2); b[$4] += (FILENAME ~ /during/ ? $3 : -$3) }
     END { for (k in b) printf "%s %d %.1f\n", k, n[k], b[k] / 1048576 }' "$WORK/histo-before" "$WORK/histo-during" |
  sort -k3 -g -r | awk NR\<=12 | awk '{ printf "| `%s` | %d | %.1f |\n", $1, $2, $3 }'
