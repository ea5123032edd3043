#!/usr/bin/env python3
"""Generates the wire types of ACP v2 (`src/v2/*.rs`) from the official v2 schema.

    python3 crates/acp-types/src/v2/codegen/gen.py [SPEC_DIR]

SPEC_DIR is the directory laid out like `../shared/spec/2026-11` (default: that one, or
$ACP_SPEC_DIR). The output uses the macros of acp-types (`wire_object!`, `tagged_union!`,
`string_enum!`, `id_type!`), so the generated types follow the same rules as the v1 ones. The
few definitions whose shape the macros do not cover are written by hand in the files named in
HAND below; the generator leaves them alone. Run `cargo fmt` afterwards.
"""

import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import docs  # noqa: E402

HERE = Path(__file__).resolve().parent
V2 = HERE.parent
SRC = V2.parent
ROOT = SRC.parent.parent.parent

# Written by hand (jsonrpc.rs, error.rs, untagged.rs): untagged unions and the envelopes.
HAND = {
    "RequestId", "ErrorCode", "ErrorData", "ElicitationContentValue",
    "SessionConfigSelectOptions", "EmbeddedResourceResource",
    "AgentRequest", "ClientRequest", "AgentNotification", "ClientNotification",
    "AgentResponse", "ClientResponse",
    "ProxyRequest", "ProxyResponse", "ProxyNotification",
}
# Unions that are the payload of another union's variant (`state_update` carries a StateUpdate).
NESTED = {"StateUpdate"}
ENVELOPES = ["AgentRequest", "AgentResponse", "AgentNotification",
             "ClientRequest", "ClientResponse", "ClientNotification",
             "ProxyRequest", "ProxyResponse", "ProxyNotification"]

# Union variants declared `as boxed` (their payload is a `Box`), as v1 boxes the same kinds: a
# value moves through every layer of a session update by memmove, so the union is as large as
# its largest variant. The hot kinds (text, message chunks) stay inline; large, rarer ones are
# boxed. Boxing changes the Rust type only, never the wire or the schema.
BOXED = {
    ("ContentBlock", "image"), ("ContentBlock", "audio"),
    ("ContentBlock", "resource_link"), ("ContentBlock", "resource"),
    # Upserts of tool calls and terminals (v1 boxes its tool-call kinds), a tool call's content
    # chunks (a diff makes them large) and the subagent drafts: without them a session update
    # is 376 bytes (544 with the drafts), with them as small as a message chunk.
    ("SessionUpdate", "tool_call_update"), ("SessionUpdate", "tool_call_content_chunk"),
    ("SessionUpdate", "terminal_update"),
    ("SessionUpdate", "subagent_update"), ("SessionUpdate", "session_message"),
}
# Field types held in a `Box` wherever they occur (rare and large: v1 boxes them too).
BOXED_FIELDS = {"Annotations"}
# Fields held in a `Box` (owner, JSON name): rare, large members of a hot type. The state
# update stays inline in a session update (matched on by every client) with these boxed.
BOXED_MEMBERS = {("IdleStateUpdate", "error"), ("IdleStateUpdate", "usage")}

# Upserts: fields whose omission, `null` and value are three states (schema descriptions).
PATCH = {
    "ToolCallUpdate": None,  # every optional field
    "TerminalUpdate": None,
    "UserMessage": None,
    "AgentMessage": None,
    "AgentThought": None,
    "SessionInfoUpdate": None,
    "CompactionUpdate": {"summary", "error", "_meta"},
    "SubagentUpdate": None,
    "SessionMessage": None,
}

# Objects with a flattened union: the enum of their tag (inline in the schema: not a definition).
MERGED_TAG = {
    "DiffChange": ("operation", "DiffOperation", "What a diff change does to its file."),
    "IdleStateUpdate": ("stopReason", "StopReason", "Why foreground work stopped."),
    "SessionConfigOption": ("type", "SessionConfigKind", "The kind of a configuration option."),
    "SetSessionConfigOptionRequest": ("type", "SessionConfigValueKind", "The kind of value `session/set_config_option` sets."),
    "CreateElicitationRequest": ("mode", "ElicitationMode", "How the client collects the user's input."),
    "CreateElicitationResponse": ("action", "ElicitationAction", "What the user did with an elicitation."),
}

VARIANT_DOCS = {
    ("DiffOperation", "add"): "A file was created.",
    ("DiffOperation", "delete"): "A file was deleted.",
    ("DiffOperation", "modify"): "A file was changed in place.",
    ("DiffOperation", "move"): "A file was moved or renamed.",
    ("DiffOperation", "copy"): "A file was copied.",
    ("StopReason", "error"): "Foreground work ended with an error.",
    ("ToolCallStatus", "cancelled"): "The tool call was cancelled before it completed.",
    ("PlanEntryStatus", "cancelled"): "The entry was cancelled.",
    ("DiffFileType", "text"): "A text file.",
    ("DiffFileType", "binary"): "A binary file.",
    ("DiffFileType", "directory"): "A directory.",
    ("DiffFileType", "symlink"): "A symbolic link.",
    ("DiffPatchFormat", "git_patch"): "`diff --git` sections in Git's patch text format.",
    ("StateUpdate", "running"): "Foreground work started or resumed.",
    ("StateUpdate", "idle"): "The agent is ready for a new prompt; with a stop reason when this ends foreground work.",
    ("StateUpdate", "requires_action"): "Foreground work waits for the user (for example on a permission request).",
    ("IconTheme", "light"): "For light backgrounds.",
    ("IconTheme", "dark"): "For dark backgrounds.",
    ("SessionConfigValueKind", "id"): "The id of one of the option's values.",
    ("SessionConfigValueKind", "boolean"): "On or off.",
    ("ElicitationMode", "form"): "A form the client renders.",
    ("ElicitationMode", "url"): "A URL the user visits.",
    ("SessionConfigKind", "select"): "A choice among values.",
    ("SessionConfigKind", "boolean"): "An on/off switch.",
}

# The draft features of v2 definitions that v1 does not have (the others take the feature of
# v1's module of the same definition, read from `src/unstable/`).
DRAFT_FEATURES = {
    "McpAcpCapabilities": "unstable_mcp_over_acp",
    "BackgroundSubagent": "unstable_subagents",
    # The envelopes of proxy chains (hand-written in `jsonrpc.rs`).
    "ProxyRequest": "unstable_proxy_chains",
    "ProxyResponse": "unstable_proxy_chains",
    "ProxyNotification": "unstable_proxy_chains",
}
# Draft members of stable definitions whose type names no draft definition.
MEMBER_FEATURES = {
    ("SessionInfo", "archived"): "unstable_session_archive",
}

