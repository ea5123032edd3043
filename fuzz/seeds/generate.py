#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/seeds/<target>/) and the libFuzzer
dictionary fuzz/acp.dict.

Run from anywhere: `python3 fuzz/seeds/generate.py`. It rewrites every seed directory from
the messages below (one of each ACP method: request, response, notification, plus a few
malformed ones), so edit this file, not the seeds. Each target's input layout is described in
fuzz/README.md. The dictionary holds the member names and string constants of the generated
JSON Schema (schema/acp.schema.json), the method names, and JSON and framing tokens.
"""

import json
import os
import re
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_RS = os.path.join(HERE, "..", "..", "crates", "acp-types", "src", "schema.rs")
SCHEMA_JSON = os.path.join(HERE, "..", "..", "schema", "acp.schema.json")
DICT = os.path.join(HERE, "..", "acp.dict")

S = "sess_1"
TEXT = {"type": "text", "text": "Hello"}

# (method, params, result, params definition, result definition): what the client sends.
CLIENT_REQUESTS = [
    ("initialize",
     {"protocolVersion": 1,
      "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True},
                             "terminal": True},
      "clientInfo": {"name": "fuzz-client", "version": "1.0.0"}},
     {"protocolVersion": 1,
      "agentCapabilities": {"loadSession": True,
                            "promptCapabilities": {"image": True, "embeddedContext": True},
                            "mcpCapabilities": {"http": True}},
      "authMethods": [{"id": "token", "name": "Token"}],
      "agentInfo": {"name": "fuzz-agent", "version": "0.1.0"}},
     "InitializeRequest", "InitializeResponse"),
    ("authenticate", {"methodId": "token"}, {}, "AuthenticateRequest", "AuthenticateResponse"),
    ("logout", {}, {}, "LogoutRequest", "LogoutResponse"),
    ("session/new",
     {"cwd": "/home/user/project",
      "mcpServers": [{"name": "fs", "command": "/bin/mcp", "args": ["--stdio"],
                      "env": [{"name": "A", "value": "1"}]},
                     {"type": "http", "name": "web", "url": "https://example.com/mcp",
                      "headers": [{"name": "Authorization", "value": "x"}]}]},
     {"sessionId": S,
      "modes": {"currentModeId": "ask",
                "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}]},
      "configOptions": [{"id": "model", "name": "Model", "type": "select",
                         "currentValue": "fast",
                         "options": [{"value": "fast", "name": "Fast"},
                                     {"value": "smart", "name": "Smart"}]}]},
     "NewSessionRequest", "NewSessionResponse"),
    ("session/load", {"sessionId": S, "cwd": "/home/user/project", "mcpServers": []}, {},
     "LoadSessionRequest", "LoadSessionResponse"),
    ("session/list", {"cwd": "/home/user/project"},
     {"sessions": [{"sessionId": S, "cwd": "/home/user/project", "title": "Fix the bug",
                    "updatedAt": "2025-01-01T00:00:00Z"}], "nextCursor": "c2"},
     "ListSessionsRequest", "ListSessionsResponse"),
    ("session/delete", {"sessionId": S}, {}, "DeleteSessionRequest", "DeleteSessionResponse"),
    ("session/resume", {"sessionId": S, "cwd": "/home/user/project"}, {},
     "ResumeSessionRequest", "ResumeSessionResponse"),
    ("session/close", {"sessionId": S}, {}, "CloseSessionRequest", "CloseSessionResponse"),
    ("session/set_mode", {"sessionId": S, "modeId": "code"}, {},
     "SetSessionModeRequest", "SetSessionModeResponse"),
    ("session/set_config_option", {"sessionId": S, "configId": "model", "value": "smart"},
     {"configOptions": [{"id": "model", "name": "Model", "type": "select",
                         "currentValue": "smart",
                         "options": [{"value": "smart", "name": "Smart"}]}]},
     "SetSessionConfigOptionRequest", "SetSessionConfigOptionResponse"),
    ("session/prompt",
     {"sessionId": S,
      "prompt": [TEXT,
                 {"type": "resource",
                  "resource": {"uri": "file:///a.py", "mimeType": "text/x-python",
                               "text": "print(1)\n"}},
                 {"type": "resource_link", "uri": "file:///b.txt", "name": "b.txt"},
                 {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]},
     {"stopReason": "end_turn"},
     "PromptRequest", "PromptResponse"),
]

# What the agent sends.
AGENT_REQUESTS = [
    ("session/request_permission",
     {"sessionId": S, "toolCall": {"toolCallId": "call_1"},
      "options": [{"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
                  {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]},
     {"outcome": {"outcome": "selected", "optionId": "allow"}},
     "RequestPermissionRequest", "RequestPermissionResponse"),
    ("fs/read_text_file", {"sessionId": S, "path": "/a.py", "line": 1, "limit": 10},
     {"content": "print(1)\n"}, "ReadTextFileRequest", "ReadTextFileResponse"),
    ("fs/write_text_file", {"sessionId": S, "path": "/a.py", "content": "print(2)\n"}, None,
     "WriteTextFileRequest", "WriteTextFileResponse"),
    ("terminal/create",
     {"sessionId": S, "command": "npm", "args": ["test"],
      "env": [{"name": "CI", "value": "1"}], "cwd": "/p", "outputByteLimit": 1048576},
     {"terminalId": "term_1"}, "CreateTerminalRequest", "CreateTerminalResponse"),
    ("terminal/output", {"sessionId": S, "terminalId": "term_1"},
     {"output": "ok\n", "truncated": False, "exitStatus": {"exitCode": 0, "signal": None}},
     "TerminalOutputRequest", "TerminalOutputResponse"),
    ("terminal/release", {"sessionId": S, "terminalId": "term_1"}, {},
     "ReleaseTerminalRequest", "ReleaseTerminalResponse"),
    ("terminal/wait_for_exit", {"sessionId": S, "terminalId": "term_1"},
     {"exitCode": 1, "signal": None}, "WaitForTerminalExitRequest", "WaitForTerminalExitResponse"),
    ("terminal/kill", {"sessionId": S, "terminalId": "term_1"}, {},
     "KillTerminalRequest", "KillTerminalResponse"),
    ("elicitation/create",
     {"sessionId": S, "mode": "form", "message": "How?",
      "requestedSchema": {"type": "object",
                          "properties": {"strategy": {"type": "string",
                                                      "enum": ["safe", "bold"]},
                                         "count": {"type": "integer", "minimum": 1}},
                          "required": ["strategy"]}},
     {"action": "accept", "content": {"strategy": "safe", "count": 2}},
     "CreateElicitationRequest", "CreateElicitationResponse"),
]

SESSION_UPDATES = [
    {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": TEXT},
    {"sessionUpdate": "user_message_chunk", "content": TEXT},
    {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Hmm"}},
    {"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "Read a.py", "kind": "read",
     "status": "pending", "locations": [{"path": "/a.py", "line": 3}],
     "rawInput": {"path": "/a.py"}},
    {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed",
     "content": [{"type": "content", "content": TEXT},
                 {"type": "diff", "path": "/a.py", "oldText": "a", "newText": "b"},
                 {"type": "terminal", "terminalId": "term_1"}]},
    {"sessionUpdate": "plan",
     "entries": [{"content": "Check", "priority": "high", "status": "pending"}]},
    {"sessionUpdate": "available_commands_update",
     "availableCommands": [{"name": "web", "description": "Search",
                            "input": {"hint": "query"}}]},
    {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
    {"sessionUpdate": "session_info_update", "title": "Bug fix"},
    {"sessionUpdate": "usage_update", "used": 53000, "size": 200000,
     "cost": {"amount": 0.045, "currency": "USD"}},
]

# (method, params, params definition): notifications.
CLIENT_NOTIFICATIONS = [
    ("session/cancel", {"sessionId": S}, "CancelNotification"),
    ("$/cancel_request", {"requestId": 3}, "CancelRequestNotification"),
    ("_vendor/ping", {"n": 1}, "ExtNotification"),
]
AGENT_NOTIFICATIONS = [
    ("session/update", {"sessionId": S, "update": u}, "SessionNotification")
    for u in SESSION_UPDATES
] + [
    ("elicitation/complete", {"elicitationId": "e1"}, "CompleteElicitationNotification"),
    ("$/cancel_request", {"requestId": "r-1"}, "CancelRequestNotification"),
]

# The methods of RESPONSE_METHODS in fuzz/src/types.rs, in order.
RESPONSE_METHODS = [
    "initialize", "authenticate", "logout", "session/new", "session/load", "session/list",
    "session/delete", "session/resume", "session/close", "session/set_mode",
    "session/set_config_option", "session/prompt", "session/cancel",
    "session/request_permission", "session/update", "fs/read_text_file", "fs/write_text_file",
    "terminal/create", "terminal/output", "terminal/release", "terminal/wait_for_exit",
    "terminal/kill", "elicitation/create", "elicitation/complete", "$/cancel_request",
    "_vendor/method",
]
NO_METHOD = len(RESPONSE_METHODS)

MALFORMED = [
    b"",
    b"not json",
    b"[]",
    b'[{"jsonrpc":"2.0","id":1,"method":"initialize"}]',
    b'{"jsonrpc":"1.0","id":1,"method":"initialize","params":{}}',
    b'{"jsonrpc":"2.0","id":null,"method":"session/new","params":{}}',
    b'{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":1}}',
    b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":1}}',
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}',
    b'{"jsonrpc":"2.0","id":"\\u00e9\\ud83d\\ude00","method":"_x","params":null}',
    b'{"jsonrpc":"2.0","id":1,"id":2,"method":"initialize","method":"logout"}',
    b'{"jsonrpc":"2.0","id":1,"method":"unknown/method","params":{}}',
    b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
    b'{"sessionUpdate":"future_kind","x":[1,2,{"y":null}]}}}',
    b'{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom","data":{"d":1.0}}}',
    b'{"jsonrpc":"2.0","id":9223372036854775807,"method":"initialize",'
    b'"params":{"protocolVersion":1.0,"x-extra":true}}',
    b'\xff\xfe{"jsonrpc":"2.0"}',
]


def dumps(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def request(id_, method, params):
    return dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})


def notification(method, params):
    return dumps({"jsonrpc": "2.0", "method": method, "params": params})


def response(id_, result):
    return dumps({"jsonrpc": "2.0", "id": id_, "result": result})


def error_response(id_, code, message):
    return dumps({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})


def definitions():
    text = open(SCHEMA_RS, encoding="utf-8").read()
    body = text.split("macro_rules! for_each_value_definition", 1)[1]
    body = body.split("$m!(", 1)[1].split(")", 1)[0]
    return re.findall(r"[A-Za-z]+", body)


def write(target, name, data):
    directory = os.path.join(HERE, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def slug(method):
    return re.sub(r"[^a-z0-9]+", "_", method.lower()).strip("_")


def main():
    for target in ["ndjson", "content_length", "auto", "types_envelopes", "types_definitions",
                   "rpc_driver"]:
        shutil.rmtree(os.path.join(HERE, target), ignore_errors=True)

    defs = definitions()
    index = {name: i for i, name in enumerate(defs)}
    assert len(defs) <= 256, "one byte picks the definition"

    # types_envelopes: [response method selector, message].
    envelopes = []
    for i, (method, params, result, _, _) in enumerate(CLIENT_REQUESTS + AGENT_REQUESTS):
        sel = RESPONSE_METHODS.index(method)
        envelopes.append((f"request_{slug(method)}", bytes([sel]) + request(i, method, params)))
        envelopes.append((f"response_{slug(method)}", bytes([sel]) + response(i, result)))
    for method, params, _ in CLIENT_NOTIFICATIONS + AGENT_NOTIFICATIONS:
        key = params.get("update", {}).get("sessionUpdate", "")
        name = f"notification_{slug(method)}" + (f"_{key}" if key else "")
        envelopes.append((name, bytes([NO_METHOD]) + notification(method, params)))
    envelopes.append(("error_response", bytes([0]) + error_response(5, -32601, "Method not found")))
    envelopes.append(("ext_request", bytes([NO_METHOD - 1]) +
                      request("a", "_vendor/method", {"k": [1, "2", None]})))
    envelopes.append(("ext_response", bytes([NO_METHOD - 1]) + response("a", {"ok": True})))
    envelopes.append(("null_result", bytes([RESPONSE_METHODS.index("fs/write_text_file")]) +
                      response(4, None)))
    for i, bad in enumerate(MALFORMED):
        envelopes.append((f"malformed_{i:02}", bytes([i % (NO_METHOD + 1)]) + bad))
    for name, data in envelopes:
        write("types_envelopes", name, data)

    # types_definitions: [definition index, document].
    docs = {}
    for method, params, result, params_def, result_def in CLIENT_REQUESTS + AGENT_REQUESTS:
        docs.setdefault(params_def, []).append(params)
        if result is not None:
            docs.setdefault(result_def, []).append(result)
    for method, params, params_def in CLIENT_NOTIFICATIONS + AGENT_NOTIFICATIONS:
        docs.setdefault(params_def, []).append(params)
    docs.setdefault("SessionUpdate", []).extend(SESSION_UPDATES)
    docs.setdefault("ContentBlock", []).extend(CLIENT_REQUESTS[11][1]["prompt"])
    docs.setdefault("Error", []).append({"code": -32602, "message": "Invalid params",
                                         "data": "at `prompt[0]`"})
    docs.setdefault("RequestId", []).extend([0, "id-1", None])
    docs.setdefault("StopReason", []).extend(["end_turn", "cancelled", "new_reason"])
    docs.setdefault("ToolKind", []).append("edit")
    docs.setdefault("McpServer", []).append(CLIENT_REQUESTS[3][1]["mcpServers"][1])
    docs.setdefault("RequestPermissionOutcome", []).append({"outcome": "cancelled"})
    docs.setdefault("ElicitationSchema", []).append(
        AGENT_REQUESTS[8][1]["requestedSchema"])
    docs.setdefault("ElicitationUrlMode", []).append(
        {"mode": "url", "elicitationId": "e1", "url": "https://example.com", "message": "Go"})
    docs.setdefault("Annotations", []).append(
        {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"})
    for name, values in sorted(docs.items()):
        if name not in index:
            continue
        for j, value in enumerate(values):
            write("types_definitions", f"{name}_{j}", bytes([index[name]]) + dumps(value))
    # Everything else, as an empty object (most definitions with no required field decode).
    for name in defs:
        if name not in docs:
            write("types_definitions", f"{name}_empty", bytes([index[name]]) + b"{}")

    # The codec targets: [frame limit, chunking seed, stream].
    lines = [request(0, "initialize", CLIENT_REQUESTS[0][1]),
             notification("session/cancel", {"sessionId": S}),
             response(0, {"outcome": {"outcome": "cancelled"}})]
    ndjson = b"\n".join(lines) + b"\n"
    crlf = b"\r\n".join(lines) + b"\r\n\n"
    content_length = b"".join(b"Content-Length: %d\r\n\r\n" % len(m) + m for m in lines)
    with_type = b"".join(b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; "
                         b"charset=utf-8\r\n\r\n" % len(m) + m for m in lines)
    for target, streams in [
        ("ndjson", [ndjson, crlf, b"{}\n\n{\n" + b"x" * 300 + b"\n{}"]),
        ("content_length", [content_length, with_type,
                            b"Content-Length: 2\r\n\r\n{}Content-Length: 99999\r\n\r\n{}",
                            b"content-length:  2 \r\n\r\n{}", b"Content-Length: x\r\n\r\n"]),
        ("auto", [ndjson, content_length, b"  \r\n" + ndjson, ndjson + content_length]),
    ]:
        for i, stream in enumerate(streams):
            for limit in (255, 40):
                write(target, f"stream_{i}_limit_{limit}", bytes([limit, 7 * i + 1]) + stream)

    # rpc_driver: [config, chunking seed, stream]. Config bits: framing (0-1), frame limit
    # (2-3), requests in flight (4-5), outgoing and notification bounds (6-7).
    session = [
        request(0, "initialize", CLIENT_REQUESTS[0][1]),
        request(1, "session/new", {"cwd": "/p", "mcpServers": []}),
        request(2, "session/prompt", {"sessionId": S, "prompt": [TEXT]}),
        notification("session/update", {"sessionId": S, "update": SESSION_UPDATES[0]}),
        request(3, "session/set_mode", {"sessionId": S, "modeId": "code"}),
        notification("$/cancel_request", {"requestId": 3}),
        notification("session/cancel", {"sessionId": S}),
        request("load", "session/load", {"sessionId": S, "cwd": "/p", "mcpServers": []}),
        response(0, {"content": "hi"}),
        request(4, "_echo", {"x": [1, 2, 3]}),
        notification("_note", None),
        request(5, "unknown", {}),
        request(6, "session/prompt", {"sessionId": 7}),
    ]
    malformed = [b"not json", b'{"jsonrpc":"2.0","id":9,"method":7}', b"[]",
                 b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}',
                 b'{"jsonrpc":"2.0","id":2,"id":3,"method":"initialize"}',
                 b'{"id":10,"method":"initialize","params":{"protocolVersion":1}}',
                 b'{"jsonrpc":"2.0","id":11,"method":"' + b"m" * 300 + b'"}']
    def framed(messages, framing):
        if framing == 1:
            return b"".join(b"Content-Length: %d\r\n\r\n" % len(m) + m for m in messages)
        return b"".join(m + b"\n" for m in messages)
    configs = [
        ("ndjson", 0b11_11_01_00, session),
        ("ndjson_small_bounds", 0b00_00_00_00, session),
        ("ndjson_one_in_flight", 0b01_00_10_00, session + session[:3]),
        ("content_length", 0b10_10_01_01, session),
        ("auto_ndjson", 0b11_01_11_10, session),
        ("auto_content_length", 0b01_10_01_10, session),
        ("malformed", 0b11_11_01_00, malformed + session[:2]),
        ("malformed_small_limit", 0b11_11_00_00, malformed),
        ("duplicate_ids", 0b11_11_01_00,
         [request(3, "session/set_mode", {"sessionId": S, "modeId": "a"})] * 3),
    ]
    for name, config, messages in configs:
        framing = config & 3
        cl = framing == 1 or (framing == 2 and "content_length" in name)
        write("rpc_driver", name, bytes([config, 3]) + framed(messages, 1 if cl else 0))
    write("rpc_driver", "bad_header", bytes([1, 0]) + framed(session[:2], 1) +
          b"Content-Length: nope\r\n\r\n" + session[2])


def dictionary():
    schema = json.load(open(SCHEMA_JSON, encoding="utf-8"))
    names, constants = set(), set()

    def walk(value):
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "properties" and isinstance(inner, dict):
                    names.update(inner)
                if key == "const" and isinstance(inner, str):
                    constants.add(inner)
                if key == "enum" and isinstance(inner, list):
                    constants.update(e for e in inner if isinstance(e, str))
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(schema)
    tokens = {json.dumps(n) + ":" for n in names} | {json.dumps(c) for c in constants}
    tokens |= {json.dumps(m) for m in RESPONSE_METHODS + ["_echo", "_note"]}
    tokens |= {"null", "true", "false", "-0", "1e999", "9223372036854775808", "\\ud800",
               "\\u0000", "{}", "[]", "Content-Length: ", "\r\n\r\n", "\r\n", "\n"}
    lines = ["# Generated by seeds/generate.py: libFuzzer dictionary for the acp targets."]
    for token in sorted(tokens):
        escaped = ""
        for byte in token.encode():
            if byte in b'\\"':
                escaped += "\\" + chr(byte)
            elif 0x20 <= byte < 0x7f:
                escaped += chr(byte)
            else:
                escaped += "\\x%02X" % byte
        lines.append('"%s"' % escaped)
    with open(DICT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    dictionary()
    main()
