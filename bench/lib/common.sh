# Shared helpers of the issue-9 benchmark scripts (bench/throughput-all.sh, features.sh,
# memory.sh, jfr-alloc.sh, h2.sh). Sourced, not run. Loopback only; every wait is bounded.
# The caller sets HOST, ROOT, WORK, PIDS=() and installs the trap `trap cleanup EXIT`.
# LOADGEN_CPUS (e.g. "1") pins wrk and h2load to those CPUs with taskset; unset, they float.
# WRK_LOG (a file) collects every wrk run's whole output, latency distribution included.
LOADGEN_PIN=${LOADGEN_CPUS:+taskset -c $LOADGEN_CPUS}
# PROXY_CPUS (e.g. "0") pins the proxies under test (HAProxy, Fairway) to those CPUs with taskset.
PROXY_PIN=${PROXY_CPUS:+taskset -c $PROXY_CPUS}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)] $*" >&2; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }

# seconds in a wrk duration like 10s / 2m
secs() { local d=$1; case $d in *h) echo $(( ${d%h} * 3600 ));; *m) echo $(( ${d%m} * 60 ));; *s) echo "${d%s}";; *) echo "$d";; esac; }

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }
ports_free() { local p; for p in "$@"; do port_open "$p" && die "port $p on $HOST is already in use; pick others via the *_PORT variables"; done; return 0; }

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  if [[ $rc -ne 0 ]]; then
    echo "$(basename "$0"): failed (exit $rc); last log lines:" >&2
    { tail -n 5 "$WORK"/*.log "$WORK"/nginx*/logs/error.log 2>/dev/null || true; } >&2
  fi
  if [[ -n ${KEEP_WORK:-} ]]; then echo "work dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$rc"
}

# wait_http PORT PATH PID NAME [SCHEME]: until PATH on PORT answers 200 (60 s), or the process
# dies; SCHEME https checks over TLS without verifying the certificate; WAIT_CURL_OPTS (e.g.
# --http2-prior-knowledge) go to curl as they are
wait_http() {
  local port=$1 path=$2 pid=$3 name=$4 scheme=${5:-http} deadline=$((SECONDS + 60)) code=
  while (( SECONDS < deadline )); do
    kill -0 "$pid" 2>/dev/null || die "$name exited during start-up (see $WORK)"
    code=$(curl -sk ${WAIT_CURL_OPTS:-} -o /dev/null -m 2 -w '%{http_code}' "$scheme://$HOST:$port$path" || true)
    [[ $code == 200 ]] && return 0
    sleep 0.2
  done
  die "$name did not answer 200 on $scheme://$HOST:$port$path within 60 s (last status '$code')"
}

ensure_jar() {
  if [[ ! -f $ROOT/target/fairway.jar ]]; then
    command -v mvn >/dev/null 2>&1 || die "target/fairway.jar is missing and mvn is not installed"
    log "building target/fairway.jar"
    (cd "$ROOT" && mvn -q -B package -DskipTests) || die "build failed"
  fi
}

# resolve_jar: JAR (another build of Fairway, e.g. one made at an earlier commit), or
# target/fairway.jar, built if missing; dies if JAR names no file
resolve_jar() {
  JAR=${JAR:-}
  if [[ -z $JAR ]]; then ensure_jar; JAR=$ROOT/target/fairway.jar; fi
  [[ -f $JAR ]] || die "no such jar '$JAR'"
}

