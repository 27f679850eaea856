"""Where a gateway's CPU goes per request, from async-profiler's collapsed stacks, as Markdown.

Usage: profile.py <results> <profiles-dir> <interval> [<pairs>]; <results> holds the bench's run() rows
(path req/s p50 p99 requests ...), <profiles-dir> one <path>.<round>.collapsed per timed run (CPU-time
samples, one every <interval>, e.g. 1ms); <pairs> the columns of differences, baseline:variant separated by
commas (default off:on,base-off:base-on, limiter-overhead.sh's). Each sample is charged to an owner:
- the innermost frame of Tollgate's own code, the Redis client or Micrometer (so a socket write the limiter
  asks for is the limiter's, and the proxying that the limiter's answer continues into is the proxy's);
- else the innermost layer of the HTTP stack it is in (Vert.x HTTP client or server, router, Netty);
- JIT compiler and GC/VM threads apart.
"kernel" is the part of it spent in the kernel (frames marked [k]: the TCP stack under send and recv, epoll,
scheduling), or in a system call's wrapper where no kernel frame was seen.
"""
import collections
import os
import re
import sys

OWNERS = [  # Tollgate's code and the libraries it calls on the hot path: the innermost frame decides
    ("io/vertx/redis/", "Redis client"),
    ("io/micrometer/", "metrics (Micrometer)"),
    ("io/tollgate/gateway/limiter/", "limiter"),
    ("io/tollgate/gateway/store/", "limiter"),
    ("io/tollgate/gateway/key/", "limiter"),
    ("io/tollgate/counter/", "limiter"),
    ("io/tollgate/gateway/http/RateLimitHeaders", "limiter"),
    ("io/tollgate/gateway/rules/", "rule matching"),
    ("io/tollgate/gateway/proxy/", "proxy and route (Tollgate)"),
    ("io/tollgate/gateway/http/", "proxy and route (Tollgate)"),
]
LAYERS = [  # where no owner is on the stack: the innermost layer of the HTTP stack
    ("io/vertx/core/http/impl/Http1xClient", "Vert.x HTTP client"),
    ("io/vertx/core/http/impl/HttpClient", "Vert.x HTTP client"),
    ("io/vertx/core/http/", "Vert.x HTTP server"),
    ("io/vertx/ext/web/", "router (Vert.x Web, Quarkus)"),
    ("io/quarkus/vertx/http/", "router (Vert.x Web, Quarkus)"),
    ("io/vertx/", "Vert.x core"),
    ("io/netty/handler/codec/http/", "Netty HTTP codec"),
    ("io/netty/", "Netty transport"),
]
KERNEL = re.compile(r"_\[k\]$|^(__GI___)?(__libc_)?(send|sendto|sendmsg|recv|recvfrom|read|write|writev|readv|"
                    r"epoll_wait|epoll_pwait2?|syscall|futex)$")


def owner(frames):
    if any("CompileBroker" in f or "C2Compiler" in f or "Compilation::" in f for f in frames):
        return "JIT compiler"
    if any(k in f for f in frames for k in ("VMThread", "GCTaskThread", "GenCollectedHeap", "SerialHeap",
                                             "VM_Operation", "G1")):
        return "GC and VM"
    for table in (OWNERS, LAYERS):
        for f in reversed(frames):
            for prefix, name in table:
                if f.startswith(prefix):
                    return name
    return "other"


def interval_us(text):
    for unit, f in (("us", 1.0), ("ms", 1000.0), ("s", 1e6)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * f
    return float(text) / 1000.0  # async-profiler reads a bare number as nanoseconds


results, directory, interval = sys.argv[1], sys.argv[2], interval_us(sys.argv[3])
pairs = [tuple(p.split(":")) for p in (sys.argv[4] if len(sys.argv) > 4 else "off:on,base-off:base-on").split(",")]
requests = collections.Counter()
rows = [line.split() for line in open(results)]
samples = collections.defaultdict(collections.Counter)  # path -> (owner, kernel?) -> samples
for name in sorted(os.listdir(directory)):
    path, rnd, _ = name.split(".")
    runs = [r for r in rows if r[0] == path]
    if int(rnd) > len(runs):
        continue
    requests[path] += int(runs[int(rnd) - 1][4])
    for line in open(os.path.join(directory, name)):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        frames = stack.split(";")
        samples[path][(owner(frames), bool(KERNEL.search(frames[-1])))] += int(n)

order = [p for pair in pairs for p in pair]
paths = sorted((p for p in requests if requests[p]), key=lambda p: order.index(p) if p in order else len(order))
names = sorted({o for p in paths for o, _ in samples[p]},
               key=lambda o: -max(samples[p][(o, False)] + samples[p][(o, True)] for p in paths))


def per_request(p, o, kernel=None):
    n = sum(v for (oo, k), v in samples[p].items() if (o is None or oo == o) and (kernel is None or k == kernel))
    return n * interval / requests[p]


diffs = [(a, b) for a, b in pairs if a in paths and b in paths]
print("| owner | " + " | ".join(f"{p} µs/req (kernel)" for p in paths)
      + "".join(f" | {b} − {a}" for a, b in diffs) + " |")
print("|---" * (1 + len(paths) + len(diffs)) + "|")
for o in names + [None]:
    cells = [f"{per_request(p, o):.1f} ({per_request(p, o, True):.1f})" for p in paths]
    cells += [f"{per_request(b, o) - per_request(a, o):+.1f}" for a, b in diffs]
    print(f"| {o or '**all sampled**'} | " + " | ".join(cells) + " |")
print(f"({', '.join(f'{p}: {requests[p]:,} requests, {sum(samples[p].values()):,} samples' for p in paths)})")
