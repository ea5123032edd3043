//! Session modes and configuration options.

use crate::prelude::*;

wire_object! {
    /// The modes a session offers and the one currently active.
    #[new(current_mode_id: impl Into<SessionModeId>, available_modes: impl Into<Vec<SessionMode>>)]
    pub struct SessionModeState {
        /// The mode currently active.
        req current_mode_id: SessionModeId = "currentModeId";
        /// The modes the session can switch to.
        req available_modes: Vec<SessionMode> = "availableModes" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

id_type! {
    /// Identifies a session mode.
    pub struct SessionModeId;
}

wire_object! {
    /// A mode the agent can run a session in (for example, asking before every edit).
    #[new(id: impl Into<SessionModeId>, name: impl Into<String>)]
    pub struct SessionMode {
        /// The identifier of the mode.
        req id: SessionModeId = "id";
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Asks the agent to switch a session to another mode (`session/set_mode`).
    #[new(session_id: impl Into<SessionId>, mode_id: impl Into<SessionModeId>)]
    pub struct SetSessionModeRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The mode to switch to.
        req mode_id: SessionModeId = "modeId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The agent's answer to `session/set_mode`.
    #[optional_fields(new)]
    pub struct SetSessionModeResponse {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

id_type! {
    /// Identifies a session configuration option.
    pub struct SessionConfigId;
}

string_enum! {
    /// What a configuration option is about, so clients can place it sensibly.
    pub enum SessionConfigOptionCategory {
        /// The session mode.
        Mode = "mode",
        /// The model in use.
        Model = "model",
        /// Settings of the model.
        ModelConfig = "model_config",
        /// How much the model reasons.
        ThoughtLevel = "thought_level",
    }
    Other, open_schema = true
}

id_type! {
    /// Identifies one value of a select configuration option.
    pub struct SessionConfigValueId;
}

wire_object! {
    /// One value of a select configuration option.
    #[new(value: impl Into<SessionConfigValueId>, name: impl Into<String>)]
    pub struct SessionConfigSelectOption {
        /// The identifier of this value.
        req value: SessionConfigValueId = "value";
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A named group of values of a select configuration option.
    #[new(
        group: impl Into<SessionConfigGroupId>,
        name: impl Into<String>,
        options: impl Into<Vec<SessionConfigSelectOption>>,
    )]
    pub struct SessionConfigSelectGroup {
        /// The identifier of the group.
        req group: SessionConfigGroupId = "group";
        /// A human-readable name.
        req name: String = "name";
        /// The choices offered.
        req options: Vec<SessionConfigSelectOption> = "options" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

id_type! {
    /// Identifies a group of select values.
    pub struct SessionConfigGroupId;
}

wire_object! {
    /// The select-specific part of a configuration option.
    #[new(
        current_value: impl Into<SessionConfigValueId>,
        options: impl Into<SessionConfigSelectOptions>,
    )]
    pub struct SessionConfigSelect {
        /// The value currently selected.
        req current_value: SessionConfigValueId = "currentValue";
        /// The choices offered.
        req options: SessionConfigSelectOptions = "options";
    }
}

wire_object! {
    /// The on/off-specific part of a configuration option.
    #[new(current_value: impl Into<bool>)]
    pub struct SessionConfigBoolean {
        /// Whether the option is on.
        req current_value: bool = "currentValue";
    }
}

wire_object! {
    /// The agent's answer to `session/set_config_option`, with every option's new state.
    #[new(config_options: impl Into<Vec<SessionConfigOption>>)]
    pub struct SetSessionConfigOptionResponse {
        /// The session's configuration options.
        req config_options: Vec<SessionConfigOption> = "configOptions" [DOE | SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

use crate::wire::{DOE, NULLABLE, Parts};

/// The values of a select option, flat or in groups.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionConfigSelectOptions {
    /// A flat list of values.
    Ungrouped(Vec<SessionConfigSelectOption>),
    /// Values in named groups.
    Grouped(Vec<SessionConfigSelectGroup>),
}

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for SessionConfigSelectOptions {}

impl SessionConfigSelectOptions {
    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        let serde_json::Value::Array(items) = value else {
            return Err(serde_json::Error::invalid_type(
                crate::wire::unexpected(&value),
                &"an array of options or of groups",
            ));
        };
        // Groups are told apart by their `group` field.
        let grouped = items
            .first()
            .is_some_and(|item| item.get("group").is_some() && item.get("value").is_none());
        let items = serde_json::Value::Array(items);
        if grouped {
            crate::wire::decode_buffered(&items).map(Self::Grouped)
        } else {
            crate::wire::decode_buffered(&items).map(Self::Ungrouped)
        }
    }
}

impl From<Vec<SessionConfigSelectOption>> for SessionConfigSelectOptions {
    fn from(value: Vec<SessionConfigSelectOption>) -> Self {
        Self::Ungrouped(value)
    }
}

impl From<Vec<SessionConfigSelectGroup>> for SessionConfigSelectOptions {
    fn from(value: Vec<SessionConfigSelectGroup>) -> Self {
        Self::Grouped(value)
    }
}

impl serde::Serialize for SessionConfigSelectOptions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Ungrouped(v) => v.serialize(serializer),
            Self::Grouped(v) => v.serialize(serializer),
        }
    }
}

crate::wire::deserialize_via_value!(
    SessionConfigSelectOptions,
    SessionConfigSelectOptions::decode
);

impl schemars::JsonSchema for SessionConfigSelectOptions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SessionConfigSelectOptions".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let option = generator.subschema_for::<SessionConfigSelectOption>();
        let group = generator.subschema_for::<SessionConfigSelectGroup>();
        schemars::json_schema!({
            "description": "The values of a select option, flat or in groups.",
            "anyOf": [
                { "description": "A flat list of values.", "type": "array", "items": option },
                { "description": "Values in named groups.", "type": "array", "items": group },
            ],
        })
    }
}

