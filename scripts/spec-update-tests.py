#!/usr/bin/env python3
"""Tests of scripts/spec-update on small schemas (run by acp-e2e's `spec_update` test, so CI
runs them; alone: `python3 scripts/spec-update-tests.py`)."""

import copy
import importlib.machinery
import importlib.util
import io
import json
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("spec_update", os.path.join(HERE, "spec-update"))
_spec = importlib.util.spec_from_loader("spec_update", _loader)
spec_update = importlib.util.module_from_spec(_spec)
_loader.exec_module(spec_update)

# An old schema in the official layout: a tagged union, a capability object, a request with
# annotations, an open string enum.
OLD = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "old",
    "anyOf": [{"title": "Agent", "allOf": [{"$ref": "#/$defs/Update"}]}],
    "$defs": {
        "Update": {
            "description": "An update.",
            "oneOf": [
                {
                    "title": "Chunk",
                    "type": "object",
                    "properties": {"kind": {"type": "string", "const": "chunk"}, "text": {"type": "string"}},
                    "required": ["kind", "text"],
                },
                {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "const": "plan"}},
                    "required": ["kind"],
                },
            ],
        },
        "Caps": {
            "type": "object",
            "properties": {"fs": {"type": "boolean", "default": False}},
        },
        "NewRequest": {
            "type": "object",
            "x-method": "session/new",
            "x-side": "agent",
            "properties": {
                "cwd": {"type": "string"},
                "dirs": {
                    "type": "array",
                    "items": {"type": "string"},
                    "x-deserialize-default-on-error": True,
                    "x-deserialize-skip-invalid-items": True,
                },
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
            },
            "required": ["cwd"],
        },
        "Severity": {"type": "string", "enum": ["info", "warning"]},
        "Gone": {"type": "string"},
    },
}


def new_schema():
    """OLD moved on: every kind of change the report names."""
    new = copy.deepcopy(OLD)
    defs = new["$defs"]
    defs["Update"]["oneOf"].append(
        {
            "type": "object",
            "properties": {"kind": {"type": "string", "const": "notice"}},
            "required": ["kind"],
        }
    )
    defs["Caps"]["properties"]["notices"] = {"type": ["object", "null"]}
    dirs = defs["NewRequest"]["properties"]["dirs"]
    del dirs["x-deserialize-default-on-error"], dirs["x-deserialize-skip-invalid-items"]
    dirs["x-deserialize-default-on-null"] = True
    defs["NewRequest"]["properties"]["limit"]["type"] = "integer"
    defs["NewRequest"]["properties"]["limit"]["minimum"] = 1
    defs["NewRequest"]["required"].append("limit")
    defs["NewRequest"]["x-side"] = "client"
    defs["Severity"]["enum"] = ["info", "error"]
    del defs["Gone"]
    defs["Fresh"] = {"type": "object"}
    return new


class Changes(unittest.TestCase):
    def test_each_kind_of_change_is_named(self):
        added, removed, changed = spec_update.compare(OLD, new_schema())
        self.assertEqual(added, ["Fresh"])
        self.assertEqual(removed, ["Gone"])
        self.assertEqual(
            changed,
            {
                "Caps": ["notices: property added"],
                "NewRequest": [
                    "dirs: annotation x-deserialize-default-on-error removed (was true)",
                    "dirs: annotation x-deserialize-default-on-null added: true",
                    "dirs: annotation x-deserialize-skip-invalid-items removed (was true)",
                    "limit: keyword minimum 0 -> 1",
                    'limit: type ["integer","null"] -> "integer"',
                    "limit: now required",
                    '(the definition): annotation x-side "agent" -> "client"',
                ],
                "Severity": [
                    '(the definition): enum value "error" added',
                    '(the definition): enum value "warning" removed',
                ],
                "Update": ['(the definition): oneOf variant added: kind="notice"'],
            },
        )

    def test_a_removed_property_and_variant(self):
        new = copy.deepcopy(OLD)
        del new["$defs"]["NewRequest"]["properties"]["cwd"]
        new["$defs"]["NewRequest"]["required"] = []
        del new["$defs"]["Update"]["oneOf"][1]
        _, _, changed = spec_update.compare(OLD, new)
        self.assertEqual(changed["NewRequest"], ["cwd: property removed", "cwd: no longer required"])
        self.assertEqual(changed["Update"], ['(the definition): oneOf variant removed: kind="plan"'])

    def test_a_changed_variant_is_followed_into(self):
        new = copy.deepcopy(OLD)
        new["$defs"]["Update"]["oneOf"][0]["properties"]["text"]["minLength"] = 1
        _, _, changed = spec_update.compare(OLD, new)
        self.assertEqual(
            changed["Update"], ['oneOf[kind="chunk"].text: keyword minLength added: 1']
        )

    def test_a_changed_reference(self):
        old = copy.deepcopy(OLD)
        old["$defs"]["Caps"]["properties"]["fs"] = {"$ref": "#/$defs/Severity"}
        new = copy.deepcopy(OLD)
        new["$defs"]["Caps"]["properties"]["fs"] = {"allOf": [{"$ref": "#/$defs/Gone"}]}
        _, _, changed = spec_update.compare(old, new)
        self.assertEqual(changed, {"Caps": ["fs: reference Severity -> Gone"]})


