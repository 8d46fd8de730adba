#!/usr/bin/env python3
"""Summarises a JFR recording of Fairway under load (bench/jfr-alloc.sh).

usage: jfr_report.py RECORDING.jfr REQUESTS [TOP]

Prints markdown: allocated bytes in the window (jdk.ThreadAllocationStatistics deltas per
thread, and jdk.GCHeapSummary: heap used before each GC minus after the previous one), bytes
per request (REQUESTS = requests wrk completed inside the recording), and the top allocation
sites and CPU samples (jdk.ObjectAllocationSample weights, jdk.ExecutionSample counts) by
top frame, by allocated class and by the first dev.fairway frame (file:line in src/main).
"""
import collections
import json
import subprocess
import sys

EVENTS = "jdk.ObjectAllocationSample,jdk.ThreadAllocationStatistics,jdk.GCHeapSummary,jdk.ExecutionSample"


def cls_name(f):
    return f["method"]["type"]["name"].replace("/", ".")


def frame_name(f, line=True, short=False):
    m = f["method"]
    cls = cls_name(f)
    if short:
        cls = cls.rsplit(".", 1)[-1]
    s = f"{cls}.{m['name']}"
    if line and f.get("lineNumber", -1) >= 0:
        s += f":{f['lineNumber']}"
    return s


def fairway_site(frames):
    """The first dev.fairway frame with a line number (lambda frames have none), as File.java:line."""
    fallback = None
    for f in frames:
        cls = cls_name(f)
        if cls.startswith("dev.fairway."):
            top = cls.split("$")[0]
            site = f"{top.rsplit('.', 1)[1]}.java:{f.get('lineNumber', -1)} ({f['method']['name']})"
            if f.get("lineNumber", -1) >= 0:
                return site
            fallback = fallback or site
    return fallback


def chain(frames, depth=4):
    return " < ".join(frame_name(f, short=True) for f in frames[:depth])


def table(title, counter, total, unit, top):
    print(f"\n{title}\n")
    print(f"| share | {unit} | site |")
    print("|---:|---:|---|")
    for k, v in counter.most_common(top):
        print(f"| {100.0 * v / total:5.1f} % | {v:,.0f} | `{k}` |")


def main():
    path, requests = sys.argv[1], int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "64", "--events", EVENTS, path],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]

    tas = collections.defaultdict(list)
    gcs = {}
    alloc_top = collections.Counter()
    alloc_cls = collections.Counter()
    alloc_fw = collections.Counter()
    alloc_chain = collections.Counter()
    alloc_total = 0
    alloc_with_fw = 0
    cpu_top = collections.Counter()
    cpu_fw = collections.Counter()
    cpu_total = 0
    for e in events:
        t, v = e["type"], e["values"]
        if t == "jdk.ThreadAllocationStatistics":
            th = v.get("thread") or {}
            key = (th.get("javaThreadId"), th.get("osThreadId"), th.get("javaName"))
            tas[key].append(v["allocated"])
        elif t == "jdk.GCHeapSummary":
            gcs.setdefault(v["gcId"], {})[v["when"]] = v["heapUsed"]
        elif t == "jdk.ObjectAllocationSample":
            frames = (v.get("stackTrace") or {}).get("frames") or []
            w = v["weight"]
            alloc_total += w
            alloc_top[frame_name(frames[0]) if frames else "?"] += w
            alloc_cls[v["objectClass"]["name"].replace("/", ".")] += w
            alloc_chain[chain(frames)] += w
            site = fairway_site(frames)
            if site:
                alloc_with_fw += w
                alloc_fw[site] += w
            else:
                alloc_fw["(no dev.fairway frame)"] += w
        elif t == "jdk.ExecutionSample":
            frames = (v.get("stackTrace") or {}).get("frames") or []
            cpu_total += 1
            cpu_top[frame_name(frames[0], line=False) if frames else "?"] += 1
            site = fairway_site(frames)
            cpu_fw[site or "(no dev.fairway frame)"] += 1

    by_thread = {}
    for key, vals in tas.items():
        by_thread[key] = (max(vals) - min(vals)) if len(vals) > 1 else 0
    tas_total = sum(by_thread.values())
    gc_total = 0
    ids = sorted(gcs)
    for prev, cur in zip(ids, ids[1:]):
        if "After GC" in gcs[prev] and "Before GC" in gcs[cur]:
            gc_total += gcs[cur]["Before GC"] - gcs[prev]["After GC"]
    print(f"recording {path}: {requests:,} requests served by wrk inside the window")
    print()
    print("| measure | bytes | bytes per request |")
    print("|---|---:|---:|")
    print(f"| jdk.ThreadAllocationStatistics, sum of per-thread deltas ({len(by_thread)} threads) | {tas_total:,} | {tas_total / requests:,.0f} |")
    print(f"| jdk.GCHeapSummary, before(GC n) - after(GC n-1), {max(len(ids) - 1, 0)} GC intervals | {gc_total:,} | (partial window) |")
    print(f"| jdk.ObjectAllocationSample weights (sampled estimate; shares only) | {alloc_total:,} | {alloc_total / requests:,.0f} |")
    busiest = sorted(by_thread.items(), key=lambda kv: -kv[1])[:6]
    print("\nper thread (largest): " + ", ".join(f"{k[2]} {v / requests:,.0f} B/req" for k, v in busiest))
    print(f"\nallocation samples with a dev.fairway frame on the stack: {100.0 * alloc_with_fw / max(alloc_total, 1):.1f} % of sampled bytes")
    table("Allocation by top frame (sampled bytes)", alloc_top, alloc_total, "bytes", top)
    table("Allocation by class", alloc_cls, alloc_total, "bytes", top)
    table("Allocation by first dev.fairway frame on the stack", alloc_fw, alloc_total, "bytes", top)
    table("Allocation by stack prefix (top 4 frames)", alloc_chain, alloc_total, "bytes", top)
    table("CPU samples by top frame", cpu_top, cpu_total, "samples", top)
    table("CPU samples by first dev.fairway frame on the stack (inclusive)", cpu_fw, cpu_total, "samples", top)


if __name__ == "__main__":
    main()
