#!/usr/bin/env python3
"""Summarises a HotSpot compilation log (-XX:+LogCompilation): when C2 worked and why.

usage: jit_log.py LOGFILE [STEP] [FROM TO]

Prints, per STEP seconds of the JVM's life (default 5), the C2 compile time started in that
window and the uncommon traps (deoptimizations) hit in it; with FROM and TO (seconds), also the
trap sites of that window, most frequent first (reason and method). Made with, for example:

  JAVA_OPTS="-Xms64m -Xmx192m -Xmn32m -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation \
    -XX:LogFile=/tmp/jit.log" bench/grpc.sh ...
  bench/jit_log.py /tmp/jit.log 5 85 90
"""
import collections
import html
import re
import sys

TASK = re.compile(r"<task compile_id='\d+'([^>]*)stamp='([\d.]+)'>.*?<task_done[^>]*stamp='([\d.]+)'", re.S)
TRAP = re.compile(r"<uncommon_trap thread='\d+' reason='([^']+)'[^>]*?stamp='([\d.]+)'>\s*<jvms bci='\d+' method='([^']+)'",
                  re.S)


def main():
    if len(sys.argv) not in (2, 3, 5):
        sys.exit(__doc__)
    log = open(sys.argv[1], errors="replace").read()
    step = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    c2 = collections.Counter()
    for attrs, start, done in TASK.findall(log):
        if "level='" not in attrs or "level='4'" in attrs:  # C2 (a level-less task is C2 without tiers)
            c2[int(float(start) // step)] += float(done) - float(start)
    traps = collections.Counter()
    sites = collections.Counter()
    lo, hi = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) == 5 else (None, None)
    for reason, stamp, method in TRAP.findall(log):
        t = float(stamp)
        traps[int(t // step)] += 1
        if lo is not None and lo <= t < hi:
            name = method.split(" ")
            sites[(reason, name[0].split(".")[-1].replace("$", ".") + "." + html.unescape(name[1]))] += 1
    print("| from s | C2 s | traps |")
    print("|---:|---:|---:|")
    for w in sorted(set(c2) | set(traps)):
        print(f"| {w * step:g} | {c2[w]:.2f} | {traps[w]} |")
    if lo is not None:
        print(f"\ntraps from {lo:g} s to {hi:g} s: {sum(sites.values())}")
        for (reason, method), n in sites.most_common(15):
            print(f"{n:4d}  {reason:32s} {method}")


if __name__ == "__main__":
    main()
