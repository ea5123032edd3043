"""Doc comments for the generated v2 types.

Docs come, in order, from: the hand-written text below (new v2 definitions and fields whose
meaning changed), our own v1 doc comments of the same definition or field (read from the v1
sources of this crate), and a last resort built from the name.
"""

import re
from pathlib import Path

# Definitions new in v2 (or whose meaning changed enough that the v1 text is wrong).
TYPES = {
    "AbsolutePath": "An absolute file system path, as text.",
    "AgentMessage": "A whole agent message, upserted by its `messageId`: replaces the content stored for the message (see [`Patch`]).",
    "AgentThought": "A whole agent thought, upserted by its `messageId`: replaces the content stored for the thought (see [`Patch`]).",
    "UserMessage": "A whole user message, upserted by its `messageId`; after `session/prompt`, the acknowledgement that places the prompt in the session history.",
    "BackgroundTerminal": "A display terminal that keeps running in the background.",
    "BackgroundToolCall": "A tool call that keeps running in the background.",
    "BackgroundWork": "Work that runs independently of the foreground turn, reported with an idle state.",
    "CancelSessionNotification": "Asks the agent to stop the session's foreground work (`session/cancel`); the idle `state_update` with the `cancelled` stop reason confirms it.",
    "CancelTerminalRequest": "Asks the agent to cancel the command of a display terminal that advertises cancellation (`terminal/cancel`).",
    "CancelTerminalResponse": "The agent's answer to `terminal/cancel`.",
    "CancelToolCallRequest": "Asks the agent to cancel a tool call that advertises cancellation (`tool_call/cancel`).",
    "CancelToolCallResponse": "The agent's answer to `tool_call/cancel`.",
    "CancelledPermissionOutcome": "The permission request was cancelled (the prompt turn was cancelled).",
    "ClientAuthCapabilities": "The authentication flows the client can run itself.",
    "Command": "A slash command the agent offers.",
    "CommandPermissionSubject": "A command the agent asks permission to run (it never asks the client to run it).",
    "DiffChange": "One file-level change of a diff: its operation (`add`, `delete`, `modify` with `path`; `move`, `copy` with `oldPath` and `path`) and what is known about the file.",
    "DiffFileType": "What kind of file a diff change concerns.",
    "DiffPatch": "Renderable patch text for some or all changes of a diff.",
    "DiffPatchFormat": "The format of a diff's patch text.",
    "DiffPathChange": "The fields of a diff change on one path (`add`, `delete`, `modify`).",
    "DiffPathPairChange": "The fields of a diff change from one path to another (`move`, `copy`).",
    "ErrorData": "The structured `data` of an error: a known shape for some error codes, any JSON otherwise.",
    "ErrorStopReason": "The fields of an idle state that ended foreground work with an error.",
    "Icon": "An icon a client may show for a resource.",
    "IconTheme": "The background an icon is designed for.",
    "IdleStateUpdate": "The agent is ready for a new prompt; with a stop reason when this ends foreground work.",
    "LoginAuthRequest": "Signs the user in with one of the agent's advertised methods (`auth/login`).",
    "LoginAuthResponse": "The agent's answer to `auth/login`.",
    "LogoutAuthRequest": "Signs the user out (`auth/logout`).",
    "LogoutAuthResponse": "The agent's answer to `auth/logout`.",
    "McpHttpCapabilities": "Support for MCP servers over HTTP.",
    "McpStdioCapabilities": "Support for MCP servers the agent launches (stdio).",
    "MediaType": "A MIME type (`text/plain`, `image/png`, ...).",
    "PlanId": "Identifies a plan within a session.",
    "PlanItems": "A plan given as a list of entries; each update replaces the plan's entries.",
    "PlanUpdate": "A plan created or replaced, by its `planId`.",
    "PlanUpdateContent": "The content of a plan update, told apart by its `type`.",
    "PromptAudioCapabilities": "Support for audio in prompts.",
    "PromptEmbeddedContextCapabilities": "Support for embedded resources in prompts.",
    "PromptImageCapabilities": "Support for images in prompts.",
    "ReplayFrom": "Where the replay of a resumed session starts.",
    "ReplayFromStart": "Replay the whole conversation.",
    "RequestPermissionSubject": "What a permission request is about.",
    "RequiresActionStateUpdate": "Foreground work waits for the user (for example on a permission request).",
    "RunningStateUpdate": "Foreground work started or resumed.",
    "SessionListCursor": "An opaque cursor of `session/list`, from a previous response's `nextCursor`.",
    "SessionNotFoundErrorData": "The `data` of an error about a session the agent does not know.",
    "StateUpdate": "The state of the session's foreground work, told apart by its `state`.",
    "TerminalAuthCapabilities": "Support for terminal authentication methods.",
    "TerminalCancelCapabilities": "A display terminal whose command the client may cancel (`terminal/cancel`).",
    "TerminalCapabilities": "The client-initiated controls a display terminal supports.",
    "TerminalOutput": "An authoritative snapshot of a display terminal's output bytes (base64): it replaces every byte stored before.",
    "TerminalOutputChunk": "Output bytes (base64, decoded on their own) appended to a display terminal; a chunk may split UTF-8 code points and escape sequences.",
    "TerminalSize": "The size of a terminal, in columns and rows.",
    "TerminalUpdate": "An upsert of an agent-owned display terminal, by its `terminalId` (see [`Patch`]).",
    "TextCommandInput": "Free-text input of a slash command.",
    "ToolCallCancelCapabilities": "A tool call the client may cancel (`tool_call/cancel`).",
    "ToolCallCapabilities": "The client-initiated controls a tool call supports.",
    "ToolCallContentChunk": "One content item appended to a tool call's content.",
    "ToolCallPermissionSubject": "A tool call that needs permission, as a tool-call upsert.",
    "ToolCallUpdate": "An upsert of a tool call, by its `toolCallId`: the first update creates it, later ones patch it (see [`Patch`]).",
    "UnsupportedProtocolVersionErrorData": "The `data` of the error -32022: the version asked for and the versions the agent supports.",
    "UpdateSessionNotification": "An update about a session, sent by the agent (`session/update`).",
    "SessionUpdate": "What changed in a session: message upserts and chunks, state, tool calls, terminals, plans and more.",
    "PromptResponse": "The agent accepted a prompt: the acknowledgement, not the end of the turn (see [`StateUpdate`]).",
    "ResumeSessionRequest": "Reattaches to a session (`session/resume`), replaying its history when `replayFrom` asks for it.",
    "InitializeRequest": "The first request of a connection: the client's version, identity and capabilities (`initialize`).",
    "InitializeResponse": "The agent's answer to `initialize`: the negotiated version, its identity and capabilities.",
    "AgentCapabilities": "What the agent supports; session methods are grouped under `session`.",
    "ClientCapabilities": "What the client supports.",
    "SessionCapabilities": "What the agent supports for sessions; present, it commits the agent to the baseline session methods.",
    "PromptCapabilities": "The content the agent accepts in prompts beyond text and resource links.",
    "McpCapabilities": "The MCP transports the agent supports.",
    "AgentAuthCapabilities": "Authentication-related extensions the agent supports.",
    "RequestPermissionRequest": "Asks the user for permission (`session/request_permission`).",
    "Diff": "File changes of a tool call: structured changes, and optional renderable patch text.",
    "ToolCallContent": "One content item of a tool call, told apart by its `type`.",
    "Terminal": "A reference to an agent-owned display terminal, whose state comes in `terminal_update`s.",
    "AvailableCommand": "A slash command, told apart by its `type`.",
    "AvailableCommandInput": "The input of a slash command, told apart by its `type`.",
    "AuthMethod": "A way to authenticate, told apart by its `type`.",
    "RequestId": "The id of a JSON-RPC request: a number or a string (never `null` in v2).",
    "ErrorCode": "A JSON-RPC error code.",
    "Error": "A JSON-RPC error.",
    "AgentRequest": "A request the agent sends: its id, method and params.",
    "ClientRequest": "A request the client sends: its id, method and params.",
    "AgentNotification": "A notification the agent sends: its method and params.",
    "ClientNotification": "A notification the client sends: its method and params.",
    "AgentResponse": "The agent's response to a request: a result or an error.",
    "ClientResponse": "The client's response to a request: a result or an error.",
    "ErrorStopReason": "The fields of an idle state that ended foreground work with an error.",
    "RequestPermissionOutcome": "What came of a permission request: an option was chosen, or the request was cancelled (as every pending one is when the client cancels the turn). An agent takes an outcome it does not know for no approval.",
}

