#!/usr/bin/env python3
"""Percentiles of requests' own latencies, and the p99 wrk would print for them.

wrk (4.1 and 4.2, src/wrk.c) corrects its histogram for coordinated omission before printing:
stats_correct(latency, gap) with gap = run time / (requests / connections), the mean time between
two requests of one connection; every latency L >= 2 * gap adds samples at L - gap, L - 2 * gap,
... while they are > gap (src/stats.c). This applies the same correction to latencies logged
elsewhere, so the requests' own p99 and wrk's can be read side by side.

    bench/wrk_correct.py h2load LOG CONNS     h2load --log-file output (start µs, status, µs)
    bench/wrk_correct.py perf CONNS < TRACE   `perf script -F comm,tid,time,event,trace` of
                                              wrk's syscalls:sys_enter_write and
                                              syscalls:sys_exit_read (one connection per
                                              thread: each request from a write to the next read)

prints "requests seconds p50 p90 p99 p99.9 corrected-p99" (latencies in ms).
"""
import re
import sys
from collections import Counter


def h2load_latencies(path):
    """(start µs, latency µs) of the 2xx requests in an h2load log."""
    rows = [line.split() for line in open(path) if line.strip()]
    return [(int(start), int(lat)) for start, status, lat, *_ in rows if int(status) // 100 == 2]


def perf_latencies(lines):
    """(start µs, latency µs) per wrk thread from its write to its next read that returned data."""
    out, pending = [], {}
    pattern = re.compile(r'\s*wrk\s+(\d+)\s+([\d.]+):\s+syscalls:(\w+):\s*(.*)')
    for line in lines:
        m = pattern.match(line)
        if not m:
            continue
        tid, t, event = m.group(1), float(m.group(2)) * 1e6, m.group(3)
        if event == 'sys_enter_write':
            pending[tid] = t
        elif event == 'sys_exit_read' and tid in pending:
            ret = int(m.group(4).split()[0], 0)
            if 0 < ret < 2 ** 63:
                start = pending.pop(tid)
                out.append((int(start), int(t - start)))
    return out


def corrected_p99(latencies, gap):
    """wrk's stats_correct, then the 99th percentile of the corrected histogram."""
    h, count = Counter(latencies), len(latencies)
    for v in sorted(h):  # ascending: a value only gains samples from larger ones, after it was read
        c, m = h[v], v - gap
        while v >= 2 * gap and m > gap:
            h[m] += c
            count += c
            m -= gap
    seen = 0
    for v in sorted(h):
        seen += h[v]
        if seen >= 0.99 * count:
            return v
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == 'h2load':
        rows, conns = h2load_latencies(argv[2]), int(argv[3])
    elif len(argv) == 3 and argv[1] == 'perf':
        rows, conns = perf_latencies(sys.stdin), int(argv[2])
    else:
        sys.exit(__doc__)
    if not rows:
        sys.exit('no requests found')
    lat = sorted(lat for _, lat in rows)
    n = len(lat)
    span = (max(s + l for s, l in rows) - min(s for s, _ in rows)) / 1e6
    gap = int(span * 1e6 / (n / conns))
    pct = ' '.join('%.3f' % (lat[min(n - 1, int(q * n))] / 1000) for q in (.5, .9, .99, .999))
    print(n, '%.3f' % span, pct, '%.3f' % (corrected_p99(lat, gap) / 1000))


if __name__ == '__main__':
    main(sys.argv)
