//! Conversions between the v1 shapes the [`Agent`](crate::Agent) trait and the toolkit speak
//! and the v2 shapes a v2 connection carries.
//!
//! Most v1 and v2 definitions write the same JSON, or JSON that differs in a discriminator or
//! a wrapper; those are converted through their JSON (rewritten where the versions differ) and
//! read again by the other version's decoder, which keeps unknown fields and refuses what does
//! not fit. The hot path, a streamed text chunk, is converted field by field without going
//! through JSON. A value that cannot be said in the other version is an error naming it, never
//! dropped.

use acp_types::v2;
use acp_types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// The plan id a v1 plan gets on a v2 connection: v1 has one plan per session, which each
/// `plan` update replaces, as one `planId` does in v2.
pub(crate) const PLAN_ID: &str = "plan";

/// Reads `value` (of one version) as `T` (of the other) through its JSON.
pub(crate) fn transcode<T: DeserializeOwned>(value: &impl Serialize) -> Result<T, String> {
    let json = serde_json::to_value(value).map_err(|e| e.to_string())?;
    read(json)
}

/// Reads `json` as `T`.
pub(crate) fn read<T: DeserializeOwned>(json: Value) -> Result<T, String> {
    acp_types::from_value(json).map_err(|e| e.to_string())
}

/// A v1 content block in v2: a plain text block directly, anything else through its JSON.
pub(crate) fn content_to_v2(block: ContentBlock) -> Result<v2::ContentBlock, String> {
    match block {
        ContentBlock::Text(text)
            if text.annotations.is_none() && WireFields::extras(&text).is_empty() =>
        {
            let meta = text.meta;
            let mut out = v2::TextContent::new(text.text);
            out.meta = meta;
            Ok(v2::ContentBlock::Text(out))
        }
        other => transcode(&other),
    }
}

/// A v2 content block in v1 (a prompt's blocks): plain text directly, anything else through
/// its JSON.
pub(crate) fn content_to_v1(block: v2::ContentBlock) -> Result<ContentBlock, String> {
    match block {
        v2::ContentBlock::Text(text)
            if text.annotations.is_none() && WireFields::extras(&text).is_empty() =>
        {
            let meta = text.meta;
            let mut out = TextContent::new(text.text);
            out.meta = meta;
            Ok(ContentBlock::Text(out))
        }
        other => transcode(&other),
    }
}

/// A v1 chunk (its `messageId` stamped, see [`Cursors`](super::Cursors)) as a v2 chunk.
fn chunk_to_v2(chunk: ContentChunk) -> Result<v2::ContentChunk, String> {
    if !WireFields::extras(&chunk).is_empty() {
        return transcode(&chunk);
    }
    let message_id = chunk
        .message_id
        .ok_or("a message chunk needs a messageId in protocol version 2")?;
    let mut out = v2::ContentChunk::new(message_id, content_to_v2(chunk.content)?);
    out.meta = chunk.meta;
    Ok(out)
}

/// A v1 session update in v2: message chunks keep their (stamped) `messageId`; `tool_call` and
/// `tool_call_update` become `tool_call_update` upserts (a v1 `null` or absent field is left
/// unchanged), with diffs in v2's structured form; `plan` becomes `plan_update` with
/// [`PLAN_ID`]; commands get their `type`. Session modes have no v2 form: an error.
pub(crate) fn update_to_v2(update: SessionUpdate) -> Result<v2::SessionUpdate, String> {
    Ok(match update {
        SessionUpdate::AgentMessageChunk(c) => {
            v2::SessionUpdate::AgentMessageChunk(chunk_to_v2(c)?)
        }
        SessionUpdate::AgentThoughtChunk(c) => {
            v2::SessionUpdate::AgentThoughtChunk(chunk_to_v2(c)?)
        }
        SessionUpdate::UserMessageChunk(c) => v2::SessionUpdate::UserMessageChunk(chunk_to_v2(c)?),
        SessionUpdate::CurrentModeUpdate(_) => {
            return Err(
                "session modes do not exist in protocol version 2 (offer a config \
                        option of category `mode` instead)"
                    .into(),
            );
        }
        other => {
            let mut json = serde_json::to_value(&other).map_err(|e| e.to_string())?;
            let object = json
                .as_object_mut()
                .ok_or("a session update is an object")?;
            rewrite_update(object)?;
            read(json)?
        }
    })
}

