//! v1 updates in the v2 shapes the session model keeps.
//!
//! Most v1 values read as their v2 counterparts unchanged (content blocks, commands); text, the
//! common case of streaming, is moved over field by field, the rarer shapes through their JSON.
//! A v1 diff (`path`, `oldText`, `newText`) has no v2 counterpart field by field: it becomes a
//! structured diff (one `add` or `modify` change) with a whole-file `git_patch`.

use acp_types::v2::{self, Patch};
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

/// A v1 content block as a v2 one.
pub(crate) fn content_block(
    block: acp_types::ContentBlock,
) -> Result<v2::ContentBlock, ModelError> {
    match block {
        acp_types::ContentBlock::Text(text) if text.annotations.is_none() => {
            let mut v2_text = v2::TextContent::new(text.text);
            v2_text.meta = text.meta;
            Ok(v2::ContentBlock::Text(v2_text))
        }
        other => reshape("content block", &other),
    }
}

/// A v1 plan entry as a v2 one (the same fields; the enums are open in v2).
pub(crate) fn plan_entry(entry: acp_types::PlanEntry) -> v2::PlanEntry {
    let mut v2_entry = v2::PlanEntry::new(
        entry.content,
        v2::PlanEntryPriority::from(entry.priority.as_str()),
        v2::PlanEntryStatus::from(entry.status.as_str()),
    );
    v2_entry.meta = entry.meta;
    v2_entry
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

/// A v1 `tool_call` as the first v2 upsert of the tool call.
pub(crate) fn tool_call(call: acp_types::ToolCall) -> Result<v2::ToolCallUpdate, ModelError> {
    let mut update = v2::ToolCallUpdate::new(call.tool_call_id);
    update.title = Patch::Set(call.title);
    update.name = call.name.map_or(Patch::Unchanged, Patch::Set);
    update.kind = call.kind.map_or(Patch::Unchanged, |k| {
        Patch::Set(v2::ToolKind::from(k.as_str()))
    });
    update.status = call.status.map_or(Patch::Unchanged, |s| {
        Patch::Set(v2::ToolCallStatus::from(s.as_str()))
    });
    update.content = Patch::Set(tool_call_contents(call.content.unwrap_or_default())?);
    update.locations = Patch::Set(reshape(
        "tool call location",
        &call.locations.unwrap_or_default(),
    )?);
    update.raw_input = call.raw_input.map_or(Patch::Unchanged, Patch::Set);
    update.raw_output = call.raw_output.map_or(Patch::Unchanged, Patch::Set);
    update.meta = call.meta.map_or(Patch::Unchanged, Patch::Set);
    Ok(update)
}

/// A v1 `tool_call_update` as a v2 upsert: v1 leaves absent and `null` fields unchanged.
pub(crate) fn tool_call_update(
    call: acp_types::ToolCallUpdate,
) -> Result<v2::ToolCallUpdate, ModelError> {
    let mut update = v2::ToolCallUpdate::new(call.tool_call_id);
    update.title = call.title.map_or(Patch::Unchanged, Patch::Set);
    update.name = call.name.map_or(Patch::Unchanged, Patch::Set);
    update.kind = call.kind.map_or(Patch::Unchanged, |k| {
        Patch::Set(v2::ToolKind::from(k.as_str()))
    });
    update.status = call.status.map_or(Patch::Unchanged, |s| {
        Patch::Set(v2::ToolCallStatus::from(s.as_str()))
    });
    if let Some(content) = call.content {
        update.content = Patch::Set(tool_call_contents(content)?);
    }
    if let Some(locations) = call.locations {
        update.locations = Patch::Set(reshape("tool call location", &locations)?);
    }
    update.raw_input = call.raw_input.map_or(Patch::Unchanged, Patch::Set);
    update.raw_output = call.raw_output.map_or(Patch::Unchanged, Patch::Set);
    update.meta = call.meta.map_or(Patch::Unchanged, Patch::Set);
    Ok(update)
}

fn tool_call_contents(
    content: Vec<acp_types::ToolCallContent>,
) -> Result<Vec<v2::ToolCallContent>, ModelError> {
    content.into_iter().map(tool_call_content).collect()
}

/// A v1 tool-call content item as a v2 one.
fn tool_call_content(
    content: acp_types::ToolCallContent,
) -> Result<v2::ToolCallContent, ModelError> {
    Ok(match content {
        acp_types::ToolCallContent::Content(c) => {
            let mut item = v2::Content::new(content_block(c.content)?);
            item.meta = c.meta;
            v2::ToolCallContent::Content(item)
        }
        acp_types::ToolCallContent::Diff(diff) => v2::ToolCallContent::Diff(v1_diff(diff)),
        // A v1 terminal is the client's own (its output is the client's to show): the same
        // reference type in both versions.
        acp_types::ToolCallContent::Terminal(terminal) => v2::ToolCallContent::Terminal(terminal),
        other => reshape("tool call content", &other)?,
    })
}

/// A v1 diff as a structured v2 diff: one change (`add` without old text, else `modify`) and
/// the whole file as a `git_patch` (every old line removed, every new line added).
fn v1_diff(diff: acp_types::Diff) -> v2::Diff {
    let path = diff.path.to_string();
    let operation = if diff.old_text.is_some() {
        v2::DiffOperation::Modify
    } else {
        v2::DiffOperation::Add
    };
    let mut change = v2::DiffChange::new(operation);
    change.path = Some(v2::AbsolutePath::from(path.as_str()));
    change.file_type = Some(v2::DiffFileType::Text);
    let old = diff.old_text.as_deref().unwrap_or_default();
    let mut text = format!("diff --git {path} {path}\n");
    text.push_str(if diff.old_text.is_some() {
        "--- "
    } else {
        "--- /dev/null\n"
    });
    if diff.old_text.is_some() {
        text.push_str(&path);
        text.push('\n');
    }
    text.push_str(&format!("+++ {path}\n"));
    let (old_lines, new_lines) = (old.lines().count(), diff.new_text.lines().count());
    text.push_str(&format!(
        "@@ -{} +{} @@\n",
        range(old_lines),
        range(new_lines)
    ));
    for line in old.lines() {
        text.push('-');
        text.push_str(line);
        text.push('\n');
    }
    for line in diff.new_text.lines() {
        text.push('+');
        text.push_str(line);
        text.push('\n');
    }
    let mut v2_diff = v2::Diff::new(vec![change]);
    v2_diff.patch = Some(v2::DiffPatch::new(v2::DiffPatchFormat::GitPatch, text));
    v2_diff.meta = diff.meta;
    v2_diff
}

/// A hunk range of `lines` lines from the file's start (`0,0` for none).
fn range(lines: usize) -> String {
    if lines == 0 {
        "0,0".to_owned()
    } else {
        format!("1,{lines}")
    }
}
