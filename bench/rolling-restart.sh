#!/usr/bin/env bash
# Rolling restart under load (issue 4): 3 LameDuckBackend processes behind a proxy, load at a
# fixed concurrency, each backend restarted in turn with SIGTERM. Runs the same drill through
# Fairway (backends call its lame-duck API) and through HAProxy (health checks only), and prints
# errors, p99, p99.9 and slowest side by side.
#
# Usage: bench/rolling-restart.sh            (environment knobs below; loopback only)
#   CONCURRENCY=20 LOAD_MS=8000 WARMUP_MS=3000 WORK_MS=20 SKIP_BUILD=1 PROXIES="fairway haproxy"
# Needs Debian's haproxy. Logs of each run are kept in $OUT (printed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

CONCURRENCY=${CONCURRENCY:-20}
LOAD_MS=${LOAD_MS:-8000}        # measured load before the first restart and after each restart
WARMUP_MS=${WARMUP_MS:-3000}    # unmeasured load first (JIT, pools)
WORK_MS=${WORK_MS:-20}          # each backend's simulated work per request
PROXIES=${PROXIES:-"fairway haproxy"}
FAIRWAY_PORT=${FAIRWAY_PORT:-18080}
FAIRWAY_ADMIN_PORT=${FAIRWAY_ADMIN_PORT:-18090}
HAPROXY_PORT=${HAPROXY_PORT:-18081}
BACKEND_PORTS=${BACKEND_PORTS:-"19101 19102 19103"}
TOKEN=bench-token-0123456789
DRILL_TIMEOUT=$(( (WARMUP_MS + 4 * LOAD_MS) / 1000 + 120 ))

OUT=$(mktemp -d /tmp/fairway-rolling.XXXXXX)
PROXY_PID=""
DRILL_PID=""

cleanup() {
  # Only what this script started: the drill (whose shutdown hook kills its backends) and the proxy.
  for pid in "$DRILL_PID" "$PROXY_PID"; do
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
await_port() {
  for _ in $(seq 200); do
    if ! port_free "$1"; then return 0; fi
    sleep 0.05
  done
  echo "nothing listens on 127.0.0.1:$1 after 10 s" >&2
  return 1
}

for p in $FAIRWAY_PORT $FAIRWAY_ADMIN_PORT $HAPROXY_PORT $BACKEND_PORTS; do
  port_free "$p" || { echo "port $p is busy; set the *_PORT variables" >&2; exit 1; }
done

if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -q -B package -DskipTests
fi
mvn -q -B dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$OUT/cp.txt" >/dev/null
CP="target/test-classes:target/classes:$(cat "$OUT/cp.txt")"
PORT_LIST=$(echo $BACKEND_PORTS | tr ' ' ',')

# drill LABEL TARGET [--admin URL --token T]
drill() {
  local label=$1 target=$2
  shift 2
  timeout "$DRILL_TIMEOUT" java -Xmx256m -cp "$CP" dev.fairway.testing.RollingRestartDrill \
    --label "$label" --target "$target" --ports "$PORT_LIST" --concurrency "$CONCURRENCY" \
    --warmup-ms "$WARMUP_MS" --load-ms "$LOAD_MS" --work-ms "$WORK_MS" --classpath "$CP" "$@" \
    > "$OUT/$label-drill.txt" 2>&1 &
  DRILL_PID=$!
  wait "$DRILL_PID" || echo "drill $label exited with status $?" >&2
  DRILL_PID=""
  grep -v '^\[' "$OUT/$label-drill.txt" || true
}

stop_proxy() {
  kill "$PROXY_PID" 2>/dev/null || true
  wait "$PROXY_PID" 2>/dev/null || true
  PROXY_PID=""
}

run_fairway() {
  local backends="" i=0
  for p in $BACKEND_PORTS; do
    i=$((i + 1))
    backends+="${backends:+,}{\"id\":\"b$i\",\"url\":\"http://127.0.0.1:$p\"}"
  done
  cat > "$OUT/fairway.json" <<EOF
{
  "proxy": { "host": "127.0.0.1", "port": $FAIRWAY_PORT },
  "admin": { "host": "127.0.0.1", "port": $FAIRWAY_ADMIN_PORT, "token": "$TOKEN" },
  "services": [{
    "name": "bench",
    "match": { "host": "*", "pathPrefix": "/" },
    "strategy": "round-robin",
    "slots": { "capacity": 100, "waitTimeoutMs": 1000 },
    "timeouts": { "connectMs": 1000, "responseMs": 30000 },
    "healthCheck": { "path": "/health", "intervalMs": 250, "timeoutMs": 200,
                     "healthyThreshold": 1, "unhealthyThreshold": 2 },
    "backends": [ $backends ]
  }]
}
EOF
  java -jar target/fairway.jar -conf "$OUT/fairway.json" > "$OUT/fairway.log" 2>&1 &
  PROXY_PID=$!
  await_port "$FAIRWAY_PORT"
  drill fairway "http://127.0.0.1:$FAIRWAY_PORT/" --admin "http://127.0.0.1:$FAIRWAY_ADMIN_PORT" --token "$TOKEN"
  stop_proxy
}

run_haproxy() {
  local servers="" i=0
  for p in $BACKEND_PORTS; do
    i=$((i + 1))
    servers+="  server b$i 127.0.0.1:$p check inter 250ms fall 2 rise 1"$'\n'
  done
  cat > "$OUT/haproxy.cfg" <<EOF
global
  maxconn 4096
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  option http-keep-alive
  http-reuse safe
  retries 3
  option redispatch
frontend fe
  bind 127.0.0.1:$HAPROXY_PORT
  default_backend be
backend be
  balance roundrobin
  option httpchk GET /health
$servers
EOF
  haproxy -c -q -f "$OUT/haproxy.cfg"
  haproxy -db -f "$OUT/haproxy.cfg" > "$OUT/haproxy.log" 2>&1 &
  PROXY_PID=$!
  await_port "$HAPROXY_PORT"
  drill haproxy "http://127.0.0.1:$HAPROXY_PORT/"
  stop_proxy
}

echo "rolling restart: ${BACKEND_PORTS// /, } x1 each, concurrency $CONCURRENCY, ${LOAD_MS} ms of load per phase," \
  "${WARMUP_MS} ms warm-up, ${WORK_MS} ms work per request"
for proxy in $PROXIES; do
  echo
  echo "== $proxy"
  "run_$proxy"
done

echo
printf '%-8s %9s %7s %8s %8s %9s %11s\n' proxy requests errors "p50 ms" "p99 ms" "p99.9 ms" "slowest ms"
for proxy in $PROXIES; do
  line=$(grep '^RESULT ' "$OUT/$proxy-drill.txt" || echo "RESULT $proxy requests=- errors=- p50=- p99=- p999=- max=-")
  set -- $line
  printf '%-8s %9s %7s %8s %8s %9s %11s\n' "$2" "${3#*=}" "${4#*=}" "${5#*=}" "${6#*=}" "${7#*=}" "${8#*=}"
done
echo
echo "logs: $OUT"