# start_nginx I PORT [CERT KEY]: nginx backend I (one worker) on PORT: / -> "hello\n", /64k -> 65536
# bytes; with CERT and KEY (PEM files) it serves HTTPS (TLS 1.2/1.3, HTTP/1.1) instead of HTTP;
# with NGINX_H2C=1 (and no CERT) it speaks cleartext HTTP/2 by prior knowledge only (h2c)
start_nginx() {
  local i=$1 port=$2 dir=$WORK/nginx$1 cert=${3:-} key=${4:-} listen=$HOST:$2 tls='' scheme=http h2c=''
  if [[ -n ${NGINX_H2C:-} && -z $cert ]]; then
    listen="$listen http2"
    h2c=--http2-prior-knowledge
  fi
  if [[ -n $cert ]]; then
    listen="$listen ssl"
    tls="ssl_certificate $cert; ssl_certificate_key $key; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:s$i:1m;"
    scheme=https
  fi
  if [[ ! -f $WORK/www/64k ]]; then
    mkdir -p "$WORK/www"
    head -c 65536 /dev/zero | tr '\0' 'x' > "$WORK/www/64k"
    chmod 755 "$WORK" "$WORK/www" && chmod 644 "$WORK/www/64k"
  fi
  mkdir -p "$dir/logs" "$dir/tmp"
  cat > "$dir/nginx.conf" <<NGX
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 12000; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 10000000;
  keepalive_timeout 120s;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  open_file_cache max=16 inactive=600s;
  open_file_cache_valid 600s;
  server_tokens off;
  server {
    listen $listen backlog=4096;
    $tls
    default_type text/plain;
    location = /64k { root $WORK/www; default_type application/octet-stream; }
    location = /v1/traces { return 200; }
    location / { return 200 "hello\n"; }
  }
}
NGX
  nginx -t -q -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" || die "nginx rejected $dir/nginx.conf"
  nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" > "$WORK/nginx$i.log" 2>&1 &
  PIDS+=($!)
  WAIT_CURL_OPTS=$h2c wait_http "$port" / "$!" "nginx $i" "$scheme"
}

# start_haproxy THREADS B1 B2 BIND...: HAProxy (roundrobin over two backends on $HOST, keep-alive
# both ways, http-reuse always) with one frontend per BIND ("addr:port [options]", e.g.
# "$HOST:8080" or "$HOST:8443 proto h2"); waits until the first frontend answers. HAPROXY_SERVER
# (e.g. "ssl verify required ca-file ca.pem") is appended to both server lines.
start_haproxy() {
  local threads=$1 b1=$2 b2=$3; shift 3
  local maxconn=$(( ($(ulimit -n) - 200) / 2 )) i=0 bind
  (( maxconn > 10000 )) && maxconn=10000
  {
    printf 'global\n  nbthread %s\n  maxconn %s\n' "$threads" "$maxconn"
    printf 'defaults\n  mode http\n  option http-keep-alive\n  option forwardfor\n  http-reuse always\n'
    printf '  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n'
    printf '  timeout http-request 10s\n  timeout http-keep-alive 60s\n'
    for bind in "$@"; do
      i=$((i + 1))
      printf 'frontend fe%s\n  bind %s\n  default_backend be\n' "$i" "$bind"
    done
    printf 'backend be\n  balance roundrobin\n  server b1 %s:%s %s\n  server b2 %s:%s %s\n' \
      "$HOST" "$b1" "${HAPROXY_SERVER:-}" "$HOST" "$b2" "${HAPROXY_SERVER:-}"
  } > "$WORK/haproxy.cfg"
  haproxy -c -q -f "$WORK/haproxy.cfg" || die "HAProxy rejected $WORK/haproxy.cfg"
  $PROXY_PIN haproxy -db -f "$WORK/haproxy.cfg" > "$WORK/haproxy.log" 2>&1 &
  PIDS+=($!)
  local first=${1%% *}
  wait_http "${first##*:}" / "$!" HAProxy
}

# self_signed_cert DIR [SAN] [CN]: a self-signed EC P-256 certificate valid two days, DIR/site.pem
# and its key DIR/site.key; SAN defaults to IP:127.0.0.1 and CN to 127.0.0.1
self_signed_cert() {
  command -v openssl >/dev/null 2>&1 || die "missing tool 'openssl'"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=${3:-127.0.0.1}" \
    -addext "subjectAltName=${2:-IP:127.0.0.1}" -keyout "$1/site.key" -out "$1/site.pem" 2>/dev/null \
    || die "openssl could not make a certificate"
}

