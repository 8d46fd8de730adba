#!/usr/bin/env bash
# Issue 24: overload handling, Fairway side by side with HAProxy (priority classes, maxconn,
# queue timeout, retry-on), in three scenarios. Loopback only; every run is bounded.
#
# The backends (src/test/java/dev/fairway/bench/OverloadBackend.java, one JVM per run) do some ms
# of "work" (a timer) with a capacity of their own: beyond it they answer 503 at once, and they
# count attempts and accepts per second (by arrival), late arrivals and X-Fairway-Attempt > 1
# (retries; HAProxy marks none, so "retries seen" is 0 for it whatever it retries). The load
# (OverloadLoad.java) marks each request with X-Criticality; the proxies cap each backend at its
# capacity and queue the rest for at most 1 s (Fairway slots.waitTimeoutMs, HAProxy timeout queue).
#
#   A. 2 backends x capacity 2, 100 ms: closed loop, 60 sheddable + 5 critical clients, A_SECONDS.
#      Target: >= 99 % of critical requests succeed.
#   B. the same backends, open loop at B_RATE req/s (2x their 40 req/s), 30 % critical, each with a
#      DEADLINE_MS deadline (X-Request-Timeout-Ms), retries on (Fairway retry.on 502/503/504/
#      connect-failure/refused-stream, maxAttempts 2, budget 10 %; HAProxy retries 1, retry-on the
#      same, redispatch). Targets: critical success >= 99.5 %, amplification (backend attempts /
#      client requests) <= 1.10, no request reaching a backend after its deadline.
#      B2 (not in the default SCENARIOS): as B, but the proxies think each backend takes 3 at once
#      while it takes 2, so backends do answer 503 and retries (and their budget) come into play.
#   C. one backend, capacity 10, 20 ms work (so the proxies' queues stay out of the way), open loop at C_RATE req/s (30 % critical): from
#      FAIL_FROM s it answers 503 to everything (C1), or takes only 25 % of the offered rate a second
#      (C2: its capacity dropped to C_RATE/4 req/s, the rest 503) for two throttle windows,
#      then heals and runs one more window. Fairway throttles with a short window (THROTTLE_WINDOW_MS,
#      default 5 s instead of 2 min, so that the run stays short; k 2); HAProxy has no throttling and
#      no retries here. Targets: in the failure's second window, attempts < 2.5x accepts; after
#      healing, the backend is back to 90 % of its earlier accepts/s within one window.
#
# FAIRWAY_OVERLOAD_KEYS=1 (default) writes the issue-24 config keys (overload.*, defaultCriticality,
# retry, throttle, timeouts.totalMs) into Fairway's config; 0 leaves them out, for a Fairway that
# predates them (it would refuse them with exit 2). OverloadBackend's health path answers 200 even
# while failing, so that Fairway's health checks keep the backend in and the throttle is what acts.
#
# Environment (defaults in brackets):
#   SCENARIOS ["A B C1 C2"]  PROXIES ["haproxy fairway"]  FAIRWAY_OVERLOAD_KEYS [1]
#   A_SECONDS [10]  A_CLIENTS [critical=5,sheddable=60]  B_SECONDS [10]  B_RATE [80]  DEADLINE_MS [500]  C_RATE [100]  FAIL_FROM [3]
#   FAIRWAY_ACCESS_LOG [false: true logs each request to the proxy's log]  KEEP_WORK [unset: keep the work dir]
#   THROTTLE_WINDOW_MS [5000]  JAVA_OPTS [-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC]  BASE_PORT [31400]  JAR (Fairway)
set -euo pipefail

SCENARIOS=${SCENARIOS:-"A B C1 C2"}
PROXIES=${PROXIES:-"haproxy fairway"}
FAIRWAY_OVERLOAD_KEYS=${FAIRWAY_OVERLOAD_KEYS:-1}
A_SECONDS=${A_SECONDS:-10}
A_CLIENTS=${A_CLIENTS:-critical=5,sheddable=60}
B_SECONDS=${B_SECONDS:-10}
B_RATE=${B_RATE:-80}
DEADLINE_MS=${DEADLINE_MS:-500}
C_RATE=${C_RATE:-100}
FAIL_FROM=${FAIL_FROM:-3}
THROTTLE_WINDOW_MS=${THROTTLE_WINDOW_MS:-5000}
JAVA_OPTS=${JAVA_OPTS:-"-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC"}
BASE_PORT=${BASE_PORT:-31400}

