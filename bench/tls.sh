#!/usr/bin/env bash
# TLS benchmark for issue 22: Fairway's TLS listener next to HAProxy's `bind ... ssl crt`, both in
# front of the same two nginx backends, measured with wrk (and h2load) over HTTPS in one run.
#
#   bench/tls.sh                                 # defaults below, about 4 minutes
#   ROUNDS=5 CONNS="50 200" bench/tls.sh
#   BACKEND_TLS=1 bench/tls.sh                   # re-encryption: the backends are https:// too
#   LOADS="keepalive h2" bench/tls.sh            # adds HTTP/2 over TLS (h2load, ALPN h2)
#   COMPARE_JDK=1 bench/tls.sh                   # Fairway with OpenSSL and with the JDK's TLS
#
# What it does, all on 127.0.0.1 and all under a mktemp directory:
#   1. builds target/fairway.jar if it is missing (or takes JAR);
#   2. makes a self-signed EC P-256 certificate for 127.0.0.1 with openssl;
#   3. starts two nginx backends (cleartext, or with BACKEND_TLS=1 HTTPS with that certificate),
#      HAProxy (nbthread = cores, `ssl crt` on HAPROXY_PORT, ALPN h2,http/1.1; to HTTPS backends
#      `ssl verify required ca-file`) and Fairway (proxy.tls on FAIRWAY_PORT with the same
#      certificate, default ALPN, cleartext off; to HTTPS backends `tls.caPath`, verifying);
#   4. warms both up, then per round and connection count (their order swapped each round), the
#      LOADS among:
#      - keepalive: wrk over HTTPS, every connection kept: requests/s and p99;
#      - new: wrk with `Connection: close`, so every request is a new TLS connection with a full
#        handshake (wrk resumes no sessions): requests/s = handshakes/s;
#      - h2: h2load over HTTPS (ALPN h2), H2_STREAMS streams per connection: requests/s and the
#        mean request time (h2load reports no percentiles: the p99 columns hold the mean);
#   5. prints the medians over the rounds and the Fairway/HAProxy ratios.
# Every process it starts is stopped on exit (trap), and every wait has a timeout.
#
# Environment (defaults in brackets):
#   ROUNDS [3]  CONNS ["50"]  DURATION [8s]  WRK_THREADS [2]  WARMUP [5s]
#   LOADS ["keepalive new"]  H2_STREAMS [10]  BACKEND_TLS [0]
#   COMPARE_JDK [0: 1 adds a proxy, Fairway with -Dfairway.tls.provider=jdk, on FAIRWAY_PORT+2]
#   COMPARE_INSTANCES [none: N adds a proxy, Fairway with proxy.instances N, on FAIRWAY_PORT+4]
#   COMPARE_OPTS [none: JVM options added after JAVA_OPTS for one more Fairway, on FAIRWAY_PORT+6;
#                 a later -XX option wins, e.g. COMPARE_OPTS="-XX:-UseParallelGC -XX:+UseZGC"]
#   JAR [target/fairway.jar]  JAVA_OPTS [see below]  HAPROXY_THREADS [cores]
#   LOADGEN_CPUS [unset: wrk and h2load float; "1": pinned to CPU 1 with taskset]
#   FAIRWAY_INSTANCES [0: proxy.instances' default, one per event loop = 2 x cores]
#   BACKEND1_PORT [19011] BACKEND2_PORT [19012] HAPROXY_PORT [18443] FAIRWAY_PORT [18444]
#   ADMIN_PORT [18094]
set -euo pipefail

ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-"50"}
DURATION=${DURATION:-8s}
WRK_THREADS=${WRK_THREADS:-2}
WARMUP=${WARMUP:-5s}
LOADS=${LOADS:-"keepalive new"}
H2_STREAMS_PER_CONN=${H2_STREAMS:-10}
unset H2_STREAMS # run_load reads it: set only for the h2 load
BACKEND_TLS=${BACKEND_TLS:-0}
COMPARE_JDK=${COMPARE_JDK:-0}
COMPARE_INSTANCES=${COMPARE_INSTANCES:-}
COMPARE_OPTS=${COMPARE_OPTS:-}
CORES=$(nproc)
HAPROXY_THREADS=${HAPROXY_THREADS:-$CORES}
BACKEND1_PORT=${BACKEND1_PORT:-19011}
BACKEND2_PORT=${BACKEND2_PORT:-19012}
HAPROXY_PORT=${HAPROXY_PORT:-18443}
FAIRWAY_PORT=${FAIRWAY_PORT:-18444}
ADMIN_PORT=${ADMIN_PORT:-18094}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"