/// The kind-specific part of a [`SessionConfigOption`], told apart by its `type` field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionConfigKind {
    /// `"type": "select"`: a choice among values.
    Select(SessionConfigSelect),
    /// `"type": "boolean"`: an on/off switch.
    Boolean(SessionConfigBoolean),
    /// A kind this crate does not know (from a newer peer): the tag and the fields that are not
    /// common to every option, kept as raw JSON.
    Unknown(serde_json::Map<String, serde_json::Value>),
}

/// A configuration option of a session (a choice among values, or an on/off switch).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SessionConfigOption {
    /// The identifier of the option.
    pub id: SessionConfigId,
    /// A human-readable name.
    pub name: String,
    /// A human-readable description.
    pub description: Option<String>,
    /// What the option is about.
    pub category: Option<SessionConfigOptionCategory>,
    /// The kind of option and its kind-specific fields.
    pub kind: SessionConfigKind,
    /// Extension data, opaque to the protocol.
    pub meta: Option<Meta>,
    extras: Extras,
}

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for SessionConfigOption {}

impl SessionConfigOption {
    /// A select option choosing among `options`, currently `current_value`.
    pub fn select(
        id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        current_value: impl Into<SessionConfigValueId>,
        options: impl Into<SessionConfigSelectOptions>,
    ) -> Self {
        Self::new(
            id,
            name,
            SessionConfigKind::Select(SessionConfigSelect::new(current_value, options)),
        )
    }

    /// An on/off option, currently `current_value`.
    pub fn boolean(
        id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        current_value: bool,
    ) -> Self {
        Self::new(
            id,
            name,
            SessionConfigKind::Boolean(SessionConfigBoolean::new(current_value)),
        )
    }

    /// Builds an option from its required parts.
    pub fn new(
        id: impl Into<SessionConfigId>,
        name: impl Into<String>,
        kind: SessionConfigKind,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: None,
            category: None,
            kind,
            meta: None,
            extras: Extras::default(),
        }
    }

    /// Sets `description`.
    #[must_use]
    pub fn description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `category`.
    #[must_use]
    pub fn category(mut self, value: impl Into<SessionConfigOptionCategory>) -> Self {
        self.category = Some(value.into());
        self
    }

    /// Sets `_meta`.
    #[must_use]
    pub fn meta(mut self, value: impl Into<Meta>) -> Self {
        self.meta = Some(value.into());
        self
    }

    /// Unmodelled fields and explicit nulls received with this option.
    pub fn extras(&self) -> &Extras {
        &self.extras
    }

    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        let mut parts =
            Parts::from_value::<serde_json::Error>(value, "a SessionConfigOption object")?;
        let id = parts.req::<SessionConfigId, 0>("id")?;
        let name = parts.req::<String, 0>("name")?;
        let description = parts.opt::<String, { DOE | NULLABLE }>("description")?;
        let category = parts.opt::<SessionConfigOptionCategory, { DOE | NULLABLE }>("category")?;
        let meta = parts.opt::<Meta, { DOE | NULLABLE }>("_meta")?;
        let kind = match parts.take_raw("type") {
            Some(serde_json::Value::String(tag)) if tag == "select" => {
                let mut inner = Parts::new(parts.rest());
                let current_value = inner.req::<SessionConfigValueId, 0>("currentValue")?;
                let options = inner.req::<SessionConfigSelectOptions, 0>("options")?;
                parts.put_back(inner.rest());
                SessionConfigKind::Select(SessionConfigSelect::new(current_value, options))
            }
            Some(serde_json::Value::String(tag)) if tag == "boolean" => {
                let mut inner = Parts::new(parts.rest());
                let current_value = inner.req::<bool, 0>("currentValue")?;
                parts.put_back(inner.rest());
                SessionConfigKind::Boolean(SessionConfigBoolean::new(current_value))
            }
            Some(serde_json::Value::String(tag)) => {
                let mut rest = parts.rest();
                rest.insert("type".into(), serde_json::Value::String(tag));
                SessionConfigKind::Unknown(rest)
            }
            Some(other) => {
                return Err(crate::wire::error_at(
                    "type",
                    serde_json::Error::invalid_type(
                        crate::wire::unexpected(&other),
                        &"a tag string",
                    ),
                ));
            }
            None => return Err(serde_json::Error::missing_field("type")),
        };
        Ok(Self {
            id,
            name,
            description,
            category,
            kind,
            meta,
            extras: parts.finish(),
        })
    }
}

