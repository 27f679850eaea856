#!/usr/bin/env python3
"""Launches a command and times it to its first successful answer of a real request.

Usage: first_answer.py URL EXPECTED_STATUS LOG [--api-key KEY] [--wait-header NAME] -- command [args...]

Starts the command (its output to LOG, in a session of its own so it outlives this helper), then
polls URL every 5 ms with a GET (carrying `X-API-Key: KEY` with --api-key) until it answers
EXPECTED_STATUS (and, with --wait-header, carries the response header NAME: for a gateway, its limiter's
own header, proof that the request was checked and not merely proxied before the rules loaded). Prints one line,
"<pid> <ms from launch to that answer> <VmRSS kB right after it>", and leaves the process running:
the caller measures it further and stops it. Exits 1 (after killing the process) if the process dies
or no such answer comes within 120 s. One process polling in a loop, rather than a curl per attempt,
keeps the measuring from taking CPU away from the JVM it measures.
"""
import http.client
import os
import signal
import subprocess
import sys
import time
from urllib.parse import urlsplit

POLL_S = 0.005
DEADLINE_S = 120


def answered(url, expected, api_key, header):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=2)
    try:
        conn.request("GET", parts.path or "/", headers={"X-API-Key": api_key} if api_key else {})
        answer = conn.getresponse()
        answer.read()
        return answer.status == expected and (header is None or answer.getheader(header) is not None)
    except OSError:
        return False
    finally:
        conn.close()


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def main():
    split = sys.argv.index("--")
    url, expected, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    options = dict(zip(sys.argv[4:split:2], sys.argv[5:split:2]))
    unknown = set(options) - {"--api-key", "--wait-header"}
    if unknown or (split - 4) % 2:
        print(f"unknown or incomplete options {sorted(unknown) or sys.argv[4:split]}; see the usage", file=sys.stderr)
        return 2
    api_key, header = options.get("--api-key"), options.get("--wait-header")
    command = sys.argv[split + 1:]
    with open(log, "wb") as out:
        start = time.monotonic()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    while time.monotonic() - start < DEADLINE_S:
        if answered(url, expected, api_key, header):
            elapsed_ms = (time.monotonic() - start) * 1000
            print(f"{proc.pid} {elapsed_ms:.0f} {rss_kb(proc.pid)}")
            return 0
        if proc.poll() is not None:
            print(f"the process exited with {proc.returncode} before answering; see {log}", file=sys.stderr)
            return 1
        time.sleep(POLL_S)
    os.kill(proc.pid, signal.SIGKILL)
    print(f"no {expected} from {url} within {DEADLINE_S} s; see {log}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
