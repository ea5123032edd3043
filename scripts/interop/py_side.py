"""The Python SDK's side of the interop run (agent-client-protocol[http] 0.12.1, hypercorn).

    python py_side.py client URL [--no-reload | --reload-refused]
                                   The SDK's HTTP (http://) or WebSocket (ws://) client drives
                                   the agent at URL through the script below; exit 0 on success.
                                   Logs `STEP core: ok` and `STEP reload: ok` as the two parts
                                   pass; --no-reload skips the second (an agent whose sessions
                                   end with their connection, as behind the bridge);
                                   --reload-refused expects the second's session/load to fail
                                   with -32002 (Resource not found, the schema's code for an
                                   unknown session) and logs `STEP reload: refused`.
                                   With ACP_INTEROP_TOKEN set, every request (HTTP) and the
                                   handshake (WebSocket) carry `Authorization: Bearer` with it.
    python py_side.py server       The SDK's ASGI app (create_asgi_app) with a small agent,
                                   under hypercorn on 127.0.0.1 (a free port): prints
                                   `listening http://127.0.0.1:PORT/acp` on stdout, logs each
                                   request's method, path and status on stderr.

The client's script (against the example agent of acp-rs, whose behaviour follows the first
word of the prompt): initialize (offering fs), session/new, `hello` (streamed updates),
`edit notes.txt` (fs/read_text_file, session/request_permission, fs/write_text_file),
`stream 100 100` cancelled with session/cancel after its first chunk, session/close, and
closing the transport; then a new connection: initialize and session/load of that session (its
history replayed as updates), a prompt in the loaded session, and closing again.

The server's agent: `hello` streams three chunks; `permission` asks session/request_permission
and says what was chosen; `slow` streams a chunk every 100 ms until session/cancel (or 10 s);
anything else is echoed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    connect_to_agent,
    start_tool_call,
    text_block,
    update_agent_message_text,
    update_tool_call,
)
from acp.exceptions import RequestError
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    ClientCapabilities,
    CloseSessionResponse,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

STEP_TIMEOUT = 15.0

# The error code the schema names for a session the agent does not know ("Resource not found").
RESOURCE_NOT_FOUND = -32002


def log(*args: Any) -> None:
    print("[py]", *args, file=sys.stderr, flush=True)


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(f"check failed: {message}")


# --- The client side ---


class InteropClient:
    """An editor stand-in: files in memory, every permission allowed once."""

    def __init__(self) -> None:
        self.files = {"notes.txt": "# Notes\n- TODO: one\n- TODO: two\n"}
        self.chunks = 0
        self.permissions = 0
        self.reads = 0
        self.writes: list[str] = []
        self.first_chunk: asyncio.Event | None = None
        self.kinds: set[str] = set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any):
        self.permissions += 1
        allow = next((o for o in options if o.kind == "allow_once"), options[0])
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.kinds.add(getattr(update, "session_update", "?"))
        if getattr(update, "session_update", None) == "agent_message_chunk":
            self.chunks += 1
            if self.first_chunk is not None:
                self.first_chunk.set()

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any):
        self.reads += 1
        name = path.rsplit("/", 1)[-1]
        if name not in self.files:
            raise FileNotFoundError(path)
        return ReadTextFileResponse(content=self.files[name])

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any):
        self.writes.append(path)
        self.files[path.rsplit("/", 1)[-1]] = content
        return WriteTextFileResponse()


async def run_client(url: str, reload: str) -> None:
    """`reload`: "load" (the session must load on a new connection), "refused" (session/load on
    a new connection must fail with RESOURCE_NOT_FOUND: the session belonged to the connection
    that made it), or "none"."""
    transport = await open_transport(url)
    editor = InteropClient()
    conn = connect_to_agent(editor, transport)
    try:
        init = await asyncio.wait_for(
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False
                ),
                client_info=Implementation(name="acp-interop-py-client", version="0"),
            ),
            STEP_TIMEOUT,
        )
        check(init.protocol_version == 1, f"protocolVersion {init.protocol_version}")
        log("initialized:", init.agent_info.name if init.agent_info else None)

        session = await asyncio.wait_for(conn.new_session(cwd="/tmp/interop", mcp_servers=[]), STEP_TIMEOUT)
        session_id = session.session_id
        log("session:", session_id)

        hello = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("hello")]), STEP_TIMEOUT)
        check(hello.stop_reason == "end_turn", f"hello: {hello.stop_reason}")
        check(editor.chunks > 0, "hello: no agent_message_chunk")
        log("hello: end_turn after", editor.chunks, "chunks")

        edit = await asyncio.wait_for(
            conn.prompt(session_id=session_id, prompt=[text_block("edit notes.txt")]), STEP_TIMEOUT
        )
        check(edit.stop_reason == "end_turn", f"edit: {edit.stop_reason}")
        check(editor.reads == 1, f"edit: {editor.reads} fs/read_text_file")
        check(editor.permissions == 1, f"edit: {editor.permissions} permission requests")
        check(len(editor.writes) == 1, f"edit: {len(editor.writes)} fs/write_text_file")
        check("DONE: one" in editor.files["notes.txt"], "edit: notes.txt not edited")
        log("edit: read, permission, write: ok")

        editor.first_chunk = asyncio.Event()
        slow = asyncio.create_task(conn.prompt(session_id=session_id, prompt=[text_block("stream 100 100")]))
        await asyncio.wait_for(editor.first_chunk.wait(), STEP_TIMEOUT)
        await conn.cancel(session_id=session_id)
        cancelled = await asyncio.wait_for(slow, STEP_TIMEOUT)
        check(cancelled.stop_reason == "cancelled", f"cancel: {cancelled.stop_reason}")
        log("cancel: cancelled")

        await asyncio.wait_for(conn.close_session(session_id=session_id), STEP_TIMEOUT)
        log("session/close: ok")
    finally:
        await asyncio.wait_for(conn.close(), STEP_TIMEOUT)
        await asyncio.wait_for(transport.close(), STEP_TIMEOUT)
        log("connection closed")

    log("STEP core: ok (initialize, updates, fs + permission, cancel, session/close, close)")
    if reload == "none":
        return
    if reload == "refused":
        await reload_refused(url, session_id)
        return

    # Reconnect: a new connection loads the session, whose history is replayed as updates.
    transport = await open_transport(url)
    editor = InteropClient()
    conn = connect_to_agent(editor, transport)
    try:
        init = await asyncio.wait_for(
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False
                ),
            ),
            STEP_TIMEOUT,
        )
        check(bool(init.agent_capabilities and init.agent_capabilities.load_session), "reconnect: no loadSession")
        await asyncio.wait_for(
            conn.load_session(cwd="/tmp/interop", session_id=session_id, mcp_servers=[]), STEP_TIMEOUT
        )
        # The replay must come before the answer; if it did not, see whether it comes at all
        # (and go on to the prompt, to see whether the session is usable).
        order = "replay before the answer"
        if "user_message_chunk" not in editor.kinds:
            await asyncio.sleep(2.0)
            order = (
                "replay AFTER the session/load answer"
                if "user_message_chunk" in editor.kinds
                else "replay never delivered"
            )
            log(f"FAILED CHECK: session/load: {order}")
        log("reconnect + session/load:", order, ",".join(sorted(editor.kinds)))
        try:
            after = await asyncio.wait_for(
                conn.prompt(session_id=session_id, prompt=[text_block("hello again")]), STEP_TIMEOUT
            )
        except asyncio.TimeoutError:
            raise AssertionError(f"prompt after session/load: no answer within {STEP_TIMEOUT} s") from None
        check(after.stop_reason == "end_turn", f"prompt after load: {after.stop_reason}")
        log("prompt after session/load: end_turn")
        check(order == "replay before the answer", f"session/load: {order}")
    finally:
        await asyncio.wait_for(conn.close(), STEP_TIMEOUT)
        await asyncio.wait_for(transport.close(), STEP_TIMEOUT)
        log("connection closed")
    log("STEP reload: ok (reconnect, session/load with its replay, a prompt)")


async def reload_refused(url: str, session_id: str) -> None:
    """A new connection's session/load of `session_id` must fail with RESOURCE_NOT_FOUND."""
    transport = await open_transport(url)
    conn = connect_to_agent(InteropClient(), transport)
    try:
        await asyncio.wait_for(
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False
                ),
            ),
            STEP_TIMEOUT,
        )
        try:
            await asyncio.wait_for(
                conn.load_session(cwd="/tmp/interop", session_id=session_id, mcp_servers=[]), STEP_TIMEOUT
            )
        except RequestError as error:
            check(
                error.code == RESOURCE_NOT_FOUND,
                f"session/load: {error.code} {error} (wanted {RESOURCE_NOT_FOUND})",
            )
            log(f'STEP reload: refused (session/load on a new connection answered {error.code} "{error}")')
        else:
            raise AssertionError("check failed: session/load of another connection's session succeeded")
    finally:
        await asyncio.wait_for(conn.close(), STEP_TIMEOUT)
        await asyncio.wait_for(transport.close(), STEP_TIMEOUT)
        log("connection closed")


