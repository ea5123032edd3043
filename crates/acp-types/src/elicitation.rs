//! Elicitation: the agent asks the user, through the client, for structured input.

use crate::prelude::*;

wire_object! {
    /// Scopes an elicitation to a session, and optionally to one tool call.
    #[new(session_id: impl Into<SessionId>)]
    pub struct ElicitationSessionScope {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The tool call that asks, if any.
        opt tool_call_id: ToolCallId = "toolCallId" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Scopes an elicitation to one JSON-RPC request.
    #[new(request_id: impl Into<RequestId>)]
    pub struct ElicitationRequestScope {
        /// The id of the JSON-RPC request this concerns.
        req request_id: RequestId = "requestId";
    }
}

wire_object! {
    /// The form an elicitation asks the user to fill in: a flat object schema.
    #[optional_fields(new)]
    pub struct ElicitationSchema {
        /// The JSON type of the form (always `object`).
        opt schema_type: ElicitationSchemaType = "type" [DOE];
        /// The title of the form.
        opt title: String = "title" [DOE | NULLABLE];
        /// The fields of the form, by name.
        opt properties: BTreeMap<String, ElicitationPropertySchema> = "properties";
        /// The names of the fields that must be filled in.
        opt required: Vec<String> = "required" [NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// The JSON type of an elicitation form (always an object).
    pub enum ElicitationSchemaType {
        /// An object.
        Object = "object",
    }
    Unknown, open_schema = false
}

tagged_union! {
    /// The schema of one field of an elicitation form.
    pub enum ElicitationPropertySchema {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Other,
        variants {
            /// A text field.
            String(StringPropertySchema) = "string",
            /// A number field.
            Number(NumberPropertySchema) = "number",
            /// An integer field.
            Integer(IntegerPropertySchema) = "integer",
            /// A yes/no field.
            Boolean(BooleanPropertySchema) = "boolean",
            /// A multi-select field.
            MultiSelect(MultiSelectPropertySchema) = "array",
        }
    }
}

string_enum! {
    /// A format a string field of an elicitation form must follow.
    pub enum StringFormat {
        /// An email address.
        Email = "email",
        /// A URI.
        Uri = "uri",
        /// A calendar date (ISO 8601).
        Date = "date",
        /// A date and time (ISO 8601).
        DateTime = "date-time",
    }
    Unknown, open_schema = false
}

wire_object! {
    /// A choice with a value and a human-readable title.
    #[new(value: impl Into<String>, title: impl Into<String>)]
    pub struct EnumOption {
        /// The value.
        req value: String = "const";
        /// The text shown for the value.
        req title: String = "title";
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A text field of an elicitation form, possibly a choice among values.
    #[optional_fields(new)]
    pub struct StringPropertySchema {
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// The minimum length.
        opt min_length: u32 = "minLength" [NULLABLE];
        /// The maximum length.
        opt max_length: u32 = "maxLength" [NULLABLE];
        /// A regular expression the value must match.
        opt pattern: String = "pattern" [NULLABLE];
        /// A format the value must follow.
        opt format: StringFormat = "format" [NULLABLE];
        /// The value shown initially.
        opt default: String = "default" [DOE | NULLABLE];
        /// The allowed values.
        opt enum_values: Vec<String> = "enum" [NULLABLE];
        /// The allowed values, with titles.
        opt one_of: Vec<EnumOption> = "oneOf" [NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A numeric (floating point) field of an elicitation form.
    #[optional_fields(new)]
    pub struct NumberPropertySchema {
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// The smallest allowed value.
        opt minimum: f64 = "minimum" [NULLABLE];
        /// The largest allowed value.
        opt maximum: f64 = "maximum" [NULLABLE];
        /// The value shown initially.
        opt default: f64 = "default" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// An integer field of an elicitation form.
    #[optional_fields(new)]
    pub struct IntegerPropertySchema {
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// The smallest allowed value.
        opt minimum: i64 = "minimum" [NULLABLE];
        /// The largest allowed value.
        opt maximum: i64 = "maximum" [NULLABLE];
        /// The value shown initially.
        opt default: i64 = "default" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A yes/no field of an elicitation form.
    #[optional_fields(new)]
    pub struct BooleanPropertySchema {
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// The value shown initially.
        opt default: bool = "default" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Multi-select items given as plain string values.
    #[new(enum_values: impl Into<Vec<String>>)]
    pub struct StringMultiSelectItems {
        /// The allowed values.
        req enum_values: Vec<String> = "enum";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// Multi-select items given as values with titles.
    #[new(any_of: impl Into<Vec<EnumOption>>)]
    pub struct TitledMultiSelectItems {
        /// The values that can be picked, with titles.
        req any_of: Vec<EnumOption> = "anyOf";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A field of an elicitation form where the user picks several values.
    #[new(items: impl Into<MultiSelectItems>)]
    pub struct MultiSelectPropertySchema {
        /// A human-readable title.
        opt title: String = "title" [DOE | NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// The minimum number of values to pick.
        opt min_items: u64 = "minItems" [NULLABLE];
        /// The maximum number of values to pick.
        opt max_items: u64 = "maxItems" [NULLABLE];
        /// The values that can be picked.
        req items: MultiSelectItems = "items";
        /// The value shown initially.
        opt default: Vec<String> = "default" [DOE | SKIP | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

id_type! {
    /// Identifies an elicitation carried out out of band (URL mode).
    pub struct ElicitationId;
}

wire_object! {
    /// The user submitted the form.
    #[optional_fields(new)]
    pub struct ElicitationAcceptAction {
        /// The content.
        opt content: BTreeMap<String, ElicitationContentValue> = "content" [NULLABLE];
    }
}

wire_object! {
    /// Tells the client an out-of-band (URL) elicitation finished (`elicitation/complete`).
    #[new(elicitation_id: impl Into<ElicitationId>)]
    pub struct CompleteElicitationNotification {
        /// The elicitation this concerns.
        req elicitation_id: ElicitationId = "elicitationId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

use crate::wire::{DOE, NULLABLE, Parts, WireFields};
use serde::de::Error as _;
use serde::ser::SerializeMap;

/// What an elicitation is scoped to: a session (and maybe a tool call), or one request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationScope {
    /// A session, and optionally one of its tool calls.
    Session(ElicitationSessionScope),
    /// One JSON-RPC request.
    Request(ElicitationRequestScope),
}

impl ElicitationScope {
    fn take(parts: &mut Parts) -> Result<Self, serde_json::Error> {
        if parts.has("sessionId") {
            let mut scope = ElicitationSessionScope::new(parts.req::<SessionId, 0>("sessionId")?);
            if parts
                .peek("toolCallId")
                .is_some_and(serde_json::Value::is_null)
            {
                // The scope writes its own explicit null back, so it records it.
                parts.take_raw("toolCallId");
                scope.extras_mut().mark_null("toolCallId");
            } else {
                scope.tool_call_id = parts.opt::<ToolCallId, { DOE | NULLABLE }>("toolCallId")?;
            }
            Ok(Self::Session(scope))
        } else if parts.has("requestId") {
            Ok(Self::Request(ElicitationRequestScope::new(
                parts.req::<RequestId, 0>("requestId")?,
            )))
        } else {
            Err(serde_json::Error::custom(
                "an elicitation needs a scope: `sessionId` or `requestId`",
            ))
        }
    }

    fn serialize_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        match self {
            Self::Session(scope) => scope.serialize_fields(map),
            Self::Request(scope) => scope.serialize_fields(map),
        }
    }

    fn schema_branches(generator: &mut schemars::SchemaGenerator) -> serde_json::Value {
        let session = generator.subschema_for::<ElicitationSessionScope>();
        let request = generator.subschema_for::<ElicitationRequestScope>();
        serde_json::json!([
            { "description": "Scoped to a session.", "allOf": [session] },
            { "description": "Scoped to a request.", "allOf": [request] },
        ])
    }
}

impl From<ElicitationSessionScope> for ElicitationScope {
    fn from(value: ElicitationSessionScope) -> Self {
        Self::Session(value)
    }
}

impl From<ElicitationRequestScope> for ElicitationScope {
    fn from(value: ElicitationRequestScope) -> Self {
        Self::Request(value)
    }
}

/// Writes an object's `_meta` (or its explicit null) and its unmodelled fields.
fn serialize_tail<M: SerializeMap>(
    map: &mut M,
    meta: Option<&Meta>,
    extras: &Extras,
) -> Result<(), M::Error> {
    match meta {
        Some(v) => map.serialize_entry("_meta", v)?,
        None => extras.serialize_null(map, "_meta")?,
    }
    extras.serialize_unknown(map)
}

/// Declares the plain (non-flattened) serde impls of a hand-written elicitation type.
macro_rules! object_serde {
    ($name:ident) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                self.write_fields(&mut map)?;
                map.end()
            }
        }

        crate::wire::deserialize_via_value!($name, $name::decode);
    };
    // A mode object also read as part of a request: decoding it alone is `take` plus extras.
    ($name:ident, take) => {
        impl $name {
            fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
                let mut parts = Parts::from_value(value, stringify!($name))?;
                let mut this = Self::take(&mut parts)?;
                this.extras = parts.finish();
                Ok(this)
            }
        }

        object_serde!($name);
    };
}

/// An elicitation shown as a form inside the client.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationFormMode {
    /// The form to fill in.
    pub requested_schema: ElicitationSchema,
    /// What the elicitation is scoped to.
    pub scope: ElicitationScope,
    extras: Extras,
}

impl ElicitationFormMode {
    /// Builds a form elicitation.
    pub fn new(requested_schema: ElicitationSchema, scope: impl Into<ElicitationScope>) -> Self {
        Self {
            requested_schema,
            scope: scope.into(),
            extras: Extras::default(),
        }
    }

    fn take(parts: &mut Parts) -> Result<Self, serde_json::Error> {
        Ok(Self {
            requested_schema: parts.req::<ElicitationSchema, 0>("requestedSchema")?,
            scope: ElicitationScope::take(parts)?,
            extras: Extras::default(),
        })
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("requestedSchema", &self.requested_schema)?;
        self.scope.serialize_fields(map)?;
        self.extras.serialize_unknown(map)
    }
}

object_serde!(ElicitationFormMode, take);

impl schemars::JsonSchema for ElicitationFormMode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElicitationFormMode".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let schema = generator.subschema_for::<ElicitationSchema>();
        let scopes = ElicitationScope::schema_branches(generator);
        schemars::json_schema!({
            "description": "An elicitation shown as a form inside the client.",
            "type": "object",
            "properties": {
                "requestedSchema": { "description": "The form to fill in.", "allOf": [schema] },
            },
            "required": ["requestedSchema"],
            "anyOf": scopes,
            "additionalProperties": true,
        })
    }
}

/// An elicitation the user completes at a URL, outside the client.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationUrlMode {
    /// Identifies the elicitation, for the `elicitation/complete` notification.
    pub elicitation_id: ElicitationId,
    /// The URL to send the user to.
    pub url: String,
    /// What the elicitation is scoped to.
    pub scope: ElicitationScope,
    extras: Extras,
}

impl ElicitationUrlMode {
    /// Builds a URL elicitation.
    pub fn new(
        elicitation_id: impl Into<ElicitationId>,
        url: impl Into<String>,
        scope: impl Into<ElicitationScope>,
    ) -> Self {
        Self {
            elicitation_id: elicitation_id.into(),
            url: url.into(),
            scope: scope.into(),
            extras: Extras::default(),
        }
    }

    fn take(parts: &mut Parts) -> Result<Self, serde_json::Error> {
        Ok(Self {
            elicitation_id: parts.req::<ElicitationId, 0>("elicitationId")?,
            url: parts.req::<String, 0>("url")?,
            scope: ElicitationScope::take(parts)?,
            extras: Extras::default(),
        })
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("elicitationId", &self.elicitation_id)?;
        map.serialize_entry("url", &self.url)?;
        self.scope.serialize_fields(map)?;
        self.extras.serialize_unknown(map)
    }
}

object_serde!(ElicitationUrlMode, take);

impl schemars::JsonSchema for ElicitationUrlMode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElicitationUrlMode".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let id = generator.subschema_for::<ElicitationId>();
        let scopes = ElicitationScope::schema_branches(generator);
        schemars::json_schema!({
            "description": "An elicitation the user completes at a URL, outside the client.",
            "type": "object",
            "properties": {
                "elicitationId": { "description": "The elicitation this concerns.", "allOf": [id] },
                "url": { "description": "The URL.", "type": "string", "format": "uri" },
            },
            "required": ["elicitationId", "url"],
            "anyOf": scopes,
            "additionalProperties": true,
        })
    }
}

/// How an elicitation is carried out, told apart by its `mode` field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationMode {
    /// `"mode": "form"`: a form inside the client.
    Form(ElicitationFormMode),
    /// `"mode": "url"`: a page at a URL.
    Url(ElicitationUrlMode),
    /// Another mode (from a newer peer): its name and scope; its other fields stay among the
    /// request's extras.
    Other {
        /// The mode's name.
        mode: String,
        /// What the elicitation is scoped to.
        scope: ElicitationScope,
    },
}

/// Asks the client to collect structured input from the user (`elicitation/create`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CreateElicitationRequest {
    /// A message for the user, saying what is asked and why.
    pub message: String,
    /// How the elicitation is carried out.
    pub mode: ElicitationMode,
    /// Extension data, opaque to the protocol.
    pub meta: Option<Meta>,
    extras: Extras,
}

impl CreateElicitationRequest {
    /// Builds the request.
    pub fn new(message: impl Into<String>, mode: ElicitationMode) -> Self {
        Self {
            message: message.into(),
            mode,
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

    /// The scope of the elicitation, whatever its mode.
    pub fn scope(&self) -> &ElicitationScope {
        match &self.mode {
            ElicitationMode::Form(form) => &form.scope,
            ElicitationMode::Url(url) => &url.scope,
            ElicitationMode::Other { scope, .. } => scope,
        }
    }

    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        let mut parts = Parts::from_value(value, "a CreateElicitationRequest object")?;
        let message = parts.req::<String, 0>("message")?;
        let meta = parts.opt::<Meta, { DOE | NULLABLE }>("_meta")?;
        let mode = match parts.take_raw("mode") {
            Some(serde_json::Value::String(mode)) => match mode.as_str() {
                "form" => ElicitationMode::Form(ElicitationFormMode::take(&mut parts)?),
                "url" => ElicitationMode::Url(ElicitationUrlMode::take(&mut parts)?),
                _ => ElicitationMode::Other {
                    scope: ElicitationScope::take(&mut parts)?,
                    mode,
                },
            },
            Some(other) => {
                return Err(crate::wire::error_at(
                    "mode",
                    serde_json::Error::invalid_type(
                        crate::wire::unexpected(&other),
                        &"a mode string",
                    ),
                ));
            }
            None => return Err(serde_json::Error::missing_field("mode")),
        };
        Ok(Self {
            message,
            mode,
            meta,
            extras: parts.finish(),
        })
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        match &self.mode {
            ElicitationMode::Form(form) => {
                map.serialize_entry("mode", "form")?;
                form.write_fields(map)?;
            }
            ElicitationMode::Url(url) => {
                map.serialize_entry("mode", "url")?;
                url.write_fields(map)?;
            }
            ElicitationMode::Other { mode, scope } => {
                map.serialize_entry("mode", mode)?;
                scope.serialize_fields(map)?;
            }
        }
        map.serialize_entry("message", &self.message)?;
        serialize_tail(map, self.meta.as_ref(), &self.extras)
    }
}

object_serde!(CreateElicitationRequest);

impl schemars::JsonSchema for CreateElicitationRequest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CreateElicitationRequest".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let form = generator.subschema_for::<ElicitationFormMode>();
        let url = generator.subschema_for::<ElicitationUrlMode>();
        let scopes = ElicitationScope::schema_branches(generator);
        let tagged = |mode: &str| {
            serde_json::json!({
                "type": "object",
                "properties": { "mode": { "type": "string", "const": mode } },
                "required": ["mode"],
            })
        };
        let mut form_branch = tagged("form");
        form_branch["allOf"] = serde_json::json!([form]);
        let mut url_branch = tagged("url");
        url_branch["allOf"] = serde_json::json!([url]);
        schemars::json_schema!({
            "description": "Asks the client to collect structured input from the user (`elicitation/create`).",
            "type": "object",
            "properties": {
                "message": { "description": "A message for the user.", "type": "string" },
                "_meta": {
                    "description": "Extension data, opaque to the protocol.",
                    "type": ["object", "null"],
                    "additionalProperties": true,
                    "x-deserialize-default-on-error": true,
                },
            },
            "required": ["message"],
            "anyOf": [
                form_branch,
                url_branch,
                {
                    "description": "Any other mode, with a scope.",
                    "type": "object",
                    "properties": { "mode": { "type": "string" } },
                    "required": ["mode"],
                    "anyOf": scopes,
                    "not": { "anyOf": [tagged("form"), tagged("url")] },
                },
            ],
            "additionalProperties": true,
        })
    }
}

/// The allowed items of a multi-select field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MultiSelectItems {
    /// `"type": "string"`: plain string values.
    String(StringMultiSelectItems),
    /// Values with titles (no `type` field).
    Titled(TitledMultiSelectItems),
    /// Another `type` (from a newer peer), kept as raw JSON.
    Other(serde_json::Value),
}

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for MultiSelectItems {}

impl MultiSelectItems {
    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        match value.get("type") {
            Some(serde_json::Value::String(tag)) if tag == "string" => {
                let serde_json::Value::Object(mut map) = value else {
                    unreachable!("a value with a field is an object")
                };
                map.remove("type");
                crate::wire::decode_buffered(&serde_json::Value::Object(map)).map(Self::String)
            }
            Some(serde_json::Value::String(_)) => Ok(Self::Other(value)),
            Some(other) => Err(crate::wire::error_at(
                "type",
                serde_json::Error::invalid_type(crate::wire::unexpected(other), &"a type string"),
            )),
            None => crate::wire::decode_buffered(&value).map(Self::Titled),
        }
    }
}

