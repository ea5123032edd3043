//! Permission requests: the agent asks the user to approve a tool call.

use crate::prelude::*;

wire_object! {
    /// Asks the user, through the client, to approve a tool call (`session/request_permission`).
    #[new(
        session_id: impl Into<SessionId>,
        tool_call: impl Into<ToolCallUpdate>,
        options: impl Into<Vec<PermissionOption>>,
    )]
    pub struct RequestPermissionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The tool call the permission is about.
        req tool_call: ToolCallUpdate = "toolCall";
        /// The choices offered.
        req options: Vec<PermissionOption> = "options";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The client's answer to `session/request_permission`.
    #[new(outcome: impl Into<RequestPermissionOutcome>)]
    pub struct RequestPermissionResponse {
        /// What the user chose.
        req outcome: RequestPermissionOutcome = "outcome";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The option the user chose.
    #[new(option_id: impl Into<PermissionOptionId>)]
    pub struct SelectedPermissionOutcome {
        /// The identifier of the option.
        req option_id: PermissionOptionId = "optionId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// One of the choices offered to the user in a permission request.
    #[new(
        option_id: impl Into<PermissionOptionId>,
        name: impl Into<String>,
        kind: impl Into<PermissionOptionKind>,
    )]
    pub struct PermissionOption {
        /// The identifier of the option.
        req option_id: PermissionOptionId = "optionId";
        /// A human-readable name.
        req name: String = "name";
        /// What choosing this option means.
        req kind: PermissionOptionKind = "kind";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

id_type! {
    /// Identifies a permission option within one request.
    pub struct PermissionOptionId;
}

string_enum! {
    /// What a permission option means, so clients can style it and remember choices.
    pub enum PermissionOptionKind {
        /// Allow this one time.
        AllowOnce = "allow_once",
        /// Allow and remember the choice.
        AllowAlways = "allow_always",
        /// Reject this one time.
        RejectOnce = "reject_once",
        /// Reject and remember the choice.
        RejectAlways = "reject_always",
    }
    Unknown, open_schema = false
}

/// What came of a permission request: an option was chosen, or the turn was cancelled.
///
/// When the client cancels a prompt turn it must answer the turn's pending permission
/// requests with [`RequestPermissionOutcome::cancelled`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RequestPermissionOutcome {
    /// The prompt turn was cancelled before the user chose. The [`Extras`] hold the fields
    /// of the object beyond `outcome` (written back on encoding); usually there are none.
    Cancelled(Extras),
    /// The user chose an option.
    Selected(SelectedPermissionOutcome),
    /// An outcome this crate does not know (from a newer peer), kept as raw JSON.
    Unknown(serde_json::Value),
}

// Setters of fields of this type take anything `Into` it (see `IntoField`).
impl crate::ConvertibleField for RequestPermissionOutcome {}

impl RequestPermissionOutcome {
    /// The prompt turn was cancelled before the user chose.
    pub fn cancelled() -> Self {
        Self::Cancelled(Extras::default())
    }

    /// The user chose the option `option_id`.
    pub fn selected(option_id: impl Into<PermissionOptionId>) -> Self {
        Self::Selected(SelectedPermissionOutcome::new(option_id))
    }

    fn decode(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        let mut parts = crate::wire::Parts::from_value::<serde_json::Error>(value, "an object")?;
        match parts.take_raw("outcome") {
            Some(serde_json::Value::String(tag)) => match tag.as_str() {
                "cancelled" => Ok(Self::Cancelled(parts.finish())),
                "selected" => {
                    crate::wire::decode_buffered(&serde_json::Value::Object(parts.rest()))
                        .map(Self::Selected)
                }
                _ => {
                    let mut object = parts.rest();
                    object.insert("outcome".into(), serde_json::Value::String(tag));
                    Ok(Self::Unknown(serde_json::Value::Object(object)))
                }
            },
            Some(other) => Err(crate::wire::error_at(
                "outcome",
                serde_json::Error::invalid_type(crate::wire::unexpected(&other), &"a tag string"),
            )),
            None => Err(serde_json::Error::missing_field("outcome")),
        }
    }
}

impl serde::Serialize for RequestPermissionOutcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        match self {
            Self::Cancelled(extras) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("outcome", "cancelled")?;
                extras.serialize_unknown(&mut map)?;
                map.end()
            }
            Self::Selected(selected) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("outcome", "selected")?;
                crate::wire::WireFields::serialize_fields(selected, &mut map)?;
                map.end()
            }
            Self::Unknown(value) => value.serialize(serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for RequestPermissionOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OutcomeVisitor;

        impl<'de> serde::de::Visitor<'de> for OutcomeVisitor {
            type Value = RequestPermissionOutcome;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a RequestPermissionOutcome object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                use crate::wire::{Key, KeySeed, Tag, TagSeed};
                match map.next_key_seed(KeySeed(&["outcome"]))? {
                    // Fast path (every answer to a permission request goes through here): the
                    // tag comes first, the rest streams into its variant without buffering.
                    Some(Key::Known(_)) => match map.next_value_seed(TagSeed { any: false })? {
                        Tag::Other(_) => unreachable!("TagSeed without `any` yields strings"),
                        tag if tag.as_str() == "selected" => {
                            let selected: SelectedPermissionOutcome = crate::wire::from_rest(map)?;
                            if crate::wire::WireFields::extras(&selected).has_unknown("outcome") {
                                return Err(crate::wire::duplicate("outcome"));
                            }
                            Ok(RequestPermissionOutcome::Selected(selected))
                        }
                        tag if tag.as_str() == "cancelled" => {
                            let mut extras = Extras::default();
                            crate::wire::drain_unknown(&mut map, &mut extras)?;
                            if extras.has_unknown("outcome") {
                                return Err(crate::wire::duplicate("outcome"));
                            }
                            Ok(RequestPermissionOutcome::Cancelled(extras))
                        }
                        tag => {
                            let mut object = serde_json::Map::new();
                            object.insert("outcome".into(), tag.as_str().into());
                            crate::wire::drain_map(&mut map, &mut object)?;
                            Ok(RequestPermissionOutcome::Unknown(object.into()))
                        }
                    },
                    // Slow path: the tag is not first; decode the buffered object.
                    Some(Key::Unknown(first)) => {
                        let mut object = serde_json::Map::new();
                        let value = map.next_value::<crate::wire::UniqueValue>()?.0;
                        object.insert(first, value);
                        crate::wire::drain_map(&mut map, &mut object)?;
                        RequestPermissionOutcome::decode(object.into())
                            .map_err(crate::wire::json_err)
                    }
                    None => RequestPermissionOutcome::decode(serde_json::Map::new().into())
                        .map_err(crate::wire::json_err),
                }
            }
        }

        deserializer.deserialize_map(OutcomeVisitor)
    }
}

crate::wire::lenient_no_default!(RequestPermissionOutcome);

impl schemars::JsonSchema for RequestPermissionOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RequestPermissionOutcome".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let selected = generator.subschema_for::<SelectedPermissionOutcome>();
        schemars::json_schema!({
            "description": "What came of a permission request: an option was chosen, or the turn was cancelled.",
            "oneOf": [
                {
                    "description": "The prompt turn was cancelled before the user chose.",
                    "type": "object",
                    "properties": { "outcome": { "type": "string", "const": "cancelled" } },
                    "required": ["outcome"],
                },
                {
                    "description": "The user chose an option.",
                    "type": "object",
                    "properties": { "outcome": { "type": "string", "const": "selected" } },
                    "required": ["outcome"],
                    "allOf": [selected],
                },
            ],
            "discriminator": { "propertyName": "outcome" },
        })
    }
}