impl serde::Serialize for SessionConfigOption {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        match &self.kind {
            SessionConfigKind::Select(select) => {
                map.serialize_entry("type", "select")?;
                crate::wire::WireFields::serialize_fields(select, &mut map)?;
            }
            SessionConfigKind::Boolean(boolean) => {
                map.serialize_entry("type", "boolean")?;
                crate::wire::WireFields::serialize_fields(boolean, &mut map)?;
            }
            SessionConfigKind::Unknown(fields) => {
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
            }
        }
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("name", &self.name)?;
        match &self.description {
            Some(v) => map.serialize_entry("description", v)?,
            None => self.extras.serialize_null(&mut map, "description")?,
        }
        match &self.category {
            Some(v) => map.serialize_entry("category", v)?,
            None => self.extras.serialize_null(&mut map, "category")?,
        }
        match &self.meta {
            Some(v) => map.serialize_entry("_meta", v)?,
            None => self.extras.serialize_null(&mut map, "_meta")?,
        }
        self.extras.serialize_unknown(&mut map)?;
        map.end()
    }
}

crate::wire::deserialize_via_value!(SessionConfigOption, SessionConfigOption::decode);

impl schemars::JsonSchema for SessionConfigOption {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SessionConfigOption".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let id = generator.subschema_for::<SessionConfigId>();
        let category = generator.subschema_for::<SessionConfigOptionCategory>();
        let select = generator.subschema_for::<SessionConfigSelect>();
        let boolean = generator.subschema_for::<SessionConfigBoolean>();
        schemars::json_schema!({
            "description": "A configuration option of a session (a choice among values, or an on/off switch).",
            "type": "object",
            "properties": {
                "id": { "description": "The identifier of the option.", "allOf": [id] },
                "name": { "description": "A human-readable name.", "type": "string" },
                "description": {
                    "description": "A human-readable description.",
                    "type": ["string", "null"],
                    "x-deserialize-default-on-error": true,
                },
                "category": {
                    "description": "What the option is about.",
                    "anyOf": [category, { "type": "null" }],
                    "x-deserialize-default-on-error": true,
                },
                "_meta": {
                    "description": "Extension data, opaque to the protocol.",
                    "type": ["object", "null"],
                    "additionalProperties": true,
                    "x-deserialize-default-on-error": true,
                },
            },
            "required": ["id", "name"],
            "oneOf": [
                {
                    "description": "A choice among values.",
                    "type": "object",
                    "properties": { "type": { "type": "string", "const": "select" } },
                    "required": ["type"],
                    "allOf": [select],
                },
                {
                    "description": "An on/off switch.",
                    "type": "object",
                    "properties": { "type": { "type": "string", "const": "boolean" } },
                    "required": ["type"],
                    "allOf": [boolean],
                },
            ],
            "discriminator": { "propertyName": "type" },
            "additionalProperties": true,
        })
    }
}

/// The new value of a configuration option, in a [`SetSessionConfigOptionRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionConfigOptionValue {
    /// For an on/off option: `"type": "boolean"` with a boolean `value`.
    Boolean(bool),
    /// For a select option: the identifier of the chosen value.
    ValueId(SessionConfigValueId),
}

