//! What the agent lets through from the client: only the methods, notifications, prompt
//! content and MCP transports it advertised in its `initialize` response.
//!
//! A client is a peer like any other: untrusted. An agent that did not advertise `loadSession`
//! must never see `session/load`, and one that did not advertise images must never be handed
//! an image it does not expect. The check runs when a request is decoded, on the reading loop,
//! before anything reaches the [`Agent`](crate::Agent) implementation.

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
    let session = caps.and_then(|c| c.session_capabilities.as_ref());
    let (ok, capability) = match method {
        am::SESSION_LOAD => (
            caps.and_then(|c| c.load_session) == Some(true),
            "loadSession",
        ),
        am::SESSION_LIST => (
            session.is_some_and(|s| s.list.is_some()),
            "sessionCapabilities.list",
        ),
        am::SESSION_RESUME => (
            session.is_some_and(|s| s.resume.is_some()),
            "sessionCapabilities.resume",
        ),
        am::SESSION_CLOSE => (
            session.is_some_and(|s| s.close.is_some()),
            "sessionCapabilities.close",
        ),
        am::SESSION_DELETE => (
            session.is_some_and(|s| s.delete.is_some()),
            "sessionCapabilities.delete",
        ),
        am::LOGOUT => (
            caps.and_then(|c| c.auth.as_ref())
                .is_some_and(|a| a.logout.is_some()),
            "auth.logout",
        ),
        #[cfg(feature = "unstable_session_fork")]
        am::SESSION_FORK => (
            session.is_some_and(|s| s.fork.is_some()),
            "sessionCapabilities.fork",
        ),
        #[cfg(feature = "unstable_llm_providers")]
        am::PROVIDERS_LIST | am::PROVIDERS_SET | am::PROVIDERS_DISABLE => {
            (caps.is_some_and(|c| c.providers.is_some()), "providers")
        }
        #[cfg(feature = "unstable_nes")]
        am::NES_START | am::NES_SUGGEST | am::NES_CLOSE => {
            (caps.is_some_and(|c| c.nes.is_some()), "nes")
        }
        #[cfg(feature = "unstable_nes")]
        am::NES_ACCEPT | am::NES_REJECT => (caps.is_some_and(|c| c.nes.is_some()), "nes"),
        #[cfg(feature = "unstable_nes")]
        am::DOCUMENT_DID_OPEN => (
            document_event(caps, |d| d.did_open.is_some()),
            "nes.events.document.didOpen",
        ),
        #[cfg(feature = "unstable_nes")]
        am::DOCUMENT_DID_CHANGE => (
            document_event(caps, |d| d.did_change.is_some()),
            "nes.events.document.didChange",
        ),
        #[cfg(feature = "unstable_nes")]
        am::DOCUMENT_DID_CLOSE => (
            document_event(caps, |d| d.did_close.is_some()),
            "nes.events.document.didClose",
        ),
        #[cfg(feature = "unstable_nes")]
        am::DOCUMENT_DID_SAVE => (
            document_event(caps, |d| d.did_save.is_some()),
            "nes.events.document.didSave",
        ),
        #[cfg(feature = "unstable_nes")]
        am::DOCUMENT_DID_FOCUS => (
            document_event(caps, |d| d.did_focus.is_some()),
            "nes.events.document.didFocus",
        ),
        #[cfg(feature = "unstable_mcp_over_acp")]
        am::MCP_MESSAGE => (
            caps.and_then(|c| c.mcp_capabilities.as_ref())
                .and_then(|m| m.acp)
                == Some(true),
            "mcpCapabilities.acp",
        ),
        _ => return Ok(()),
    };
    if ok {
        Ok(())
    } else {
        Err(ErrorObject::capability_not_advertised(method, capability))
    }
}