# fairway_config FILE PORT ADMIN_PORT B1 B2 [STRATEGY] [CAPACITY] [HC_INTERVAL_MS] [METRICS_VERTX]
# BACKEND_SCHEME (http) is the backends' URL scheme (h2c, https); HEALTH_CHECK_TYPE (unset: http) e.g. grpc
fairway_config() {
  local file=$1 port=$2 admin=$3 b1=$4 b2=$5 strategy=${6:-round-robin} cap=${7:-1000} hc=${8:-2000} mv=${9:-true} al=${10:-false}
  local hckind='"path": "/health",'
  [[ -n ${HEALTH_CHECK_TYPE:-} ]] && hckind="\"type\": \"$HEALTH_CHECK_TYPE\","
  cat > "$file" <<JSON
{
  "proxy": { "host": "$HOST", "port": $port, "instances": ${FAIRWAY_INSTANCES:-0} },
  "admin": { "host": "$HOST", "port": $admin, "token": "bench-token" },
  "metrics": { "vertx": $mv },
  "accessLog": { "enabled": $al, "format": "json" },
  "subsetting": { "clientId": 0, "clientCount": 1 },
  "services": [
    {
      "name": "bench",
      "match": { "host": "*", "pathPrefix": "/" },
      "strategy": "$strategy",
      "subsetSize": 0,
      "slots": { "capacity": $cap, "waitTimeoutMs": 1000, "maxWaiting": 10000 },
      "timeouts": { "connectMs": 2000, "responseMs": 30000 },
      "healthCheck": { $hckind "intervalMs": $hc, "timeoutMs": 1000,
                       "healthyThreshold": 2, "unhealthyThreshold": 3 },
      "backends": [
        { "id": "b1", "url": "${BACKEND_SCHEME:-http}://$HOST:$b1" },
        { "id": "b2", "url": "${BACKEND_SCHEME:-http}://$HOST:$b2" }
      ]
    }
  ]
}
JSON
}

# run_wrk URL CONNS DURATION [THREADS [WRK_ARGS...]]: prints "rps p99_ms errors requests"
# (an empty THREADS takes WRK_THREADS; WRK_ARGS go to wrk as they are, e.g. -H "Connection: close")
run_wrk() {
  local url=$1 c=$2 d=$3 threads=${4:-${WRK_THREADS:-2}} out
  shift $(( $# < 4 ? $# : 4 ))
  if (( threads > c )); then threads=$c; fi
  out=$(timeout $(( $(secs "$d") + 30 )) $LOADGEN_PIN wrk -t "$threads" -c "$c" -d "$d" --latency "$@" "$url" 2>&1) \
    || die "wrk against $url failed: $out"
  if [[ -n ${WRK_LOG:-} ]]; then printf '== %s c=%s\n%s\n' "$url" "$c" "$out" >> "$WRK_LOG"; fi
  awk '
    function ms(v) {
      if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
      if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
      if (v ~ /m$/)  return substr(v, 1, length(v) - 1) * 60000
      if (v ~ /s$/)  return substr(v, 1, length(v) - 1) * 1000
      return v + 0
    }
    /^Requests\/sec:/               { rps = $2 }
    / requests in /                 { reqs = $1 }
    $1 == "99%"                     { p99 = ms($2) }
    /Non-2xx or 3xx responses:/     { err += $NF }
    /Socket errors:/                { gsub(",", ""); err += $4 + $6 + $8 + $10 }
    END { if (rps == "") exit 1; printf "%.0f %.3f %d %d\n", rps, p99, err, reqs }
  ' <<< "$out" || die "could not parse wrk output for $url: $out"
}

# run_load URL CONNS DURATION: run_wrk, or with H2_STREAMS set h2load over h2c (prior knowledge)
# with that many streams per connection; prints "req/s p99-ms errors requests" (h2load reports no
# percentiles: p99 is its mean request time instead, marked by the caller).
run_load() {
  if [[ -z ${H2_STREAMS:-} ]]; then
    run_wrk "$@"
    return
  fi
  local url=$1 c=$2 d=$3 out
  out=$(timeout $(( $(secs "$d") + 30 )) $LOADGEN_PIN h2load -t 2 -c "$c" -m "$H2_STREAMS" -D "$(secs "$d")" "$url" 2>&1) \
    || die "h2load against $url failed: $out"
  parse_h2load <<< "$out" | cut -d' ' -f1-4 || die "could not parse h2load output for $url: $out"
}

# parse_h2load: h2load's report on stdin; prints "req/s mean-ms errors requests succeeded", or
# fails if the report has no result
parse_h2load() {
  awk '
    function ms(v) { if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
                     if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
                     if (v ~ /s$/) return substr(v, 1, length(v) - 1) * 1000; return v + 0 }
    /^finished in/       { gsub(",", ""); rps = $4 }
    /^requests:/         { reqs = $6; succ = $8; err = $10 + $12 }
    /^time for request:/ { mean = ms($6) }
    END { if (rps == "") exit 1; printf "%.0f %.3f %d %d %d\n", rps, mean, err, reqs, succ }'
}

# cpu_ticks PID: user + system CPU time of the process (all its threads) in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# stats: reads numbers on stdin, prints "min median max n"
stats() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "- - - 0"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print v[1], m, v[NR], NR }'
}

