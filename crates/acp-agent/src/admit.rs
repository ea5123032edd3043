//! What the agent lets through from the client: only the methods, notifications, prompt
//! content and MCP transports it advertised in its `initialize` response.
//!
//! A client is a peer like any other: untrusted. An agent that did not advertise `loadSession`
//! must never see `session/load`, and one that did not advertise images must never be handed
//! an image it does not expect. The check runs when a request is decoded, on the reading loop,
//! before anything reaches the [`Agent`](crate::Agent) implementation.

use acp_types::capabilities::{agent_allows, mcp_server_allowed, prompt_block_allowed};
use acp_types::methods::agent as am;
use acp_types::*;

/// Refuses a request or notification for `method` whose capability `advertised` (the agent's
/// `initialize` response, `None` before it) does not include, with `-32601` naming both. Runs
/// before the params are decoded.
pub(crate) fn check_method(
    advertised: Option<&InitializeResponse>,
    method: &str,
) -> Result<(), ErrorObject> {
    let caps = advertised.and_then(|r| r.agent_capabilities.as_ref());
    agent_allows(caps, method)
        .map_err(|capability| ErrorObject::capability_not_advertised(method, capability))
}

/// Refuses a decoded request carrying what the agent did not advertise: prompt content
/// (`image`, `audio`, embedded `resource`) beyond `promptCapabilities`, or MCP servers over a
/// transport (`http`, `sse`) beyond `mcpCapabilities`; `-32602` naming the capability.
/// The refusal of a session request's `systemPrompt` (draft `unstable_session_options`): its
/// mode needs `sessionCapabilities.systemPrompt` (and `.mode.override` for `override`). Without
/// the feature the field does not exist and nothing is refused.
macro_rules! system_prompt_refusal {
    ($caps:expr, $request:expr) => {{
        #[cfg(feature = "unstable_session_options")]
        let refusal = system_prompt_refusal($caps, $request.system_prompt.as_ref());
        #[cfg(not(feature = "unstable_session_options"))]
        let refusal: Result<(), &'static str> = Ok(());
        refusal
    }};
}

pub(crate) fn check_request(
    advertised: Option<&InitializeResponse>,
    request: &ClientRequestParams,
) -> Result<(), ErrorObject> {
    let caps = advertised.and_then(|r| r.agent_capabilities.as_ref());
    let (method, refused) = match request {
        ClientRequestParams::Prompt(r) => (am::SESSION_PROMPT, prompt_refusal(caps, r)),
        ClientRequestParams::NewSession(r) => (
            am::SESSION_NEW,
            mcp_refusal(caps, &r.mcp_servers).and(system_prompt_refusal!(caps, r)),
        ),
        ClientRequestParams::LoadSession(r) => (
            am::SESSION_LOAD,
            mcp_refusal(caps, &r.mcp_servers).and(system_prompt_refusal!(caps, r)),
        ),
        ClientRequestParams::ResumeSession(r) => (
            am::SESSION_RESUME,
            mcp_refusal(caps, r.mcp_servers.as_deref().unwrap_or_default())
                .and(system_prompt_refusal!(caps, r)),
        ),
        #[cfg(feature = "unstable_session_fork")]
        ClientRequestParams::ForkSession(r) => (
            am::SESSION_FORK,
            mcp_refusal(caps, r.mcp_servers.as_deref().unwrap_or_default())
                .and(system_prompt_refusal!(caps, r)),
        ),
        _ => return Ok(()),
    };
    match refused {
        Ok(()) => Ok(()),
        Err(capability) => Err(ErrorObject::invalid_params(format_args!(
            "`{method}` carries {}, but the agent did not advertise `{capability}`",
            carried(capability)
        ))),
    }
}

fn prompt_refusal(
    caps: Option<&AgentCapabilities>,
    request: &PromptRequest,
) -> Result<(), &'static str> {
    let prompt = caps.and_then(|c| c.prompt_capabilities.as_ref());
    request
        .prompt
        .iter()
        .try_for_each(|block| prompt_block_allowed(prompt, block))
}

fn mcp_refusal(
    caps: Option<&AgentCapabilities>,
    servers: &[McpServer],
) -> Result<(), &'static str> {
    let mcp = caps.and_then(|c| c.mcp_capabilities.as_ref());
    servers
        .iter()
        .try_for_each(|server| mcp_server_allowed(mcp, server))
}

#[cfg(feature = "unstable_session_options")]
fn system_prompt_refusal(
    caps: Option<&AgentCapabilities>,
    prompt: Option<&SystemPrompt>,
) -> Result<(), &'static str> {
    let Some(prompt) = prompt else {
        return Ok(());
    };
    let session = caps.and_then(|c| c.session_capabilities.as_ref());
    prompt.allowed_by(session.and_then(|s| s.system_prompt.as_ref()))
}

/// What a request carries that needs `capability`, for the error message.
fn carried(capability: &str) -> &'static str {
    match capability {
        "promptCapabilities.image" => "image content",
        "promptCapabilities.audio" => "audio content",
        "promptCapabilities.embeddedContext" => "an embedded resource",
        "mcpCapabilities.http" => "an MCP server over HTTP",
        "mcpCapabilities.sse" => "an MCP server over SSE",
        "mcpCapabilities.acp" => "an MCP server over ACP",
        "sessionCapabilities.systemPrompt" => "a system prompt",
        "sessionCapabilities.systemPrompt.mode.override" => "a system prompt in `override` mode",
        "sessionCapabilities.systemPrompt.mode" => "a system prompt in a mode it does not know",
        _ => "something",
    }
}
