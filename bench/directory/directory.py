#!/usr/bin/env python3
"""Helpers of bench/directory/import.sh (a benchmark, not a test).

  generate CLIENTS TENANTS OUT [TAG]
                                 write OUT (NDJSON, one client with its key per line: tenant, plan, label, some
                                 overrides; TAG, when given, ends every label) and OUT.tenants (one tenant id per
                                 line)
  put-rules BASE TOKEN           POST the rules the generated clients' plans and overrides name (bench.orders,
                                 keyed api_key, with plans; bench.tenant, keyed tenant)
  put-tenants BASE TOKEN FILE    PUT /api/v1/tenants/{id} for every id of FILE over one keep-alive connection
  read-all BASE TOKEN LIMIT      GET /api/v1/directory?since=0&limit=LIMIT page after page until more is false;
                                 prints "pages entries seconds last-seq"
  propagate BASE TOKEN FILE KEY LIMIT PATH GATEWAY...
                                 PUT FILE as a bulk import, then ask each GATEWAY (http://host:port) for PATH with
                                 X-API-Key KEY until its RateLimit-Policy says q=LIMIT (KEY is FILE's last line,
                                 with an override of that limit); prints "seconds seq" (the seconds from the
                                 import's answer until the last gateway's first such answer, env BOUND_S [600] at
                                 most; asked every 5 ms at first, every 50 ms at most) and,
                                 for each NAME=PID of the env CPU_PIDS, the CPU seconds that process used meanwhile
"""
import http.client
import json
import os
import random
import re
import sys
import time
import urllib.parse

PLANS = ["free", "pro", "enterprise"]
BOUND_S = int(os.environ.get("BOUND_S", "600"))


def generate(clients, tenants, out, tag=""):
    rng = random.Random(42)
    ids = ["t%05d" % i for i in range(tenants)]
    with open(out + ".tenants", "w") as f:
        f.write("\n".join(ids) + "\n")
    with open(out, "w") as f:
        lines = []
        for i in range(clients):
            entry = {"key": "ak_bench_%07d_%08x" % (i, rng.getrandbits(32)), "tenant": ids[i % tenants]}
            if i % 4:
                entry["plan"] = PLANS[i % 3]
            entry["label"] = "client %d%s" % (i, tag)
            if i % 100 == 0:
                entry["overrides"] = {"bench.orders": {"limit": 50 + i % 1000, "period": "1m"}}
            lines.append(json.dumps(entry, separators=(",", ":")))
            if len(lines) == 10000:
                f.write("\n".join(lines) + "\n")
                lines = []
        if lines:
            f.write("\n".join(lines) + "\n")


def connection(base):
    url = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(url.hostname, url.port, timeout=600)


RULES = [
    {"id": "bench.orders", "match": {"path": "/orders/**"}, "key": "api_key", "limit": 100, "period": "1m",
     "plans": {"free": {"limit": 10}, "pro": {"limit": 1000, "burst": 2000}, "enterprise": {"limit": 10000}}},
    {"id": "bench.tenant", "key": "tenant", "limit": 10000, "period": "1m",
     "plans": {"enterprise": {"limit": 100000}}},
]


def put_rules(base, token):
    conn = connection(base)
    for rule in RULES:
        conn.request("POST", "/api/v1/rules", body=json.dumps(rule),
                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        answer = conn.getresponse()
        body = answer.read()
        if answer.status != 201:
            sys.exit("POST rule %s: %d %s" % (rule["id"], answer.status, body[:300]))


def put_tenants(base, token, path):
    conn = connection(base)
    with open(path) as f:
        for tenant in (line.strip() for line in f):
            if not tenant:
                continue
            conn.request("PUT", "/api/v1/tenants/" + tenant, body=json.dumps({"plan": PLANS[hash(tenant) % 3]}),
                         headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            answer = conn.getresponse()
            answer.read()
            if answer.status not in (200, 201):
                sys.exit("PUT tenant %s: %d" % (tenant, answer.status))


HEAD = re.compile(rb'^\{"seq":(\d+),"more":(true|false)')


def read_all(base, token, limit):
    conn = connection(base)
    since, pages, entries = 0, 0, 0
    start = time.monotonic()
    while True:
        conn.request("GET", "/api/v1/directory?since=%d&limit=%d" % (since, limit),
                     headers={"Authorization": "Bearer " + token})
        answer = conn.getresponse()
        body = answer.read()
        if answer.status != 200:
            sys.exit("GET /api/v1/directory: %d %s" % (answer.status, body[:300]))
        head = HEAD.match(body)
        pages += 1
        entries += body.count(b'"digest":') + body.count(b'"id":')
        since = int(head.group(1))
        if head.group(2) == b"false":
            break
    print(pages, entries, "%.2f" % (time.monotonic() - start), since)


def propagate(base, token, path, key, limit, on, gateways):
    conn = connection(base)
    with open(path, "rb") as body:
        conn.request("PUT", "/api/v1/clients", body=body,
                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/x-ndjson",
                              "Content-Length": str(os.fstat(body.fileno()).st_size)})
        answer = conn.getresponse()
        reply = answer.read()
    answered = time.monotonic()
    processes = [p.split("=") for p in os.environ.get("CPU_PIDS", "").split()]
    cpu_before = [cpu_seconds(pid) for _, pid in processes]
    if answer.status != 200:
        sys.exit("import: %d %s" % (answer.status, reply[:300]))
    wanted = ";q=%d;" % limit
    pending = {g: connection(g) for g in gateways}
    while pending:
        for gateway, gw in list(pending.items()):
            gw.request("GET", on, headers={"X-API-Key": key})
            got = gw.getresponse()
            got.read()
            if wanted in (got.getheader("RateLimit-Policy") or ""):
                del pending[gateway]
        if time.monotonic() - answered > BOUND_S:
            sys.exit("the last line did not reach %s within %d s" % (sorted(pending), BOUND_S))
        # the gateways share the machine with this loop: every 5 ms at first, at most every 50 ms
        time.sleep(min(0.05, max(0.005, (time.monotonic() - answered) / 50)))
    took = time.monotonic() - answered
    used = ["%s=%.2f" % (name, cpu_seconds(pid) - before) for (name, pid), before in zip(processes, cpu_before)]
    print("%.3f %d %s" % (took, json.loads(reply)["seq"], " ".join(used)))


def cpu_seconds(pid):
    """User and system CPU seconds process pid used so far."""
    with open("/proc/%s/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "generate":
        generate(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], *sys.argv[5:6])
    elif command == "put-rules":
        put_rules(sys.argv[2], sys.argv[3])
    elif command == "put-tenants":
        put_tenants(sys.argv[2], sys.argv[3], sys.argv[4])
    elif command == "read-all":
        read_all(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == "propagate":
        propagate(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7], sys.argv[8:])
    else:
        sys.exit(__doc__)