HOST=127.0.0.1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib/common.sh
source "$ROOT/bench/lib/common.sh"
for tool in haproxy java curl wrk; do
  command -v "$tool" >/dev/null 2>&1 || die "missing tool '$tool'"
done
B1=$((BASE_PORT + 1)); B2=$((BASE_PORT + 2)); PROXY=$((BASE_PORT + 80)); ADMIN=$((BASE_PORT + 90))
ports_free "$B1" "$B2" "$PROXY" "$ADMIN"
resolve_jar
test_classpath OverloadLoad
WINDOW_S=$(( (THROTTLE_WINDOW_MS + 999) / 1000 ))
FAIL_UNTIL=$((FAIL_FROM + 2 * WINDOW_S))
C_SECONDS=$((FAIL_UNTIL + WINDOW_S + 2))

WORK=$(mktemp -d /tmp/fairway-overload.XXXXXX)
PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

# stop_run: stops this run's processes (backends, proxy): TERM, then KILL after 1 s
stop_run() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 10); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  PIDS=()
}

# start_backends NAME ARGS...: OverloadBackend with ARGS, in the background (see backends_ready)
start_backends() {
  local name=$1; shift
  java -Xmx128m -XX:+UseSerialGC $QUIET -cp "$CP" dev.fairway.bench.OverloadBackend --host "$HOST" \
    --max-seconds 120 "$@" > "$WORK/$name.backends.log" 2>&1 &
  PIDS+=($!)
  BACKENDS_PID=$!
}

# backends_ready NAME COUNT: waits (30 s) until the backends of NAME say ready on COUNT ports
backends_ready() {
  local deadline=$((SECONDS + 30))
  until (( $(grep -c '^ready' "$WORK/$1.backends.log" || true) >= $2 )); do
    kill -0 "$BACKENDS_PID" 2>/dev/null || die "backends of $1 exited (see $WORK/$1.backends.log)"
    (( SECONDS < deadline )) || die "backends of $1 did not start (see $WORK/$1.backends.log)"
    sleep 0.2
  done
}

# haproxy_cfg FILE MAXCONN RETRIES PORT...: roundrobin over the PORTs, MAXCONN per server, 1 s
# queue, priority class from X-Criticality (lower is served first), RETRIES > 0 adds retry-on
haproxy_cfg() {
  local file=$1 maxconn=$2 retries=$3 i=0 p; shift 3
  {
    printf 'global\n  nbthread 1\n  maxconn 4000\n'
    printf 'defaults\n  mode http\n  option http-keep-alive\n  http-reuse always\n'
    printf '  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n  timeout queue 1s\n'
    printf 'frontend fe\n  bind %s:%s\n' "$HOST" "$PROXY"
    printf '  http-request set-priority-class int(-2) if { req.hdr(X-Criticality) -m str -i critical-plus }\n'
    printf '  http-request set-priority-class int(-1) if { req.hdr(X-Criticality) -m str -i critical }\n'
    printf '  http-request set-priority-class int(1) if { req.hdr(X-Criticality) -m str -i sheddable-plus }\n'
    printf '  http-request set-priority-class int(2) if { req.hdr(X-Criticality) -m str -i sheddable }\n'
    printf '  default_backend be\nbackend be\n  balance roundrobin\n'
    if (( retries > 0 )); then
      printf '  retries %s\n  option redispatch 1\n' "$retries"
      printf '  retry-on conn-failure empty-response response-timeout 502 503 504\n'
    fi
    for p in "$@"; do i=$((i + 1)); printf '  server b%s %s:%s maxconn %s\n' "$i" "$HOST" "$p" "$maxconn"; done
  } > "$file"
  haproxy -c -q -f "$file" || die "HAProxy rejected $file"
}

