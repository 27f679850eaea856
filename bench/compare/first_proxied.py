#!/usr/bin/env python3
"""Launches a gateway and times it to its first proxied answer that its limiter checked.

Usage: first_proxied.py URL API_KEY HEADER LOG -- command [args...]

Starts the command (output to LOG, in a session of its own), then polls URL every 5 ms with a GET that
carries `X-API-Key: API_KEY`, until the answer is 200 AND carries the response header HEADER (the
limiter's own header: proof that the request was checked, not merely proxied before the rules loaded).
Prints "<pid> <ms from launch to that answer> <VmRSS kB right after it>" and leaves the process running.
Exits 1 (after killing the process) if it dies or no such answer comes within 120 s.
(bench/startup/first_answer.py does the same for a plain GET without a key or a header to wait for.)
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


def checked_answer(url, api_key, header):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=2)
    try:
        conn.request("GET", parts.path or "/", headers={"X-API-Key": api_key})
        answer = conn.getresponse()
        answer.read()
        return answer.status == 200 and answer.getheader(header) is not None
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
    url, api_key, header, log = sys.argv[1:5]
    command = sys.argv[sys.argv.index("--") + 1:]
    with open(log, "wb") as out:
        start = time.monotonic()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    while time.monotonic() - start < DEADLINE_S:
        if checked_answer(url, api_key, header):
            elapsed_ms = (time.monotonic() - start) * 1000
            print(f"{proc.pid} {elapsed_ms:.0f} {rss_kb(proc.pid)}")
            return 0
        if proc.poll() is not None:
            print(f"the process exited with {proc.returncode} before answering; see {log}", file=sys.stderr)
            return 1
        time.sleep(POLL_S)
    os.kill(proc.pid, signal.SIGKILL)
    print(f"no checked 200 from {url} within {DEADLINE_S} s; see {log}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
