#!/usr/bin/env bash
# Spread benchmark for issue 5: how evenly each strategy loads a fleet of unequal backends.
#
#   bench/spread.sh                                   # all seven strategies, about 6 minutes
#   STRATEGIES="round-robin weighted-round-robin" MEASURE_S=60 bench/spread.sh
#   LOAD=1.1 CAPACITY=2 WAIT_MS=1000 bench/spread.sh    # overload: requests queue in Fairway
#
# What it does, all on 127.0.0.1 and under a mktemp directory:
#   1. builds target/fairway.jar and the test classes if either is missing
#      (mvn -q package -DskipTests);
#   2. starts six SpreadBackend JVMs (src/test/java/dev/fairway/testing/SpreadBackend.java) on
#      BACKEND_PORT..BACKEND_PORT+5: single-worker simulated servers with an unbounded queue; a
#      request costs BASE_MS x its x-cost header x the backend's slowness, and b3 and b6 (SLOW)
#      are twice as slow (slowness 2). Each reports its own utilization (busy time / wall time
#      over 2 s) and completion rate in endpoint-load-metrics on every response and /health;
#   3. for each strategy: starts a Fairway with one service over the six backends (that
#      strategy; capacity CAPACITY per backend, by default 1000 so slots never limit (a small
#      one, with LOAD above 1, makes requests queue in Fairway for WAIT_MS); balancing.blackoutMs 500 so
#      reported weights are used within the run; lenient health checks, 5 s timeout and 5
#      failures, so that a stall of the shared machine does not eject backends), runs SpreadDriver against it (open-loop
#      Poisson arrivals at LOAD x the fleet's capacity, costs uniform 1..10 from seed SEED,
#      WARMUP_S s warm-up then MEASURE_S s measured), and stops it. The driver resets the
#      backends' queues first, so one strategy's backlog never spills into the next run;
#   4. prints one table: per strategy each backend's utilization over the measurement (read
#      from the backends' cumulative busy time, not from Fairway), the spread max/min, the spread
#      of the work sent (which, unlike utilization, can exceed 1 where a queue grows), the
#      requests answered and failed during the measurement and their p50/p99 latency.
# Every process it starts is stopped on exit (trap), and every wait has a timeout.
#
# Environment (defaults in brackets):
#   STRATEGIES [all seven]  LOAD [0.7, at most 2]  WARMUP_S [10]  MEASURE_S [30]  SEED [1]
#   CAPACITY [1000]         slots per backend    WAIT_MS [30000]  longest wait for a slot
#   BASE_MS [5]             service time of one unit of cost on a fast backend
#   SLOW ["3 6"]            which of b1..b6 are twice as slow
#   BACKEND_PORT [19101] (and the next five)  FAIRWAY_PORT [18180]  ADMIN_PORT [18190]
#   JAVA_OPTS [see below]   JVM flags for Fairway
#   LOG_DIR [unset]         directory to keep every process's log in
#   JAR [target/fairway.jar] the Fairway build to measure (the backends and driver come from target/test-classes)
set -euo pipefail

STRATEGIES=${STRATEGIES:-"round-robin least-loaded weighted-round-robin slot-queue fair-share interleaved-weighted-round-robin p2c-peak-ewma"}
LOAD=${LOAD:-0.7}
CAPACITY=${CAPACITY:-1000}
WAIT_MS=${WAIT_MS:-30000}
WARMUP_S=${WARMUP_S:-10}
MEASURE_S=${MEASURE_S:-30}
SEED=${SEED:-1}
BASE_MS=${BASE_MS:-5}
SLOW=${SLOW:-"3 6"}
BACKEND_PORT=${BACKEND_PORT:-19101}
FAIRWAY_PORT=${FAIRWAY_PORT:-18180}
ADMIN_PORT=${ADMIN_PORT:-18190}
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dio.netty.leakDetection.level=disabled"}
# the backends and the driver are small: one event loop each, a small heap, C1 only for the backends
BACKEND_OPTS="-Xms48m -Xmx48m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ActiveProcessorCount=1 -Dio.netty.leakDetection.level=disabled"
DRIVER_OPTS="-Xms128m -Xmx128m -XX:+UseSerialGC -XX:ActiveProcessorCount=1 -Dio.netty.leakDetection.level=disabled"

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAR=${JAR:-$ROOT/target/fairway.jar}
CP=$ROOT/target/fairway.jar:$ROOT/target/test-classes