# fairway_cfg FILE CAPACITY EXTRA_SERVICE_KEYS PORT...: one service over the PORTs, CAPACITY slots
# each, 1 s slot wait; EXTRA_SERVICE_KEYS (JSON members ending in a comma) and the overload keys
# only with FAIRWAY_OVERLOAD_KEYS=1
fairway_cfg() {
  local file=$1 cap=$2 extra=$3 top='' total='' backends='' i=0 p; shift 3
  for p in "$@"; do
    i=$((i + 1)); [[ -n $backends ]] && backends+=', '
    backends+="{ \"id\": \"b$i\", \"url\": \"http://$HOST:$p\" }"
  done
  if [[ $FAIRWAY_OVERLOAD_KEYS == 1 ]]; then
    top='"overload": { "criticalityHeader": "X-Criticality", "deadlineHeader": "X-Request-Timeout-Ms" },'
    extra="\"defaultCriticality\": \"critical\", $extra"
    total=', "totalMs": 10000'
  else
    extra=''
  fi
  cat > "$file" <<JSON
{
  "proxy": { "host": "$HOST", "port": $PROXY, "instances": 0 },
  "admin": { "host": "$HOST", "port": $ADMIN, "token": "bench-token" },
  "accessLog": { "enabled": ${FAIRWAY_ACCESS_LOG:-false}, "format": "json" },
  $top
  "services": [
    {
      "name": "bench",
      "match": { "host": "*", "pathPrefix": "/" },
      "strategy": "round-robin",
      "slots": { "capacity": $cap, "waitTimeoutMs": 1000, "maxWaiting": 10000 },
      "timeouts": { "connectMs": 2000, "responseMs": 30000$total },
      "healthCheck": { "path": "/health", "intervalMs": 1000, "timeoutMs": 1000,
                       "healthyThreshold": 1, "unhealthyThreshold": 3 },
      $extra
      "backends": [ $backends ]
    }
  ]
}
JSON
}

# start_proxy KIND NAME CAP RETRIES EXTRA PORT...: HAProxy or Fairway in front of PORTs (started
# while the backends start), waits until /health answers through it, then warms it up for 1 s on
# /health (which the backends do not count)
start_proxy() {
  local kind=$1 name=$2 cap=$3 retries=$4 extra=$5; shift 5
  if [[ $kind == haproxy ]]; then
    haproxy_cfg "$WORK/$name.cfg" "$cap" "$retries" "$@"
    haproxy -db -f "$WORK/$name.cfg" > "$WORK/$name.log" 2>&1 &
  else
    fairway_cfg "$WORK/$name.json" "$cap" "$extra" "$@"
    # shellcheck disable=SC2086
    java $JAVA_OPTS -jar "$JAR" -conf "$WORK/$name.json" > "$WORK/$name.log" 2>&1 &
  fi
  PIDS+=($!)
  local pid=$!
  backends_ready "$name" $#
  wait_http "$PROXY" /health "$pid" "$name"
  wrk -t 1 -c 4 -d 1s "http://$HOST:$PROXY/health" > /dev/null 2>&1 || true
}

# load NAME ARGS...: OverloadLoad against the proxy; its class lines go to $WORK/NAME.load
load() {
  local name=$1; shift
  timeout 200 java -Xmx192m -XX:+UseSerialGC $QUIET -cp "$CP" dev.fairway.bench.OverloadLoad \
    --target "http://$HOST:$PROXY/" "$@" > "$WORK/$name.load" 2>> "$WORK/$name.load.err" \
    || die "OverloadLoad failed for $name (see $WORK/$name.load.err)"
}

# stats NAME PORT...: each backend's counters into $WORK/NAME.PORT.stats
stats() {
  local name=$1 p; shift
  for p in "$@"; do curl -s -m 5 "http://$HOST:$p/__stats" > "$WORK/$name.$p.stats" || die "no stats from $p"; done
}