impl serde::Serialize for MultiSelectItems {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(items) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("type", "string")?;
                items.serialize_fields(&mut map)?;
                map.end()
            }
            Self::Titled(items) => serde::Serialize::serialize(items, serializer),
            Self::Other(value) => serde::Serialize::serialize(value, serializer),
        }
    }
}

crate::wire::deserialize_via_value!(MultiSelectItems, MultiSelectItems::decode);

impl schemars::JsonSchema for MultiSelectItems {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MultiSelectItems".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let string = generator.subschema_for::<StringMultiSelectItems>();
        let titled = generator.subschema_for::<TitledMultiSelectItems>();
        let string_tag = serde_json::json!({
            "type": "object",
            "properties": { "type": { "type": "string", "const": "string" } },
            "required": ["type"],
        });
        let mut string_branch = string_tag.clone();
        string_branch["allOf"] = serde_json::json!([string]);
        schemars::json_schema!({
            "description": "The allowed items of a multi-select field.",
            "anyOf": [
                string_branch,
                {
                    "description": "Any other type, with any fields.",
                    "type": "object",
                    "properties": { "type": { "type": "string" } },
                    "required": ["type"],
                    "not": { "anyOf": [string_tag] },
                    "additionalProperties": true,
                },
                { "description": "Values with titles.", "allOf": [titled] },
            ],
        })
    }
}