# Fields whose v1 text does not fit, or that are new: (definition, JSON name) -> doc.
FIELDS = {
    ("ToolCallUpdate", "name"): "The tool's programmatic name. A new tool call starts without one.",
    ("ToolCallUpdate", "title"): "A human-readable title. A new tool call starts without one.",
    ("ToolCallUpdate", "kind"): "The kind of tool. `Clear` resets it to `other`, where a new tool call starts.",
    ("ToolCallUpdate", "status"): "The status. `Clear` resets it to `pending`, where a new tool call starts.",
    ("ToolCallUpdate", "content"): "The whole content, replacing what was stored (chunks then append to it).",
    ("ToolCallUpdate", "locations"): "The whole list of locations, replacing what was stored.",
    ("ToolCallUpdate", "capabilities"): "The client-initiated controls the tool call supports now, replacing the previous ones.",
    ("ToolCallUpdate", "_meta"): "Extension data: a value patches the stored metadata key by key, `Clear` removes it.",
    ("TerminalUpdate", "command"): "The command the terminal runs.",
    ("TerminalUpdate", "cwd"): "The absolute working directory of the command.",
    ("TerminalUpdate", "output"): "A snapshot replacing every output byte stored so far (chunks then append to it).",
    ("TerminalUpdate", "exitStatus"): "How the command ended; a value marks the terminal as exited.",
    ("TerminalUpdate", "size"): "The terminal size the command runs with.",
    ("TerminalUpdate", "capabilities"): "The client-initiated controls the terminal supports now, replacing the previous ones.",
    ("TerminalUpdate", "_meta"): "Extension data: a value patches the stored metadata key by key, `Clear` removes it.",
    ("UserMessage", "content"): "The whole content, replacing what was stored; `Clear` or an empty list empties the message.",
    ("AgentMessage", "content"): "The whole content, replacing what was stored; `Clear` or an empty list empties the message.",
    ("AgentThought", "content"): "The whole content, replacing what was stored; `Clear` or an empty list empties the thought.",
    ("SessionInfoUpdate", "title"): "The session's title; `Clear` removes it.",
    ("SessionInfoUpdate", "updatedAt"): "The time of the last activity (RFC 3339); `Clear` removes it.",
    ("CompactionUpdate", "summary"): "The whole summary, replacing what was stored.",
    ("CompactionUpdate", "error"): "What went wrong, for display.",
    ("TerminalOutput", "data"): "The bytes, base64-encoded.",
    ("TerminalOutputChunk", "data"): "The bytes to append, base64-encoded on their own.",
    ("TerminalOutputChunk", "terminalId"): "The terminal the bytes belong to.",
    ("PromptResponse", "messageId"): "The id of the user message this prompt became, as the `user_message` acknowledgement names it.",
    ("ResumeSessionRequest", "replayFrom"): "Where to start replaying the history; absent or `null` resumes without replay.",
    ("IdleStateUpdate", "stopReason"): "Why foreground work stopped, when this ends it.",
    ("IdleStateUpdate", "error"): "The error that ended foreground work (stop reason `error`).",
    ("IdleStateUpdate", "background"): "The work still running in the background, as a complete snapshot.",
    ("RequestPermissionRequest", "title"): "The text of the permission prompt (it changes no tool call's title).",
    ("RequestPermissionRequest", "description"): "Supporting text for the permission prompt.",
    ("RequestPermissionRequest", "subject"): "What needs permission, if known.",
    ("InitializeRequest", "info"): "The client's name and version.",
    ("InitializeResponse", "info"): "The agent's name and version.",
    ("InitializeRequest", "capabilities"): "What the client supports.",
    ("InitializeResponse", "capabilities"): "What the agent supports.",
    ("AuthMethodAgent", "methodId"): "The method's id, as `auth/login` names it.",
    ("AuthMethodTerminal", "methodId"): "The method's id, as `auth/login` names it.",
    ("DiffChange", "operation"): "What happened to the file.",
    ("DiffChange", "path"): "The file's absolute path (after the operation).",
    ("DiffChange", "oldPath"): "The absolute path the file was moved or copied from.",
    ("Diff", "changes"): "The file-level changes, authoritative for the paths and operations.",
    ("Diff", "patch"): "Renderable patch text, consistent with `changes`.",
    ("Icon", "mimeType"): "The icon's MIME type, where its source does not tell it.",
    ("Icon", "src"): "Where the icon is (a URI).",
    ("Icon", "sizes"): "The sizes the icon fits (`48x48`, `any`, ...).",
    ("Icon", "theme"): "The background the icon is designed for.",
    ("ResourceLink", "icons"): "Icons a client may show for the resource.",
    ("DiffChange", "mimeType"): "The MIME type of the file (after the operation; of the deleted file for `delete`).",
    ("DiffChange", "fileType"): "What kind of file it is (after the operation; of the deleted file for `delete`).",
    ("DiffPathChange", "path"): "The file's absolute path.",
    ("DiffPathPairChange", "path"): "The absolute path the file has after the operation.",
    ("DiffPathPairChange", "oldPath"): "The absolute path the file was moved or copied from.",
    ("DiffPatch", "format"): "The format of `text`.",
    ("DiffPatch", "text"): "The patch text, with absolute paths.",
    ("ToolCallPermissionSubject", "toolCall"): "The tool call, as a tool-call upsert.",
    ("CommandPermissionSubject", "command"): "The command line the agent wants to run.",
    ("CommandPermissionSubject", "cwd"): "The absolute directory it would run in.",
    ("CommandPermissionSubject", "toolCallId"): "The tool call the command belongs to, if known.",
    ("CommandPermissionSubject", "terminalId"): "The display terminal that shows the command, if known.",
    ("CreateElicitationRequest", "message"): "What input is needed, for the user.",
    ("CreateElicitationRequest", "mode"): "How the input is collected.",
    ("CreateElicitationRequest", "requestId"): "The request the elicitation belongs to (outside a session).",
    ("CreateElicitationRequest", "elicitationId"): "The id of the URL elicitation, as `elicitation/complete` names it.",
    ("CreateElicitationRequest", "url"): "The URL the user visits.",
    ("CreateElicitationRequest", "requestedSchema"): "The form's fields, as a JSON Schema.",
    ("ElicitationFormMode", "requestedSchema"): "The form's fields, as a JSON Schema.",
    ("ElicitationUrlMode", "elicitationId"): "The id of the URL elicitation, as `elicitation/complete` names it.",
    ("ElicitationUrlMode", "url"): "The URL the user visits.",
    ("AgentCapabilities", "session"): "What the agent supports for sessions; present, the baseline session methods are served.",
    ("SessionCapabilities", "prompt"): "The content the agent accepts in prompts.",
    ("SessionCapabilities", "mcp"): "The MCP transports the agent supports.",
    ("McpCapabilities", "stdio"): "Support for MCP servers the agent launches.",
    ("NewSessionResponse", "availableCommands"): "The slash commands available from the start.",
    ("ResumeSessionResponse", "availableCommands"): "The slash commands available now.",
    ("SessionConfigOption", "currentValue"): "The current value: a value id of `options` (`select`) or a boolean (`boolean`).",
    ("SessionConfigOption", "options"): "The values to choose from (`select`).",
    ("SessionConfigOption", "type"): "The kind of option.",
    ("SessionConfigOption", "category"): "What the option is about, for presentation (`mode`, `model`, ...).",
    ("SetSessionConfigOptionRequest", "type"): "The kind of value set.",
    ("SetSessionConfigOptionRequest", "value"): "The value: a value id (`id`) or a boolean (`boolean`).",
    ("SessionConfigSelectGroup", "groupId"): "The group's id.",
    ("TextCommandInput", "hint"): "A hint shown while the user types the input.",
    ("Command", "input"): "The input the command takes, if any.",
    ("UnsupportedProtocolVersionErrorData", "requested"): "The version `initialize` asked for.",
    ("UnsupportedProtocolVersionErrorData", "supported"): "The versions the agent supports.",
    ("UpdateSessionNotification", "update"): "What changed.",
    ("ErrorStopReason", "error"): "The error that ended foreground work.",
    ("ClientAuthCapabilities", "terminal"): "Support for terminal authentication methods.",
    ("ToolCallCapabilities", "cancel"): "Present: the client may cancel the tool call (`tool_call/cancel`).",
    ("TerminalCapabilities", "cancel"): "Present: the client may cancel the terminal's command (`terminal/cancel`).",
    ("RunningStateUpdate", "background"): "The work running in the background, as a complete snapshot.",
    ("RequiresActionStateUpdate", "background"): "The work running in the background, as a complete snapshot.",
    ("TerminalSize", "cols"): "The number of columns.",
    ("TerminalSize", "rows"): "The number of rows.",
    ("CreateElicitationResponse", "action"): "What the user did.",
    ("CreateElicitationResponse", "content"): "The values the user entered (`accept`).",
}