die() { echo "spread.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

for tool in java curl timeout mktemp; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
[[ $WARMUP_S =~ ^[0-9]+$ && $MEASURE_S =~ ^[1-9][0-9]*$ ]] || die "WARMUP_S and MEASURE_S must be whole seconds"
[[ $LOAD =~ ^(0?\.[0-9]+|1(\.[0-9]*)?|2(\.0*)?)$ ]] || die "LOAD must be a fraction of capacity from 0 to 2 like 0.7, got '$LOAD'"
[[ $CAPACITY =~ ^[1-9][0-9]*$ && $WAIT_MS =~ ^[0-9]+$ ]] || die "CAPACITY must be a whole number >= 1 and WAIT_MS >= 0"
for s in $STRATEGIES; do
  case $s in
    round-robin|least-loaded|weighted-round-robin|slot-queue|fair-share|interleaved-weighted-round-robin|p2c-peak-ewma) ;;
    *) die "unknown strategy '$s'";;
  esac
done

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }
for p in $(seq "$BACKEND_PORT" $((BACKEND_PORT + 5))) "$FAIRWAY_PORT" "$ADMIN_PORT"; do
  port_open "$p" && die "port $p on $HOST is already in use; pick others via BACKEND_PORT, FAIRWAY_PORT, ADMIN_PORT"
done

if [[ ! -f $ROOT/target/fairway.jar || ! -f $ROOT/target/test-classes/dev/fairway/testing/SpreadDriver.class ]]; then
  command -v mvn >/dev/null 2>&1 || die "target/fairway.jar or the test classes are missing and mvn is not installed"
  log "building target/fairway.jar and the test classes"
  (cd "$ROOT" && mvn -q -B package -DskipTests) || die "build failed"
fi
[[ -f $JAR ]] || die "no Fairway build at $JAR"

