#!/usr/bin/env python3
"""Opens N keep-alive HTTP/1.1 connections to HOST:PORT, sends one GET on each and reads the
full response, then holds every connection open (idle) for HOLD seconds and closes them.

Used by bench/memory.sh. Prints one line per phase; writes READY_FILE (if given) once every
connection is open and answered, so the caller can sample the proxy's memory while they idle.
With IDLE_H2=1 in the environment each connection speaks HTTP/2 by prior knowledge (h2c)
instead: the preface, SETTINGS (and the ACK of the server's), one GET on stream 1, read to its
end, then idle. With IDLE_TLS=1 every connection is TLS first (the certificate is not verified;
ALPN offers h2 with IDLE_H2=1, else http/1.1), so the proxy holds a TLS session per connection.

usage: idle_conns.py HOST PORT N HOLD_SECONDS [READY_FILE] [PARALLEL]
"""
import asyncio
import os
import ssl
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    """A field line as an HPACK literal without indexing, new name, no Huffman (names, values < 127 bytes)."""
    return bytes([0, len(name)]) + name + bytes([len(value)]) + value


async def h2_get(reader, writer, host, port):
    """One GET on stream 1 over h2c (or h2 over TLS); returns the first byte of the response's header block."""
    scheme = b"https" if os.environ.get("IDLE_TLS") == "1" else b"http"
    block = b"".join(literal(n, v) for n, v in ((b":method", b"GET"), (b":path", b"/"), (b":scheme", scheme),
                                                 (b":authority", f"{host}:{port}".encode())))
    writer.write(PREFACE + frame(4, 0, 0) + frame(1, 0x5, 1, block))
    await writer.drain()
    status = None
    while True:
        head = await asyncio.wait_for(reader.readexactly(9), 10)
        length = int.from_bytes(head[:3], "big")
        kind, flags, stream = head[3], head[4], int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
        payload = await asyncio.wait_for(reader.readexactly(length), 10) if length else b""
        if kind == 4 and not flags & 1:
            writer.write(frame(4, 1, 0))  # ACK the server's SETTINGS
        if stream == 1 and kind == 1 and status is None:
            status = payload[:1]
        if stream == 1 and kind in (0, 1) and flags & 1:
            return status
        if kind in (3, 7):
            raise RuntimeError(f"stream reset or GOAWAY (frame type {kind})")


def tls_context():
    """A client context that verifies nothing (the bench's self-signed certificate), or None without IDLE_TLS=1."""
    if os.environ.get("IDLE_TLS") != "1":
        return None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2"] if os.environ.get("IDLE_H2") == "1" else ["http/1.1"])
    return ctx


async def one(host, port, sem, conns, failures, tls):
    async with sem:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, ssl=tls), 10)
            if os.environ.get("IDLE_H2") == "1":
                status = await h2_get(reader, writer, host, port)
                if status != b"\x88":  # HPACK static index 8, ":status: 200"
                    failures.append(f"h2 status block {status!r}")
                conns.append((reader, writer))
                return
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
    tls = tls_context()
    await asyncio.gather(*(one(host, port, sem, conns, failures, tls) for _ in range(n)))
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