GENERIC_FIELDS = {
    "_meta": "Extension data, opaque to the protocol.",
    "sessionId": "The session this concerns.",
    "messageId": "The message this concerns.",
    "toolCallId": "The tool call this concerns.",
    "terminalId": "The display terminal this concerns.",
    "planId": "The plan this concerns.",
    "configId": "The configuration option this concerns.",
    "methodId": "The authentication method this concerns.",
    "cwd": "The absolute working directory.",
    "name": "A human-readable name.",
    "title": "A human-readable title.",
    "description": "A human-readable description.",
    "content": "The content.",
    "entries": "The entries.",
    "data": "The data.",
    "type": "The kind.",
}


def _rust_sources(src: Path):
    for path in sorted(src.glob("*.rs")) + sorted((src / "unstable").glob("*.rs")):
        yield path.read_text()


def v1_docs(src: Path):
    """Doc comments of our v1 sources: (types, fields by JSON name, variants by wire value)."""
    types, fields, variants = {}, {}, {}
    for text in _rust_sources(src):
        pending, current = [], None
        for line in text.splitlines():
            s = line.strip()
            if s.startswith("///"):
                pending.append(s[3:].strip())
                continue
            if s.startswith("#[") or not s:
                if not s:
                    pending = []
                continue
            m = re.match(r"(?:pub )?(?:struct|enum) (\w+)", s)
            if m:
                current = m.group(1)
                if pending:
                    types.setdefault(current, " ".join(pending))
                pending = []
                continue
            m = re.match(r"(?:req|opt|raw|patch) \w+.*= \"([^\"]+)\"", s)
            if m and current:
                if pending:
                    fields.setdefault((current, m.group(1)), " ".join(pending))
                pending = []
                continue
            m = re.match(r"\w+(?:\([\w<>]+\))? = \"([^\"]+)\"", s)
            if m and current:
                if pending:
                    variants.setdefault((current, m.group(1)), " ".join(pending))
                pending = []
                continue
            pending = []
    return types, fields, variants


def words(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r" \1", name).lower().replace("_", " ")
