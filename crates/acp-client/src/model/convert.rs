//! v1 updates in the v2 shapes the session model keeps.
//!
//! Content blocks, tool calls (a v1 diff becomes a structured diff with a whole-file
//! `git_patch`) and plan entries convert with the typed conversions of
//! [`acp_types::v2::convert`], field by field; the rarer shapes (command inputs beyond free
//! text, configuration options) through their JSON.

use acp_types::v2::{self, ConvertError};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::ModelError;

/// Reads a v1 value as its v2 shape, through its JSON (off the streaming path).
pub(crate) fn reshape<T: Serialize, U: DeserializeOwned>(
    what: &'static str,
    value: &T,
) -> Result<U, ModelError> {
    let fail = |e: serde_json::Error| ModelError::NoV2Equivalent {
        what,
        detail: e.to_string(),
    };
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(fail)
}

/// A typed conversion's error as the model's.
fn no_v2(what: &'static str) -> impl FnOnce(ConvertError) -> ModelError {
    move |error| ModelError::NoV2Equivalent {
        what,
        detail: error.to_string(),
    }
}

/// A v1 content block as a v2 one.
pub(crate) fn content_block(
    block: acp_types::ContentBlock,
) -> Result<v2::ContentBlock, ModelError> {
    v2::ContentBlock::try_from(block).map_err(no_v2("content block"))
}

/// v1 slash commands as v2 ones: each a `command`, a v1 free-text input a `text` input.
pub(crate) fn commands(
    commands: Vec<acp_types::AvailableCommand>,
) -> Result<Vec<v2::AvailableCommand>, ModelError> {
    commands
        .into_iter()
        .map(|command| {
            let mut v2_command = v2::Command::new(command.name, command.description);
            v2_command.input = match command.input {
                None => None,
                Some(acp_types::AvailableCommandInput::Unstructured(input)) => {
                    let mut text = v2::TextCommandInput::new(input.hint);
                    text.meta = input.meta;
                    Some(v2::AvailableCommandInput::Text(text))
                }
                Some(other) => Some(reshape("command input", &other)?),
            };
            v2_command.meta = command.meta;
            Ok(v2::AvailableCommand::Command(v2_command))
        })
        .collect()
}

/// v1 configuration options as v2 ones: `id` is `configId` in v2.
pub(crate) fn config_options(
    options: &[acp_types::SessionConfigOption],
) -> Result<Vec<v2::SessionConfigOption>, ModelError> {
    let fail = |e: serde_json::Error| ModelError::NoV2Equivalent {
        what: "configuration option",
        detail: e.to_string(),
    };
    options
        .iter()
        .map(|option| {
            let mut json = serde_json::to_value(option).map_err(fail)?;
            if let Some(object) = json.as_object_mut() {
                if let Some(id) = object.remove("id") {
                    object.insert("configId".into(), id);
                }
            }
            serde_json::from_value(json).map_err(fail)
        })
        .collect()
}

/// A v1 `tool_call` as the first v2 upsert of the tool call. A terminal reference in its
/// content stays a reference by id ([`v2::convert::Terminals::Keep`]): on a v1 connection the
/// id names one of the client's own terminals, which the editor shows from its terminals, not
/// a display terminal of the model's.
pub(crate) fn tool_call(call: acp_types::ToolCall) -> Result<v2::ToolCallUpdate, ModelError> {
    v2::convert::tool_call(call, v2::convert::Terminals::Keep).map_err(no_v2("tool call"))
}

/// A v1 `tool_call_update` as a v2 upsert: v1 leaves absent and `null` fields unchanged;
/// terminal references as in [`tool_call`].
pub(crate) fn tool_call_update(
    call: acp_types::ToolCallUpdate,
) -> Result<v2::ToolCallUpdate, ModelError> {
    v2::convert::tool_call_update(call, v2::convert::Terminals::Keep)
        .map_err(no_v2("tool call update"))
}