# field FILE CLASS KEY: the number after KEY on CLASS's line of a load file
field() { awk -v c="$2" -v k="$3" '$1 == "class" && $2 == c { for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }
# total FILE KEY: the sum over classes of KEY
total() { awk -v k="$2" '$1 == "class" { for (i = 3; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }' "$1"; }
# backend_sum KEY FILE...: the sum of KEY over backends' stats files
backend_sum() { local k=$1; shift; awk -v k="$k" '$1 == "port" { for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }' "$@"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f\n", 100 * a / b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print (a == 0 ? "-" : "inf"); else printf "%.2f\n", a / b }'; }
# seconds_sum FILE FROM TO COL: the sum of per-second column COL (3 attempts, 4 accepts) over [FROM, TO)
seconds_sum() { awk -v f="$2" -v t="$3" -v c="$4" '$1 == "sec" && $2 >= f && $2 < t { s += $c } END { print s + 0 }' "$1"; }
# recovery FILE: seconds after healing until a second's accepts reach 90 % of the mean of seconds
# 1..FAIL_FROM-1 (0: the first second after healing already does); "> N" if none does
recovery() {
  awk -v from="$FAIL_FROM" -v until="$FAIL_UNTIL" -v end="$C_SECONDS" '
    $1 == "sec" { acc[$2] = $4 }
    END {
      n = 0; s = 0; for (i = 1; i < from; i++) { s += acc[i]; n++ }
      base = n ? s / n : 0
      for (i = until; i < end - 1; i++) if (acc[i] >= 0.9 * base && base > 0) { print i - until; exit }
      print "> " (end - 1 - until)
    }' "$1"
}

ROWS_A=() ROWS_B=() ROWS_C=()
for scen in $SCENARIOS; do
  for proxy in $PROXIES; do
    name=$scen-$proxy
    log "scenario $scen, $proxy"
    case $scen in
      A)
        start_backends "$name" --ports "$B1,$B2" --work-ms 100 --capacity 2
        start_proxy "$proxy" "$name" 2 0 '' "$B1" "$B2"
        load "$name" --seconds "$A_SECONDS" --closed "$A_CLIENTS"
        stats "$name" "$B1" "$B2"
        f=$WORK/$name.load
        ROWS_A+=("| $proxy | **$(pct "$(field "$f" critical ok)" "$(field "$f" critical sent)")** ($(field "$f" critical ok)/$(field "$f" critical sent)) | $(pct "$(field "$f" sheddable ok)" "$(field "$f" sheddable sent)") ($(field "$f" sheddable ok)/$(field "$f" sheddable sent)) | $(field "$f" critical p50) / $(field "$f" critical p99) | $(total "$f" ok) | $(backend_sum busy "$WORK/$name".*.stats) |")
        ;;
      B|B2)
        cap=2; [[ $scen == B2 ]] && cap=3
        start_backends "$name" --ports "$B1,$B2" --work-ms 100 --capacity 2
        extra='"retry": { "on": ["connect-failure", "refused-stream", "502", "503", "504"], "maxAttempts": 2, "budgetPercent": 10, "minRetriesPerSecond": 3 },'
        start_proxy "$proxy" "$name" "$cap" 1 "$extra" "$B1" "$B2"
        load "$name" --seconds "$B_SECONDS" --rate "$B_RATE" --mix critical=30,sheddable=70 --deadline-ms "$DEADLINE_MS"
        stats "$name" "$B1" "$B2"
        f=$WORK/$name.load
        sent=$(total "$f" sent); attempts=$(backend_sum attempts "$WORK/$name".*.stats)
        ROWS_B+=("| $proxy | $scen (cap $cap) | **$(pct "$(field "$f" critical ok)" "$(field "$f" critical sent)")** ($(field "$f" critical ok)/$(field "$f" critical sent)) | $(pct "$(field "$f" sheddable ok)" "$(field "$f" sheddable sent)") | $(field "$f" critical s503) / $(field "$f" critical s504) / $(field "$f" critical other) | $sent | $attempts | **$(ratio "$attempts" "$sent")** | **$(backend_sum late "$WORK/$name".*.stats)** | $(backend_sum retried "$WORK/$name".*.stats) | $(backend_sum busy "$WORK/$name".*.stats) | $(field "$f" critical p99) |")
        ;;
      C1|C2)
        accept=0; [[ $scen == C2 ]] && accept=25
        start_backends "$name" --ports "$B1" --work-ms 20 --capacity 10 --fail-ports "$B1" \
          --fail-from-s "$FAIL_FROM" --fail-until-s "$FAIL_UNTIL" --fail-accept-rps $((C_RATE * accept / 100))
        extra="\"throttle\": { \"enabled\": true, \"k\": 2, \"windowMs\": $THROTTLE_WINDOW_MS },"
        start_proxy "$proxy" "$name" 10 0 "$extra" "$B1"
        load "$name" --seconds "$C_SECONDS" --rate "$C_RATE" --mix critical=30,sheddable=70 --deadline-ms 1000
        stats "$name" "$B1"
        s=$WORK/$name.$B1.stats; f=$WORK/$name.load
        w1a=$(seconds_sum "$s" "$FAIL_FROM" $((FAIL_FROM + WINDOW_S)) 3); w1c=$(seconds_sum "$s" "$FAIL_FROM" $((FAIL_FROM + WINDOW_S)) 4)
        w2a=$(seconds_sum "$s" $((FAIL_FROM + WINDOW_S)) "$FAIL_UNTIL" 3); w2c=$(seconds_sum "$s" $((FAIL_FROM + WINDOW_S)) "$FAIL_UNTIL" 4)
        ROWS_C+=("| $proxy | $scen (accepts $accept % of offered) | $w1a / $w1c | $w2a / $w2c | **$(ratio "$w2a" "$w2c")** | $(ratio "$w2a" $((C_RATE * WINDOW_S))) | **$(recovery "$s")** | $(pct "$(field "$f" critical ok)" "$(field "$f" critical sent)") | $(pct "$(field "$f" sheddable ok)" "$(field "$f" sheddable sent)") |")
        ;;
      *) die "unknown scenario '$scen' (A, B, B2, C1, C2)" ;;
    esac
    stop_run
  done
