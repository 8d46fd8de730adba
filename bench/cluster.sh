#!/usr/bin/env bash
# Cluster benchmark for issue 25: how fast an admin command posted to one Fairway reaches the
# others, and how much each subsetting algorithm reshuffles when one backend or proxy changes.
#
#   bench/cluster.sh                 # about a minute
#   N=200 GAP=0.05 bench/cluster.sh  # more commands, closer together
#
# What it does, all on 127.0.0.1 and under a mktemp directory, every wait bounded:
#   1. builds target/fairway.jar and the test classes if missing;
#   2. prints the subsetting churn and spread (dev.fairway.bench.ChurnReport: 300 proxies x 300
#      backends x subset 10, then +1/-1 backend and +1/-1 proxy, for the book's Subsetter and
#      RendezvousSubsetter);
#   3. starts three nginx backends and three Fairway members with -cluster (Hazelcast on
#      HZ_PORT..HZ_PORT+2, loopback TCP join), each with all three backends in its config file;
#   4. posts N lame ducks and N clears (alternating, GAP s apart, over backends b1..b3) to the
#      first member's admin API, then reads fairway_cluster_command_delay_seconds from the other
#      two members' /metrics: the time from the command's publication on the first member to its
#      application (table updated, snapshot republished) on each other one. Prints count, median,
#      p99 (Micrometer's client-side percentiles over the last ~2 minutes) and max per member;
#   5. stops the members and runs the shared-capacity section (bench/cluster-capacity.sh) when
#      that script exists.
#
# Environment (defaults in brackets):
#   N [50]  lame-duck/clear pairs      GAP [0.1] seconds between commands
#   BACKEND_PORT [19301] (and the next two)  PROXY_PORT [18301] ADMIN_PORT [18311] HZ_PORT [15701]
#   (each the first of three)        JAVA_OPTS [small heap, SerialGC]   KEEP_WORK [unset]: keep the logs
#   JAR [target/fairway.jar] the Fairway build to measure
set -euo pipefail

N=${N:-50}
GAP=${GAP:-0.1}
BACKEND_PORT=${BACKEND_PORT:-19301}
PROXY_PORT=${PROXY_PORT:-18301}
ADMIN_PORT=${ADMIN_PORT:-18311}
HZ_PORT=${HZ_PORT:-15701}
JAVA_OPTS=${JAVA_OPTS:-"-Xms96m -Xmx192m -Xmn32m -XX:+UseSerialGC"}
TOKEN=cluster-bench-token-0123456789
HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/fairway-cluster.XXXXXX)
PIDS=()
# shellcheck source=lib/common.sh
source "$ROOT/bench/lib/common.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in java curl nginx; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a whole number >= 1"
[[ $GAP =~ ^[0-9]*\.?[0-9]+$ ]] || die "GAP must be seconds like 0.1"
ports_free $(seq "$BACKEND_PORT" $((BACKEND_PORT + 2))) $(seq "$PROXY_PORT" $((PROXY_PORT + 2))) \
  $(seq "$ADMIN_PORT" $((ADMIN_PORT + 2))) $(seq "$HZ_PORT" $((HZ_PORT + 2)))

resolve_jar
test_classpath ChurnReport

# ---- subsetting churn and spread (pure computation, no processes)
log "subsetting churn"
java $QUIET -cp "$JAR:$CP" dev.fairway.bench.ChurnReport --clients 300 --backends 300 --subset 10

# ---- propagation delay of admin commands
for i in 1 2 3; do start_nginx "$i" $((BACKEND_PORT + i - 1)); done

backends_json=""
for i in 1 2 3; do
  backends_json+="${backends_json:+,}{\"id\":\"b$i\",\"url\":\"http://$HOST:$((BACKEND_PORT + i - 1))\",\"capacity\":100}"