RUST_KEYWORDS = {"type": "kind", "enum": "enum_values", "ref": "reference", "move": "move_to"}

FILES = [
    ("ids", "The identifiers of v2.", lambda n, c: c == "id"),
    ("jsonrpc", None, lambda n, c: n in ENVELOPES or n == "RequestId"),
    ("error", None, lambda n, c: n in ("Error", "ErrorCode", "ErrorData") or n.endswith("ErrorData")),
    ("state", "The state of a session's foreground work: `state_update` and the prompt lifecycle.",
     lambda n, c: "StateUpdate" in n or n.startswith("Background") or n == "ErrorStopReason"),
    ("messages", "Messages: whole-message upserts and chunks.",
     lambda n, c: n in ("UserMessage", "AgentMessage", "AgentThought", "ContentChunk")),
    ("terminal", "Agent-owned display terminals: updates, output snapshots and chunks.",
     lambda n, c: "Terminal" in n and "Auth" not in n),
    ("tool_call", "Tool calls: upserts, content and content chunks, cancellation.",
     lambda n, c: n.startswith("ToolCall") or n.startswith("ToolKind") or n in ("Content", "CancelToolCallRequest", "CancelToolCallResponse")),
    ("diff", "Structured diffs: file-level changes and renderable patch text.", lambda n, c: n.startswith("Diff")),
    ("plan", "Plans, keyed by `planId`.", lambda n, c: n.startswith("Plan")),
    ("permission", "Permission requests: subjects, options and outcomes.",
     lambda n, c: "Permission" in n),
    ("command", "Slash commands.", lambda n, c: "Command" in n and "Permission" not in n),
    ("capabilities", "Capabilities, exchanged by `initialize`: presence marks support.",
     lambda n, c: n.endswith("Capabilities")),
    ("initialize", "Initialization: version negotiation, identities and capabilities.",
     lambda n, c: n.startswith("Initialize")),
    ("auth", "Authentication: methods, `auth/login` and `auth/logout`.",
     lambda n, c: n.startswith("Auth") or "AuthRequest" in n or "AuthResponse" in n),
    ("elicitation", "Elicitation: asking the user for structured input.",
     lambda n, c: "Elicitation" in n or "PropertySchema" in n or "MultiSelect" in n or n in ("StringFormat", "EnumOption")),
    ("config", "Session configuration options.", lambda n, c: "Config" in n),
    ("mcp", "MCP server configurations.", lambda n, c: n.startswith("McpServer")),
    ("content", "Content blocks: what prompts, messages and tool results are made of.",
     lambda n, c: n in ("ContentBlock", "TextContent", "ImageContent", "AudioContent", "ResourceLink",
                        "EmbeddedResource", "EmbeddedResourceResource", "TextResourceContents",
                        "BlobResourceContents", "Annotations", "Role", "Icon", "IconTheme")),
    ("update", "Session updates: `session/update` and what it carries.",
     lambda n, c: n.endswith("Update") or n in ("SessionUpdate", "UpdateSessionNotification", "Notice", "NoticeSeverity", "CompactionSummaryChunk", "CompactionStatus")),
    ("session", "Sessions: creating, resuming with replay, listing, prompting, cancelling.",
     lambda n, c: True),
]


