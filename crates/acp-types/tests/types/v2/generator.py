#!/usr/bin/env python3
"""Writes `fixtures.json` beside this file: documents for every definition of the official v2
schema, each labelled with the official schema's verdict (computed here with the Python
`jsonschema` package and checked again by the Rust test against the schema it loads); with
`--drafts`, `fixtures.unstable.json`: the same for every definition the drafts add or change
(`v2/schema.unstable.json`).

    python3 crates/acp-types/tests/types/v2/generator.py [--drafts] [SPEC_DIR]

Per definition: a minimal document (required members only), a full one (every member), one
with `null` in every nullable member, one without each required member, a document of the
wrong JSON type, for each open enum and tagged union an `_`-prefixed extension value, and for
each known tag of a union its variant without a required member (a malformed payload of a
known kind, which must be refused rather than taken as unknown), a member below its
`minimum` or above its `maximum`, and a list member with fewer items than its `minItems`.
"""

import json
import os
import sys
from pathlib import Path

import jsonschema

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]


def main():
    args = [a for a in sys.argv[1:] if a != "--drafts"]
    drafts = "--drafts" in sys.argv[1:]
    spec = Path(args[0]) if args else Path(
        os.environ.get("ACP_SPEC_DIR") or ROOT / "../shared/spec/2026-11")
    if not (spec / "v2").is_dir():
        spec = spec / "2026-11"
    stable = json.load(open(spec / "v2" / "schema.json"))
    schema = json.load(open(spec / "v2" / ("schema.unstable.json" if drafts else "schema.json")))
    defs = schema["$defs"]
    # With --drafts: only the definitions the drafts add or change.
    wanted = {n for n, d in defs.items() if stable["$defs"].get(n) != d} if drafts else set(defs)

    def resolve(s):
        if "$ref" in s:
            return defs[s["$ref"].split("/")[-1]]
        if "allOf" in s and len(s["allOf"]) == 1 and "$ref" in s["allOf"][0] and len(s) <= 3:
            return defs[s["allOf"][0]["$ref"].split("/")[-1]]
        return None

    def sample_string(s, name=""):
        if s.get("format") == "uri":
            return "https://example.com/a"
        if s.get("format") == "date-time":
            return "2026-11-02T10:00:00Z"
        if s.get("contentEncoding") == "base64":
            return "aGVsbG8="
        return "/work/project" if "path" in name.lower() or name in ("cwd",) else f"{name or 'x'}-1"

    def build(s, name="", full=False, depth=0):
        if depth > 60:
            return None
        r = resolve(s)
        if r is not None:
            merged = dict(r)
            return build(merged, name, full, depth + 1)
        if "const" in s:
            return s["const"]
        t = s.get("type")
        if isinstance(t, list):
            t = [x for x in t if x != "null"][0]
        if "anyOf" in s or "oneOf" in s:
            branches = [b for b in (s.get("anyOf") or s.get("oneOf")) if b != {"type": "null"}
                        and b.get("title") not in ("other", "Other")]
            base = {k: v for k, v in s.items() if k not in ("anyOf", "oneOf", "description")}
            if not branches:
                return {}
            b = branches[0]
            if base.get("properties"):
                doc = build({**base}, name, full, depth + 1) or {}
                extra = build(b, name, full, depth + 1)
                if isinstance(extra, dict):
                    doc.update(extra)
                return doc
            return build(b, name, full, depth + 1)
        if "allOf" in s:
            doc = {}
            for part in s["allOf"]:
                v = build(part, name, full, depth + 1)
                if isinstance(v, dict):
                    doc.update(v)
            if s.get("properties"):
                own = build({k: v for k, v in s.items() if k != "allOf"}, name, full, depth + 1)
                doc.update(own or {})
            return doc
        if t == "object" or "properties" in s:
            doc = {}
            for p, ps in s.get("properties", {}).items():
                if p in s.get("required", []) or (full and p != "_meta"):
                    v = build(ps, p, full, depth + 1)
                    if v is not None:
                        doc[p] = v
                elif full and p == "_meta":
                    doc[p] = {"vendor": {"k": 1}}
            for part in s.get("allOf", []):
                v = build(part, name, full, depth + 1)
                if isinstance(v, dict):
                    doc.update(v)
            return doc
        if t == "string":
            return sample_string(s, name)
        if t == "integer":
            return max(1, s.get("minimum", 1))
        if t == "number":
            return 0.5
        if t == "boolean":
            return True
        if t == "array":
            if s.get("minItems", 0) > 0 or full:
                item = build(s["items"], name, full, depth + 1)
                return [item] if item is not None else []
            return []
        if s == {} or t is None:
            return {"any": ["json", 1]}
        return None

    validators = {}

    def valid(defname, doc):
        v = validators.get(defname)
        if v is None:
            root = dict(schema)
            root.pop("anyOf", None)
            root["$ref"] = f"#/$defs/{defname}"
            v = validators[defname] = jsonschema.Draft202012Validator(root)
        return v.is_valid(doc)

    fixtures = []

    def add(defname, name, doc):
        fixtures.append({"def": defname, "name": name, "doc": doc,
                         "schema": "valid" if valid(defname, doc) else "invalid"})

    envelopes = {"AgentRequest", "AgentResponse", "AgentNotification",
                 "ClientRequest", "ClientResponse", "ClientNotification",
                 "ProxyRequest", "ProxyResponse", "ProxyNotification"}
    for defname, s in defs.items():
        if defname in envelopes or defname not in wanted:
            continue
        minimal = build(s, defname)
        add(defname, "minimal", minimal)
        full = build(s, defname, full=True)
        if full != minimal:
            add(defname, "full", full)
        if isinstance(minimal, dict):
            props = s.get("properties", {})
            nulls = dict(minimal)
            for p, ps in props.items():
                t = ps.get("type")
                if (isinstance(t, list) and "null" in t) or {"type": "null"} in ps.get("anyOf", []):
                    nulls[p] = None
            if nulls != minimal:
                add(defname, "nulls", nulls)
            for r in s.get("required", []):
                doc = {k: v for k, v in minimal.items() if k != r}
                add(defname, f"without {r}", doc)
            add(defname, "not an object", 42)
            for p, ps in props.items():
                if ps.get("x-deserialize-default-on-error"):
                    continue  # Out of bounds takes the default there.
                if "minimum" in ps and not str(ps.get("format", "")).startswith("uint") or ps.get("minimum", 0) > 0:
                    add(defname, f"{p} below its minimum", {**minimal, p: ps["minimum"] - 1})
                if "maximum" in ps and ps.get("format") != "uint16" or ps.get("maximum", 65535) < 65535:
                    add(defname, f"{p} above its maximum", {**minimal, p: ps["maximum"] + 1})
                if ps.get("minItems", 0) > 0:
                    add(defname, f"{p} with too few items", {**minimal, p: []})
            extended = dict(minimal)
            extended["x-future-field"] = {"nested": [1, 2.5, None]}
            add(defname, "unknown member", extended)
        if isinstance(minimal, str) and s.get("type") == "string":
            add(defname, "not a string", 7)
        br = s.get("anyOf") or s.get("oneOf") or []
        if br and all(b.get("type") == "string" for b in br):
            add(defname, "extension value", "_vendor_value")
            add(defname, "future value", "future_value")
            add(defname, "not a string", 7)
        tagged = [b for b in br if any("const" in p for p in b.get("properties", {}).values())]
        other = [b for b in br if b.get("title") == "other"]
        if tagged and s.get("type") != "object":
            tag = next(k for k, p in tagged[0]["properties"].items() if "const" in p)
            if other:
                doc = {tag: "_vendor_kind"}
                for r in other[0].get("required", []):
                    if r != tag:
                        doc[r] = build(other[0]["properties"].get(r, {"type": "string"}), r)
                doc["payload"] = {"any": True}
                add(defname, "extension kind", doc)
                if len(doc) > 2:
                    add(defname, "extension kind without its required members",
                        {tag: "_vendor_kind", "payload": 1})
            for b in tagged:
                value = b["properties"][tag]["const"]
                doc = build(b, defname)
                if not isinstance(doc, dict):
                    continue
                doc[tag] = value
                add(defname, f"{tag} {value}", doc)
                ref = resolve(b["allOf"][0]) if b.get("allOf") else None
                for r in (ref or {}).get("required", []):
                    bad = {k: v for k, v in doc.items() if k != r}
                    add(defname, f"{tag} {value} without {r}", bad)
    out = HERE / ("fixtures.unstable.json" if drafts else "fixtures.json")
    out.write_text(json.dumps(fixtures, indent=1) + "\n")
    print(f"{len(fixtures)} fixtures, {sum(f['schema'] == 'valid' for f in fixtures)} valid")


if __name__ == "__main__":
    main()