done

echo "## Overload (bench/overload.sh; FAIRWAY_OVERLOAD_KEYS=$FAIRWAY_OVERLOAD_KEYS, jar $(basename "$JAR"))"
if (( ${#ROWS_A[@]} )); then
  echo
  echo "### A. 2 backends x capacity 2, 100 ms; closed loop clients $A_CLIENTS, ${A_SECONDS}s; 1 s queue (target: critical >= 99 %)"
  echo
  echo "| proxy | critical ok % | sheddable ok % | critical p50 / p99 ms | requests served | backend busy 503s |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS_A[@]}"
fi
if (( ${#ROWS_B[@]} )); then
  echo
  echo "### B. same backends (B2: proxies believe capacity 3); open loop $B_RATE req/s (2x capacity), 30 % critical, ${DEADLINE_MS} ms deadlines, retries on, ${B_SECONDS}s (targets: critical >= 99.5 %, amplification <= 1.10, late 0)"
  echo
  echo "| proxy | scenario (proxy's capacity per backend) | critical ok % | sheddable ok % | critical 503 / 504 / other | client requests | backend attempts | amplification | late at backend | retries seen | backend busy 503s | critical p99 ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS_B[@]}"
fi
if (( ${#ROWS_C[@]} )); then
  echo
  echo "### C. 1 backend x capacity 10, 20 ms; open loop $C_RATE req/s, 30 % critical; failing from ${FAIL_FROM}s to ${FAIL_UNTIL}s, run ${C_SECONDS}s; Fairway throttle windowMs $THROTTLE_WINDOW_MS, k 2 (targets: 2nd window attempts < 2.5x accepts; recovery <= ${WINDOW_S}s)"
  echo
  echo "| proxy | variant | 1st window attempts / accepts | 2nd window attempts / accepts | 2nd window attempts ÷ accepts | 2nd window attempts ÷ offered | recovery s | critical ok % | sheddable ok % |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS_C[@]}"
fi
