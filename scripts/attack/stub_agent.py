#!/usr/bin/env python3
"""Stub stdio ACP agents for the bridge attacks of scripts/attack (standard library only).

  stub_agent.py deaf           answers `initialize`, then never reads stdin again (attack 4:
                               a program whose stdin fills up); exits after 120 s at most.
  stub_agent.py log FILE       answers `initialize`, then logs to FILE (one line each, after the
                               Unix time) every line it reads, end of input, SIGTERM,
                               SIGINT and SIGHUP (attack 7: how a bridged program is stopped);
                               after end of input it keeps running (up to 30 s) so that a later
                               signal is seen too.

Both write one JSON-RPC line per answer on stdout (ndjson framing).
"""

import json
import os
import signal
import sys
import time

START = time.monotonic()


def answer_initialize(line):
    """Writes the answer to an `initialize` request line; returns whether it was one."""
    try:
        msg = json.loads(line)
    except ValueError:
        return False
    if not isinstance(msg, dict) or msg.get("method") != "initialize":
        return False
    result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg.get("id"), "result": result}) + "\n")
    sys.stdout.flush()
    return True


def deaf():
    deadline = START + 120
    while time.monotonic() < deadline:
        line = sys.stdin.readline()
        if not line:
            return
        if answer_initialize(line):
            break
    # Never read again: the bridge's writes to our stdin fill the pipe and wait.
    while time.monotonic() < deadline:
        time.sleep(1)


def log(path):
    out = open(path, "a", buffering=1)

    def note(what):
        out.write(f"{time.time():.3f} {what}\n")

    def on_signal(signum, _frame):
        note(f"signal {signal.Signals(signum).name}")
        if signum == signal.SIGTERM:
            note("exit after SIGTERM")
            os._exit(0)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    note(f"started pid {os.getpid()}")
    deadline = START + 60
    while time.monotonic() < deadline:
        line = sys.stdin.readline()
        if not line:
            note("end of input")
            break
        note(f"read {line.strip()[:80]}")
        answer_initialize(line)
    end = time.monotonic() + 30
    while time.monotonic() < min(end, deadline):
        time.sleep(0.1)
    note("exit on its own")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "deaf":
        deaf()
    elif len(sys.argv) >= 3 and sys.argv[1] == "log":
        log(sys.argv[2])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
