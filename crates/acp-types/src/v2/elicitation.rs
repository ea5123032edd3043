//! Elicitation: asking the user for structured input.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::check::{min_items, min_items_opt, one_of, require};
use super::prelude::*;
use super::shape::{keywords, only_properties, set_required};

string_enum! {
    /// How the client collects the user's input.
    pub enum ElicitationMode {
        /// A form the client renders.
        Form = "form",
        /// A URL the user visits.
        Url = "url",
    }
    Unknown, open_schema = true, inline = true
}
wire_object! {
    /// Asks the client to collect structured input from the user (`elicitation/create`).
    #[schema_extend(schema_create_elicitation_request)]
    #[check(check_create_elicitation_request)]
    #[new(mode: impl Into<ElicitationMode>, message: impl Into<String>)]
    pub struct CreateElicitationRequest {
        /// How the input is collected.
        req mode: ElicitationMode = "mode";
        /// What input is needed, for the user.
        req message: String = "message";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
        /// The form's fields, as a JSON Schema.
        opt requested_schema: ElicitationSchema = "requestedSchema";
        /// The session this concerns.
        opt session_id: SessionId = "sessionId";
        /// The tool call this concerns.
        opt tool_call_id: ToolCallId = "toolCallId" [DOE | NULLABLE];
        /// The request the elicitation belongs to (outside a session).
        opt request_id: RequestId = "requestId";
        /// The id of the URL elicitation, as `elicitation/complete` names it.
        opt elicitation_id: ElicitationId = "elicitationId";
        /// The URL the user visits.
        opt url: String = "url";
    }
}

/// Checks what the schema requires of a [`CreateElicitationRequest`] beyond its fields: what its kind needs.
fn check_create_elicitation_request(value: &CreateElicitationRequest) -> Result<(), String> {
    match &value.mode {
        ElicitationMode::Form => {
            require(&[("requestedSchema", value.requested_schema.is_some())])?;
            one_of(&[
                &[("sessionId", value.session_id.is_some())],
                &[("requestId", value.request_id.is_some())],
            ])?;
        }
        ElicitationMode::Url => {
            require(&[
                ("elicitationId", value.elicitation_id.is_some()),
                ("url", value.url.is_some()),
            ])?;
            one_of(&[
                &[("sessionId", value.session_id.is_some())],
                &[("requestId", value.request_id.is_some())],
            ])?;
        }
        _ => {
            one_of(&[
                &[("sessionId", value.session_id.is_some())],
                &[("requestId", value.request_id.is_some())],
            ])?;
        }
    }
    Ok(())
}

