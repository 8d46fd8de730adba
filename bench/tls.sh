#!/usr/bin/env bash
# TLS benchmark for issue 22: Fairway's TLS listener next to HAProxy's `bind ... ssl crt`, both in
# front of the same two nginx backends (cleartext), measured with wrk over HTTPS in one run.
#
#   bench/tls.sh                                 # defaults below, about 4 minutes
#   ROUNDS=5 CONNS="50 200" bench/tls.sh
#
# What it does, all on 127.0.0.1 and all under a mktemp directory:
#   1. builds target/fairway.jar if it is missing (or takes JAR);
#   2. makes a self-signed EC P-256 certificate for 127.0.0.1 with openssl;
#   3. starts two nginx backends, HAProxy (nbthread = cores, `ssl crt` on HAPROXY_PORT, ALPN
#      http/1.1) and Fairway (proxy.tls on FAIRWAY_PORT with the same certificate, cleartext off);
#   4. warms both up, then per round and connection count (their order swapped each round):
#      - keep-alive: wrk over HTTPS, every connection kept: requests/s and p99;
#      - new handshakes: wrk with `Connection: close`, so every request is a new TLS connection
#        with a full handshake (wrk resumes no sessions): requests/s = handshakes/s;
#   5. prints the medians over the rounds and the Fairway/HAProxy ratios.
# Every process it starts is stopped on exit (trap), and every wait has a timeout.
#
# Environment (defaults in brackets):
#   ROUNDS [3]  CONNS ["50"]  DURATION [8s]  WRK_THREADS [2]  WARMUP [5s]
#   JAR [target/fairway.jar]  JAVA_OPTS [see below]  HAPROXY_THREADS [cores]
#   BACKEND1_PORT [19011] BACKEND2_PORT [19012] HAPROXY_PORT [18443] FAIRWAY_PORT [18444]
#   ADMIN_PORT [18094]
set -euo pipefail

ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-"50"}
DURATION=${DURATION:-8s}
WRK_THREADS=${WRK_THREADS:-2}
WARMUP=${WARMUP:-5s}
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

for tool in wrk nginx haproxy openssl java curl awk sort timeout nproc mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
ports_free "$BACKEND1_PORT" "$BACKEND2_PORT" "$HAPROXY_PORT" "$FAIRWAY_PORT" "$ADMIN_PORT"
resolve_jar

WORK=$(mktemp -d /tmp/fairway-tls.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/site.key" -out "$WORK/site.pem" 2>/dev/null \
  || die "openssl could not make a certificate"
cat "$WORK/site.pem" "$WORK/site.key" > "$WORK/haproxy.pem"

start_nginx 1 "$BACKEND1_PORT"
start_nginx 2 "$BACKEND2_PORT"
start_haproxy "$HAPROXY_THREADS" "$BACKEND1_PORT" "$BACKEND2_PORT" \
  "$HOST:$((HAPROXY_PORT + 1000))" "$HOST:$HAPROXY_PORT ssl crt $WORK/haproxy.pem alpn http/1.1"
wait_http "$HAPROXY_PORT" / "${PIDS[-1]}" HAProxy https

cat > "$WORK/fairway.json" <<JSON
{
  "proxy": { "host": "$HOST", "port": -1,
             "tls": { "port": $FAIRWAY_PORT, "alpn": ["http/1.1"],
                      "certificates": [ { "certPath": "$WORK/site.pem", "keyPath": "$WORK/site.key" } ] } },
  "admin": { "host": "$HOST", "port": $ADMIN_PORT, "token": "bench-token" },
  "services": [ {
    "name": "bench", "match": { "host": "*", "pathPrefix": "/" },
    "slots": { "capacity": 1000, "waitTimeoutMs": 1000, "maxWaiting": 10000 },
    "healthCheck": { "path": "/health", "intervalMs": 2000, "timeoutMs": 1000 },
    "backends": [ { "id": "b1", "url": "http://$HOST:$BACKEND1_PORT" },
                  { "id": "b2", "url": "http://$HOST:$BACKEND2_PORT" } ]
  } ]
}
JSON
# shellcheck disable=SC2086
java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!)
wait_http "$FAIRWAY_PORT" / "$!" Fairway https
log "Fairway $(grep -o "TLS provider: [^,]*" "$WORK/fairway.log" | head -1)"

declare -A PORT_OF=([haproxy]=$HAPROXY_PORT [fairway]=$FAIRWAY_PORT)
for t in haproxy fairway; do
  run_wrk "https://$HOST:${PORT_OF[$t]}/" 50 "$WARMUP" > /dev/null
done

RAW=$WORK/raw.tsv
for r in $(seq "$ROUNDS"); do
  if (( r % 2 == 1 )); then order="haproxy fairway"; else order="fairway haproxy"; fi
  for c in $CONNS; do
    for t in $order; do
      read -r rps p99 err _ < <(run_wrk "https://$HOST:${PORT_OF[$t]}/" "$c" "$DURATION")
      printf '%s\tkeepalive\t%s\t%s\t%s\t%s\n' "$t" "$c" "$rps" "$p99" "$err" >> "$RAW"
      log "round $r $t keep-alive c=$c: $rps req/s, p99 $p99 ms, $err errors"
      read -r rps p99 err _ < <(run_wrk "https://$HOST:${PORT_OF[$t]}/" "$c" "$DURATION" "" -H "Connection: close")
      printf '%s\tnew\t%s\t%s\t%s\t%s\n' "$t" "$c" "$rps" "$p99" "$err" >> "$RAW"
      log "round $r $t new connections c=$c: $rps handshakes/s, p99 $p99 ms, $err errors"
    done
  done
done

median() { awk -F'\t' -v t="$1" -v k="$2" -v c="$3" -v col="$4" '$1 == t && $2 == k && $3 == c { print $col }' "$RAW" \
  | stats | cut -d' ' -f2; }
echo
echo "TLS, $(date -u +%Y-%m-%dT%H:%MZ), $CORES cores, $ROUNDS rounds of $DURATION, medians; wrk -t$WRK_THREADS over HTTPS"
echo
echo "| load | conns | HAProxy req/s | Fairway req/s | ratio | HAProxy p99 ms | Fairway p99 ms | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for kind in keepalive new; do
  for c in $CONNS; do
    hr=$(median haproxy "$kind" "$c" 4); fr=$(median fairway "$kind" "$c" 4)
    hp=$(median haproxy "$kind" "$c" 5); fp=$(median fairway "$kind" "$c" 5)
    awk -v k="$kind" -v c="$c" -v hr="$hr" -v fr="$fr" -v hp="$hp" -v fp="$fp" 'BEGIN {
      printf "| %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", (k == "new" ? "new handshake per request" : "keep-alive"),
        c, hr, fr, fr / hr, hp, fp, fp / hp }'
  done
done
