#!/usr/bin/env bash
# Slow-client attack bench: slowhttptest (Debian package slowhttptest) in slow-header and
# slow-read modes with 1,000 connections against a Fairway on loopback, while a probe requests
# the service every 100 ms and records status and time. Bounded (DURATION seconds per mode),
# loopback only, everything cleaned up by the trap. Prints one summary table.
#
#   bench/slowloris.sh            # DURATION=30 CONNECTIONS=1000
#   DURATION=10 bench/slowloris.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30}
CONNECTIONS=${CONNECTIONS:-1000}
PORT=${PORT:-28080}
WORK=$(mktemp -d /tmp/fairway-slowloris.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

command -v slowhttptest >/dev/null || { echo "needs slowhttptest: apt-get install -y slowhttptest" >&2; exit 1; }
[ -f target/fairway.jar ] || mvn -q package -DskipTests

cat > "$WORK/config.json" <<JSON
{
  "proxy": { "host": "127.0.0.1", "port": $PORT, "requestHeadersTimeoutMs": 10000, "idleTimeoutMs": 60000 },
  "admin": { "host": "127.0.0.1", "port": $((PORT + 1)), "token": "bench-token-0123456789" },
  "services": [{ "name": "demo", "backends": [ { "id": "d1", "url": "http://127.0.0.1:$((PORT + 2))", "capacity": 200 } ] }],
  "demo": { "backends": [ { "port": $((PORT + 2)), "workMs": 1 } ] }
}
JSON
java -Xmx512m -jar target/fairway.jar -conf "$WORK/config.json" > "$WORK/fairway.log" 2>&1 &
PIDS+=($!)
up=no
for _ in $(seq 100); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 200 ]; then up=yes; break; fi
  sleep 0.1
done
[ "$up" = yes ] || { echo "fairway did not serve on port $PORT:" >&2; cat "$WORK/fairway.log" >&2; exit 1; }

# probe: one request every 100 ms; logs "mode status seconds"
probe() {
  local mode=$1 until=$2
  while [ "$(date +%s)" -lt "$until" ]; do
    curl -s -o /dev/null -m 2 -w "$mode %{http_code} %{time_total}\n" "http://127.0.0.1:$PORT/" >> "$WORK/probe.log" || true
    sleep 0.1
  done
}

run_mode() {
  local mode=$1; shift
  local until=$(( $(date +%s) + DURATION + 5 ))
  probe "$mode" "$until" &
  local probe_pid=$!
  PIDS+=($probe_pid)
  timeout $((DURATION + 30)) slowhttptest "$@" -c "$CONNECTIONS" -r 500 -l "$DURATION" -u "http://127.0.0.1:$PORT/" \
    -g -o "$WORK/$mode" > "$WORK/$mode.out" 2>&1 || true
  wait "$probe_pid" || true
  grep -E "closed|pending|connected|error|service available" "$WORK/$mode.out" | tail -6 | sed "s/^/  [$mode] /" || true
  cp "$WORK/$mode.csv" "/tmp/slowloris-$mode.csv" 2>/dev/null || true
}

run_mode slow-headers -H -i 5 -x 24
run_mode slow-read -X -w 10 -y 20 -n 5 -z 32 -k 3

echo
echo "| mode | probes | 200 | not 200 | p50 s | p99 s | max s |"
echo "|---|---|---|---|---|---|---|"
for mode in slow-headers slow-read; do
  awk -v m="$mode" '$1 == m { print $2, $3 }' "$WORK/probe.log" > "$WORK/$mode.probe"
  n=$(wc -l < "$WORK/$mode.probe")
  ok=$(awk '$1 == "200"' "$WORK/$mode.probe" | wc -l)
  sort -n -k2 "$WORK/$mode.probe" | awk -v n="$n" -v ok="$ok" -v m="$mode" '
    { t[NR] = $2 }
    END {
      i50 = int(n * 0.5); if (i50 < 1) i50 = 1; i99 = int(n * 0.99); if (i99 < 1) i99 = 1
      printf "| %s | %d | %d | %d | %.3f | %.3f | %.3f |\n", m, n, ok, n - ok, t[i50], t[i99], t[n]
    }'
done