/// Gives the schema of a [`CreateElicitationRequest`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_create_elicitation_request(object: &mut serde_json::Map<String, serde_json::Value>) {
    only_properties(object, &["message", "_meta"]);
    set_required(object, &["message"]);
    object.insert("anyOf".into(), serde_json::json!([{"type": "object", "properties": {"mode": {"type": "string", "const": "form"}}, "required": ["mode"], "allOf": [{"$ref": "#/$defs/ElicitationFormMode"}]}, {"type": "object", "properties": {"mode": {"type": "string", "const": "url"}}, "required": ["mode"], "allOf": [{"$ref": "#/$defs/ElicitationUrlMode"}]}, {"type": "object", "properties": {"mode": {"type": "string"}}, "required": ["mode"], "oneOf": [{"allOf": [{"$ref": "#/$defs/ElicitationSessionScope"}]}, {"allOf": [{"$ref": "#/$defs/ElicitationRequestScope"}]}], "unevaluatedProperties": true, "not": {"anyOf": [{"type": "object", "properties": {"mode": {"type": "string", "const": "form"}}, "required": ["mode"]}, {"type": "object", "properties": {"mode": {"type": "string", "const": "url"}}, "required": ["mode"]}]}}]));
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
    #[new(kind: impl Into<ElicitationSchemaType>, properties: impl Into<BTreeMap<String, ElicitationPropertySchema>>)]
    pub struct ElicitationSchema {
        /// The JSON type of the form (always `object`).
        req kind: ElicitationSchemaType = "type";
        /// The title of the form.
        opt title: String = "title" [DOE | NULLABLE];
        /// The fields of the form, by name.
        req properties: BTreeMap<String, ElicitationPropertySchema> = "properties";
        /// The names of the fields that must be filled in.
        opt required: Vec<String> = "required" [NULLABLE];
        /// A human-readable description.
        opt description: String = "description" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

tagged_union! {
    /// The schema of one field of an elicitation form.
    pub enum ElicitationPropertySchema {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
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
            Array(MultiSelectPropertySchema) = "array",
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
    Unknown, open_schema = true
}

wire_object! {
    /// A text field of an elicitation form, possibly a choice among values.
    #[schema_extend(schema_string_property_schema)]
    #[check(check_string_property_schema)]
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

/// Adds to the schema of a [`StringPropertySchema`] what the types of its fields do not say.
fn schema_string_property_schema(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(
        object,
        serde_json::json!({"pattern": {"format": "regex"}, "enum": {"minItems": 1}, "oneOf": {"minItems": 1}}),
    );
}

/// Checks the bounds the schema sets on the members of a [`StringPropertySchema`].
fn check_string_property_schema(value: &StringPropertySchema) -> Result<(), String> {
    min_items_opt("enum", value.enum_values.as_ref(), 1)?;
    min_items_opt("oneOf", value.one_of.as_ref(), 1)?;
    Ok(())
}

tagged_union! {
    /// The allowed items of a multi-select field.
    pub enum MultiSelectItems {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        default = Titled(TitledMultiSelectItems) = "titled",
        unknown = Unknown,
        variants {
            /// Multi-select items given as plain string values.
            String(StringMultiSelectItems) = "string",
        }
    }
}

wire_object! {
    /// Multi-select items given as plain string values.
    #[schema_extend(schema_string_multi_select_items)]
    #[check(check_string_multi_select_items)]
    #[new(enum_values: impl Into<Vec<String>>)]
    pub struct StringMultiSelectItems {
        /// The allowed values.
        req enum_values: Vec<String> = "enum";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`StringMultiSelectItems`] what the types of its fields do not say.
fn schema_string_multi_select_items(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"enum": {"minItems": 1}}));
}

/// Checks the bounds the schema sets on the members of a [`StringMultiSelectItems`].
fn check_string_multi_select_items(value: &StringMultiSelectItems) -> Result<(), String> {
    min_items("enum", &value.enum_values, 1)?;
    Ok(())
}

wire_object! {
    /// Multi-select items given as values with titles.
    #[schema_extend(schema_titled_multi_select_items)]
    #[check(check_titled_multi_select_items)]
    #[new(any_of: impl Into<Vec<EnumOption>>)]
    pub struct TitledMultiSelectItems {
        /// The values that can be picked, with titles.
        req any_of: Vec<EnumOption> = "anyOf";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`TitledMultiSelectItems`] what the types of its fields do not say.
fn schema_titled_multi_select_items(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"anyOf": {"minItems": 1}}));
}

/// Checks the bounds the schema sets on the members of a [`TitledMultiSelectItems`].
fn check_titled_multi_select_items(value: &TitledMultiSelectItems) -> Result<(), String> {
    min_items("anyOf", &value.any_of, 1)?;
    Ok(())
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

wire_object! {
    /// An elicitation shown as a form inside the client.
    #[schema_extend(schema_elicitation_form_mode)]
    #[check(check_elicitation_form_mode)]
    #[new(requested_schema: impl Into<ElicitationSchema>)]
    pub struct ElicitationFormMode {
        /// The form's fields, as a JSON Schema.
        req requested_schema: ElicitationSchema = "requestedSchema";
        /// The session this concerns.
        opt session_id: SessionId = "sessionId";
        /// The tool call this concerns.
        opt tool_call_id: ToolCallId = "toolCallId" [DOE | NULLABLE];
        /// The id of the request to cancel.
        opt request_id: RequestId = "requestId";
    }
}

/// Checks what the schema requires of a [`ElicitationFormMode`] beyond its fields: what its kind needs.
fn check_elicitation_form_mode(value: &ElicitationFormMode) -> Result<(), String> {
    one_of(&[
        &[("sessionId", value.session_id.is_some())],
        &[("requestId", value.request_id.is_some())],
    ])?;
    Ok(())
}

/// Gives the schema of a [`ElicitationFormMode`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_elicitation_form_mode(object: &mut serde_json::Map<String, serde_json::Value>) {
    only_properties(object, &["requestedSchema"]);
    set_required(object, &["requestedSchema"]);
    object.insert("oneOf".into(), serde_json::json!([{"allOf": [{"$ref": "#/$defs/ElicitationSessionScope"}]}, {"allOf": [{"$ref": "#/$defs/ElicitationRequestScope"}]}]));
}

