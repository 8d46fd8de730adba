#!/usr/bin/env bash
# Slow readers against capacity slots (issue 19, item 5): slowhttptest -X opens CONNECTIONS
# connections that each ask for a SIZE_MB MiB answer and read it 32 bytes every 3 s through a tiny
# receive window, against one nginx backend of capacity CAPACITY, while a probe asks for a small
# path every 100 ms (2 s limit). Runs, one after the other on the same backend: Fairway with
# timeouts.slowClientMs at its default (1000), Fairway with -1 (a slot is held until its response
# ends: the behaviour before), and HAProxy (no per-server cap) for reference. Loopback only,
# bounded (DURATION seconds per run), everything stopped by the trap. Prints one table.
#
#   bench/slow-readers.sh                     # DURATION=30 CONNECTIONS=200 CAPACITY=50 SIZE_MB=16
#   DURATION=10 CONNECTIONS=100 bench/slow-readers.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HOST=127.0.0.1
WORK=$(mktemp -d /tmp/fairway-slow-readers.XXXXXX)
PIDS=()
# shellcheck source=lib/common.sh
source "$ROOT/bench/lib/common.sh"
trap cleanup EXIT INT TERM

DURATION=${DURATION:-30}
CONNECTIONS=${CONNECTIONS:-200}
CAPACITY=${CAPACITY:-50}
# big enough that the socket buffers on both sides of the proxy (loopback autotunes them to MBs)
# cannot take the whole answer: only then is the backend read at the client's pace
SIZE_MB=${SIZE_MB:-16}
NGINX_PORT=${NGINX_PORT:-28300}
PROXY_PORT=${PROXY_PORT:-28301}
ADMIN_PORT=${ADMIN_PORT:-28302}
for tool in slowhttptest nginx haproxy curl; do
  command -v "$tool" >/dev/null || die "needs $tool: apt-get install -y slowhttptest nginx haproxy curl"
done
ports_free "$NGINX_PORT" "$PROXY_PORT" "$ADMIN_PORT"
resolve_jar

mkdir -p "$WORK/www" "$WORK/nginx/logs" "$WORK/nginx/tmp"
head -c $((SIZE_MB * 1048576)) /dev/zero | tr '\0' 'x' > "$WORK/www/big"
chmod 755 "$WORK" "$WORK/www" && chmod 644 "$WORK/www/big"
cat > "$WORK/nginx/nginx.conf" <<NGX
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/tmp/body;
  proxy_temp_path $WORK/nginx/tmp/proxy;
  fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
  uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
  scgi_temp_path $WORK/nginx/tmp/scgi;
  send_timeout 600s;
  server {
    listen $HOST:$NGINX_PORT;
    location = /big { root $WORK/www; default_type application/octet-stream; }
    location / { return 200 "hello\n"; }
  }
}
NGX
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/logs/error.log" > "$WORK/nginx.log" 2>&1 &
PIDS+=($!)
wait_http "$NGINX_PORT" / "$!" nginx

fairway_json() {
  cat > "$WORK/fairway.json" <<JSON
{
  "proxy": { "host": "$HOST", "port": $PROXY_PORT, "idleTimeoutMs": 600000 },
  "admin": { "host": "$HOST", "port": $ADMIN_PORT, "token": "bench-token-0123456789" },
  "services": [{
    "name": "bench",
    "slots": { "capacity": $CAPACITY, "waitTimeoutMs": 1000 },
    "timeouts": { "slowClientMs": $1 },
    "healthCheck": { "path": "/" },
    "backends": [ { "id": "nginx", "url": "http://$HOST:$NGINX_PORT" } ]
  }]
}
JSON
}

# attack NAME: slow readers on /big and the probe on / for DURATION seconds; the proxy listens on PROXY_PORT
attack() {
  local name=$1 until=$(( $(date +%s) + DURATION ))
  timeout $((DURATION + 30)) slowhttptest -X -c "$CONNECTIONS" -r 200 -l "$DURATION" -w 10 -y 20 -n 3 -z 32 -k 1 \
    -u "http://$HOST:$PROXY_PORT/big" > "$WORK/$name.slowhttptest" 2>&1 &
  local attacker=$!
  sleep 3 # let the slow readers take their slots
  while [ "$(date +%s)" -lt "$until" ]; do
    curl -s -o /dev/null -m 2 -w "$name %{http_code} %{time_total}\n" "http://$HOST:$PROXY_PORT/" >> "$WORK/probe.log" || true
    sleep 0.1
  done
  wait "$attacker" || true
}

run_fairway() {
  local name=$1 slow=$2
  fairway_json "$slow"
  java -Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC -jar "$JAR" -conf "$WORK/fairway.json" > "$WORK/$name.log" 2>&1 &
  local pid=$!
  PIDS+=($pid)
  wait_http "$PROXY_PORT" / "$pid" "$name"
  log "$name: $CONNECTIONS slow readers of $SIZE_MB MiB, capacity $CAPACITY, slowClientMs $slow"
  attack "$name"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

run_fairway fairway-slowClientMs-1000 1000
run_fairway fairway-slowClientMs-off -1

{
  printf 'global\n  maxconn 4000\ndefaults\n  mode http\n  option http-keep-alive\n'
  printf '  timeout connect 2s\n  timeout client 600s\n  timeout server 600s\n'
  printf 'frontend fe\n  bind %s:%s\n  default_backend be\nbackend be\n  server nginx %s:%s\n' \
    "$HOST" "$PROXY_PORT" "$HOST" "$NGINX_PORT"
} > "$WORK/haproxy.cfg"
haproxy -db -f "$WORK/haproxy.cfg" > "$WORK/haproxy.log" 2>&1 &
hpid=$!
PIDS+=($hpid)
wait_http "$PROXY_PORT" / "$hpid" HAProxy
log "haproxy: $CONNECTIONS slow readers of $SIZE_MB MiB"
attack haproxy
kill "$hpid"; wait "$hpid" 2>/dev/null || true

echo
echo "| proxy | probes | 200 | not 200 | p50 s | p99 s | max s |"
echo "|---|---|---|---|---|---|---|"
for name in fairway-slowClientMs-1000 fairway-slowClientMs-off haproxy; do
  awk -v m="$name" '$1 == m { print $2, $3 }' "$WORK/probe.log" | sort -n -k2 > "$WORK/$name.probe"
  n=$(wc -l < "$WORK/$name.probe")
  ok=$(awk '$1 == "200"' "$WORK/$name.probe" | wc -l)
  awk -v n="$n" -v ok="$ok" -v m="$name" '
    { t[NR] = $2 }
    END {
      i50 = int(n * 0.5); if (i50 < 1) i50 = 1; i99 = int(n * 0.99); if (i99 < 1) i99 = 1
      printf "| %s | %d | %d | %d | %.3f | %.3f | %.3f |\n", m, n, ok, n - ok, t[i50], t[i99], t[n]
    }' "$WORK/$name.probe"
done
for name in fairway-slowClientMs-1000 fairway-slowClientMs-off haproxy; do
  grep -E "service available|connected:" "$WORK/$name.slowhttptest" | tail -2 | sed "s/^/  [$name] /" || true
done
