#!/usr/bin/env python3
"""The attacks of issue 19 against `agent --listen` and `bridge --listen`, measured.

Standard library only; loopback only; every loop bounded in count and time; every process it
starts is stopped at the end (SIGTERM, then SIGKILL by pid). Usually run through run.sh:

  attack.py run --agent BIN --bridge BIN [--only 1,3] [--label NAME] [--out FILE.jsonl]
  attack.py table OLD.jsonl NEW.jsonl       (a markdown table of two runs)

Each attack starts its own server (`BIN --listen 127.0.0.1:0`, the port read from its stderr),
measures, and prints one JSON line per figure: {"attack": N, "what": ..., "value": ...}.
RSS is the server process's VmRSS (bridged programs not included unless said). A guard stops
an attack early when the server's RSS passes --rss-limit-mb (default 6000).

Several attacks spread their clients over source addresses 127.0.0.2... so that the new
per-address caps (256 TCP sockets, 32 connections) do not decide the outcome by themselves; the
result says so where it matters.
"""

import argparse
import collections
import json
import os
import resource
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import base64
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
STUB = os.path.join(HERE, "stub_agent.py")
TCP_INFO = 11
TCP_STATES = {1: "ESTABLISHED", 7: "CLOSE", 8: "CLOSE_WAIT", 4: "FIN_WAIT1", 5: "FIN_WAIT2"}
MiB = 1024 * 1024

RESULTS = []
CURRENT = 0
OUT = None
LABEL = ""


def emit(attack, what, value):
    """Records one figure (printed and written to --out)."""
    row = {"attack": attack, "what": what, "value": value, "label": LABEL}
    RESULTS.append(row)
    line = json.dumps(row)
    print(line, flush=True)
    if OUT:
        OUT.write(line + "\n")
        OUT.flush()


# ---------------------------------------------------------------- processes


def rss_mb(pid):
    """VmRSS of `pid` in MB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return 0.0


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def cpu_seconds(pid):
    """User + system CPU seconds of `pid` so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid):
    """The pids whose parent is `pid`."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command may hold spaces and parentheses: the fields follow the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(int(name))
    return out


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


class Server:
    """One `--listen 127.0.0.1:0` server process, its port, its stderr tail, its RSS guard."""

    def __init__(self, argv, nofile=None, rss_limit_mb=6000, rss_kill_mb=8000):
        def limits():
            os.setsid()
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        env = dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn"))
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=limits, env=env,
        )
        self.pid = self.proc.pid
        self.tail = collections.deque(maxlen=40)
        self.port = None
        self.rss_limit_mb = rss_limit_mb
        self.rss_kill_mb = rss_kill_mb
        self.killed_at = None
        self.peak_rss = 0.0
        self.over = False
        self.known_children = set()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and self.port is None:
            ready, _, _ = select.select([self.proc.stderr], [], [], 0.5)
            if not ready:
                if self.proc.poll() is not None:
                    break
                continue
            line = self.proc.stderr.readline().decode(errors="replace")
            if not line:
                break
            self.tail.append(line.rstrip())
            marker = "serving ACP on http://127.0.0.1:"
            if marker in line:
                self.port = int(line.split(marker, 1)[1].split("/", 1)[0])
        if self.port is None:
            self.stop()
            raise RuntimeError(f"server did not start: {list(self.tail)}")
        threading.Thread(target=self._drain, daemon=True).start()
        self._stop_guard = threading.Event()
        threading.Thread(target=self._guard, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.tail.append(line.decode(errors="replace").rstrip())

    def _guard(self):
        while not self._stop_guard.wait(0.2):
            rss = rss_mb(self.pid)
            if rss is None:
                return
            self.peak_rss = max(self.peak_rss, rss)
            if rss > self.rss_limit_mb:
                self.over = True
            if rss > self.rss_kill_mb and self.killed_at is None:
                # Past the hard limit the machine's memory is at risk: the server is killed.
                self.killed_at = rss
                self.proc.kill()
            for child in children(self.pid):
                self.known_children.add(child)

    def rss(self):
        return rss_mb(self.pid)

    def stop(self):
        """SIGTERM, 8 s to exit, then SIGKILL; then every bridged program it left, by pid."""
        if hasattr(self, "_stop_guard"):
            self._stop_guard.set()
        if self.killed_at is not None:
            emit(CURRENT, "server KILLED by the guard at RSS MB", round(self.killed_at))
        self.known_children.update(children(self.pid))
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(8)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for pid in self.known_children:
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


# ---------------------------------------------------------------- sockets and HTTP


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def connect(port, src="127.0.0.1", rcvbuf=None, timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def tcp_state(sock):
    """The socket's TCP state, read without reading any data (Linux TCP_INFO)."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 8)
    except OSError:
        return "ERROR"
    return TCP_STATES.get(info[0], str(info[0]))