# wait_for_load MAX SECS: waits up to SECS for the 1-min load average to drop below MAX
wait_for_load() {
  local max=$1 limit=$2 deadline=$((SECONDS + $2))
  while (( SECONDS < deadline )); do
    awk -v l="$(loadavg)" -v m="$max" 'BEGIN { exit !(l < m) }' && return 0
    sleep 5
  done
  log "load still >= $max after ${limit}s; measuring anyway"
}

# test_classpath CLASS: compiles the test classes and writes target/test-classpath.txt unless
# target/test-classes has bench/CLASS.class already; sets CP (test classes and their dependencies)
# and QUIET (the quiet logback config for test-classpath JVMs)
test_classpath() {
  local cls=$1
  if [[ ! -f $ROOT/target/test-classes/dev/fairway/bench/$cls.class || ! -f $ROOT/target/test-classpath.txt ]]; then
    log "compiling the bench tools (target/test-classes)"
    (cd "$ROOT" && mvn -q -B test-compile && mvn -q -B dependency:build-classpath -Dmdep.includeScope=test \
       -Dmdep.outputFile=target/test-classpath.txt) || die "test-compile failed"
  fi
  CP="$ROOT/target/test-classes:$(cat "$ROOT/target/test-classpath.txt")"
  QUIET=-Dlogback.configurationFile=$ROOT/bench/lib/logback-quiet.xml
}

