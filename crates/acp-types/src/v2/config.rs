//! Session configuration options.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::check::{require, typed};
use super::prelude::*;
use super::shape::{keywords, only_properties, set_required};

string_enum! {
    /// The kind of a configuration option.
    pub enum SessionConfigKind {
        /// A choice among values.
        Select = "select",
        /// An on/off switch.
        Boolean = "boolean",
    }
    Unknown, open_schema = true, inline = true
}
wire_object! {
    /// A configuration option of a session (a choice among values, or an on/off switch).
    #[schema_extend(schema_session_config_option)]
    #[check(check_session_config_option)]
    #[new(kind: impl Into<SessionConfigKind>, config_id: impl Into<SessionConfigId>, name: impl Into<String>)]
    pub struct SessionConfigOption {
        /// The kind of option.
        req kind: SessionConfigKind = "type";
        /// The configuration option this concerns.
        req config_id: SessionConfigId = "configId";
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// What the option is about, for presentation (`mode`, `model`, ...).
        opt category: SessionConfigOptionCategory = "category" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
        /// The current value: a value id of `options` (`select`) or a boolean (`boolean`).
        raw current_value = "currentValue";
        /// The values to choose from (`select`).
        opt options: SessionConfigSelectOptions = "options";
    }
}

/// Checks what the schema requires of a [`SessionConfigOption`] beyond its fields: what its kind needs.
fn check_session_config_option(value: &SessionConfigOption) -> Result<(), String> {
    match &value.kind {
        SessionConfigKind::Select => {
            require(&[
                ("currentValue", value.current_value.is_some()),
                ("options", value.options.is_some()),
            ])?;
            typed::<SessionConfigValueId>("currentValue", value.current_value.as_ref())?;
        }
        SessionConfigKind::Boolean => {
            require(&[("currentValue", value.current_value.is_some())])?;
            typed::<bool>("currentValue", value.current_value.as_ref())?;
        }
        _ => {}
    }
    Ok(())
}

/// Gives the schema of a [`SessionConfigOption`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_session_config_option(object: &mut serde_json::Map<String, serde_json::Value>) {
    only_properties(
        object,
        &["configId", "name", "description", "category", "_meta"],
    );
    set_required(object, &["configId", "name"]);
    object.insert("anyOf".into(), serde_json::json!([{"type": "object", "properties": {"type": {"type": "string", "const": "select"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/SessionConfigSelect"}]}, {"type": "object", "properties": {"type": {"type": "string", "const": "boolean"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/SessionConfigBoolean"}]}, {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"], "not": {"anyOf": [{"type": "object", "properties": {"type": {"type": "string", "const": "select"}}, "required": ["type"]}, {"type": "object", "properties": {"type": {"type": "string", "const": "boolean"}}, "required": ["type"]}]}, "additionalProperties": true}]));
}

wire_object! {
    /// The `SessionConfigSelectGroup` of ACP v2.
    #[schema_extend(schema_session_config_select_group)]
    #[new(group_id: impl Into<SessionConfigGroupId>, name: impl Into<String>, options: impl Into<Vec<SessionConfigSelectOption>>)]
    pub struct SessionConfigSelectGroup {
        /// The group's id.
        req group_id: SessionConfigGroupId = "groupId";
        /// A human-readable name.
        req name: String = "name";
        /// The choices offered.
        req options: Vec<SessionConfigSelectOption> = "options" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`SessionConfigSelectGroup`] what the types of its fields do not say.
fn schema_session_config_select_group(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"options": {"minItems": 1}}));
}

wire_object! {
    /// The `SessionConfigSelect` of ACP v2.
    #[new(current_value: impl Into<SessionConfigValueId>, options: impl Into<SessionConfigSelectOptions>)]
    pub struct SessionConfigSelect {
        /// The value currently selected.
        req current_value: SessionConfigValueId = "currentValue";
        /// The choices offered.
        req options: SessionConfigSelectOptions = "options";
    }
}

wire_object! {
    /// The agent's answer to `session/set_config_option`, with every option's new state.
    #[new(config_options: impl Into<Vec<SessionConfigOption>>)]
    pub struct SetSessionConfigOptionResponse {
        /// The session's configuration options.
        req config_options: Vec<SessionConfigOption> = "configOptions" [SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The session's configuration options changed.
    #[new(config_options: impl Into<Vec<SessionConfigOption>>)]
    pub struct ConfigOptionUpdate {
        /// The session's configuration options.
        req config_options: Vec<SessionConfigOption> = "configOptions" [SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// The kind of value `session/set_config_option` sets.
    pub enum SessionConfigValueKind {
        /// The id of one of the option's values.
        Id = "id",
        /// On or off.
        Boolean = "boolean",
    }
    Unknown, open_schema = true, inline = true
}
wire_object! {
    /// Asks the agent to change a session configuration option (`session/set_config_option`).
    #[schema_extend(schema_set_session_config_option_request)]
    #[check(check_set_session_config_option_request)]
    #[new(kind: impl Into<SessionConfigValueKind>, session_id: impl Into<SessionId>, config_id: impl Into<SessionConfigId>)]
    pub struct SetSessionConfigOptionRequest {
        /// The kind of value set.
        req kind: SessionConfigValueKind = "type";
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The configuration option this concerns.
        req config_id: SessionConfigId = "configId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
        /// The value: a value id (`id`) or a boolean (`boolean`).
        raw value = "value";
    }
}

/// Checks what the schema requires of a [`SetSessionConfigOptionRequest`] beyond its fields: what its kind needs.
fn check_set_session_config_option_request(
    value: &SetSessionConfigOptionRequest,
) -> Result<(), String> {
    match &value.kind {
        SessionConfigValueKind::Id => {
            require(&[("value", value.value.is_some())])?;
            typed::<SessionConfigValueId>("value", value.value.as_ref())?;
        }
        SessionConfigValueKind::Boolean => {
            require(&[("value", value.value.is_some())])?;
            typed::<bool>("value", value.value.as_ref())?;
        }
        _ => {
            require(&[("value", value.value.is_some())])?;
        }
    }
    Ok(())
}

/// Gives the schema of a [`SetSessionConfigOptionRequest`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_set_session_config_option_request(
    object: &mut serde_json::Map<String, serde_json::Value>,
) {
    only_properties(object, &["sessionId", "configId", "_meta"]);
    set_required(object, &["sessionId", "configId"]);
    object.insert("anyOf".into(), serde_json::json!([{"type": "object", "properties": {"type": {"type": "string", "const": "id"}, "value": {"allOf": [{"$ref": "#/$defs/SessionConfigValueId"}]}}, "required": ["type", "value"]}, {"type": "object", "properties": {"type": {"type": "string", "const": "boolean"}, "value": {"type": "boolean"}}, "required": ["type", "value"]}, {"type": "object", "properties": {"type": {"type": "string"}, "value": {}}, "required": ["type", "value"], "not": {"anyOf": [{"type": "object", "properties": {"type": {"type": "string", "const": "id"}}, "required": ["type"]}, {"type": "object", "properties": {"type": {"type": "string", "const": "boolean"}}, "required": ["type"]}]}, "additionalProperties": true}]));
}
