#!/usr/bin/env bash
# 10,000 waiters: how much a request waiting for a slot costs Fairway in threads and heap.
#
# Loopback only, bounded (~30 s once the jar is built), cleans up after itself.
#   1. builds target/fairway.jar if missing;
#   2. starts a Python backend on a free port: GET /fast answers at once, GET /hold answers
#      after HOLD_BACKEND_S (30) seconds;
#   3. starts Fairway with one service over that backend: slots.capacity 1,
#      waitTimeoutMs 10000, maxWaiting 20000; proxy.maxConnections N + 100 (the default, 10,000,
#      would refuse the N-th waiter: the primer below holds a connection too);
#   4. warms the path up with a few /fast requests, then samples the Fairway JVM "before":
#      threads (/proc/PID/status), heap used after a full GC (jcmd GC.run + GC.heap_info), RSS;
#   5. one primer request takes the only slot (the backend holds it), then an asyncio client
#      opens N (10,000) connections, each sending one GET /hold that must wait for a slot;
#   6. once all are sent, reads `waiting` from the admin API (GET /api/services) and samples
#      "during"; keeps them waiting HOLD_S (5) seconds in all, then closes every connection
#      (client gone: Fairway cancels the waiters) and samples "after".
# Targets: thread count unchanged, heap growth under 100 MB. Exit status 1 if one is missed.
#
# Usage: bench/waiters.sh    env: N=10000 HOLD_S=5 FAIRWAY_JAVA_OPTS="..." HISTO=1 (class histograms)
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-10000}
HOLD_S=${HOLD_S:-5}
HOLD_BACKEND_S=${HOLD_BACKEND_S:-30}
FAIRWAY_JAVA_OPTS=${FAIRWAY_JAVA_OPTS:-}

need=$((N + 1000))
hard=$(ulimit -Hn)
if [[ "$hard" != unlimited && "$hard" -lt "$need" ]]; then
  echo "waiters.sh: the open-files hard limit is $hard; $need are needed for N=$N" >&2
  exit 2
fi
ulimit -n "$need"

if [[ ! -f target/fairway.jar ]]; then
  echo "building target/fairway.jar ..."
  mvn -q -B package -DskipTests
fi