# start_grpc B1 B2: the gRPC bench backends (GrpcBenchServer, one JVM) on B1 and B2; then
# fairway_config writes h2c:// backends with gRPC health checks, and run_load URL CONNS DURATION
# runs GrpcLoad (unary calls, STREAMS [1] per connection, GRPC_WARMUP [0] seconds of warm-up in
# its own JVM before DURATION) and prints "req/s p99-ms errors calls" like the other loads. Needs WORK, PIDS and test_classpath GrpcLoad.
start_grpc() {
  java -Xmx256m $QUIET -cp "$CP" dev.fairway.bench.GrpcBenchServer "$HOST" "$1" "$2" > "$WORK/grpc-backends.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do [[ $(grep -c ready "$WORK/grpc-backends.log" || true) == 2 ]] && break; sleep 0.2; done
  export BACKEND_SCHEME=h2c HEALTH_CHECK_TYPE=grpc
  run_load() {
    local target=${1#http://}
    if [[ ${GRPC_CLIENT:-} == h2load ]]; then
      grpc_h2load "${target%%/*}" "$2" "$(secs "$3")" "$WORK/h2load-calls.log" | awk '{ print $1, $3, $4, $5 }'
      return
    fi
    timeout $(( $(secs "$3") + 60 )) java -Xmx256m $QUIET -cp "$CP" dev.fairway.bench.GrpcLoad \
      "${target%%/*}" "$2" "${STREAMS:-1}" "${GRPC_WARMUP:-0}" "$(secs "$3")" | awk '{ print $1, $3, $4, $5 }'
  }
}

# grpc_h2load HOST:PORT CONNS SECONDS [LOG]: GRPC_CLIENT=h2load's unary calls, h2load POSTs of one
# empty gRPC message (5 bytes) with gRPC's fields to the bench backends' method, STREAMS [1] per
# connection, H2LOAD_THREADS [1] client threads; prints "req/s p50-ms p99-ms errors calls" (percentiles from h2load's per-request
# LOG, 0 without one). h2load reads no trailers: a call is an error only if its status is not 2xx.
grpc_h2load() {
  local url="http://$1/grpc.testing.SimpleService/UnaryRpc" body="$WORK/grpc-request.bin" out
  [[ -f $body ]] || printf '\0\0\0\0\0' > "$body"
  out=$(timeout $(( $3 + 30 )) $LOADGEN_PIN h2load -t "${H2LOAD_THREADS:-1}" -c "$2" -m "${STREAMS:-1}" -D "$3" -d "$body" \
    -H 'content-type: application/grpc' -H 'te: trailers' ${4:+--log-file="$4"} "$url" 2>&1) || { echo "0 0 0 -1 0"; return; }
  local rps err succ p50=0 p99=0
  read -r rps _ err _ succ <<< "$(parse_h2load <<< "$out")"
  if [[ -n ${4:-} ]]; then
    read -r p50 p99 <<< "$(awk '{ print $3 }' "$4" | sort -n | awk '{ v[NR] = $1 }
      END { if (NR == 0) print "0 0"; else printf "%.3f %.3f\n", v[int(NR * 0.5) + 1] / 1000, v[int(NR * 0.99) + 1] / 1000 }')"
  fi
  echo "$rps $p50 $p99 $err $succ"
}

# hazelcast_xml PORT MEMBER_PORT...: a Hazelcast config for one cluster member on $HOST:PORT that
# joins the others over loopback TCP (no multicast), fast joins and a 10 s heartbeat timeout.
hazelcast_xml() {
  local port=$1 members="" p
  shift
  for p in "$@"; do members+="<member>$HOST:$p</member>"; done
  cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<hazelcast xmlns="http://www.hazelcast.com/schema/config">
  <cluster-name>fairway-bench-$$</cluster-name>
  <properties>
    <property name="hazelcast.logging.type">slf4j</property>
    <property name="hazelcast.phone.home.enabled">false</property>
    <property name="hazelcast.wait.seconds.before.join">0</property>
    <property name="hazelcast.max.join.seconds">3</property>
    <property name="hazelcast.heartbeat.interval.seconds">1</property>
    <property name="hazelcast.max.no.heartbeat.seconds">10</property>
    <property name="hazelcast.socket.bind.any">false</property>
  </properties>
  <network>
    <port auto-increment="false">$port</port>
    <interfaces enabled="true"><interface>$HOST</interface></interfaces>
    <join>
      <auto-detection enabled="false"/>
      <multicast enabled="false"/>
      <tcp-ip enabled="true"><member-list>$members</member-list></tcp-ip>
    </join>
  </network>
  <multimap name="__vertx.subs"><backup-count>1</backup-count><value-collection-type>SET</value-collection-type></multimap>
</hazelcast>
XML
}