/// True when the agent asked for the document event `wanted` (`nes.events.document.*`).
#[cfg(feature = "unstable_nes")]
fn document_event(
    caps: Option<&AgentCapabilities>,
    wanted: impl FnOnce(&NesDocumentEventCapabilities) -> bool,
) -> bool {
    caps.and_then(|c| c.nes.as_ref())
        .and_then(|n| n.events.as_ref())
        .and_then(|e| e.document.as_ref())
        .is_some_and(wanted)
}

/// Refuses a decoded request carrying what the agent did not advertise: prompt content
/// (`image`, `audio`, embedded `resource`) beyond `promptCapabilities`, or MCP servers over a
/// transport (`http`, `sse`) beyond `mcpCapabilities`; `-32602` naming the capability.
pub(crate) fn check_request(
    advertised: Option<&InitializeResponse>,
    request: &ClientRequestParams,
) -> Result<(), ErrorObject> {
    let caps = advertised.and_then(|r| r.agent_capabilities.as_ref());
    let (method, missing) = match request {
        ClientRequestParams::Prompt(r) => (am::SESSION_PROMPT, missing_prompt_capability(caps, r)),
        ClientRequestParams::NewSession(r) => (
            am::SESSION_NEW,
            missing_mcp_capability(caps, &r.mcp_servers),
        ),
        ClientRequestParams::LoadSession(r) => (
            am::SESSION_LOAD,
            missing_mcp_capability(caps, &r.mcp_servers),
        ),
        ClientRequestParams::ResumeSession(r) => (
            am::SESSION_RESUME,
            missing_mcp_capability(caps, r.mcp_servers.as_deref().unwrap_or_default()),
        ),
        #[cfg(feature = "unstable_session_fork")]
        ClientRequestParams::ForkSession(r) => (
            am::SESSION_FORK,
            missing_mcp_capability(caps, r.mcp_servers.as_deref().unwrap_or_default()),
        ),
        _ => return Ok(()),
    };
    match missing {
        None => Ok(()),
        Some((what, capability)) => Err(ErrorObject::invalid_params(format_args!(
            "`{method}` carries {what}, but the agent did not advertise `{capability}`"
        ))),
    }
}

fn missing_prompt_capability(
    caps: Option<&AgentCapabilities>,
    request: &PromptRequest,
) -> Option<(&'static str, &'static str)> {
    let prompt = caps.and_then(|c| c.prompt_capabilities.as_ref());
    let allowed =
        |flag: fn(&PromptCapabilities) -> Option<bool>| prompt.and_then(flag) == Some(true);
    request.prompt.iter().find_map(|block| match block {
        ContentBlock::Image(_) if !allowed(|p| p.image) => {
            Some(("image content", "promptCapabilities.image"))
        }
        ContentBlock::Audio(_) if !allowed(|p| p.audio) => {
            Some(("audio content", "promptCapabilities.audio"))
        }
        ContentBlock::Resource(_) if !allowed(|p| p.embedded_context) => {
            Some(("an embedded resource", "promptCapabilities.embeddedContext"))
        }
        _ => None,
    })
}

fn missing_mcp_capability(
    caps: Option<&AgentCapabilities>,
    servers: &[McpServer],
) -> Option<(&'static str, &'static str)> {
    let mcp = caps.and_then(|c| c.mcp_capabilities.as_ref());
    servers.iter().find_map(|server| match server {
        McpServer::Http(_) if mcp.and_then(|m| m.http) != Some(true) => {
            Some(("an MCP server over HTTP", "mcpCapabilities.http"))
        }
        McpServer::Sse(_) if mcp.and_then(|m| m.sse) != Some(true) => {
            Some(("an MCP server over SSE", "mcpCapabilities.sse"))
        }
        #[cfg(feature = "unstable_mcp_over_acp")]
        McpServer::Acp(_) if mcp.and_then(|m| m.acp) != Some(true) => {
            Some(("an MCP server over ACP", "mcpCapabilities.acp"))
        }
        _ => None,
    })
}