tmp=$(mktemp -d /tmp/fairway-waiters.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
BACKEND_PORT=$(free_port)
PROXY_PORT=$(free_port)
ADMIN_PORT=$(free_port)

# ---- backend: /hold sleeps, anything else answers at once ------------------------------------
cat > "$tmp/backend.py" <<'EOF'
import sys, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
port, hold = int(sys.argv[1]), float(sys.argv[2])
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        if self.path.startswith("/hold"):
            time.sleep(hold)
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
EOF

# ---- client: N connections, one waiting request each -----------------------------------------
cat > "$tmp/client.py" <<'EOF'
# Non-blocking sockets and one selector: cheap enough to open 10,000 connections in a second or
# two even on a busy machine. Connects in batches so as not to overflow the accept backlog.
import errno, os, selectors, socket, sys, time
port, n, held_file, release_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
REQ = b"GET /hold HTTP/1.1\r\nHost: waiters.local\r\n\r\n"
BATCH = 1000
sel = selectors.DefaultSelector()
pending, sent, answers, errors = {}, {}, {}, 0
t0 = time.monotonic()

def pump(timeout):
    global errors
    for key, ev in sel.select(timeout):
        s = key.fileobj
        if ev & selectors.EVENT_WRITE:          # connected (or failed): send the request
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                errors += 1; sel.unregister(s); s.close(); pending.pop(s, None); continue
            s.sendall(REQ)
            pending.pop(s, None); sent[s] = b""
            sel.modify(s, selectors.EVENT_READ)
        elif ev & selectors.EVENT_READ:         # Fairway answered while we hold
            data = s.recv(4096)
            sent[s] += data
            if not data or b"\r\n\r\n" in sent[s]:
                head, _, body = sent[s].partition(b"\r\n\r\n")
                status = head.split(b"\r\n")[0].decode(errors="replace") or "closed"
                key = f"{status} | {body.decode(errors='replace').strip()}"
                answers[key] = answers.get(key, 0) + 1
                sel.unregister(s)

opened = 0
while opened < n or pending:
    while opened < n and len(pending) < BATCH:
        s = socket.socket(); s.setblocking(False)
        rc = s.connect_ex(("127.0.0.1", port))
        if rc not in (0, errno.EINPROGRESS):
            errors += 1; s.close(); opened += 1; continue
        sel.register(s, selectors.EVENT_WRITE); pending[s] = 1; opened += 1
    pump(0.05)
    if time.monotonic() - t0 > 30:
        break
ramp = time.monotonic() - t0
print(f"client: {len(sent)} of {n} connections open with the request sent in {ramp:.2f} s; "
      f"connect errors: {errors}", flush=True)
open(held_file, "w").close()
deadline = time.monotonic() + 60           # bounded even if the script never releases us
while not os.path.exists(release_file) and time.monotonic() < deadline:
    pump(0.05)
for s in list(sent):
    s.close()
print(f"client: answered while held: {sum(answers.values())} {answers or ''}; "
      f"closed {len(sent)} connections", flush=True)
EOF

# ---- Fairway config ----------------------------------------------------------------------------
cat > "$tmp/config.json" <<EOF
{
  "proxy": { "host": "127.0.0.1", "port": $PROXY_PORT, "instances": 0, "maxConnections": $((N + 100)) },
  "admin": { "host": "127.0.0.1", "port": $ADMIN_PORT, "token": "waiters-bench" },
  "subsetting": { "clientId": 0, "clientCount": 1 },
  "services": [{
    "name": "held",
    "match": { "host": "*", "pathPrefix": "/" },
    "strategy": "round-robin",
    "subsetSize": 0,
    "slots": { "capacity": 1, "waitTimeoutMs": 10000, "maxWaiting": 20000 },
    "timeouts": { "connectMs": 2000, "responseMs": 60000 },
    "healthCheck": { "path": "/health", "intervalMs": 2000, "timeoutMs": 1000,
                     "healthyThreshold": 2, "unhealthyThreshold": 3 },
    "backends": [ { "id": "slow", "url": "http://127.0.0.1:$BACKEND_PORT" } ]
  }]
}
EOF

python3 "$tmp/backend.py" "$BACKEND_PORT" "$HOLD_BACKEND_S" &
pids+=($!)
# shellcheck disable=SC2086
java $FAIRWAY_JAVA_OPTS -jar target/fairway.jar -conf "$tmp/config.json" > "$tmp/fairway.log" 2>&1 &
FW=$!
pids+=("$FW")

admin="http://127.0.0.1:$ADMIN_PORT"
t_start=$(date +%s.%N)
for _ in $(seq 300); do
  if curl -fs "$admin/health" >/dev/null 2>&1 && curl -fs "http://127.0.0.1:$BACKEND_PORT/fast" >/dev/null 2>&1; then
    break
  fi
  if ! kill -0 "$FW" 2>/dev/null; then
    echo "Fairway exited at start-up:" >&2; cat "$tmp/fairway.log" >&2; exit 1
  fi
  sleep 0.1
done
curl -fs "$admin/health" >/dev/null || { echo "Fairway did not come up" >&2; cat "$tmp/fairway.log" >&2; exit 1; }

services_sum() {   # sum of one field of every service in GET /api/services; -1 if no answer
  local body
  if body=$(curl -fsS --max-time 5 "$admin/api/services" 2>>"$tmp/curl.err"); then
    python3 -c "import json,sys; print(sum(s['$1'] for s in json.load(sys.stdin)))" <<<"$body"
  else
    echo "admin API: no answer at $(since 2>/dev/null || echo ?) s: $(tail -1 "$tmp/curl.err")" >&2
    echo -1
  fi
}
threads() { awk '/^Threads:/ {print $2}' "/proc/$FW/status"; }
# JVM-internal threads (GC, JIT, attach, ...) come and go with load; the rest are Fairway's own.
JVM_THREADS='^(GC Thread|G1 |C[12] CompilerThre|VM |Reference Handl|Finalizer|Signal Dispatch|Service Thread|Monitor Deflati|Common-Cleaner|Notification Th|Attach Listener|Sweeper thread|java$)'
# Vert.x's worker and internal-blocking pools (20 threads each at most) start a thread for each
# periodic blocking task (the config file's scan every 2 s) until they are full, whatever the load,
# and Netty's GlobalEventExecutor comes and goes: bounded pools, not counted as Fairway's own.
POOL_THREADS='^(vert\.x-worker-t|vert\.x-internal|globalEventExec)'
own_threads() { cat /proc/"$FW"/task/*/comm 2>/dev/null | grep -vE "$JVM_THREADS" | grep -vE "$POOL_THREADS"; }
app_threads() { own_threads | wc -l; }
thread_names() { cat /proc/"$FW"/task/*/comm 2>/dev/null | sed 's/[0-9]*$//' | sort | uniq -c; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$FW/status"; }
heap_used_kb() {   # one attach (jcmd is itself a JVM start): a full GC, then the heap summary
  printf 'GC.run\nGC.heap_info\n' > "$tmp/jcmd-heap"
  # G1 prints one "garbage-first heap ... used NK" line; the serial and parallel collectors one per
  # generation ("def new generation", "tenured generation", PSYoungGen, ParOldGen): sum them.
  jcmd -J-XX:TieredStopAtLevel=1 "$FW" -f "$tmp/jcmd-heap" \
    | awk '/heap|generation|PSYoungGen|ParOldGen/ && /used/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i+1); sub(/K,?$/, "", v); kb += v } }
           END { if (kb) print kb }'
}
since() { python3 -c "import time; print(f'{time.time() - $t_start:.1f}')"; }
fds() { ls "/proc/$FW/fd" | wc -l; }
sample() {  # sets th$1 app$1 names$1 fd$1 heap$1 rss$1; HISTO=1 also keeps a class histogram
  printf -v "th$1" %s "$(threads)"; printf -v "app$1" %s "$(app_threads)"
  printf -v "names$1" %s "$(thread_names)"; printf -v "fd$1" %s "$(fds)"
  printf -v "heap$1" %s "$(heap_used_kb)"; printf -v "rss$1" %s "$(rss_kb)"
  if [[ "${HISTO:-0}" == 1 ]]; then
    jcmd "$FW" GC.class_histogram | head -n $((3 + ${HISTO_LINES:-25})) > "$tmp/histo$1.txt"
  fi
}

# ---- warm up and sample "before" ---------------------------------------------------------------
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$PROXY_PORT/fast" >/dev/null; done
services_sum waiting >/dev/null
jcmd "$FW" VM.version >/dev/null      # the first attach starts the JVM's Attach Listener thread
sleep 1
sample 0

# ---- primer takes the only slot; then N waiters -------------------------------------------------
curl -s -o /dev/null --max-time $((HOLD_BACKEND_S + 5)) "http://127.0.0.1:$PROXY_PORT/hold" &
pids+=($!)
for _ in $(seq 50); do [[ "$(services_sum active)" == 1 ]] && break; sleep 0.1; done
[[ "$(services_sum active)" == 1 ]] || { echo "the primer request did not take the slot" >&2; exit 1; }

t_start=$(date +%s.%N)
timeout 90 python3 "$tmp/client.py" "$PROXY_PORT" "$N" "$tmp/held" "$tmp/release" &
CLIENT=$!
pids+=("$CLIENT")
for _ in $(seq 600); do [[ -f "$tmp/held" ]] && break; sleep 0.05; done
[[ -f "$tmp/held" ]] || { echo "the client did not get its connections open" >&2; exit 1; }
t_held=$(since)

w1=0
for _ in $(seq 30); do w1=$(services_sum waiting); [[ "$w1" -ge "$N" ]] && break; sleep 0.1; done
t_w1=$(since)
sample 1
t_s1=$(since)
w1b=$(services_sum waiting)
sleep "$(python3 -c "import time; print(max(0.0, $HOLD_S - (time.time() - $t_start - $t_held)))")"
w1c=$(services_sum waiting)
t_release=$(since)
touch "$tmp/release"
wait "$CLIENT" || true

# ---- after the clients are gone -----------------------------------------------------------------
w2=-1
for _ in $(seq 50); do w2=$(services_sum waiting); [[ "$w2" == 0 ]] && break; sleep 0.1; done
for _ in $(seq 100); do [[ "$(fds)" -le $((fd0 + 20)) ]] && break; sleep 0.1; done   # closes processed
t_after=$(since)
sample 2

mb() { python3 -c "print(f'{$1/1024:.1f} MB')"; }
echo
echo "== $N waiters (slots.capacity 1, waitTimeoutMs 10000, maxWaiting 20000) =="
echo "timeline (s from the client's start): all sent $t_held, waiting read $t_w1, sampled by $t_s1, released $t_release, after-sample $t_after"
printf '%-36s %12s %20s %12s\n' "" before "during" "after close"
printf '%-36s %12s %20s %12s\n' "waiting (GET /api/services)" 0 "$w1 / $w1b / $w1c" "$w2"
printf '%-36s %12s %20s %12s\n' "JVM threads (/proc Threads:)" "$th0" "$th1" "$th2"
printf '%-36s %12s %20s %12s\n' "  Fairway's own (not JVM or pools)" "$app0" "$app1" "$app2"
printf '%-36s %12s %20s %12s\n' "open file descriptors" "$fd0" "$fd1" "$fd2"
printf '%-36s %12s %20s %12s\n' "heap used after GC.run" "$(mb "$heap0")" "$(mb "$heap1")" "$(mb "$heap2")"
printf '%-36s %12s %20s %12s\n' "RSS (VmRSS)" "$(mb "$rss0")" "$(mb "$rss1")" "$(mb "$rss2")"
echo "('during' waiting: first read / after the heap sample / just before release)"
echo "Fairway's threads during: $(own_threads | sort | paste -sd, -)"
growth=$((heap1 - heap0))
echo "heap growth: $(mb "$growth") total, $(python3 -c "print(f'{$growth*1024/$N:.0f}')") bytes per waiter; RSS growth: $(mb $((rss1 - rss0)))"
if [[ "$names0" != "$names1" ]]; then
  echo "thread names (count, name without trailing digits), before vs during:"
  diff <(echo "$names0") <(echo "$names1") | grep '^[<>]' || true
fi

retained=$((heap2 - heap0))
if [[ "$retained" -gt $((20 * 1024)) ]]; then
  echo "note: $(mb "$retained") of heap still held after every client closed and waiting is 0;"
  echo "      objects of the largest classes after close (run with HISTO=1 for the full tables):"
  jcmd "$FW" GC.class_histogram | grep -E 'dev\.fairway|Http1xServerConnection|NioSocketChannel' | head -5
fi
if [[ "${HISTO:-0}" == 1 ]]; then
  for k in 0 1 2; do echo "-- class histogram, sample $k (before/during/after close)"; cat "$tmp/histo$k.txt"; done
fi

ok=1
[[ "$w1" -ge "$N" ]] || { echo "MISSED: waiting reached $w1, expected $N"; ok=0; }
[[ "$app1" == "$app0" ]] || { echo "MISSED: Fairway's thread count changed $app0 -> $app1"; ok=0; }
[[ "$th1" == "$th0" ]] || echo "note: the JVM's own GC/JIT threads changed the total $th0 -> $th1"
[[ "$w1b" -ge "$N" ]] || echo "note: waiters were already timing out (10 s) by the end of the 'during' sample: the machine is slow or busy"
[[ "$growth" -lt $((100 * 1024)) ]] || { echo "MISSED: heap grew by $(mb "$growth")"; ok=0; }
if grep -qiE 'exception|error' "$tmp/fairway.log"; then
  echo "Fairway log has errors:"; grep -iE -m 10 'exception|error' "$tmp/fairway.log"
fi
if [[ $ok == 1 ]]; then echo "PASS: waiting reached $N, Fairway's threads unchanged, heap growth under 100 MB"; else exit 1; fi