class Equivalent(unittest.TestCase):
    def test_descriptions_order_and_spellings_do_not_count(self):
        new = copy.deepcopy(OLD)
        new["title"] = "renamed"
        defs = new["$defs"]
        defs["Update"]["description"] = "Reworded."
        defs["Update"]["oneOf"].reverse()
        defs["Caps"]["additionalProperties"] = True
        defs["Caps"]["title"] = "Caps"
        del defs["Caps"]["properties"]["fs"]["default"]  # our generator writes no defaults
        limit = defs["NewRequest"]["properties"]["limit"]
        limit["type"] = ["null", "integer"]
        defs["NewRequest"]["required"] = list(reversed(defs["NewRequest"]["required"]))
        defs["Severity"]["enum"].reverse()
        new["anyOf"] = [{"$ref": "#/$defs/Update"}]
        self.assertEqual(spec_update.compare(OLD, new), ([], [], {}))

    def test_a_property_named_description_counts(self):
        new = copy.deepcopy(OLD)
        new["$defs"]["Caps"]["properties"]["description"] = {"type": "string"}
        _, _, changed = spec_update.compare(OLD, new)
        self.assertEqual(changed, {"Caps": ["description: property added"]})

    def test_a_changed_default_counts_where_both_state_one(self):
        new = copy.deepcopy(OLD)
        new["$defs"]["Caps"]["properties"]["fs"]["default"] = True
        _, _, changed = spec_update.compare(OLD, new)
        self.assertEqual(changed, {"Caps": ["fs: keyword default false -> true"]})


class CommandLine(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, doc):
        path = os.path.join(self.dir.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as file:
            json.dump(doc, file)
        return path

    def run_main(self, *argv):
        out = io.StringIO()
        err = io.StringIO()
        from contextlib import redirect_stderr, redirect_stdout

        with redirect_stdout(out), redirect_stderr(err):
            status = spec_update.main(list(argv))
        return status, out.getvalue(), err.getvalue()

    def test_exit_status_0_when_the_same(self):
        old = self.write("old.json", OLD)
        status, out, _ = self.run_main("--old", old, old)
        self.assertEqual(status, 0)
        self.assertIn("the same", out)

    def test_exit_status_1_and_the_report_when_different(self):
        old = self.write("old.json", OLD)
        new = self.write("new.json", new_schema())
        status, out, _ = self.run_main("--old", old, new)
        self.assertEqual(status, 1)
        self.assertIn("new (1): Fresh", out)
        self.assertIn("removed (1): Gone", out)
        self.assertIn("changed (4):", out)
        self.assertIn('    (the definition): oneOf variant added: kind="notice"', out)

    def test_a_folder_in_the_spec_layout_is_compared_with_our_files(self):
        folder = os.path.join(self.dir.name, "spec")
        self.write("spec/v1/schema.json", OLD)
        self.write("spec/v1/schema.unstable.json", OLD)
        base, files = spec_update.official_files(folder)
        self.assertEqual(base, folder)
        self.assertEqual([os.path.relpath(f, folder) for f in files], ["v1/schema.json", "v1/schema.unstable.json"])
        self.assertTrue(spec_update.ours_for(files[0]).endswith(os.path.join("schema", "acp.schema.json")))
        self.assertTrue(spec_update.ours_for(files[1]).endswith(os.path.join("schema", "acp.unstable.schema.json")))

    def test_the_npm_package_layout_is_found(self):
        self.write("package/schema/v1/schema.json", OLD)
        base, files = spec_update.official_files(self.dir.name)
        self.assertEqual(base, os.path.join(self.dir.name, "package", "schema"))
        self.assertEqual(len(files), 1)

    def test_exit_status_2_on_unreadable_input(self):
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w", encoding="utf-8") as file:
            file.write("{not json")
        status, _, err = self.run_main("--old", bad, bad)
        self.assertEqual(status, 2)
        self.assertIn("cannot read", err)
        status, _, err = self.run_main(os.path.join(self.dir.name, "empty-folder-that-is-absent"))
        self.assertEqual(status, 2)
        os.makedirs(os.path.join(self.dir.name, "empty"))
        status, _, err = self.run_main(os.path.join(self.dir.name, "empty"))
        self.assertEqual(status, 2)
        self.assertIn("no v1/schema.json", err)

    def test_versions_are_told_from_paths(self):
        self.assertTrue(spec_update.looks_like_version("2.5.0"))
        self.assertTrue(spec_update.looks_like_version("npm:2.5.0"))
        self.assertTrue(spec_update.looks_like_version("latest"))
        self.assertFalse(spec_update.looks_like_version(self.write("2.json", OLD)))
        self.assertFalse(spec_update.looks_like_version("schema.json"))


if __name__ == "__main__":
    unittest.main()