def auth_headers() -> dict[str, str] | None:
    """`Authorization: Bearer TOKEN` when ACP_INTEROP_TOKEN holds TOKEN; None otherwise."""
    token = os.environ.get("ACP_INTEROP_TOKEN")
    return {"Authorization": f"Bearer {token}"} if token else None


async def open_transport(url: str) -> Any:
    headers = auth_headers()
    if url.startswith("ws"):
        from acp.ws import create_websocket_stream

        return await asyncio.wait_for(create_websocket_stream(url, headers=headers), STEP_TIMEOUT)
    from acp.http import create_http_stream

    return create_http_stream(url, headers=headers)


# --- The server side ---


class InteropAgent:
    """A small agent: `hello`, `permission`, `slow`, or an echo."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.sessions = 0
        self.cancelled: set[str] = set()

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kwargs: Any):
        return InitializeResponse(
            protocol_version=1,
            agent_capabilities=AgentCapabilities(load_session=False),
            agent_info=Implementation(name="acp-interop-py-agent", version="0"),
        )

    async def new_session(self, cwd: str, additional_directories: Any = None, mcp_servers: Any = None, **kwargs: Any):
        self.sessions += 1
        return NewSessionResponse(session_id=f"py-session-{self.sessions}")

    async def close_session(self, session_id: str, **kwargs: Any):
        return CloseSessionResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.add(session_id)

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id=session_id, update=update_agent_message_text(text))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any):
        self.cancelled.discard(session_id)
        text = " ".join(getattr(block, "text", "") for block in prompt).strip()
        word = text.split()[0] if text else ""
        if word == "hello":
            for part in ("Hello ", "from the ", "Python agent."):
                await self.say(session_id, part)
            return PromptResponse(stop_reason="end_turn")
        if word == "permission":
            await self.conn.session_update(
                session_id=session_id,
                update=start_tool_call("call-1", "Touch a file", kind="edit", status="pending"),
            )
            answer = await self.conn.request_permission(
                session_id=session_id,
                tool_call=ToolCallUpdate(tool_call_id="call-1", title="Touch a file", kind="edit", status="pending"),
                options=[
                    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
                ],
            )
            outcome = answer.outcome.option_id if answer.outcome.outcome == "selected" else "cancelled"
            await self.conn.session_update(
                session_id=session_id,
                update=update_tool_call("call-1", status="completed" if outcome == "allow" else "failed"),
            )
            await self.say(session_id, f"Permission: {outcome}.")
            return PromptResponse(stop_reason="cancelled" if outcome == "cancelled" else "end_turn")
        if word == "slow":
            for i in range(100):
                if session_id in self.cancelled:
                    return PromptResponse(stop_reason="cancelled")
                await self.say(session_id, f"chunk {i} ")
                await asyncio.sleep(0.1)
            return PromptResponse(stop_reason="cancelled" if session_id in self.cancelled else "end_turn")
        await self.say(session_id, f"You said: {text}")
        return PromptResponse(stop_reason="end_turn")


def logged(app: Any) -> Any:
    """Wraps an ASGI app to log every HTTP request's method, path and status, and WebSocket
    sessions."""

    async def wrapper(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await app(scope, receive, send)
            return
        status: list[Any] = [None]

        async def tapped_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            elif message["type"] == "websocket.accept":
                status[0] = 101
            await send(message)

        try:
            await app(scope, receive, tapped_send)
        finally:
            method = scope.get("method", "WEBSOCKET")
            log(f"{method} {scope['path']} {status[0]} (ended)")

    return wrapper


async def run_server() -> None:
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    from acp.http.asgi import create_asgi_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = None
    config.graceful_timeout = 2.0
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    app = logged(create_asgi_app(InteropAgent))
    server = asyncio.create_task(serve(app, config, shutdown_trigger=stop.wait))
    # Listening once a TCP connect succeeds.
    for _ in range(100):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            break
        except OSError:
            await asyncio.sleep(0.05)
    print(f"listening http://127.0.0.1:{port}/acp", flush=True)
    await server


def main() -> int:
    args = sys.argv[1:]
    try:
        reloads = {(): "load", ("--no-reload",): "none", ("--reload-refused",): "refused"}
        if len(args) in (2, 3) and args[0] == "client" and tuple(args[2:]) in reloads:
            asyncio.run(run_client(args[1], reload=reloads[tuple(args[2:])]))
            return 0
        if args == ["server"]:
            asyncio.run(run_server())
            return 0
    except Exception as error:  # noqa: BLE001 - the run's verdict
        log("FAILED:", repr(error))
        return 1
    print("usage: python py_side.py client URL [--no-reload | --reload-refused] | server", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
