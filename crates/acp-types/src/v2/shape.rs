//! Gives the generated schema of a v2 type what the Rust types of its fields cannot say: a
//! string's format or encoding, bounds, a list's least length, and the official shape of
//! objects with a flattened union (their kinds as references to their own definitions).
//!
//! The functions are the `schema_extend` of the generated types (see `codegen/gen.py`); what
//! they add is also what decoding checks (`check.rs`), or an annotation (`format`,
//! `contentEncoding`) that JSON Schema does not assert.

use serde_json::{Map, Value};

/// The properties of `object` (a schema), if it has them.
fn properties(object: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    object.get_mut("properties").and_then(Value::as_object_mut)
}

/// Adds keywords to the schemas of properties: `keywords` maps a property's name to its
/// keywords.
pub(super) fn keywords(object: &mut Map<String, Value>, keywords: Value) {
    let (Value::Object(keywords), Some(properties)) = (keywords, properties(object)) else {
        return;
    };
    for (name, extra) in keywords {
        if let (Some(Value::Object(property)), Value::Object(extra)) =
            (properties.get_mut(&name), extra)
        {
            property.extend(extra);
        }
    }
}

/// Keeps only the named properties: those of a flattened union's kinds are described by the
/// kinds' own definitions.
pub(super) fn only_properties(object: &mut Map<String, Value>, names: &[&str]) {
    if let Some(properties) = properties(object) {
        properties.retain(|name, _| names.contains(&name.as_str()));
    }
}

/// Replaces the schema of a property (the tag of a flattened union, whose kinds the union
/// lists), keeping its description.
pub(super) fn replace_property(object: &mut Map<String, Value>, name: &str, schema: Value) {
    let Some(properties) = properties(object) else {
        return;
    };
    let description = properties
        .get(name)
        .and_then(|p| p.get("description"))
        .cloned();
    let mut schema = schema;
    if let (Some(description), Some(map)) = (description, schema.as_object_mut()) {
        map.insert("description".into(), description);
    }
    properties.insert(name.to_owned(), schema);
}

/// Sets the members every kind requires (none: no `required`).
pub(super) fn set_required(object: &mut Map<String, Value>, names: &[&str]) {
    if names.is_empty() {
        object.remove("required");
    } else {
        object.insert("required".into(), names.to_vec().into());
    }
}

/// Gives the catch-all branch of an open union (the one with `not`) the members every kind
/// requires, beside its tag: `properties` describes those of them the schema types.
pub(super) fn catch_all_requires(
    object: &mut Map<String, Value>,
    properties: Value,
    required: &[&str],
) {
    let key = if object.contains_key("anyOf") {
        "anyOf"
    } else {
        "oneOf"
    };
    let Some(branch) = object
        .get_mut(key)
        .and_then(Value::as_array_mut)
        .and_then(|branches| branches.iter_mut().find(|b| b.get("not").is_some()))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if let (Some(Value::Object(own)), Value::Object(properties)) =
        (branch.get_mut("properties"), properties)
    {
        own.extend(properties);
    }
    if let Some(Value::Array(own)) = branch.get_mut("required") {
        own.extend(required.iter().map(|name| Value::from(*name)));
    }
}