/// What the user did with an elicitation, told apart by the `action` field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationAction {
    /// `"action": "accept"`: the user submitted the form.
    Accept(ElicitationAcceptAction),
    /// `"action": "decline"`: the user said no.
    Decline,
    /// `"action": "cancel"`: the user dismissed the elicitation.
    Cancel,
    /// Another action (from a newer peer); its fields stay among the response's extras.
    Other(String),
}

/// The client's answer to `elicitation/create`: what the user did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CreateElicitationResponse {
    /// What the user did.
    pub action: ElicitationAction,
    /// Extension data, opaque to the protocol.
    pub meta: Option<Meta>,
    extras: Extras,
}

impl CreateElicitationResponse {
    /// Builds the response.
    pub fn new(action: ElicitationAction) -> Self {
        Self {
            action,
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

    /// Unmodelled fields and explicit nulls received with this response.
    pub fn extras(&self) -> &Extras {
        &self.extras
    }

    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        let mut parts = Parts::from_value(value, "a CreateElicitationResponse object")?;
        let meta = parts.opt::<Meta, { DOE | NULLABLE }>("_meta")?;
        let action = match parts.take_raw("action") {
            Some(serde_json::Value::String(action)) => match action.as_str() {
                "accept" => {
                    let mut accept = ElicitationAcceptAction::new();
                    match parts.take_raw("content") {
                        None => {}
                        Some(serde_json::Value::Null) => accept.extras_mut().mark_null("content"),
                        Some(content) => {
                            accept.content = Some(
                                crate::wire::decode_buffered(&content)
                                    .map_err(|e| crate::wire::error_at("content", e))?,
                            );
                        }
                    }
                    ElicitationAction::Accept(accept)
                }
                "decline" => ElicitationAction::Decline,
                "cancel" => ElicitationAction::Cancel,
                _ => ElicitationAction::Other(action),
            },
            Some(other) => {
                return Err(crate::wire::error_at(
                    "action",
                    serde_json::Error::invalid_type(
                        crate::wire::unexpected(&other),
                        &"an action string",
                    ),
                ));
            }
            None => return Err(serde_json::Error::missing_field("action")),
        };
        Ok(Self {
            action,
            meta,
            extras: parts.finish(),
        })
    }

    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        match &self.action {
            ElicitationAction::Accept(accept) => {
                map.serialize_entry("action", "accept")?;
                accept.serialize_fields(map)?;
            }
            ElicitationAction::Decline => map.serialize_entry("action", "decline")?,
            ElicitationAction::Cancel => map.serialize_entry("action", "cancel")?,
            ElicitationAction::Other(action) => map.serialize_entry("action", action)?,
        }
        serialize_tail(map, self.meta.as_ref(), &self.extras)
    }
}

