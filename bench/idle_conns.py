#!/usr/bin/env python3
"""Opens N keep-alive HTTP/1.1 connections to HOST:PORT, sends one GET on each and reads the
full response, then holds every connection open (idle) for HOLD seconds and closes them.

Used by bench/memory.sh. Prints one line per phase; writes READY_FILE (if given) once every
connection is open and answered, so the caller can sample the proxy's memory while they idle.

usage: idle_conns.py HOST PORT N HOLD_SECONDS [READY_FILE] [PARALLEL]
"""
import asyncio
import sys
import time


async def one(host, port, sem, conns, failures):
    async with sem:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
            writer.write(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length:
                await asyncio.wait_for(reader.readexactly(length), 10)
            if not head.startswith(b"HTTP/1.1 200"):
                failures.append(head.split(b"\r\n", 1)[0].decode(errors="replace"))
            conns.append((reader, writer))
        except Exception as e:  # noqa: BLE001 - counted and reported
            failures.append(repr(e))


async def main():
    host, port, n, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    ready = sys.argv[5] if len(sys.argv) > 5 else ""
    parallel = int(sys.argv[6]) if len(sys.argv) > 6 else 200
    sem = asyncio.Semaphore(parallel)
    conns, failures = [], []
    t0 = time.monotonic()
    await asyncio.gather(*(one(host, port, sem, conns, failures) for _ in range(n)))
    print(f"opened {len(conns)} of {n} connections in {time.monotonic() - t0:.1f} s, "
          f"{len(failures)} failures{': ' + failures[0] if failures else ''}", flush=True)
    if ready:
        with open(ready, "w") as f:
            f.write(f"{len(conns)}\n")
    await asyncio.sleep(hold)
    closed_by_peer = sum(1 for r, _ in conns if r.at_eof())
    for _, w in conns:
        w.close()
    print(f"held {len(conns)} idle for {hold:.0f} s; {closed_by_peer} closed by the server meanwhile", flush=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