wire_object! {
    /// An elicitation the user completes at a URL, outside the client.
    #[schema_extend(schema_elicitation_url_mode)]
    #[check(check_elicitation_url_mode)]
    #[new(elicitation_id: impl Into<ElicitationId>, url: impl Into<String>)]
    pub struct ElicitationUrlMode {
        /// The id of the URL elicitation, as `elicitation/complete` names it.
        req elicitation_id: ElicitationId = "elicitationId";
        /// The URL the user visits.
        req url: String = "url";
        /// The session this concerns.
        opt session_id: SessionId = "sessionId";
        /// The tool call this concerns.
        opt tool_call_id: ToolCallId = "toolCallId" [DOE | NULLABLE];
        /// The id of the request to cancel.
        opt request_id: RequestId = "requestId";
    }
}

/// Checks what the schema requires of a [`ElicitationUrlMode`] beyond its fields: what its kind needs.
fn check_elicitation_url_mode(value: &ElicitationUrlMode) -> Result<(), String> {
    one_of(&[
        &[("sessionId", value.session_id.is_some())],
        &[("requestId", value.request_id.is_some())],
    ])?;
    Ok(())
}

/// Gives the schema of a [`ElicitationUrlMode`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_elicitation_url_mode(object: &mut serde_json::Map<String, serde_json::Value>) {
    only_properties(object, &["elicitationId", "url"]);
    set_required(object, &["elicitationId", "url"]);
    object.insert("oneOf".into(), serde_json::json!([{"allOf": [{"$ref": "#/$defs/ElicitationSessionScope"}]}, {"allOf": [{"$ref": "#/$defs/ElicitationRequestScope"}]}]));
    keywords(object, serde_json::json!({"url": {"format": "uri"}}));
}

string_enum! {
    /// What the user did with an elicitation.
    pub enum ElicitationAction {
        /// `accept`.
        Accept = "accept",
        /// `decline`.
        Decline = "decline",
        /// `cancel`.
        Cancel = "cancel",
    }
    Unknown, open_schema = true, inline = true
}
wire_object! {
    /// The client's answer to `elicitation/create`: what the user did.
    #[schema_extend(schema_create_elicitation_response)]
    #[check(check_create_elicitation_response)]
    #[new(action: impl Into<ElicitationAction>)]
    pub struct CreateElicitationResponse {
        /// What the user did.
        req action: ElicitationAction = "action";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
        /// The values the user entered (`accept`).
        opt content: BTreeMap<String, ElicitationContentValue> = "content" [NULLABLE];
    }
}

/// Checks what the schema requires of a [`CreateElicitationResponse`] beyond its fields: what its kind needs.
fn check_create_elicitation_response(value: &CreateElicitationResponse) -> Result<(), String> {
    match &value.action {
        ElicitationAction::Accept => {}
        ElicitationAction::Decline => {}
        ElicitationAction::Cancel => {}
        _ => {}
    }
    Ok(())
}

/// Gives the schema of a [`CreateElicitationResponse`] the official shape: its common members, and its
/// kinds as references to their definitions.
fn schema_create_elicitation_response(object: &mut serde_json::Map<String, serde_json::Value>) {
    only_properties(object, &["_meta"]);
    set_required(object, &[]);
    object.insert("anyOf".into(), serde_json::json!([{"type": "object", "properties": {"action": {"type": "string", "const": "accept"}}, "required": ["action"], "allOf": [{"$ref": "#/$defs/ElicitationAcceptAction"}]}, {"type": "object", "properties": {"action": {"type": "string", "const": "decline"}}, "required": ["action"]}, {"type": "object", "properties": {"action": {"type": "string", "const": "cancel"}}, "required": ["action"]}, {"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"], "not": {"anyOf": [{"type": "object", "properties": {"action": {"type": "string", "const": "accept"}}, "required": ["action"]}, {"type": "object", "properties": {"action": {"type": "string", "const": "decline"}}, "required": ["action"]}, {"type": "object", "properties": {"action": {"type": "string", "const": "cancel"}}, "required": ["action"]}]}, "additionalProperties": true}]));
}

wire_object! {
    /// The user submitted the form.
    #[optional_fields(new)]
    pub struct ElicitationAcceptAction {
        /// The content.
        opt content: BTreeMap<String, ElicitationContentValue> = "content" [NULLABLE];
    }
}
