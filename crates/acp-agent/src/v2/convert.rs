//! Conversions between the v1 shapes the [`Agent`](crate::Agent) trait and the toolkit speak
//! and the v2 shapes a v2 connection carries.
//!
//! Content, message chunks, tool calls, plans, commands, stop reasons, permission requests
//! and errors are converted by the typed conversions of [`acp_types::v2::convert`], field by
//! field (the hot path, a streamed chunk, allocates nothing there). The rarer shapes not
//! covered there yet (initialize, config options, elicitations) go through their JSON
//! (rewritten where the versions differ) and are read again by the other version's decoder,
//! which keeps unknown fields and refuses what does not fit. A value that cannot be said in
//! the other version is an error naming it, never dropped.

use acp_types::v2;
use acp_types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The plan id a v1 plan gets on a v2 connection: v1 has one plan per session, which each
/// `plan` update replaces, as one `planId` does in v2.
pub(crate) const PLAN_ID: &str = "main";

/// Reads `value` (of one version) as `T` (of the other) through its JSON.
pub(crate) fn transcode<T: DeserializeOwned>(value: &impl Serialize) -> Result<T, String> {
    let json = serde_json::to_value(value).map_err(|e| e.to_string())?;
    read(json)
}

/// Reads `json` as `T`.
pub(crate) fn read<T: DeserializeOwned>(json: Value) -> Result<T, String> {
    acp_types::from_value(json).map_err(|e| e.to_string())
}

/// A v1 session update in v2: message chunks keep their (stamped) `messageId`; `tool_call` and
/// `tool_call_update` become `tool_call_update` upserts (a v1 `null` or absent field is left
/// unchanged), with diffs in v2's structured form; `plan` becomes `plan_update` with
/// [`PLAN_ID`]; commands get their `type` (all typed, see [`v2::convert::session_update`]).
/// A terminal reference in a tool call is one of the agent's display terminals
/// ([`v2::convert::Terminals::Keep`]): on a v2 connection the client has no terminals for
/// it to name (`terminal/*` fails there), and the toolkit's display terminals show themselves
/// in tool calls by that reference. Session modes have no v2 form: an error.
pub(crate) fn update_to_v2(update: SessionUpdate) -> Result<v2::SessionUpdate, String> {
    // Streamed chunks first, on their own: the general conversion's nested result, which
    // hands back a whole v1 update when it has no typed form, costs a chunk several copies of
    // that large value (more than its conversion). The same conversion, the same error.
    let chunk = |chunk: ContentChunk| v2::ContentChunk::try_from(chunk).map_err(|e| e.to_string());
    match update {
        SessionUpdate::AgentMessageChunk(c) => {
            return chunk(c).map(v2::SessionUpdate::AgentMessageChunk);
        }
        SessionUpdate::AgentThoughtChunk(c) => {
            return chunk(c).map(v2::SessionUpdate::AgentThoughtChunk);
        }
        SessionUpdate::UserMessageChunk(c) => {
            return chunk(c).map(v2::SessionUpdate::UserMessageChunk);
        }
        _ => {}
    }
    let other = match v2::convert::session_update(
        update,
        || v2::PlanId::from(PLAN_ID),
        v2::convert::Terminals::Keep,
    ) {
        Ok(Ok(update)) => return Ok(update),
        Ok(Err(other)) => other,
        Err(error) => return Err(error.to_string()),
    };
    if let SessionUpdate::CurrentModeUpdate(_) = other {
        return Err(
            "session modes do not exist in protocol version 2 (offer a config \
                    option of category `mode` instead)"
                .into(),
        );
    }
    let mut json = serde_json::to_value(&other).map_err(|e| e.to_string())?;
    let object = json
        .as_object_mut()
        .ok_or("a session update is an object")?;
    if let Some(options) = object.get_mut("configOptions") {
        config_options_to_v2(options);
    }
    read(json)
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
    capabilities.session = Some(
        ClientSessionCapabilities::new()
            .compaction(CompactionCapabilities::new())
            .notices(NoticeCapabilities::new())
            .config_options(
                SessionConfigOptionsCapabilities::new()
                    .boolean(BooleanConfigOptionCapabilities::new()),
            ),
    );
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
pub(crate) fn error_to_v2(error: ErrorObject) -> v2::Error {
    v2::Error::from(error)
}

/// The v2 form of a v1 stop reason (the same names).
pub(crate) fn stop_reason_to_v2(reason: &StopReason) -> v2::StopReason {
    v2::StopReason::from(reason.clone())
}

/// The v2 form of a v1 permission request (typed, see [`v2::convert`]): the tool call as the
/// `tool_call` subject, its title as the required `title`.
pub(crate) fn permission_to_v2(
    request: RequestPermissionRequest,
) -> Result<v2::RequestPermissionRequest, String> {
    v2::RequestPermissionRequest::try_from(request).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