def load(path):
    with open(path) as f:
        return json.load(f)


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("description", "title", "x-docs-ignore")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def undocumented(schema):
    """A schema without its documentation (descriptions and titles), for the generated code:
    unlike `strip`, members named like a documentation keyword stay."""
    if isinstance(schema, list):
        return [undocumented(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k in ("description", "title", "x-docs-ignore"):
            continue
        if k in ("properties", "$defs", "patternProperties") and isinstance(v, dict):
            out[k] = {name: undocumented(sub) for name, sub in v.items()}
        else:
            out[k] = undocumented(v)
    return out


def refs(x, acc):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "$ref":
                acc.add(v.split("/")[-1])
            else:
                refs(v, acc)
    elif isinstance(x, list):
        for v in x:
            refs(v, acc)
    return acc


# The stable v2 definitions that are v1's types, re-exported. Fixed, so that a regeneration
# never turns a public v2 type into another: each must still be identical (descriptions aside,
# transitively) to v1's definition of the same name, or the generator stops. A definition that
# becomes identical later (the stable compaction and notice types of November are) stays a v2
# type of its own until someone decides otherwise here.
STABLE_REEXPORTS = {
    "AuthMethodId", "BooleanPropertySchema", "CloseSessionRequest", "CloseSessionResponse",
    "CompleteElicitationNotification", "Cost", "DeleteSessionRequest", "DeleteSessionResponse",
    "ElicitationCapabilities", "ElicitationFormCapabilities", "ElicitationId",
    "ElicitationSchemaType", "ElicitationSessionScope", "ElicitationUrlCapabilities",
    "EnumOption", "EnvVariable", "ExtNotification", "ExtRequest", "ExtResponse", "HttpHeader",
    "Implementation", "IntegerPropertySchema", "MessageId", "NumberPropertySchema",
    "PermissionOptionId", "ProtocolVersion", "SelectedPermissionOutcome",
    "SessionAdditionalDirectoriesCapabilities", "SessionConfigBoolean", "SessionConfigGroupId",
    "SessionConfigId", "SessionConfigOptionCategory", "SessionConfigSelectOption",
    "SessionConfigValueId", "SessionDeleteCapabilities", "SessionId", "Terminal", "TerminalId",
    "ToolCallId", "UsageUpdate",
}


def reexports(v2, v1):
    """The v2 definitions of [`STABLE_REEXPORTS`], each checked to be identical (descriptions
    aside, transitively) to v1's."""
    same = {n for n in v2 if n in v1 and strip(v2[n]) == strip(v1[n])}
    changed = True
    while changed:
        changed = False
        for n in list(same):
            if any(r not in same for r in refs(v2[n], set())):
                same.discard(n)
                changed = True
    differ = sorted(STABLE_REEXPORTS - same)
    if differ:
        sys.exit(f"re-exported from v1 but no longer identical to v1's definition: {differ}")
    return set(STABLE_REEXPORTS)


def v1_draft_modules():
    """The module of v1's drafts for each feature, and the feature of each definition those
    modules declare (read from `src/unstable/`)."""
    unstable = SRC / "unstable"
    text = (unstable / "mod.rs").read_text()
    module_of = {}
    feature_of = {}
    for feature, module in re.findall(r'#\[cfg\(feature = "(\w+)"\)\]\n(?:pub\(crate\) )?mod (\w+);', text):
        module_of[feature] = module
        body = (unstable / f"{module}.rs").read_text()
        for name in re.findall(r"pub (?:struct|enum) (\w+)", body):
            feature_of.setdefault(name, feature)
    return module_of, feature_of


def draft_reexports(v2, features, v1_drafts, stable):
    """The draft definitions identical (descriptions aside, transitively) to v1's, with the
    same feature: v1's types, re-exported."""
    same = {n for n in features
            if n in v1_drafts and n not in HAND and strip(v2[n]) == strip(v1_drafts[n])}
    changed = True
    while changed:
        changed = False
        for n in list(same):
            if any(r not in same and r not in stable for r in refs(v2[n], set())):
                same.discard(n)
                changed = True
    return same


def snake(name):
    s = re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()
    return s


def variant_name(value):
    """The Rust name of a union variant: `Unknown` is the name of every open union's catch-all,
    so a kind named `unknown` (a subagent's `"state": "unknown"`) is `UnknownState`."""
    name = camel(value)
    return "UnknownState" if name == "Unknown" else name


def camel(value):
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[_\-/ ]", value.lstrip("_")) if p)


def field_name(json_name):
    if json_name == "_meta":
        return "meta"
    if json_name in RUST_KEYWORDS:
        return RUST_KEYWORDS[json_name]
    return snake(json_name)


def ref_of(s):
    if "$ref" in s:
        return s["$ref"].split("/")[-1]
    if "allOf" in s and len(s["allOf"]) == 1 and "$ref" in s["allOf"][0]:
        return s["allOf"][0]["$ref"].split("/")[-1]
    return None


def unnull(s):
    """The schema without its `null` alternative, and whether it had one."""
    t = s.get("type")
    if isinstance(t, list) and "null" in t:
        rest = [x for x in t if x != "null"]
        s = dict(s)
        s["type"] = rest[0] if len(rest) == 1 else rest
        return s, True
    if "anyOf" in s:
        alts = [a for a in s["anyOf"] if a != {"type": "null"}]
        if len(alts) < len(s["anyOf"]):
            base = {k: v for k, v in s.items() if k != "anyOf"}
            if len(alts) == 1:
                base.update(alts[0])
            else:
                base["anyOf"] = alts
            return base, True
    return s, False


INTS = {"uint64": "u64", "int64": "i64", "uint32": "u32", "uint16": "u16", "int32": "i32"}


def rust_type(s):
    """The Rust type of a property schema (without null): a string, or None for any JSON."""
    r = ref_of(s)
    if r:
        return r
    t = s.get("type")
    if t is None:
        return None
    if t == "string":
        return "String"
    if t == "integer":
        return INTS.get(s.get("format"), "i64")
    if t == "number":
        return "f64"
    if t == "boolean":
        return "bool"
    if t == "array":
        inner = rust_type(s["items"])
        return f"Vec<{inner or 'serde_json::Value'}>"
    if t == "object":
        ap = s.get("additionalProperties")
        if ap is True or ap is None:
            return "Meta"
        inner = rust_type(ap)
        return f"BTreeMap<String, {inner or 'serde_json::Value'}>"
    raise ValueError(f"no Rust type for {s}")


NUMBERS = {"u64", "i64", "u32", "u16", "i32", "f64", "bool"}

# Keywords of a property the Rust type of its field does not state (a string's format or
# encoding, bounds beyond the integer type's own, a list's least length): the generated schema
# adds them (`shape::keywords`).
KEYWORDS = ("format", "contentEncoding", "minimum", "maximum", "minItems")
NUMBER_FORMATS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float", "double"}
NATURAL = {"uint8": (0, 255), "uint16": (0, 65535), "uint32": (0, None), "uint64": (0, None)}


def overlay(props):
    """The keywords (KEYWORDS) of each property that its field's type does not give."""
    out = {}
    for json_name, ps in props.items():
        fmt = ps.get("format")
        lo, hi = NATURAL.get(fmt, (None, None))
        kw = {}
        for key in KEYWORDS:
            if key not in ps:
                continue
            value = ps[key]
            if key == "format" and (not isinstance(value, str) or value in NUMBER_FORMATS):
                continue
            if (key == "minimum" and value == lo) or (key == "maximum" and value == hi):
                if key == "maximum" or value == lo:
                    continue
            kw[key] = value
        if kw:
            out[json_name] = kw
    return out


def rust_json(value):
    """A JSON value as the argument of `serde_json::json!`."""
    return json.dumps(value)


class Field:
    def __init__(self, owner, json_name, schema, required, patch):
        self.owner = owner
        self.json = json_name
        self.name = field_name(json_name)
        base, nullable = unnull(schema)
        self.ty = rust_type(base)
        if self.ty in BOXED_FIELDS or (owner, json_name) in BOXED_MEMBERS:
            self.ty = f"Box<{self.ty}>"
        flags = []
        if schema.get("x-deserialize-default-on-error"):
            flags.append("DOE")
        if schema.get("x-deserialize-skip-invalid-items"):
            flags.append("SKIP")
        if required:
            self.kind = "req"
            if base.get("minLength") == 1 and self.ty == "String":
                flags.append("NON_EMPTY")
        elif patch:
            self.kind = "patch"
        else:
            self.kind = "opt"
            # `x-deserialize-default-on-null`: `null` takes the default (the field is absent),
            # any other wrong value is an error, as in v1.
            if schema.get("x-deserialize-default-on-null"):
                flags.append("NULL_DEFAULT")
            elif nullable:
                flags.append("NULLABLE")
        if self.ty is None:
            if self.kind == "opt":
                self.kind = "raw"
                flags = [f for f in flags if f != "NULLABLE"]
            else:
                self.ty = "serde_json::Value"
        self.flags = flags
        self.doc = None
        self.cfg = None

    def decl(self):
        flags = f" [{' | '.join(self.flags)}]" if self.flags else ""
        if self.kind == "raw":
            return f'raw {self.name} = "{self.json}"{flags};'
        return f'{self.kind} {self.name}: {self.ty} = "{self.json}"{flags};'

    def ctor_arg(self):
        if self.ty in NUMBERS:
            return f"{self.name}: {self.ty}" if self.ty != "f64" else f"{self.name}: impl crate::IntoField<f64>"
        return f"{self.name}: impl Into<{self.ty}>"


def doc_lines(text, indent):
    out = []
    width = 96 - len(indent) - 4
    for para in text.split("\n\n"):
        words = para.split()
        line = ""
        for w in words:
            if line and len(line) + 1 + len(w) > width:
                out.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        if line:
            out.append(line)
        out.append("")
    while out and out[-1] == "":
        out.pop()
    return "".join(f"{indent}///{(' ' + l) if l else ''}\n" for l in out)


class Gen:
    def __init__(self, spec_dir):
        self.stable = load(spec_dir / "v2" / "schema.json")["$defs"]
        # Every definition, the drafts' with them: a stable definition's draft members are
        # compiled with their feature.
        self.v2 = load(spec_dir / "v2" / "schema.unstable.json")["$defs"]
        self.meta = load(spec_dir / "v2" / "meta.unstable.json")
        self.reexport = reexports(self.stable, load(spec_dir / "v1" / "schema.json")["$defs"])
        self.modules = v1_draft_modules()
        self.draft_feature = {}
        for name in self.v2:
            if name not in self.stable:
                self.draft_feature[name] = DRAFT_FEATURES.get(name) or self.modules[1][name]
        v1_drafts = load(spec_dir / "v1" / "schema.unstable.json")["$defs"]
        self.reexport_drafts = draft_reexports(self.v2, self.draft_feature, v1_drafts, self.reexport)
        self.reexport |= self.reexport_drafts
        self.tdocs, self.fdocs, self.vdocs = docs.v1_docs(SRC)
        self.checks = []  # Rust items of the check functions, per file.

    # -- docs ---------------------------------------------------------------
    def type_doc(self, name):
        return docs.TYPES.get(name) or self.tdocs.get(name) or f"The `{name}` of ACP v2."

    def field_doc(self, owner, json_name):
        d = docs.FIELDS.get((owner, json_name)) or self.fdocs.get((owner, json_name))
        if d:
            return d
        if json_name in docs.GENERIC_FIELDS:
            return docs.GENERIC_FIELDS[json_name]
        for (o, j), text in self.fdocs.items():
            if j == json_name:
                return text
        return f"The {docs.words(json_name.lstrip('_'))}."

    def variant_doc(self, owner, value, ref=None):
        d = VARIANT_DOCS.get((owner, value)) or self.vdocs.get((owner, value))
        if d:
            return d
        if ref:
            return self.type_doc(ref)
        return f"`{value}`."

    # -- draft features ---------------------------------------------------
    def is_draft(self, name):
        return name in self.draft_feature

    def ref_feature(self, schema):
        """The feature of the first draft definition `schema` names (not through stable
        definitions, which are always compiled)."""
        seen = set()
        todo = sorted(refs(schema, set()))
        while todo:
            r = todo.pop(0)
            if r in seen:
                continue
            seen.add(r)
            if r in self.draft_feature:
                return self.draft_feature[r]
            # A stable definition is compiled whatever its draft members need.
        return None

    def member_feature(self, owner, json_name, schema):
        """The feature of a draft member of a stable definition, or of a member of a draft
        definition whose type belongs to another draft feature (None: compiled with its
        owner)."""
        if owner in self.draft_feature:
            feature = self.ref_feature(schema)
            return feature if feature not in (None, self.draft_feature[owner]) else None
        if owner not in self.stable:
            return None
        if json_name in self.stable[owner].get("properties", {}):
            return None
        if json_name not in self.v2[owner].get("properties", {}):
            return None  # A member of a flattened kind, not of the object itself.
        feature = MEMBER_FEATURES.get((owner, json_name)) or self.ref_feature(schema)
        if feature is None:
            raise ValueError(f"no feature for the draft member {owner}.{json_name}")
        return feature

    def variant_feature(self, owner, value, branch):
        """The feature of a draft variant of a stable union (None: a stable variant)."""
        if owner not in self.stable or owner in self.draft_feature:
            return None
        br = self.stable[owner].get("anyOf") or self.stable[owner].get("oneOf") or []
        for b in br:
            if b.get("properties", {}).get(next(iter(branch.get("properties", {})), ""), {}).get("const") == value:
                return None
        return self.ref_feature(branch)

    # -- classification ---------------------------------------------------
    def category(self, name):
        s = self.v2[name]
        if name in HAND:
            return "hand"
        if name in self.reexport:
            return "reexport"
        if set(s) - {"description", "x-method", "x-side"} == {"allOf"} and ref_of(s):
            return "alias"
        if s.get("type") == "string":
            return "id"
        if s.get("type") == "object":
            return "merged" if any(k in s for k in ("anyOf", "oneOf")) else "object"
        br = s.get("anyOf") or s.get("oneOf")
        if br and all(b.get("type") == "string" for b in br):
            return "enum"
        if br:
            return "union"
        raise ValueError(f"unclassified {name}")

    def file_of(self, name):
        cat = self.category(name)
        for file, _, pred in FILES:
            if pred(name, cat):
                return file
        raise AssertionError

    # -- emitters -----------------------------------------------------------
    def emit_id(self, name):
        return f"id_type! {{\n{doc_lines(self.type_doc(name), '    ')}    pub struct {name};\n}}\n"

    def emit_enum(self, name, values, inline=False, doc=None):
        out = f"string_enum! {{\n{doc_lines(doc or self.type_doc(name), '    ')}    pub enum {name} {{\n"
        for v in values:
            out += doc_lines(self.variant_doc(name, v), "        ")
            out += f'        {camel(v)} = "{v}",\n'
        out += "    }\n    Unknown, open_schema = true" + (", inline = true" if inline else "") + "\n}\n"
        return out

    def enum_values(self, s):
        br = s.get("anyOf") or s.get("oneOf")
        return [b["const"] for b in br if "const" in b]

    def emit_union(self, name):
        s = self.v2[name]
        br = s.get("anyOf") or s.get("oneOf")
        tag = None
        variants, default, other_required = [], None, []
        for b in br:
            props = b.get("properties", {})
            consts = [(k, v["const"]) for k, v in props.items() if "const" in v]
            if consts:
                tag = consts[0][0]
                variants.append((consts[0][1], ref_of(b), b))
            elif b.get("title") == "other":
                tag = tag or next(iter(props))
                other_required = [r for r in b.get("required", []) if r != tag]
            else:
                default = ref_of(b)
        out = f"tagged_union! {{\n{doc_lines(self.type_doc(name), '    ')}    pub enum {name} {{\n"
        out += f'        tag = "{tag}",\n        combinator = "anyOf",\n        discriminator = false,\n        open = true,\n'
        if default:
            out += f'        default = {camel(default.replace(name, "") or "Default")}({default}) = "{snake(default.replace(name, "")) or "default"}",\n'
        if name in NESTED:
            out += "        nested = true,\n"
        out += "        unknown = Unknown,\n"
        if other_required:
            out += "        unknown_requires = [" + ", ".join(f'"{r}"' for r in other_required) + "],\n"
            out += f"        schema_extend = schema_{snake(name)},\n"
        out += "        variants {\n"
        for value, ref, branch in variants:
            out += doc_lines(self.variant_doc(name, value, ref), "            ")
            feature = self.variant_feature(name, value, branch)
            if feature:
                out += f'            #[cfg(feature = "{feature}")]\n'
            boxed = " as boxed" if (name, value) in BOXED else ""
            out += f'            {variant_name(value)}({ref}) = "{value}"{boxed},\n'
        out += "        }\n    }\n}\n"
        if other_required:
            other = next(b for b in br if b.get("title") == "other")
            props = {k: undocumented(v) for k, v in other.get("properties", {}).items()}
            props.pop(tag, None)
            out += f"\n/// Gives the catch-all branch of a [`{name}`] the members every kind requires.\n"
            out += f"fn schema_{snake(name)}(object: &mut serde_json::Map<String, serde_json::Value>) {{\n"
            out += f'    catch_all_requires(object, serde_json::json!({rust_json(props)}), &[{", ".join(chr(34) + r + chr(34) for r in other_required)}]);\n'
            out += "}\n"
        return out

    def fields_of(self, name, props, required):
        patch = name in PATCH
        only = PATCH.get(name)
        fields = []
        for json_name, ps in props.items():
            is_patch = patch and json_name not in required and (only is None or json_name in only)
            f = Field(name, json_name, ps, json_name in required, is_patch)
            f.doc = self.field_doc(name, json_name)
            f.cfg = self.member_feature(name, json_name, ps)
            fields.append(f)
        return fields

    def emit_object(self, name, fields, extra_attrs="", doc=None):
        req = [f for f in fields if f.kind == "req"]
        out = f"wire_object! {{\n{doc_lines(doc or self.type_doc(name), '    ')}"
        out += extra_attrs
        if req:
            out += f"    #[new({', '.join(f.ctor_arg() for f in req)})]\n"
        else:
            out += "    #[optional_fields(new)]\n"
        out += f"    pub struct {name} {{\n"
        for f in fields:
            out += doc_lines(f.doc, "        ")
            if f.cfg:
                out += f'        #[cfg(feature = "{f.cfg}")]\n'
            out += f"        {f.decl()}\n"
        out += "    }\n}\n"
        return out

    def flatten(self, name):
        """Properties, required names and alternative groups of a definition, its `allOf`
        references and nested scope unions folded in."""
        s = self.v2[name]
        props = dict(s.get("properties", {}))
        required = list(s.get("required", []))
        groups = []
        for a in s.get("allOf", []):
            r = ref_of(a)
            if r:
                p, q, g = self.flatten(r)
                props.update(p)
                required += q
                groups += g
        if "oneOf" in s and s.get("type") == "object":
            alts = []
            for b in s["oneOf"]:
                r = ref_of(b)
                p, q, _ = self.flatten(r)
                props.update(p)
                alts.append(q)
            groups.append(alts)
        return props, required, groups

    def emit_merged(self, name):
        s = self.v2[name]
        common = dict(s.get("properties", {}))
        common_req = list(s.get("required", []))
        tag_info = MERGED_TAG.get(name)
        out = ""
        branches = []  # (tag value or None for other, required, groups, typed)
        merged = {}
        types = {}
        if tag_info:
            tag, enum_name, enum_doc = tag_info
            for b in s["anyOf"]:
                props = {k: v for k, v in b.get("properties", {}).items() if k != tag}
                req = [r for r in b.get("required", []) if r != tag]
                groups = []
                for a in b.get("allOf", []):
                    p, q, g = self.flatten(ref_of(a))
                    props.update(p)
                    req += q
                    groups += g
                if "oneOf" in b:
                    alts = []
                    for a in b["oneOf"]:
                        p, q, _ = self.flatten(ref_of(a))
                        props.update(p)
                        alts.append(q)
                    groups.append(alts)
                const = b.get("properties", {}).get(tag, {}).get("const")
                for k, v in props.items():
                    merged.setdefault(k, v)
                    types.setdefault(k, {})[const] = rust_type(unnull(v)[0])
                branches.append((const, req, groups, props))
            values = [c for c, *_ in branches if c is not None]
            out += self.emit_enum(enum_name, values, inline=True, doc=enum_doc)
        else:
            tag = None
            p, q, groups = self.flatten(name)
            for k, v in p.items():
                if k not in common:
                    merged[k] = v
            branches.append(("*", [], groups, {}))
        fields = []
        all_req_tag = tag and all(tag in b.get("required", []) for b in s["anyOf"])
        for json_name, ps in common.items():
            if json_name == tag:
                continue
            fields += self.fields_of(name, {json_name: ps}, common_req)
        if tag:
            # The tag's own schema (when the object lists it) gives its flags; its type is the
            # enum of the known tags.
            tf = Field(name, tag, common.get(tag, {"type": "string"}), all_req_tag, False)
            tf.ty = tag_info[1]
            tf.doc = self.field_doc(name, tag)
            fields.insert(0, tf)
        typed = []
        for json_name, ps in merged.items():
            if json_name in common or json_name == tag:
                continue
            f = Field(name, json_name, ps, False, False)
            distinct = {t for t in types.get(json_name, {}).values() if t is not None}
            if len(distinct) > 1 or None in types.get(json_name, {}).values() and distinct:
                # Different types by variant: any JSON here, checked against the variant.
                f.kind, f.ty, f.flags = "raw", None, []
                typed.append(json_name)
            f.doc = self.field_doc(name, json_name)
            fields.append(f)
        by_json = {f.json: f for f in fields}
        fn = f"check_{snake(name)}"
        sch = f"schema_{snake(name)}"
        attrs = f"    #[schema_extend({sch})]\n    #[check({fn})]\n"
        out += self.emit_object(name, fields, attrs)
        out += self.emit_check(name, fn, sch, tag, tag_info, branches, by_json, types, typed)
        out += self.emit_shape(name, sch, tag, by_json)
        return out

    def present(self, by_json, j):
        f = by_json[j]
        if f.kind == "req":
            return "true"
        return f"value.{f.name}.is_some()"

    def emit_check(self, name, fn, sch, tag, tag_info, branches, by_json, types, typed):
        def cond(req, groups):
            parts = []
            if req:
                parts.append("require(&[" + ", ".join(f'("{j}", {self.present(by_json, j)})' for j in req) + "])?;")
            for alts in groups:
                parts.append("one_of(&[" + ", ".join("&[" + ", ".join(f'("{j}", {self.present(by_json, j)})' for j in alt) + "]" for alt in alts) + "])?;")
            return parts

        body = []
        if tag:
            enum_name = tag_info[1]
            tf = by_json[tag]
            access = f"&value.{tf.name}" if tf.kind == "req" else f"value.{tf.name}.as_ref()"
            body.append(f"match {access} {{")
            other = None
            for const, req, groups, props in branches:
                if const is None:
                    other = (req, groups)
                    continue
                arm = f"{'Some(' if tf.kind != 'req' else ''}{enum_name}::{camel(const)}{')' if tf.kind != 'req' else ''}"
                lines = cond(req, groups)
                for j in typed:
                    t = types.get(j, {}).get(const)
                    if t is not None:
                        lines.append(f'typed::<{t}>("{j}", value.{by_json[j].name}.as_ref())?;')
                body.append(f"    {arm} => {{")
                body += ["        " + l for l in lines]
                body.append("    }")
            rest = cond(*other) if other else []
            body.append("    _ => {")
            body += ["        " + l for l in rest]
            body.append("    }")
            body.append("}")
        else:
            for _, req, groups, _ in branches:
                body += cond(req, groups)
        body.append("Ok(())")
        out = f"\n/// Checks what the schema requires of a [`{name}`] beyond its fields: what its kind needs.\n"
        out += f"fn {fn}(value: &{name}) -> Result<(), String> {{\n"
        out += "".join(f"    {l}\n" for l in body)
        out += "}\n"
        return out

    def emit_shape(self, name, sch, tag, by_json):
        """The schema function of an object with a flattened union: the official shape (the
        common members as properties, the kinds as references to their definitions), which
        accepts what the check accepts."""
        s = self.v2[name]
        props = s.get("properties", {})
        out = f"\n/// Gives the schema of a [`{name}`] the official shape: its common members, and its\n"
        out += "/// kinds as references to their definitions.\n"
        out += f"fn {sch}(object: &mut serde_json::Map<String, serde_json::Value>) {{\n"
        keep = ", ".join(f'"{j}"' for j in props)
        out += f"    only_properties(object, &[{keep}]);\n"
        if tag and tag in props:
            out += f'    replace_property(object, "{tag}", serde_json::json!({rust_json(undocumented(props[tag]))}));\n'
        req = s.get("required", [])
        out += f"    set_required(object, &[{', '.join(chr(34) + r + chr(34) for r in req)}]);\n"
        for key in ("anyOf", "oneOf"):
            if key in s:
                out += f'    object.insert("{key}".into(), serde_json::json!({rust_json(undocumented(s[key]))}));\n'
        kw = overlay({j: p for j, p in props.items() if j != tag})
        if kw:
            out += f"    keywords(object, serde_json::json!({rust_json(kw)}));\n"
        out += "}\n"
        return out

    def bounds(self, s, fields):
        """Checks of `minItems`, `minimum` and `maximum` on members without
        `x-deserialize-default-on-error` (where a value out of bounds is an error)."""
        checks = []
        for f in fields:
            ps = s["properties"][f.json]
            if ps.get("x-deserialize-default-on-error"):
                continue
            base = unnull(ps)[0]
            access = f"&value.{f.name}" if f.kind == "req" else f"value.{f.name}.as_ref()"
            if "minItems" in base:
                fn = "min_items" if f.kind == "req" else "min_items_opt"
                checks.append(f'{fn}("{f.json}", {access}, {base["minItems"]})?;')
            lo, hi = base.get("minimum"), base.get("maximum")
            natural = {"u16": (0, 65535), "u32": (0, 4294967295), "u64": (0, None)}.get(f.ty, (None, None))
            if (lo is not None and lo != natural[0]) or (hi is not None and hi != natural[1]):
                low = f"Some({lo})" if lo is not None else "None"
                high = f"Some({hi})" if hi is not None else "None"
                if f.kind == "req":
                    checks.append(f'in_range("{f.json}", value.{f.name}, {low}, {high})?;')
                elif f.kind == "opt":
                    checks.append(f'if let Some(v) = value.{f.name} {{ in_range("{f.json}", v, {low}, {high})?; }}')
        return checks

    def emit(self, name):
        cat = self.category(name)
        s = self.v2[name]
        if cat == "id":
            return self.emit_id(name)
        if cat == "alias":
            return f"same_as! {{\n{doc_lines(self.type_doc(name), '    ')}    pub struct {name}({ref_of(s)});\n}}\n"
        if cat == "enum":
            return self.emit_enum(name, self.enum_values(s))
        if cat == "union":
            return self.emit_union(name)
        if cat == "object":
            fields = self.fields_of(name, s.get("properties", {}), s.get("required", []))
            checks = self.bounds(s, fields)
            kw = overlay(s.get("properties", {}))
            attrs = ""
            tail = ""
            if kw:
                sch = f"schema_{snake(name)}"
                attrs += f"    #[schema_extend({sch})]\n"
                tail += f"\n/// Adds to the schema of a [`{name}`] what the types of its fields do not say.\n"
                tail += f"fn {sch}(object: &mut serde_json::Map<String, serde_json::Value>) {{\n"
                tail += f"    keywords(object, serde_json::json!({rust_json(kw)}));\n}}\n"
            if checks:
                fn = f"check_{snake(name)}"
                attrs += f"    #[check({fn})]\n"
                tail += f"\n/// Checks the bounds the schema sets on the members of a [`{name}`].\n"
                tail += f"fn {fn}(value: &{name}) -> Result<(), String> {{\n"
                tail += "".join(f"    {c}\n" for c in checks)
                tail += "    Ok(())\n}\n"
            return self.emit_object(name, fields, attrs) + tail
        if cat == "merged":
            return self.emit_merged(name)
        return ""

    def file_text(self, title, names, prefix):
        """The text of a generated file of types: its docs, imports and definitions."""
        text = f"//! {title}\n//!\n//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.\n\n"
        body = "".join("\n" + self.emit(n) for n in names)
        if body:
            text += f"use {prefix}prelude::*;\n"
        if "same_as! {" in body:
            text += "use crate::unstable::proxy::same_as;\n"
        used = [f for f in ("in_range", "min_items", "min_items_opt", "one_of", "require", "typed")
                if f"{f}(" in body or f"{f}::<" in body]
        if used:
            text += f"use {prefix}check::{{" + ", ".join(used) + "};\n"
        shaped = [f for f in ("catch_all_requires", "keywords", "only_properties", "replace_property", "set_required")
                  if f"{f}(" in body]
        if shaped:
            text += f"use {prefix}shape::{{" + ", ".join(shaped) + "};\n"
        return text + body

    def run(self):
        files = {}
        drafts = {}
        for name in self.v2:
            cat = self.category(name)
            if self.is_draft(name) and cat != "hand":
                drafts.setdefault(self.draft_feature[name], []).append(name)
                continue
            if cat in ("hand", "reexport"):
                continue
            files.setdefault(self.file_of(name), []).append(name)
        for file, title, _ in FILES:
            names = files.get(file)
            if not names:
                continue
            (V2 / f"{file}.rs").write_text(self.file_text(title, names, "super::"))
        self.write_drafts(drafts)
        self.write_lists(files)
        self.write_methods()
        self.write_conversions()

    def write_drafts(self, drafts):
        """`unstable/`: the definitions of each draft feature, one module per feature (named as
        v1's), each compiled with its feature."""
        folder = V2 / "unstable"
        folder.mkdir(exist_ok=True)
        mods = []
        for feature in sorted(drafts, key=lambda f: self.modules[0][f]):
            module = self.modules[0][feature]
            names = drafts[feature]
            own = [n for n in names if n not in self.reexport]
            shared = sorted(n for n in names if n in self.reexport)
            title = f"The v2 definitions of the draft feature `{feature}`."
            text = self.file_text(title, own, "crate::v2::")
            if shared:
                text += "\n// The definitions of this draft v2 shares with v1: v1's types.\n"
                text += "pub use crate::{" + ", ".join(shared) + "};\n"
            (folder / f"{module}.rs").write_text(text)
            mods.append((feature, module))
        text = "//! The v2 definitions of the draft features, each compiled with its feature (the names\n"
        text += "//! of v1's drafts); with them, stable v2 definitions gain their draft members.\n//!\n"
        text += "//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.\n\n"
        for feature, module in mods:
            text += f'#[cfg(feature = "{feature}")]\nmod {module};\n'
        text += "\n"
        for feature, module in mods:
            text += f'#[cfg(feature = "{feature}")]\npub use {module}::*;\n'
        (folder / "mod.rs").write_text(text)

    def write_conversions(self):
        text = "//! `From` each variant's payload for the v2 unions, where the payload belongs to one\n"
        text += "//! variant only.\n//!\n//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.\n\n"
        text += "#[allow(unused_imports)] // With no draft feature, nothing of `unstable` is named.\nuse super::*;\n"
        for name in self.v2:
            if self.category(name) != "union":
                continue
            s = self.v2[name]
            br = s.get("anyOf") or s.get("oneOf")
            variants = []
            for b in br:
                consts = [(k, v["const"]) for k, v in b.get("properties", {}).items() if "const" in v]
                if consts and ref_of(b):
                    feature = self.draft_feature.get(name) or self.variant_feature(name, consts[0][1], b)
                    boxed = (name, consts[0][1]) in BOXED
                    variants.append((variant_name(consts[0][1]), ref_of(b), feature, boxed))
            counts = {}
            for _, ref, _, _ in variants:
                counts[ref] = counts.get(ref, 0) + 1
            for var, ref, feature, boxed in variants:
                if counts[ref] == 1:
                    cfg = f'\n#[cfg(feature = "{feature}")]' if feature else ""
                    value = "Box::new(value)" if boxed else "value"
                    text += f"{cfg}\nimpl From<{ref}> for {name} {{\n    fn from(value: {ref}) -> Self {{\n        Self::{var}({value})\n    }}\n}}\n"
        (V2 / "conversions.rs").write_text(text)

    def write_methods(self):
        # (method, side, notification) -> {"params", "result", "feature"}
        methods = {}
        for name, s in self.v2.items():
            if "x-method" not in s:
                continue
            notification = name.endswith("Notification")
            m = methods.setdefault((s["x-method"], s["x-side"], notification), {})
            m["result" if name.endswith("Response") else "params"] = name
            if name in self.draft_feature:
                m["feature"] = self.draft_feature[name]
        cfg = lambda feature, indent: f'{indent}#[cfg(feature = "{feature}")]\n' if feature else ""
        groups = {"agent": "agentMethods", "client": "clientMethods", "protocol": "protocolMethods"}
        text = "//! The methods of v2: their names, by the side that serves them, and typed markers.\n//!\n"
        text += "//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.\n\n"
        text += "pub use crate::methods::{MethodDefinition, Notification, Request, Side};\n\n"
        text += "use super::*;\n"
        consts = {}
        listed = {side: sorted(self.meta[key].items(), key=lambda kv: kv[1]) for side, key in groups.items()}
        proxy = sorted({(k[0].split("/")[-1].upper(), k[0]) for k in methods if k[1] == "proxy"}, key=lambda kv: kv[1])
        proxy_feature = next((m.get("feature") for k, m in methods.items() if k[1] == "proxy"), None)
        for side in ("agent", "client", "protocol", "proxy"):
            doc = {"agent": "Methods the agent serves (the client calls them).",
                   "client": "Methods the client serves (the agent calls them).",
                   "protocol": "Protocol-level methods either side may send.",
                   "proxy": "Methods of proxy chains, between a proxy and its conductor (draft)."}[side]
            entries = [("PROXY_" + c, mth) for c, mth in proxy] if side == "proxy" else [(k.upper(), mth) for k, mth in listed[side]]
            text += f"\n/// {doc}\n" + cfg(proxy_feature if side == "proxy" else None, "") + f"pub mod {side} {{\n"
            names = []
            for const, method in entries:
                consts[(method, side)] = f"{side}::{const}"
                kinds = [m for k, m in methods.items() if k[0] == method and k[1] == side]
                every = [m for k, m in methods.items() if k[0] == method]
                feature = next((m.get("feature") for m in every if m.get("feature")), None)
                kind = " (a notification)" if kinds and all("result" not in m for m in kinds) else ""
                if side == "proxy":
                    # The module is gated; its methods are the agent's constants (the official
                    # method table lists them on both sides).
                    text += f"    pub use super::agent::{const};\n"
                    names.append(const)
                    continue
                text += f"    /// `{method}`{kind}.\n" + cfg(feature, "    ") + f"    pub const {const}: &str = \"{method}\";\n"
                names.append(cfg(feature, "").replace("\n", " ") + const)
            text += f"\n    /// Every method the {side} side serves.\n" if side in ("agent", "client") else (
                "\n    /// Every protocol-level method.\n" if side == "protocol" else "\n    /// Every proxy method.\n")
            text += "    pub const ALL: &[&str] = &[" + ", ".join(names) + "];\n}\n"
        defs = []
        order = sorted(methods.items(), key=lambda kv: ("result" not in kv[1], kv[0][0], kv[0][1]))
        for (method, xside, notification), m in order:
            marker = camel(method.replace("$/", ""))
            if notification and any(k[0] == method and not k[2] for k in methods):
                marker += "Notification"
                if marker in self.v2:
                    marker = marker[: -len("Notification")] + "Notify"
            side = {"agent": "Agent", "client": "Client", "protocol": "Protocol", "proxy": "Proxy"}[xside]
            params = m["params"]
            feature = m.get("feature")
            doc = self.type_doc(params).split(". ")[0].rstrip(".")
            text += f"\n/// `{method}`: {doc[0].lower() + doc[1:]}.\n"
            text += cfg(feature, "")
            text += "#[derive(Debug)]\n#[allow(clippy::exhaustive_enums)] // Uninhabited: a type-level name only.\n"
            text += f"pub enum {marker} {{}}\n\n" + cfg(feature, "")
            const = consts[(method, xside)]
            if "result" in m:
                text += f"impl Request for {marker} {{\n    const METHOD: &'static str = {const};\n    const SIDE: Side = Side::{side};\n    type Params = {params};\n    type Result = {m['result']};\n}}\n"
                res = f"Some(\"{m['result']}\")"
            else:
                text += f"impl Notification for {marker} {{\n    const METHOD: &'static str = {const};\n    const SIDE: Side = Side::{side};\n    type Params = {params};\n}}\n"
                res = "None"
            defs.append(cfg(feature, "    ") + f"    MethodDefinition {{\n        method: {const},\n        side: Side::{side},\n        params: \"{params}\",\n        result: {res},\n    }},\n")
        text += "\n/// Every method of v2 compiled in (the drafts with their features), requests first: name,\n"
        text += "/// side, params and result definitions. `mcp/message` and `proxy/successor` (drafts) have two\n/// entries each, a request and a notification.\n"
        text += "pub const DEFINITIONS: &[MethodDefinition] = &[\n" + "".join(defs) + "];\n"
        text += "\n/// The entry of [`DEFINITIONS`] for `method`, if v2 has it (the request, for a method that is\n/// also a notification).\n"
        text += "pub fn definition(method: &str) -> Option<&'static MethodDefinition> {\n    DEFINITIONS.iter().find(|d| d.method == method)\n}\n"
        (V2 / "methods.rs").write_text(text)

    def write_lists(self, files):
        stable = [n for n in self.stable if n not in ENVELOPES]
        drafts = [n for n in self.v2 if n in self.draft_feature and n not in ENVELOPES]
        re_list = sorted(n for n in self.reexport if n not in self.draft_feature)
        text = "// Generated by `codegen/gen.py`: the definitions of the v2 schema, in its order.\n\n"
        text += "/// The definitions of the v2 schema that are v1's (re-exported from the crate root).\n"
        text += "pub const REEXPORTED: &[&str] = &[\n" + "".join(f'    "{n}",\n' for n in re_list) + "];\n\n"
        text += "/// The draft definitions of v2 that are v1's (re-exported from the crate root, with the\n/// same features).\n"
        text += "pub const REEXPORTED_DRAFTS: &[&str] = &[\n" + "".join(f'    "{n}",\n' for n in sorted(self.reexport_drafts)) + "];\n\n"
        text += "/// Calls `$m!` with every definition of the v2 schema but the six envelopes, in the official\n/// order.\n"
        text += "#[macro_export]\nmacro_rules! for_each_v2_value_definition {\n    ($m:ident) => {\n        $m!(\n"
        text += "".join(f"            {n},\n" for n in stable)
        text += "        )\n    };\n}\n\n"
        text += "/// Calls `$m!` with every definition the drafts add to the v2 schema, in the official order\n"
        text += "/// (with `unstable`: every draft feature on).\n"
        text += '#[cfg(feature = "unstable")]\n#[macro_export]\nmacro_rules! for_each_v2_draft_definition {\n    ($m:ident) => {\n        $m!(\n'
        text += "".join(f"            {n},\n" for n in drafts)
        text += "        )\n    };\n}\n"
        (V2 / "definitions.rs").write_text(text)
        mods = sorted(f for f, _, _ in FILES if f in files)
        print("modules:", " ".join(mods))
        print("reexported:", ", ".join(re_list))
        print("reexported drafts:", ", ".join(sorted(self.reexport_drafts)))


def main():
    spec = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(
        os.environ.get("ACP_SPEC_DIR") or ROOT / "../shared/spec/2026-11")
    if not (spec / "v2").is_dir() and (spec / "2026-11" / "v2").is_dir():
        spec = spec / "2026-11"
    Gen(spec.resolve()).run()


if __name__ == "__main__":
    main()