for tool in wrk h2load nginx haproxy openssl java curl awk sort timeout nproc mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
ports_free "$BACKEND1_PORT" "$BACKEND2_PORT" "$HAPROXY_PORT" "$FAIRWAY_PORT" "$ADMIN_PORT" \
  "$((FAIRWAY_PORT + 2))" "$((ADMIN_PORT + 2))" "$((FAIRWAY_PORT + 4))" "$((ADMIN_PORT + 4))" \
  "$((FAIRWAY_PORT + 6))" "$((ADMIN_PORT + 6))"
resolve_jar

WORK=$(mktemp -d /tmp/fairway-tls.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

self_signed_cert "$WORK"
cat "$WORK/site.pem" "$WORK/site.key" > "$WORK/haproxy.pem"

BACKEND_SCHEME=http BACKEND_CERT=()
if [[ $BACKEND_TLS == 1 ]]; then
  BACKEND_SCHEME=https BACKEND_CERT=("$WORK/site.pem" "$WORK/site.key")
  export HAPROXY_SERVER="ssl verify required ca-file $WORK/site.pem"
fi
start_nginx 1 "$BACKEND1_PORT" "${BACKEND_CERT[@]}"
start_nginx 2 "$BACKEND2_PORT" "${BACKEND_CERT[@]}"
start_haproxy "$HAPROXY_THREADS" "$BACKEND1_PORT" "$BACKEND2_PORT" \
  "$HOST:$((HAPROXY_PORT + 1000))" "$HOST:$HAPROXY_PORT ssl crt $WORK/haproxy.pem alpn h2,http/1.1"
wait_http "$HAPROXY_PORT" / "${PIDS[-1]}" HAProxy https

# fairway_json PORT ADMIN_PORT [INSTANCES]: a config with the TLS listener on PORT, cleartext off.
fairway_json() {
  cat <<JSON
{
  "proxy": { "host": "$HOST", "port": -1, "instances": ${3:-${FAIRWAY_INSTANCES:-0}},
             "tls": { "port": $1,
                      "certificates": [ { "certPath": "$WORK/site.pem", "keyPath": "$WORK/site.key" } ] } },
  "admin": { "host": "$HOST", "port": $2, "token": "bench-token" },
  "services": [ {
    "name": "bench", "match": { "host": "*", "pathPrefix": "/" },
    "slots": { "capacity": 1000, "waitTimeoutMs": 1000, "maxWaiting": 10000 },
    "healthCheck": { "path": "/health", "intervalMs": 2000, "timeoutMs": 1000 },
    "tls": { "caPath": "$WORK/site.pem" },
    "backends": [ { "id": "b1", "url": "$BACKEND_SCHEME://$HOST:$BACKEND1_PORT" },
                  { "id": "b2", "url": "$BACKEND_SCHEME://$HOST:$BACKEND2_PORT" } ]
  } ]
}
JSON
}

# start_fairway NAME PORT ADMIN_PORT INSTANCES [JVM options...]: starts one Fairway and waits for
# its TLS port (INSTANCES empty: FAIRWAY_INSTANCES).
start_fairway() {
  local name=$1 port=$2 admin=$3 instances=$4
  shift 4
  fairway_json "$port" "$admin" "$instances" > "$WORK/$name.json"
  # shellcheck disable=SC2086
  java $JAVA_OPTS "$@" -jar "$JAR" -conf "$WORK/$name.json" > "$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  wait_http "$port" / "$!" "$name" https
  log "$name: $(grep -o "TLS provider: [^,]*" "$WORK/$name.log" | head -1)"
}

TARGETS="haproxy fairway"
declare -A PORT_OF=([haproxy]=$HAPROXY_PORT [fairway]=$FAIRWAY_PORT)
start_fairway fairway "$FAIRWAY_PORT" "$ADMIN_PORT" ""
if [[ $COMPARE_JDK == 1 ]]; then
  TARGETS+=" fairway-jdk"
  PORT_OF[fairway-jdk]=$((FAIRWAY_PORT + 2))
  start_fairway fairway-jdk "$((FAIRWAY_PORT + 2))" "$((ADMIN_PORT + 2))" "" -Dfairway.tls.provider=jdk
fi
if [[ -n $COMPARE_OPTS ]]; then
  TARGETS+=" fairway-opts"
  PORT_OF[fairway-opts]=$((FAIRWAY_PORT + 6))
  # shellcheck disable=SC2086
  start_fairway fairway-opts "$((FAIRWAY_PORT + 6))" "$((ADMIN_PORT + 6))" "" $COMPARE_OPTS
fi
if [[ -n $COMPARE_INSTANCES ]]; then
  TARGETS+=" fairway-i$COMPARE_INSTANCES"
  PORT_OF[fairway-i$COMPARE_INSTANCES]=$((FAIRWAY_PORT + 4))
  start_fairway "fairway-i$COMPARE_INSTANCES" "$((FAIRWAY_PORT + 4))" "$((ADMIN_PORT + 4))" "$COMPARE_INSTANCES"
fi

for t in $TARGETS; do
  run_wrk "https://$HOST:${PORT_OF[$t]}/" 50 "$WARMUP" > /dev/null
  if [[ " $LOADS " == *" h2 "* ]]; then # HTTP/2 takes its own code path: warm it up too
    H2_STREAMS=$H2_STREAMS_PER_CONN run_load "https://$HOST:${PORT_OF[$t]}/" 50 "$WARMUP" > /dev/null
  fi
done

RAW=$WORK/raw.tsv
for r in $(seq "$ROUNDS"); do
  if (( r % 2 == 1 )); then order=$TARGETS; else order=$(echo "$TARGETS" | tr ' ' '\n' | tac | tr '\n' ' '); fi
  for c in $CONNS; do
    for t in $order; do
      url="https://$HOST:${PORT_OF[$t]}/"
      for kind in $LOADS; do
        case $kind in
          keepalive) read -r rps p99 err _ < <(run_wrk "$url" "$c" "$DURATION") ;;
          new) read -r rps p99 err _ < <(run_wrk "$url" "$c" "$DURATION" "" -H "Connection: close") ;;
          h2) read -r rps p99 err _ < <(H2_STREAMS=$H2_STREAMS_PER_CONN run_load "$url" "$c" "$DURATION") ;;
          *) die "unknown load '$kind' in LOADS (keepalive, new, h2)" ;;
        esac
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$kind" "$c" "$rps" "$p99" "$err" >> "$RAW"
        log "round $r $t $kind c=$c: $rps req/s, p99 (h2: mean) $p99 ms, $err errors"
      done
    done
  done