/// Rewrites the JSON of a v1 update whose v2 form differs.
fn rewrite_update(object: &mut Map<String, Value>) -> Result<(), String> {
    let kind = object
        .get("sessionUpdate")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match kind.as_str() {
        "tool_call" | "tool_call_update" => {
            object.insert("sessionUpdate".into(), "tool_call_update".into());
            // In v1 `null` leaves a field as it is; in v2 it clears it.
            object.retain(|_, v| !v.is_null());
            if let Some(Value::Array(content)) = object.get_mut("content") {
                for item in content {
                    diff_to_v2(item)?;
                }
            }
        }
        "plan" => {
            let entries = object.remove("entries").unwrap_or_else(|| json!([]));
            object.insert("sessionUpdate".into(), "plan_update".into());
            object.insert(
                "plan".into(),
                json!({"type": "items", "planId": PLAN_ID, "entries": entries}),
            );
        }
        "config_option_update" => {
            if let Some(options) = object.get_mut("configOptions") {
                config_options_to_v2(options);
            }
        }
        "available_commands_update" => {
            if let Some(Value::Array(commands)) = object.get_mut("availableCommands") {
                for command in commands.iter_mut().filter_map(Value::as_object_mut) {
                    command.entry("type").or_insert_with(|| "command".into());
                    if let Some(input) = command.get_mut("input").and_then(Value::as_object_mut) {
                        input.entry("type").or_insert_with(|| "text".into());
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// v1 config options (`configOptions` of session answers, `session/set_config_option` answers
/// and `config_option_update`) in their v2 form, in place: v1 names an option `id`, v2
/// `configId` (the rest is written alike). Without this the v2 reader, which skips list items
/// it cannot read, would drop every option.
pub(crate) fn config_options_to_v2(options: &mut Value) {
    let Value::Array(options) = options else {
        return;
    };
    for option in options.iter_mut().filter_map(Value::as_object_mut) {
        if let Some(id) = option.remove("id") {
            option.entry("configId").or_insert(id);
        }
    }
}

/// A v1 diff content (`path`, `oldText`, `newText`) in v2's structured form: one change (an
/// `add` without `oldText`, else a `modify`) and a git patch that replaces the whole old text
/// with the new one, from which both texts can be read back. Other content is left as it is.
pub(crate) fn diff_to_v2(item: &mut Value) -> Result<(), String> {
    let Some(object) = item.as_object_mut() else {
        return Ok(());
    };
    if object.get("type").and_then(Value::as_str) != Some("diff") || object.contains_key("changes")
    {
        return Ok(());
    }
    let path = match object.remove("path") {
        Some(Value::String(path)) => path,
        _ => return Err("a v1 diff without a path".into()),
    };
    let new = match object.remove("newText") {
        Some(Value::String(text)) => text,
        _ => return Err(format!("the diff of {path} has no newText")),
    };
    let old = match object.remove("oldText") {
        Some(Value::String(text)) => Some(text),
        None | Some(Value::Null) => None,
        Some(_) => {
            return Err(format!(
                "the diff of {path} has an oldText that is not a string"
            ));
        }
    };
    let operation = if old.is_some() { "modify" } else { "add" };
    let patch = git_patch(&path, old.as_deref(), &new);
    object.insert(
        "changes".into(),
        json!([{"operation": operation, "path": path, "fileType": "text"}]),
    );
    object.insert(
        "patch".into(),
        json!({"format": "git_patch", "text": patch}),
    );
    Ok(())
}

/// A git patch that turns `old` (`None`: the file is new) into `new` at `path`, as one hunk
/// replacing every line.
pub(crate) fn git_patch(path: &str, old: Option<&str>, new: &str) -> String {
    let relative = path.trim_start_matches('/');
    let mut out = format!("diff --git a/{relative} b/{relative}\n");
    match old {
        None => {
            out.push_str("new file mode 100644\n--- /dev/null\n");
        }
        Some(_) => out.push_str(&format!("--- a/{relative}\n")),
    }
    out.push_str(&format!("+++ b/{relative}\n"));
    let old = old.unwrap_or_default();
    if old == new {
        return out;
    }
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let range = |n: usize| {
        if n == 0 {
            "0,0".to_owned()
        } else {
            format!("1,{n}")
        }
    };
    out.push_str(&format!(
        "@@ -{} +{} @@\n",
        range(old_lines.len()),
        range(new_lines.len())
    ));
    for (sign, lines) in [('-', &old_lines), ('+', &new_lines)] {
        for line in lines.iter() {
            out.push(sign);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// The v1 form of a v2 client's `initialize`, for [`Agent::initialize`](crate::Agent::initialize):
/// `info` as `clientInfo`, elicitation as it is, and the session capabilities v2 makes baseline
/// (compaction, notices, config options) set, so that the toolkit's gates pass them. v2 has
/// no `fs` or `terminal` client capabilities.
pub(crate) fn initialize_to_v1(request: &v2::InitializeRequest) -> InitializeRequest {
    let mut capabilities = ClientCapabilities::default();
    if let Some(v2_caps) = &request.capabilities {
        capabilities.elicitation = v2_caps.elicitation.clone();
        capabilities.meta = v2_caps.meta.clone();
    }
    // What v2 makes baseline for every client: compactions, notices, and config options of
    // every kind (v2 has no client capability for boolean options).
    capabilities.session = transcode(&json!({
        "compaction": {},
        "notices": {},
        "configOptions": {"boolean": {}},
    }))
    .ok();
    let mut v1 = InitializeRequest::new(request.protocol_version);
    v1.client_info = Some(request.info.clone());
    v1.client_capabilities = Some(capabilities);
    v1.meta = request.meta.clone();
    v1
}

/// The v2 form of the agent's `initialize` answer: `agentInfo` as the required `info` (else
/// `default_info`, see [`AgentOptions::agent_info`](crate::AgentOptions::agent_info)), the
/// capabilities nested under `session` as objects, auth methods with their `type` and
/// `methodId`. The v2 baseline (`list`, `resume`, `close`) is served by the library whatever
/// the agent advertised (see the crate docs).
pub(crate) fn initialize_to_v2(
    response: &InitializeResponse,
    version: ProtocolVersion,
    default_info: &Implementation,
) -> Result<v2::InitializeResponse, String> {
    let info = response
        .agent_info
        .clone()
        .unwrap_or_else(|| default_info.clone());
    let mut session = v2::SessionCapabilities::default();
    let caps = response.agent_capabilities.clone().unwrap_or_default();
    let prompt = caps.prompt_capabilities.unwrap_or_default();
    let mut v2_prompt = v2::PromptCapabilities::default();
    if prompt.image == Some(true) {
        v2_prompt.image = Some(v2::PromptImageCapabilities::default());
    }
    if prompt.audio == Some(true) {
        v2_prompt.audio = Some(v2::PromptAudioCapabilities::default());
    }
    if prompt.embedded_context == Some(true) {
        v2_prompt.embedded_context = Some(v2::PromptEmbeddedContextCapabilities::default());
    }
    session.prompt = Some(v2_prompt);
    let mcp = caps.mcp_capabilities.unwrap_or_default();
    let mut v2_mcp = v2::McpCapabilities::default();
    // Stdio is the v1 baseline.
    v2_mcp.stdio = Some(v2::McpStdioCapabilities::default());
    if mcp.http == Some(true) {
        v2_mcp.http = Some(v2::McpHttpCapabilities::default());
    }
    session.mcp = Some(v2_mcp);
    if let Some(sessions) = caps.session_capabilities {
        session.delete = sessions.delete;
        session.additional_directories = sessions.additional_directories;
    }
    let mut out = v2::InitializeResponse::new(version, info);
    let mut capabilities = v2::AgentCapabilities::default();
    capabilities.session = Some(session);
    capabilities.meta = caps.meta;
    out.capabilities = Some(capabilities);
    if let Some(methods) = &response.auth_methods {
        let mut v2_methods = Vec::with_capacity(methods.len());
        for method in methods {
            let mut json = serde_json::to_value(method).map_err(|e| e.to_string())?;
            if let Some(object) = json.as_object_mut() {
                if let Some(id) = object.remove("id") {
                    object.entry("methodId").or_insert(id);
                }
                object.entry("type").or_insert_with(|| "agent".into());
            }
            v2_methods.push(read(json).map_err(|e| format!("an auth method: {e}"))?);
        }
        out.auth_methods = Some(v2_methods);
    }
    out.meta = response.meta.clone();
    Ok(out)
}

/// The v2 form of an error that ended a turn (for an idle `state_update` with stop reason
/// `error`).
pub(crate) fn error_to_v2(error: &ErrorObject) -> v2::Error {
    transcode(error)
        .unwrap_or_else(|_| v2::Error::new(v2::ErrorCode(error.code.0), error.message.clone()))
}

/// The v2 form of a v1 stop reason (the same names).
pub(crate) fn stop_reason_to_v2(reason: &StopReason) -> v2::StopReason {
    transcode(reason).unwrap_or(v2::StopReason::EndTurn)
}

/// The v2 form of a v1 permission request: the tool call as the `tool_call` subject, its title
/// as the required `title`.
pub(crate) fn permission_to_v2(
    request: &RequestPermissionRequest,
) -> Result<v2::RequestPermissionRequest, String> {
    let mut tool_call = serde_json::to_value(&request.tool_call).map_err(|e| e.to_string())?;
    if let Some(object) = tool_call.as_object_mut() {
        object.retain(|_, v| !v.is_null());
        if let Some(Value::Array(content)) = object.get_mut("content") {
            for item in content {
                diff_to_v2(item)?;
            }
        }
    }
    let title = request
        .tool_call
        .title
        .clone()
        .unwrap_or_else(|| format!("Allow the tool call {}?", request.tool_call.tool_call_id));
    let mut json = json!({
        "sessionId": request.session_id,
        "title": title,
        "subject": {"type": "tool_call", "toolCall": tool_call},
        "options": request.options,
    });
    if let Some(meta) = &request.meta {
        json["_meta"] = Value::Object(meta.clone());
    }
    read(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_patch_replaces_every_line_and_marks_a_missing_final_newline() {
        assert_eq!(
            git_patch("/src/a.rs", Some("one\ntwo\n"), "one\n2"),
            "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n\
             @@ -1,2 +1,2 @@\n-one\n-two\n+one\n+2\n\\ No newline at end of file\n"
        );
        assert_eq!(
            git_patch("/new.txt", None, "hi\n"),
            "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n\
             @@ -0,0 +1,1 @@\n+hi\n"
        );
        // No change: no hunk.
        assert!(!git_patch("/same", Some("x\n"), "x\n").contains("@@"));
    }

    #[test]
    fn a_v1_diff_becomes_a_structured_diff_and_a_broken_one_an_error() {
        let mut item = json!({"type": "diff", "path": "/a", "newText": "b\n"});
        diff_to_v2(&mut item).expect("a diff");
        assert_eq!(
            item["changes"],
            json!([{"operation": "add", "path": "/a", "fileType": "text"}])
        );
        assert_eq!(item["patch"]["format"], "git_patch");
        assert!(item.get("newText").is_none(), "{item}");
        let mut broken = json!({"type": "diff", "path": "/a"});
        assert!(diff_to_v2(&mut broken).unwrap_err().contains("newText"));
    }

    #[test]
    fn v1_config_options_keep_every_option_in_v2_and_the_update_too() {
        let options = vec![
            SessionConfigOption::select(
                "model",
                "Model",
                "fast",
                vec![SessionConfigSelectOption::new("fast", "Fast")],
            ),
            SessionConfigOption::boolean("auto_title", "Auto title", true),
        ];
        let update = SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(options));
        let v2::SessionUpdate::ConfigOptionUpdate(v2_update) =
            update_to_v2(update).expect("a v2 update")
        else {
            panic!("not a config option update");
        };
        let ids: Vec<&str> = v2_update
            .config_options
            .iter()
            .map(|o| o.config_id.as_str())
            .collect();
        assert_eq!(ids, ["model", "auto_title"], "no option dropped");
    }

    #[test]
    fn a_v2_client_takes_every_kind_of_config_option() {
        let request = v2::InitializeRequest::new(2u16, Implementation::new("editor", "1.0"));
        let v1 = initialize_to_v1(&request);
        let session = v1
            .client_capabilities
            .and_then(|c| c.session)
            .expect("the v2 baseline of session capabilities");
        assert!(
            session.config_options.and_then(|c| c.boolean).is_some(),
            "boolean options are baseline in v2"
        );
        assert!(session.compaction.is_some() && session.notices.is_some());
    }

    #[test]
    fn an_initialize_answer_becomes_v2_or_says_why_not() {
        let method = AuthMethod::Agent(AuthMethodAgent::new("key", "API key"));
        let caps = AgentCapabilities::new()
            .prompt_capabilities(PromptCapabilities::new().image(true))
            .mcp_capabilities(McpCapabilities::new().http(true));
        let v1 = InitializeResponse::new(ProtocolVersion::V1)
            .agent_capabilities(caps)
            .auth_methods(vec![method]);
        let default = Implementation::new("fallback", "0.1");
        let filled = initialize_to_v2(&v1, ProtocolVersion(2), &default).expect("a v2 answer");
        assert_eq!(filled.info.name, "fallback", "no agentInfo: the default");

        let v1 = v1.agent_info(Implementation::new("a", "1"));
        let v2 = initialize_to_v2(&v1, ProtocolVersion(2), &default).expect("a v2 answer");
        let json = serde_json::to_value(&v2).expect("serializable");
        assert_eq!(json["protocolVersion"], 2);
        assert_eq!(json["info"]["name"], "a");
        assert_eq!(json["authMethods"][0]["methodId"], "key", "{json}");
        assert_eq!(json["authMethods"][0]["type"], "agent", "{json}");
        let session = &json["capabilities"]["session"];
        assert_eq!(session["prompt"], json!({"image": {}}), "{json}");
        assert_eq!(session["mcp"], json!({"stdio": {}, "http": {}}), "{json}");
    }

    #[test]
    fn modes_have_no_v2_form() {
        let update = SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new("plan"));
        assert!(update_to_v2(update).unwrap_err().contains("modes"));
    }
}
