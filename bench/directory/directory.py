#!/usr/bin/env python3
"""Helpers of bench/directory/import.sh (a benchmark, not a test).

  generate CLIENTS TENANTS OUT   write OUT (NDJSON, one client with its key per line: tenant, plan, label, some
                                 overrides) and OUT.tenants (one tenant id per line)
  put-tenants BASE TOKEN FILE    PUT /api/v1/tenants/{id} for every id of FILE over one keep-alive connection
  read-all BASE TOKEN LIMIT      GET /api/v1/directory?since=0&limit=LIMIT page after page until more is false;
                                 prints "pages entries seconds last-seq"
"""
import http.client
import json
import random
import re
import sys
import time
import urllib.parse

PLANS = ["free", "pro", "enterprise"]


def generate(clients, tenants, out):
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
            entry["label"] = "client %d" % i
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


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "generate":
        generate(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif command == "put-tenants":
        put_tenants(sys.argv[2], sys.argv[3], sys.argv[4])
    elif command == "read-all":
        read_all(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(__doc__)
