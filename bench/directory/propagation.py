#!/usr/bin/env python3
"""How fast a directory change reaches every gateway of a running stack (./tollgate up).

For each of N fresh API keys: write the client with an override of limit 0 for RULE (PUT /api/v1/clients/key, the key in X-API-Key),
then ask every gateway, over and over, until each rejects the key by that override (429 with
RateLimit-Policy q=0: a rejection that spends nothing); then remove the override (PUT the entry without it)
and wait until each gateway reports the rule's own policy again. The time from the write's answer to the last
gateway's first such answer is one sample; the table gives p50, p99 and max per kind of change.

Env: RULES_URL (http://127.0.0.1:8081) GATEWAYS ("http://127.0.0.1:8080 http://127.0.0.1:8082
http://127.0.0.1:8083") TOKEN (TOLLGATE_ADMIN_TOKEN, else the launcher's .tollgate/admin-token) RULE (orders.write) METHOD (POST) PATH (/orders/1) N (50)
BOUND_S (5: a change not seen everywhere by then fails the run)
"""
import http.client
import json
import os
import statistics
import sys
import time
import urllib.parse
import uuid

RULES = urllib.parse.urlsplit(os.environ.get("RULES_URL", "http://127.0.0.1:8081"))
GATEWAYS = [urllib.parse.urlsplit(u) for u in os.environ.get(
    "GATEWAYS", "http://127.0.0.1:8080 http://127.0.0.1:8082 http://127.0.0.1:8083").split()]
def launcher_token():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".tollgate", "admin-token")
    with open(path) as f:
        return f.read().strip()


TOKEN = os.environ.get("TOKEN") or os.environ.get("TOLLGATE_ADMIN_TOKEN") or launcher_token()
RULE = os.environ.get("RULE", "orders.write")
METHOD = os.environ.get("METHOD", "POST")
PATH = os.environ.get("PATH_TO", "/orders/1")
N = int(os.environ.get("N", "50"))
BOUND_S = float(os.environ.get("BOUND_S", "5"))


def connection(url):
    return http.client.HTTPConnection(url.hostname, url.port, timeout=5)


rules = connection(RULES)
gateways = [connection(g) for g in GATEWAYS]


def put_client(key, entry):
    rules.request("PUT", "/api/v1/clients/key", json.dumps(entry),
                  {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json", "X-API-Key": key})
    answer = rules.getresponse()
    body = answer.read()
    if answer.status not in (200, 201):
        sys.exit(f"PUT client answered {answer.status}: {body!r}")


def policy(gateway, key):
    gateway.request(METHOD, PATH, headers={"X-API-Key": key})
    answer = gateway.getresponse()
    answer.read()
    return answer.status, answer.getheader("RateLimit-Policy") or ""


def until_everywhere(key, seen):
    """Seconds from now until every gateway's answer for key satisfies seen(status, policy)."""
    start = time.monotonic()
    pending = set(range(len(gateways)))
    while pending:
        for i in list(pending):
            if seen(*policy(gateways[i], key)):
                pending.discard(i)
        if time.monotonic() - start > BOUND_S:
            sys.exit(f"a change to {key} did not reach gateways {sorted(pending)} within {BOUND_S} s")
    return time.monotonic() - start


samples = {"override": [], "removal": []}
for n in range(N):
    key = f"bench-propagation-{uuid.uuid4().hex[:12]}"
    put_client(key, {"overrides": {RULE: {"limit": 0}}})
    samples["override"].append(until_everywhere(key, lambda s, p: s == 429 and ";q=0;" in p))
    put_client(key, {})
    samples["removal"].append(until_everywhere(key, lambda s, p: ";q=0;" not in p and p != ""))

print(f"{N} changes of each kind, {len(gateways)} gateways, rule {RULE}; ms from the write's answer to the last "
      "gateway's first answer under the change")
print()
print("| change | p50, ms | p99, ms | max, ms |")
print("|---|---:|---:|---:|")
for kind, values in samples.items():
    ms = sorted(v * 1000 for v in values)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    print(f"| {kind} | {statistics.median(ms):.0f} | {p99:.0f} | {ms[-1]:.0f} |")