/// Asks the agent to change a session configuration option (`session/set_config_option`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SetSessionConfigOptionRequest {
    /// The session this concerns.
    pub session_id: SessionId,
    /// The option to change.
    pub config_id: SessionConfigId,
    /// The new value.
    pub value: SessionConfigOptionValue,
    /// Extension data, opaque to the protocol.
    pub meta: Option<Meta>,
    extras: Extras,
}

impl SetSessionConfigOptionRequest {
    /// Builds the request.
    pub fn new(
        session_id: impl Into<SessionId>,
        config_id: impl Into<SessionConfigId>,
        value: SessionConfigOptionValue,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            config_id: config_id.into(),
            value,
            meta: None,
            extras: Extras::default(),
        }
    }

    /// Sets `_meta`.
    #[must_use]
    pub fn meta(mut self, value: impl Into<Meta>) -> Self {
        self.meta = Some(value.into());
        self
    }

    /// Unmodelled fields and explicit nulls received with this request.
    pub fn extras(&self) -> &Extras {
        &self.extras
    }

    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        let mut parts = Parts::from_value::<serde_json::Error>(
            value,
            "a SetSessionConfigOptionRequest object",
        )?;
        let session_id = parts.req::<SessionId, 0>("sessionId")?;
        let config_id = parts.req::<SessionConfigId, 0>("configId")?;
        let meta = parts.opt::<Meta, { DOE | NULLABLE }>("_meta")?;
        let is_boolean = parts.peek("type").and_then(serde_json::Value::as_str) == Some("boolean");
        let value = match parts.take_raw("value") {
            Some(serde_json::Value::Bool(b)) if is_boolean => {
                parts.take_raw("type");
                SessionConfigOptionValue::Boolean(b)
            }
            // Any `type` other than a boolean one stays among the extras.
            Some(serde_json::Value::String(id)) => SessionConfigOptionValue::ValueId(id.into()),
            Some(other) => {
                return Err(crate::wire::error_at(
                    "value",
                    format_args!(
                        "expected a value id string (or a boolean with \"type\": \"boolean\"), found {}",
                        crate::wire::unexpected(&other)
                    ),
                ));
            }
            None => return Err(serde_json::Error::missing_field("value")),
        };
        Ok(Self {
            session_id,
            config_id,
            value,
            meta,
            extras: parts.finish(),
        })
    }
}

impl serde::Serialize for SetSessionConfigOptionRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("sessionId", &self.session_id)?;
        map.serialize_entry("configId", &self.config_id)?;
        match &self.value {
            SessionConfigOptionValue::Boolean(b) => {
                map.serialize_entry("type", "boolean")?;
                map.serialize_entry("value", b)?;
            }
            SessionConfigOptionValue::ValueId(id) => map.serialize_entry("value", id)?,
        }
        match &self.meta {
            Some(v) => map.serialize_entry("_meta", v)?,
            None => self.extras.serialize_null(&mut map, "_meta")?,
        }
        self.extras.serialize_unknown(&mut map)?;
        map.end()
    }
}

crate::wire::deserialize_via_value!(
    SetSessionConfigOptionRequest,
    SetSessionConfigOptionRequest::decode
);

impl schemars::JsonSchema for SetSessionConfigOptionRequest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SetSessionConfigOptionRequest".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let session_id = generator.subschema_for::<SessionId>();
        let config_id = generator.subschema_for::<SessionConfigId>();
        let value_id = generator.subschema_for::<SessionConfigValueId>();
        schemars::json_schema!({
            "description": "Asks the agent to change a session configuration option (`session/set_config_option`).",
            "type": "object",
            "properties": {
                "sessionId": { "description": "The session this concerns.", "allOf": [session_id] },
                "configId": { "description": "The option to change.", "allOf": [config_id] },
                "_meta": {
                    "description": "Extension data, opaque to the protocol.",
                    "type": ["object", "null"],
                    "additionalProperties": true,
                    "x-deserialize-default-on-error": true,
                },
            },
            "required": ["sessionId", "configId"],
            "anyOf": [
                {
                    "description": "The new state of an on/off option.",
                    "type": "object",
                    "properties": {
                        "value": { "type": "boolean" },
                        "type": { "type": "string", "const": "boolean" },
                    },
                    "required": ["type", "value"],
                },
                {
                    "description": "The chosen value of a select option.",
                    "type": "object",
                    "properties": { "value": { "allOf": [value_id] } },
                    "required": ["value"],
                },
            ],
            "additionalProperties": true,
        })
    }
}
