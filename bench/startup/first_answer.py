#!/usr/bin/env python3
"""Launches a command and times it to its first successful answer of a real request.

Usage: first_answer.py URL EXPECTED_STATUS LOG -- command [args...]

Starts the command (its output to LOG, in a session of its own so it outlives this helper), then
polls URL every 5 ms with a plain GET until it answers EXPECTED_STATUS. Prints one line,
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


def answered(url, expected):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=2)
    try:
        conn.request("GET", parts.path or "/")
        return conn.getresponse().status == expected
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
    url, expected, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    command = sys.argv[sys.argv.index("--") + 1:]
    with open(log, "wb") as out:
        start = time.monotonic()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    while time.monotonic() - start < DEADLINE_S:
        if answered(url, expected):
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
