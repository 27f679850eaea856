#!/usr/bin/env python3
"""A WebSocket client that sends headers, for the demo's /ws/echo through a gateway.

    python3 demo/wsclient.py -H 'X-API-Key: ak_42' ws://127.0.0.1:8080/ws/echo

Each line read from standard input goes out as a text message; each message that comes back is printed. A refused
upgrade prints its status (429 while the key holds its two sockets) and exits 1. It needs the websockets library,
Debian's and Ubuntu's python3-websockets (apt-get install python3-websockets); `python3 -m websockets URI` of that
package is an interactive client too, but sends no header, so a rule keyed by API key refuses it (401).
"""
import argparse
import asyncio
import inspect
import os
import sys
import threading

DISTRIBUTION_PYTHON = "/usr/bin/python3"

try:
    import websockets
except ImportError:
    # the distribution's package serves the distribution's python3, which a python3 of another kind (pyenv,
    # a virtualenv) earlier on the PATH does not see
    if os.path.exists(DISTRIBUTION_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(DISTRIBUTION_PYTHON):
        os.execv(DISTRIBUTION_PYTHON, [DISTRIBUTION_PYTHON, *sys.argv])
    sys.exit("wsclient: the websockets library is missing: apt-get install python3-websockets")


def headers(values):
    pairs = []
    for value in values:
        name, sep, field = value.partition(":")
        if not sep:
            sys.exit(f"wsclient: -H takes 'Name: value', not {value!r}")
        pairs.append((name.strip(), field.strip()))
    return pairs


def refused_status(error):
    """The HTTP status of a refused upgrade, however this version of the library reports it; None otherwise."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None) or getattr(error, "status_code", None)
    return status


async def relay(uri, sent_headers):
    # websockets 14 and later name the argument additional_headers, earlier versions extra_headers
    named = "additional_headers" if "additional_headers" in inspect.signature(websockets.connect).parameters \
        else "extra_headers"
    try:
        socket = await websockets.connect(uri, **{named: sent_headers})
    except (websockets.exceptions.InvalidHandshake, OSError) as error:
        status = refused_status(error)
        print(f"refused: HTTP {status}" if status else f"not connected: {error}", file=sys.stderr)
        return 1
    try:
        loop = asyncio.get_running_loop()
        lines = asyncio.Queue()

        def read_input():  # a daemon thread: a prompt left waiting never keeps the client from exiting
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line.rstrip("\n"))
            loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read_input, daemon=True).start()
        counts = {"sent": 0, "received": 0}

        async def send():
            while (line := await lines.get()) is not None:
                await socket.send(line)
                counts["sent"] += 1

        async def receive():
            async for message in socket:
                print(message if isinstance(message, str) else message.decode("utf-8", "replace"), flush=True)
                counts["received"] += 1
                if sending.done() and counts["received"] >= counts["sent"]:
                    return

        sending = asyncio.ensure_future(send())
        receiving = asyncio.ensure_future(receive())
        await asyncio.wait({sending, receiving}, return_when=asyncio.FIRST_COMPLETED)
        if sending.done() and not receiving.done() and counts["received"] < counts["sent"]:
            # standard input ended: the echoes still on their way are printed before the socket closes
            await asyncio.wait({receiving}, timeout=10)
        for task in (sending, receiving):
            task.cancel()
    finally:
        await socket.close()
    return 0


def main():
    parser = argparse.ArgumentParser(description="A WebSocket client that sends headers.")
    parser.add_argument("-H", dest="headers", action="append", default=[], metavar="'Name: value'",
                        help="a header of the upgrade request (repeatable)")
    parser.add_argument("uri", help="ws:// or wss:// URI")
    args = parser.parse_args()
    sys.exit(asyncio.run(relay(args.uri, headers(args.headers))))


if __name__ == "__main__":
    main()