object_serde!(CreateElicitationResponse);

impl schemars::JsonSchema for CreateElicitationResponse {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CreateElicitationResponse".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let accept = generator.subschema_for::<ElicitationAcceptAction>();
        let tagged = |action: &str| {
            serde_json::json!({
                "type": "object",
                "properties": { "action": { "type": "string", "const": action } },
                "required": ["action"],
            })
        };
        let mut accept_branch = tagged("accept");
        accept_branch["allOf"] = serde_json::json!([accept]);
        schemars::json_schema!({
            "description": "The client's answer to `elicitation/create`: what the user did.",
            "type": "object",
            "properties": {
                "_meta": {
                    "description": "Extension data, opaque to the protocol.",
                    "type": ["object", "null"],
                    "additionalProperties": true,
                    "x-deserialize-default-on-error": true,
                },
            },
            "anyOf": [
                accept_branch,
                tagged("decline"),
                tagged("cancel"),
                {
                    "description": "Any other action.",
                    "type": "object",
                    "properties": { "action": { "type": "string" } },
                    "required": ["action"],
                    "not": { "anyOf": [tagged("accept"), tagged("decline"), tagged("cancel")] },
                    "additionalProperties": true,
                },
            ],
            "additionalProperties": true,
        })
    }
}

/// A value the user entered in an elicitation form.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationContentValue {
    /// Text.
    String(String),
    /// An integer.
    Integer(i64),
    /// A floating point number.
    Number(f64),
    /// Yes or no.
    Boolean(bool),
    /// Several chosen values.
    StringArray(Vec<String>),
}