done
MEMBER_PIDS=()
start_member() {
  local i=$1
  hazelcast_xml $((HZ_PORT + i)) $HZ_PORT $((HZ_PORT + 1)) $((HZ_PORT + 2)) > "$WORK/cluster-$i.xml"
  cat > "$WORK/config-$i.json" <<JSON
{ "proxy": { "host": "$HOST", "port": $((PROXY_PORT + i)), "instances": 1 },
  "admin": { "host": "$HOST", "port": $((ADMIN_PORT + i)), "token": "$TOKEN" },
  "services": [{ "name": "api", "strategy": "round-robin",
    "healthCheck": { "path": "/", "intervalMs": 1000, "timeoutMs": 500 },
    "backends": [$backends_json] }] }
JSON
  FAIRWAY_ADMIN_TOKEN= java $JAVA_OPTS -jar "$JAR" -cluster -cluster-conf "$WORK/cluster-$i.xml" \
    -conf "$WORK/config-$i.json" > "$WORK/member$i.log" 2>&1 &
  PIDS+=($!)
  MEMBER_PIDS+=($!)
  wait_http $((ADMIN_PORT + i)) /health "$!" "member $i"
}

# client_count I: the clientCount member I reports, or nothing
client_count() {
  curl -s -m 2 "http://$HOST:$((ADMIN_PORT + $1))/api/services" | tr -d ' \n' | grep -o '"clientCount":[0-9]*' | head -1 | cut -d: -f2
}

log "starting three cluster members"
start_member 0
start_member 1
start_member 2
deadline=$((SECONDS + 90))
until [[ $(client_count 0) == 3 && $(client_count 1) == 3 && $(client_count 2) == 3 ]]; do
  (( SECONDS < deadline )) || die "the three members did not form one cluster within 90 s (see $WORK)"
  sleep 0.5
done

log "posting $N lame ducks and $N clears to member 0, $GAP s apart"
admin0="http://$HOST:$ADMIN_PORT"
for n in $(seq "$N"); do
  id=b$(( (n - 1) % 3 + 1 ))
  for method in POST DELETE; do
    code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN" \
      "$admin0/api/backends/$id/lame-duck")
    [[ $code == 200 ]] || die "$method /api/backends/$id/lame-duck on member 0 answered $code"
    sleep "$GAP"
  done
done
sleep 1

# metric TEXT NAME: the value of the sample line NAME (exact, labels included)
metric() { awk -v n="$2" '$1 == n { print $2; exit }' <<<"$1"; }
ms() { awk -v s="${1:-nan}" 'BEGIN { if (s == "nan" || s == "") print "n/a"; else printf "%.1f", s * 1000 }'; }

echo "propagation delay of admin commands posted to member 0 (fairway_cluster_command_delay_seconds):"
printf '  %-8s %6s %10s %10s %10s\n' member count median_ms p99_ms max_ms
for i in 1 2; do
  text=$(curl -s -m 5 "http://$HOST:$((ADMIN_PORT + i))/metrics")
  count=$(metric "$text" fairway_cluster_command_delay_seconds_count)
  p50=$(metric "$text" 'fairway_cluster_command_delay_seconds{quantile="0.5"}')
  p99=$(metric "$text" 'fairway_cluster_command_delay_seconds{quantile="0.99"}')
  max=$(metric "$text" fairway_cluster_command_delay_seconds_max)
  printf '  %-8s %6s %10s %10s %10s\n' "$i" "${count%.0}" "$(ms "$p50")" "$(ms "$p99")" "$(ms "$max")"
done

log "stopping the members"
for pid in "${MEMBER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${MEMBER_PIDS[@]}"; do
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
done

# ---- shared capacity (issue 25): bench/cluster-capacity.sh, another part of the issue, runs here
# on its own members and backends and prints the backend's peak concurrency and each proxy's share.
if [[ -x $ROOT/bench/cluster-capacity.sh ]]; then
  log "shared capacity: bench/cluster-capacity.sh"
  JAR=$JAR "$ROOT/bench/cluster-capacity.sh"
else
  echo "shared capacity: skipped (bench/cluster-capacity.sh is not in this checkout)"
fi