WORK=$(mktemp -d /tmp/fairway-spread.XXXXXX)
PIDS=()
FAIRWAY_PID=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for pid in "${PIDS[@]}" $FAIRWAY_PID; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}" $FAIRWAY_PID; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  if [[ $rc -ne 0 ]]; then
    echo "spread.sh: failed (exit $rc); last log lines:" >&2
    { tail -n 5 "$WORK"/*.log 2>/dev/null || true; } >&2
  fi
  if [[ -n ${LOG_DIR:-} ]]; then mkdir -p "$LOG_DIR" && cp "$WORK"/*.log "$LOG_DIR"/ 2>/dev/null || true; fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_http PORT PATH PID NAME: until PATH on PORT answers 200 (60 s), or the process dies
wait_http() {
  local port=$1 path=$2 pid=$3 name=$4 deadline=$((SECONDS + 60)) code
  while (( SECONDS < deadline )); do
    kill -0 "$pid" 2>/dev/null || die "$name exited during start-up"
    code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$HOST:$port$path" || true)
    [[ $code == 200 ]] && return 0
    sleep 0.2
  done
  die "$name did not answer 200 on http://$HOST:$port$path within 60 s (last status '$code')"
}

# ---- backends ------------------------------------------------------------------------------
BACKEND_URLS=
BACKENDS_JSON=
for i in 1 2 3 4 5 6; do
  port=$((BACKEND_PORT + i - 1))
  slowness=1
  for s in $SLOW; do [[ $s == "$i" ]] && slowness=2; done
  # shellcheck disable=SC2086
  java $BACKEND_OPTS -cp "$CP" dev.fairway.testing.SpreadBackend port="$port" id="b$i" slowness="$slowness" \
    baseMs="$BASE_MS" > "$WORK/backend-b$i.log" 2>&1 &
  PIDS+=($!)
  BACKEND_URLS+="${BACKEND_URLS:+,}http://$HOST:$port"
  BACKENDS_JSON+="${BACKENDS_JSON:+, }{ \"id\": \"b$i\", \"url\": \"http://$HOST:$port\" }"
done
for i in 1 2 3 4 5 6; do
  wait_http $((BACKEND_PORT + i - 1)) /health "${PIDS[$((i - 1))]}" "backend b$i"
done
log "backends b1..b6 on $HOST:$BACKEND_PORT..$((BACKEND_PORT + 5)), slow (x2): $(for s in $SLOW; do printf 'b%s ' "$s"; done)"

# ---- one run per strategy --------------------------------------------------------------------
ROWS=()
for strategy in $STRATEGIES; do
  cat > "$WORK/fairway-$strategy.json" <<EOF
{
  "proxy": { "host": "$HOST", "port": $FAIRWAY_PORT, "drainGraceMs": 0 },
  "admin": { "host": "$HOST", "port": $ADMIN_PORT, "token": "spread-bench-token-0123456789" },
  "services": [{
    "name": "spread",
    "match": { "host": "*", "pathPrefix": "/" },
    "strategy": "$strategy",
    "slots": { "capacity": $CAPACITY, "waitTimeoutMs": $WAIT_MS, "maxWaiting": 10000 },
    "timeouts": { "connectMs": 2000, "responseMs": 120000 },
    "healthCheck": { "path": "/health", "intervalMs": 2000, "timeoutMs": 5000, "unhealthyThreshold": 5 },
    "balancing": { "blackoutMs": 500 },
    "backends": [ $BACKENDS_JSON ]
  }]
}
EOF
  # shellcheck disable=SC2086
  java $JAVA_OPTS -jar "$JAR" -conf "$WORK/fairway-$strategy.json" > "$WORK/fairway-$strategy.log" 2>&1 &
  FAIRWAY_PID=$!
  wait_http "$ADMIN_PORT" /health "$FAIRWAY_PID" "fairway ($strategy)"
  wait_http "$FAIRWAY_PORT" /health "$FAIRWAY_PID" "fairway ($strategy)"
  # shellcheck disable=SC2086
  row=$(timeout $((WARMUP_S + MEASURE_S + 60)) java $DRIVER_OPTS -cp "$CP" dev.fairway.testing.SpreadDriver \
    label="$strategy" target="http://$HOST:$FAIRWAY_PORT" backends="$BACKEND_URLS" load="$LOAD" \
    warmupS="$WARMUP_S" measureS="$MEASURE_S" seed="$SEED" admin="http://$HOST:$ADMIN_PORT" \
    2> >(tee -a "$WORK/driver.log" >&2)) || die "driver failed for $strategy"
  ROWS+=("$row")
  kill "$FAIRWAY_PID" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$FAIRWAY_PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$FAIRWAY_PID" 2>/dev/null || true
  wait "$FAIRWAY_PID" 2>/dev/null || true
  FAIRWAY_PID=
done

# ---- table -----------------------------------------------------------------------------------
slow_cols=""
for i in 1 2 3 4 5 6; do
  name="b$i"
  for s in $SLOW; do [[ $s == "$i" ]] && name="b$i (x2)"; done
  slow_cols+=" $name |"
done
echo
echo "Spread per strategy, $(date -u +%Y-%m-%dT%H:%MZ): 6 single-worker backends, base ${BASE_MS} ms x cost 1..10,"
echo "load ${LOAD} of fleet capacity, capacity $CAPACITY per backend, wait ${WAIT_MS} ms, open loop, warm-up ${WARMUP_S} s, measured ${MEASURE_S} s, seed ${SEED}, $(nproc) cores"
echo
echo "| strategy | load |$slow_cols spread (util) | spread (work sent) | ok | failed | p50 ms | p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in "${ROWS[@]}"; do echo "$r"; done