impl serde::Serialize for ElicitationContentValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(v) => serializer.serialize_str(v),
            Self::Integer(v) => serializer.serialize_i64(*v),
            Self::Number(v) => serializer.serialize_f64(*v),
            Self::Boolean(v) => serializer.serialize_bool(*v),
            Self::StringArray(v) => v.serialize(serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for ElicitationContentValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;

        impl<'de> serde::de::Visitor<'de> for ValueVisitor {
            type Value = ElicitationContentValue;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, a number, a boolean or an array of strings")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::String(v.to_owned()))
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::Integer(v))
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(match i64::try_from(v) {
                    Ok(i) => ElicitationContentValue::Integer(i),
                    #[allow(clippy::cast_precision_loss)]
                    Err(_) => ElicitationContentValue::Number(v as f64),
                })
            }

            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::Number(v))
            }

            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(ElicitationContentValue::Boolean(v))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    items.push(item);
                }
                Ok(ElicitationContentValue::StringArray(items))
            }
        }

        deserializer.deserialize_any(ValueVisitor)
    }
}

crate::wire::lenient_no_default!(ElicitationContentValue);

impl schemars::JsonSchema for ElicitationContentValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElicitationContentValue".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A value the user entered in an elicitation form.",
            "anyOf": [
                { "type": "string" },
                { "type": "integer", "format": "int64" },
                { "type": "number", "format": "double" },
                { "type": "boolean" },
                { "type": "array", "items": { "type": "string" } },
            ],
        })
    }
}