done

median() { awk -F'\t' -v t="$1" -v k="$2" -v c="$3" -v col="$4" '$1 == t && $2 == k && $3 == c { print $col }' "$RAW" \
  | stats | cut -d' ' -f2; }
echo
echo "TLS, $(date -u +%Y-%m-%dT%H:%MZ), $CORES cores, $ROUNDS rounds of $DURATION, medians; wrk -t$WRK_THREADS over HTTPS;" \
  "backends $BACKEND_SCHEME; h2: h2load -m $H2_STREAMS_PER_CONN, mean instead of p99"
echo
echo "| load | conns | proxy | req/s | × HAProxy | p99 ms | × HAProxy |"
echo "|---|---|---|---:|---:|---:|---:|"
for kind in $LOADS; do
  for c in $CONNS; do
    hr=$(median haproxy "$kind" "$c" 4); hp=$(median haproxy "$kind" "$c" 5)
    for t in $TARGETS; do
      tr_=$(median "$t" "$kind" "$c" 4); tp=$(median "$t" "$kind" "$c" 5)
      awk -v k="$kind" -v c="$c" -v t="$t" -v hr="$hr" -v tr_="$tr_" -v hp="$hp" -v tp="$tp" 'BEGIN {
        printf "| %s | %s | %s | %.0f | %.2f | %.2f | %.2f |\n",
          (k == "new" ? "new handshake per request" : k == "h2" ? "HTTP/2 (mean ms)" : "keep-alive"),
          c, t, tr_, tr_ / hr, tp, tp / hp }'
    done
  done
done