def is_open(sock):
    return tcp_state(sock) == "ESTABLISHED"


def source(i, per, first=0):
    """The source address of client `i` when `per` clients share an address: 127.0.0.2 and on,
    from the `first`-th address."""
    n = first + i // per
    return f"127.0.{1 + n // 250}.{2 + n % 250}"


def post_json(port, body, cid=None, src="127.0.0.1", timeout=10, sid=None):
    """A POST of `body` (a dict): (status, headers, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(src, 0))
    try:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if cid:
            headers["Acp-Connection-Id"] = cid
        if sid:
            headers["Acp-Session-Id"] = sid
        conn.request("POST", "/acp", body=json.dumps(body).encode(), headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
    finally:
        conn.close()


def initialize(port, src="127.0.0.1", timeout=10):
    """An `initialize` POST: (status, connection id or None)."""
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {}}}
    status, headers, _ = post_json(port, body, src=src, timeout=timeout)
    return status, headers.get("acp-connection-id")


def delete(port, cid, src="127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(src, 0))
    try:
        conn.request("DELETE", "/acp", headers={"Acp-Connection-Id": cid})
        return conn.getresponse().status
    except OSError:
        return None
    finally:
        conn.close()


class Stream:
    """A GET of the connection's SSE stream on a raw socket; reads only when asked."""

    def __init__(self, port, cid, src="127.0.0.1", rcvbuf=None, timeout=10):
        self.sock = connect(port, src, rcvbuf=rcvbuf, timeout=timeout)
        req = (f"GET /acp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
               f"Acp-Connection-Id: {cid}\r\n\r\n")
        self.sock.sendall(req.encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("stream closed before its headers")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        self.status = int(head.split(b" ", 2)[1])
        self.chunked = b"transfer-encoding: chunked" in head.lower()
        self.raw = self.buf
        self.buf = b""

    def _fill(self, deadline):
        self.sock.settimeout(max(0.05, deadline - time.monotonic()))
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.raw += chunk
        if not self.chunked:
            self.buf += self.raw
            self.raw = b""
            return
        while True:
            end = self.raw.find(b"\r\n")
            if end < 0:
                return
            size = int(self.raw[:end].split(b";")[0], 16)
            if len(self.raw) < end + 2 + size + 2:
                return
            self.buf += self.raw[end + 2 : end + 2 + size]
            self.raw = self.raw[end + 4 + size :]

    def message(self, deadline):
        """The next JSON message on the stream, or None at the deadline."""
        while time.monotonic() < deadline:
            while b"\n\n" in self.buf:
                event, self.buf = self.buf.split(b"\n\n", 1)
                data = b"\n".join(l[5:].lstrip() for l in event.split(b"\n") if l.startswith(b"data:"))
                if data:
                    return json.loads(data)
            try:
                self._fill(deadline)
            except socket.timeout:
                return None
        return None

    def answer(self, rid, deadline):
        """The answer to request `rid` (other messages skipped), or None at the deadline."""
        while True:
            msg = self.message(deadline)
            if msg is None or (msg.get("id") == rid and "method" not in msg):
                return msg

    def close(self):
        self.sock.close()


def session_new(port, cid, stream, rid=1, src="127.0.0.1"):
    body = {"jsonrpc": "2.0", "id": rid, "method": "session/new", "params": {"cwd": "/tmp", "mcpServers": []}}
    status, _, _ = post_json(port, body, cid=cid, src=src)
    if status != 202:
        return None
    msg = stream.answer(rid, time.monotonic() + 10)
    return (msg or {}).get("result", {}).get("sessionId")


# ---------------------------------------------------------------- the attacks


def attack_ws_ping(a):
    """1: a WebSocket client sending pings as fast as it can and never reading."""
    srv = Server([a.agent, "--listen", "127.0.0.1:0"], rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    try:
        sock = connect(srv.port, rcvbuf=4096)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET /acp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      "Sec-WebSocket-Protocol: acp\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 8192:
            head += sock.recv(1)  # the handshake only, byte by byte: nothing after it is read
        emit(1, "upgrade status", head.split(b" ", 2)[1].decode())
        mask = b"\x01\x02\x03\x04"
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"p" * 125))
        frame = bytes([0x89, 0x80 | 125]) + mask + payload
        burst = frame * (MiB // len(frame))
        sock.setblocking(False)
        start = time.monotonic()
        sent = 0
        closed_at = None
        rss10 = None
        view = memoryview(burst)
        off = 0
        while time.monotonic() - start < a.ws_hold:
            t = time.monotonic() - start
            if rss10 is None and t >= 10:
                rss10 = srv.rss()
                emit(1, "server RSS MB at 10 s", round(rss10 or 0))
                emit(1, "ping bytes sent in 10 s (MB)", round(sent / MiB))
            if srv.over:
                emit(1, "stopped: RSS over limit MB at s", [a.rss_limit_mb, round(t, 1)])
                break
            state = tcp_state(sock)
            if state != "ESTABLISHED":
                closed_at = t
                break
            _, w, _ = select.select([], [sock], [], 0.2)
            if not w:
                continue
            try:
                n = sock.send(view[off:])
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                closed_at = time.monotonic() - start
                break
            sent += n
            off = (off + n) % len(burst)
        if rss10 is None:
            emit(1, "server RSS MB at stop", round(srv.rss() or 0))
        emit(1, "server peak RSS MB", round(srv.peak_rss))
        emit(1, "connection closed by server", f"yes, at {closed_at:.1f} s ({tcp_state(sock)})"
             if closed_at is not None else f"no (still open after {time.monotonic() - start:.0f} s)")
        sock.close()
    finally:
        srv.stop()


def attack_slow_uploads(a):
    """2: 100 POSTs announcing 16 MiB - 1 that never finish."""
    n, size = a.uploads, 16 * MiB - 1
    srv = Server([a.agent, "--listen", "127.0.0.1:0"], rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    socks = []
    try:
        head = (f"POST /acp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {size}\r\n\r\n").encode()
        chunk = memoryview(b"x" * (256 * 1024))
        start = time.monotonic()
        for i in range(n):
            s = connect(srv.port)
            s.sendall(head)
            s.setblocking(False)
            socks.append([s, 0])
        # Everything but the last byte, as fast as the server takes it; answers noted as they come.
        todo = size - 1
        answers, rss10 = {}, None
        while time.monotonic() - start < a.upload_hold and not srv.over:
            if rss10 is None and time.monotonic() - start >= 10:
                rss10 = srv.rss()
            live = [e for e in socks if id(e) not in answers]
            pending = [e for e in live if e[1] < todo]
            r, w, _ = select.select([e[0] for e in live], [e[0] for e in pending], [], 0.5)
            for e in live:
                if e[0] in w and e[1] < todo:
                    try:
                        e[1] += e[0].send(chunk[: min(len(chunk), todo - e[1])])
                    except (BlockingIOError, InterruptedError):
                        pass
                    except OSError:
                        e[1] = todo
                if e[0] in r:
                    try:
                        data = e[0].recv(256)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        data = b""
                    what = (f"answered {data.split(b' ', 2)[1].decode(errors='replace')}" if data
                            else "closed without an answer")
                    answers[id(e)] = (what, time.monotonic() - start)
        sent = sum(min(e[1], todo) for e in socks)
        emit(2, "body bytes the server took (MB)", round(sent / MiB))
        emit(2, "server RSS MB at 10 s", round(rss10 or 0))
        emit(2, f"server RSS MB at {a.upload_hold:.0f} s", round(srv.rss() or 0))
        emit(2, "server peak RSS MB", round(srv.peak_rss))
        if srv.over:
            emit(2, "stopped: RSS over limit MB", a.rss_limit_mb)
        outcome, when = collections.Counter(), collections.defaultdict(list)
        for e in socks:
            what, t = answers.get(id(e), ("still open, no answer" if is_open(e[0]) else "closed", None))
            outcome[what] += 1
            if t is not None:
                when[what].append(t)
        emit(2, f"uploads after {a.upload_hold:.0f} s", dict(outcome))
        emit(2, "answer times (s): first-last", {k: f"{min(v):.1f}-{max(v):.1f}" for k, v in when.items()})
    finally:
        for s, _ in socks:
            s.close()
        srv.stop()


def open_idle(port, n, per, first=0, timeout=3):
    """`n` sockets that send nothing, `per` per source address; (sockets, failures)."""
    socks, failed = [], 0
    for i in range(n):
        try:
            socks.append(connect(port, source(i, per, first), timeout=timeout))
        except OSError:
            failed += 1
    return socks, failed


def attack_slowloris(a):
    """3: 200 slowloris clients and 2,000 idle sockets; then 1,100 idle sockets at 1024 fds."""
    raise_nofile()
    srv = Server([a.agent, "--listen", "127.0.0.1:0"], rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    slow, idle = [], []
    try:
        start = time.monotonic()
        for i in range(a.slowloris):
            try:
                s = connect(srv.port, source(i, 100))
                s.sendall(b"POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                slow.append(s)
            except OSError:
                pass
        idle, failed = open_idle(srv.port, a.idle, 200, first=10)
        emit(3, "sockets opened (slowloris, idle, failed); 200 per source address",
             [len(slow), len(idle), failed])
        emit(3, "server fds after connecting", fd_count(srv.pid))
        while time.monotonic() - start < 15:
            time.sleep(1)
            for s in slow:  # one header byte a second each
                try:
                    s.send(b"X")
                except OSError:
                    pass
        emit(3, "still open after 15 s: slowloris", f"{sum(map(is_open, slow))}/{len(slow)}")
        emit(3, "still open after 15 s: idle", f"{sum(map(is_open, idle))}/{len(idle)}")
        emit(3, "server fds after 15 s", fd_count(srv.pid))
    finally:
        for s in slow + idle:
            s.close()
        srv.stop()

    # The server's descriptor limit at 1024; 1,100 idle sockets; can a normal client get in?
    srv = Server([a.agent, "--listen", "127.0.0.1:0"], nofile=1024, rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    idle = []
    try:
        idle, failed = open_idle(srv.port, 1100, 110)
        emit(3, "fd limit 1024: idle sockets opened (failed); 110 per source address", [len(idle), failed])
        time.sleep(1)
        emit(3, "fd limit 1024: server fds", fd_count(srv.pid))
        start = time.monotonic()
        cpu0 = cpu_seconds(srv.pid)
        result = None
        while time.monotonic() - start < a.victim_wait:
            try:
                left = a.victim_wait - (time.monotonic() - start)
                status, cid = initialize(srv.port, src="127.0.1.250", timeout=max(0.5, left))
                result = f"status {status} after {time.monotonic() - start:.1f} s"
                break
            except OSError as e:
                result = f"failed: {type(e).__name__} after {time.monotonic() - start:.1f} s"
                time.sleep(0.2)
        emit(3, f"fd limit 1024: a normal client's initialize (waiting up to {a.victim_wait:.0f} s)", result)
        emit(3, "fd limit 1024: server CPU seconds meanwhile", round((cpu_seconds(srv.pid) or 0) - (cpu0 or 0), 1))
    finally:
        for s in idle:
            s.close()
        srv.stop()


def big_posts(a, port, cid, n, size, attack, srv, hold):
    """`n` POSTs of `size` bytes each on connection `cid`, all at once; their outcomes."""
    pad = memoryview(b"x" * size)
    socks = []
    start = time.monotonic()
    for i in range(n):
        prefix = json.dumps({"jsonrpc": "2.0", "id": 1000 + i, "method": "session/prompt",
                             "params": {"sessionId": "attack", "prompt": [{"type": "text", "text": ""}]}})
        # Put the pad inside the text: prefix up to the text's quotes.
        cut = prefix.rindex('""') + 1
        pre, post = prefix[:cut].encode(), prefix[cut:].encode()
        head = (f"POST /acp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Acp-Connection-Id: {cid}\r\nContent-Length: {len(pre) + size + len(post)}\r\n\r\n").encode()
        try:
            s = connect(port)
        except OSError:
            socks.append(None)
            continue
        s.setblocking(False)
        socks.append({"s": s, "parts": [memoryview(head + pre), pad, memoryview(post)], "part": 0, "off": 0,
                      "status": None, "t": None, "resp": b""})
    while time.monotonic() - start < hold and not srv.over:
        live = [e for e in socks if e and e["status"] is None]
        if not live:
            break
        want_w = [e["s"] for e in live if e["part"] < 3]
        r, w, _ = select.select([e["s"] for e in live], want_w, [], 0.5)
        for e in live:
            if e["s"] in w and e["part"] < 3:
                part = e["parts"][e["part"]]
                try:
                    e["off"] += e["s"].send(part[e["off"] : e["off"] + 1024 * 1024])
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    e["part"] = 3
                if e["off"] >= len(part):
                    e["part"] += 1
                    e["off"] = 0
            if e["s"] in r:
                try:
                    data = e["s"].recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    e["status"], e["t"] = "closed", time.monotonic() - start
                else:
                    e["resp"] += data
                    if b" " in e["resp"]:
                        e["status"] = e["resp"].split(b" ", 2)[1].decode(errors="replace")
                        e["t"] = time.monotonic() - start
    outcome = collections.Counter()
    slowest = collections.defaultdict(float)
    for e in socks:
        if e is None:
            outcome["connect failed"] += 1
        elif e["status"] is None:
            outcome["no answer (hanging)" + (" mid-body" if e["part"] < 3 else "")] += 1
        else:
            outcome[e["status"]] += 1
            slowest[e["status"]] = max(slowest[e["status"]], round(e["t"], 1))
    for e in socks:
        if e:
            e["s"].close()
    return dict(outcome), dict(slowest)


def attack_big_posts(a):
    """4: 100 x 15 MiB POSTs on one connection, to the bridge (deaf program) and to the agent."""
    for name, argv in (("bridge+deaf", [a.bridge, "--listen", "127.0.0.1:0", "--", sys.executable, STUB, "deaf"]),
                       ("agent", [a.agent, "--listen", "127.0.0.1:0"])):
        srv = Server(argv, rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
        try:
            status, cid = initialize(srv.port)
            if status != 200:
                emit(4, f"{name}: initialize", status)
                continue
            outcome, slowest = big_posts(a, srv.port, cid, a.posts, int(a.post_mib * MiB), 4, srv, a.posts_hold)
            emit(4, f"{name}: outcomes of {a.posts} x {a.post_mib:g} MiB POSTs after {a.posts_hold:.0f} s", outcome)
            emit(4, f"{name}: latest answer (s) per outcome", slowest)
            emit(4, f"{name}: server RSS MB at the end", round(srv.rss() or 0))
            emit(4, f"{name}: server peak RSS MB", round(srv.peak_rss))
            if srv.over:
                emit(4, f"{name}: stopped: RSS over limit MB", a.rss_limit_mb)
        finally:
            srv.stop()


def init_burst(port, n, src, workers=16, deadline_s=90):
    """`n` initialize POSTs from `src` by `workers` threads: (status counts, connection ids)."""
    counts = collections.Counter()
    cids = []
    lock = threading.Lock()
    todo = iter(range(n))
    end = time.monotonic() + deadline_s

    def work():
        while time.monotonic() < end:
            with lock:
                if next(todo, None) is None:
                    return
            try:
                status, cid = initialize(port, src=src, timeout=max(1, end - time.monotonic()))
            except OSError as e:
                status, cid = type(e).__name__, None
            with lock:
                counts[status] += 1
                if cid:
                    cids.append(cid)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(deadline_s + 15)
    return dict(counts), cids


def attack_init_burst(a):
    """5: 1,024 initialize POSTs in a burst from one client, never used; another client after."""
    for name, argv in (("agent", [a.agent, "--listen", "127.0.0.1:0"]),
                       ("bridge", [a.bridge, "--listen", "127.0.0.1:0", "--", a.agent])):
        srv = Server(argv, rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
        try:
            start = time.monotonic()
            counts, cids = init_burst(srv.port, 1024, "127.0.0.1")
            emit(5, f"{name}: attacker's 1,024 initialize answers ({time.monotonic() - start:.0f} s)", counts)
            if name == "bridge":
                time.sleep(1)
                emit(5, "bridge: agent processes running after the burst", len(children(srv.pid)))
                emit(5, "bridge: agent processes started (peak seen)", len(srv.known_children))
                agents_rss = sum(rss_mb(p) or 0 for p in children(srv.pid))
                emit(5, "bridge: their RSS MB in total", round(agents_rss))
            emit(5, f"{name}: server RSS MB", round(srv.rss() or 0))
            # Another client (another address): when does it get in?
            begin = time.monotonic()
            first, got_in, seen = None, None, collections.Counter()
            while time.monotonic() - begin < a.victim_wait:
                try:
                    status, cid = initialize(srv.port, src="127.0.0.2", timeout=10)
                except OSError as e:
                    status, cid = type(e).__name__, None
                seen[status] += 1
                first = first if first is not None else status
                if status == 200:
                    got_in = time.monotonic() - begin
                    delete(srv.port, cid, "127.0.0.2")
                    break
                time.sleep(2)
            emit(5, f"{name}: another client's first initialize", first)
            emit(5, f"{name}: another client got in", f"after {got_in:.1f} s" if got_in is not None
                 else f"no, {dict(seen)} for {a.victim_wait} s")
            # When does the attacker get in again (its unused connections expired)?
            if name == "agent":
                begin = time.monotonic()
                again = None
                while time.monotonic() - begin < 25:
                    try:
                        status, cid = initialize(srv.port, src="127.0.0.1", timeout=5)
                    except OSError:
                        status = None
                    if status == 200:
                        again = time.monotonic() - start
                        break
                    time.sleep(1)
                emit(5, "agent: the attacker gets 200 again", f"at {again:.0f} s after the burst began"
                     if again is not None else f"no, within {time.monotonic() - start:.0f} s")
        finally:
            srv.stop()


def attack_sse_readers(a):
    """6: SSE readers that start a prompt streaming a lot and never read."""
    raise_nofile()
    srv = Server([a.agent, "--listen", "127.0.0.1:0"], rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    readers = []
    try:
        start = time.monotonic()
        base = srv.rss()
        started, failed = 0, collections.Counter()
        for i in range(a.readers):
            if srv.over or time.monotonic() - start > 120:
                break
            src = source(i, 20)
            try:
                status, cid = initialize(srv.port, src=src)
                if status != 200:
                    failed[f"initialize {status}"] += 1
                    continue
                stream = Stream(srv.port, cid, src=src, rcvbuf=4096)
                readers.append(stream)
                for k in range(a.sessions):
                    sid = session_new(srv.port, cid, stream, rid=10 + k, src=src)
                    if not sid:
                        failed["session/new"] += 1
                        continue
                    body = {"jsonrpc": "2.0", "id": 100 + k, "method": "session/prompt",
                            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": a.prompt}]}}
                    status, _, _ = post_json(srv.port, body, cid=cid, src=src, sid=sid)
                    if status == 202:
                        started += 1
                    else:
                        failed[f"prompt {status}"] += 1
            except (OSError, RuntimeError, ValueError) as e:
                failed[type(e).__name__] += 1
        shown = a.prompt if len(a.prompt) < 40 else f"chat, {len(a.prompt)} bytes"
        emit(6, f"readers, prompts started ({a.sessions} per reader, prompt {shown!r}), failures",
             [len(readers), started, dict(failed)])
        emit(6, f"server RSS MB: before, all started ({time.monotonic() - start:.0f} s)",
             [round(base or 0), round(srv.rss() or 0)])
        settle = time.monotonic()
        while time.monotonic() - settle < a.readers_hold and not srv.over:
            time.sleep(0.5)
        rss = srv.rss() or 0
        emit(6, f"server RSS MB {a.readers_hold} s later; per reader", [round(rss), round((rss - (base or 0)) / max(1, len(readers)), 1)])
        emit(6, "server peak RSS MB", round(srv.peak_rss))
        if srv.over:
            emit(6, "stopped: RSS over limit MB", a.rss_limit_mb)
        emit(6, "streams still open", f"{sum(is_open(r.sock) for r in readers)}/{len(readers)}")
    finally:
        for r in readers:
            r.close()
        srv.stop()


def attack_bridge_stop(a):
    """7: how a bridged program learns that its connection ended (DELETE)."""
    log = f"/tmp/attack-stub-{os.getpid()}.log"
    if os.path.exists(log):
        os.unlink(log)
    srv = Server([a.bridge, "--listen", "127.0.0.1:0", "--", sys.executable, STUB, "log", log],
                 rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    try:
        status, cid = initialize(srv.port)
        emit(7, "initialize", status)
        time.sleep(0.5)
        kids = children(srv.pid)
        deleted, deleted_wall = time.monotonic(), time.time()
        emit(7, "DELETE", delete(srv.port, cid))
        gone = None
        while time.monotonic() - deleted < 20:
            if not any(alive(p) for p in kids):
                gone = time.monotonic() - deleted
                break
            time.sleep(0.05)
        emit(7, "program gone after DELETE", f"{gone:.2f} s" if gone is not None else "no, alive after 20 s")
        with open(log) as f:
            lines = [f"{float(t) - deleted_wall:+.2f} s {what.strip()}"
                     for t, what in (l.split(" ", 1) for l in f) if not what.startswith("read ")]
        emit(7, "what the program saw (its log)", lines)
    finally:
        srv.stop()
        if os.path.exists(log):
            os.unlink(log)


def attack_abandoned(a):
    """8: initialize + GET stream, then the client vanishes: when is its bridged program gone?"""
    srv = Server([a.bridge, "--listen", "127.0.0.1:0", "--", a.agent], rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    try:
        status, cid = initialize(srv.port)
        stream = Stream(srv.port, cid)
        time.sleep(0.5)
        kids = children(srv.pid)
        emit(8, "initialize, stream, agent processes", [status, stream.status, len(kids)])
        stream.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        stream.close()  # gone without DELETE (a reset, as a crashed client)
        left = time.monotonic()
        gone = None
        while time.monotonic() - left < a.abandon_wait:
            if not any(alive(p) for p in kids):
                gone = time.monotonic() - left
                break
            time.sleep(0.5)
        emit(8, "agent process gone after the client vanished", f"{gone:.0f} s" if gone is not None
             else f"no, alive after {a.abandon_wait} s")
    finally:
        srv.stop()


def attack_any_origin(a):
    """9: --allow-origin '*'."""
    proc = subprocess.Popen([a.agent, "--listen", "127.0.0.1:0", "--allow-origin", "*"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        proc.wait(5)
        err = proc.stderr.read().decode(errors="replace").strip().splitlines()
        emit(9, "exit code", proc.returncode)
        emit(9, "stderr", [l for l in err if l][:3])
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        proc.wait(8)
        err = proc.stderr.read().decode(errors="replace").strip().splitlines()
        emit(9, "exit code", f"still serving after 5 s (exit {proc.returncode} on SIGTERM)")
        emit(9, "stderr", [l[:160] for l in err if "WARN" in l or "warn" in l][:2])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def attack_sessions(a):
    """10: does a second client's session/list show the first client's sessions?"""
    srv = Server([a.agent, "--listen", "127.0.0.1:0"], rss_limit_mb=a.rss_limit_mb, rss_kill_mb=a.rss_kill_mb)
    streams = []
    try:
        _, cid_a = initialize(srv.port)
        sa = Stream(srv.port, cid_a)
        streams.append(sa)
        sid = session_new(srv.port, cid_a, sa)
        _, cid_b = initialize(srv.port, src="127.0.0.2")
        sb = Stream(srv.port, cid_b, src="127.0.0.2")
        streams.append(sb)
        body = {"jsonrpc": "2.0", "id": 7, "method": "session/list", "params": {}}
        status, _, _ = post_json(srv.port, body, cid=cid_b, src="127.0.0.2")
        answer = sb.answer(7, time.monotonic() + 10) if status == 202 else None
        listed = [s.get("sessionId") for s in (answer or {}).get("result", {}).get("sessions", [])]
        emit(10, "client A's session", sid)
        emit(10, "client B's session/list", (answer or {}).get("error") or listed)
        emit(10, "B sees A's session", sid in listed)
        # And session/load of A's session by B.
        body = {"jsonrpc": "2.0", "id": 8, "method": "session/load",
                "params": {"sessionId": sid, "cwd": "/tmp", "mcpServers": []}}
        status, _, _ = post_json(srv.port, body, cid=cid_b, src="127.0.0.2", sid=sid)
        answer = sb.answer(8, time.monotonic() + 10) if status == 202 else status
        emit(10, "B's session/load of A's session", "error: " + answer["error"].get("message", "")
             if isinstance(answer, dict) and "error" in answer else ("loaded" if answer else answer))
    finally:
        for s in streams:
            s.close()
        srv.stop()


ATTACKS = {1: attack_ws_ping, 2: attack_slow_uploads, 3: attack_slowloris, 4: attack_big_posts,
           5: attack_init_burst, 6: attack_sse_readers, 7: attack_bridge_stop, 8: attack_abandoned,
           9: attack_any_origin, 10: attack_sessions}


def table(files):
    """A markdown table: one row per figure, one column per run."""
    runs = []
    for path in files:
        with open(path) as f:
            runs.append([json.loads(l) for l in f if l.strip()])
    labels = [r[0]["label"] if r else path for r, path in zip(runs, files)]
    keys = []
    for run in runs:
        for row in run:
            k = (row["attack"], row["what"])
            if k not in keys:
                keys.append(k)
    print("| # | figure | " + " | ".join(labels) + " |")
    print("|---|---|" + "---|" * len(labels))
    for k in sorted(keys, key=lambda k: k[0]):
        cells = []
        for run in runs:
            vals = [r["value"] for r in run if (r["attack"], r["what"]) == k]
            cells.append(json.dumps(vals[0]).replace("|", "/") if vals else "")
        print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")


def main():
    global OUT, LABEL, CURRENT
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--agent", required=True)
    r.add_argument("--bridge", required=True)
    r.add_argument("--only", default="1,2,3,4,5,6,7,8,9,10")
    r.add_argument("--label", default="run")
    r.add_argument("--out")
    r.add_argument("--rss-limit-mb", type=float, default=6000,
                   help="stop attacking once the server's RSS passes this")
    r.add_argument("--rss-kill-mb", type=float, default=8000,
                   help="kill the server once its RSS passes this")
    r.add_argument("--ws-hold", type=float, default=75, help="attack 1: seconds to keep pinging")
    r.add_argument("--uploads", type=int, default=100)
    r.add_argument("--upload-hold", type=float, default=40)
    r.add_argument("--slowloris", type=int, default=200)
    r.add_argument("--idle", type=int, default=2000)
    r.add_argument("--posts", type=int, default=100)
    r.add_argument("--posts-hold", type=float, default=40)
    r.add_argument("--post-mib", type=float, default=15, help="attack 4: each POST's size")
    r.add_argument("--victim-wait", type=float, default=40)
    r.add_argument("--readers", type=int, default=200)
    r.add_argument("--sessions", type=int, default=1, help="attack 6: prompts (sessions) per reader")
    r.add_argument("--prompt", default="stream 10000 0", help="attack 6: the prompt's text")
    r.add_argument("--prompt-bytes", type=int, default=0,
                   help="attack 6: instead of --prompt, a chat prompt of one word this long (echoed back)")
    r.add_argument("--readers-hold", type=float, default=15)
    r.add_argument("--abandon-wait", type=float, default=150)
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    a = p.parse_args()
    if a.cmd == "table":
        table(a.files)
        return
    LABEL = a.label
    if a.cmd == "run" and a.prompt_bytes:
        a.prompt = "x" * a.prompt_bytes
    OUT = open(a.out, "a") if a.out else None
    for n in [int(x) for x in a.only.split(",") if x.strip()]:
        print(f"# attack {n}: {ATTACKS[n].__doc__}", file=sys.stderr, flush=True)
        CURRENT = n
        try:
            ATTACKS[n](a)
        except Exception as e:  # one attack failing must not stop the others
            emit(n, "measurement failed", f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
