//! Which capability allows which method: one table per direction, and the rules for what a
//! request may carry (prompt content, MCP transports, elicitation modes).
//!
//! The protocol makes most methods optional: a client must not call `session/list` unless the
//! agent advertised `sessionCapabilities.list` in its `initialize` response, and an agent must
//! not call `fs/read_text_file` unless the client advertised `fs.readTextFile`. Both sides of
//! a connection need the same rules: the caller to refuse sending what the peer cannot serve,
//! the callee to refuse what it never offered. They live here, once, as data: [`AGENT_GATES`]
//! for the methods the agent serves, [`CLIENT_GATES`] for those the client serves, each gate
//! naming its capability as a dotted path of the `initialize` messages (the name an error
//! shows). Draft methods are in the tables when their cargo feature is on.
//!
//! ```
//! use acp_types::capabilities::{agent_allows, prompt_block_allowed};
//! use acp_types::{AgentCapabilities, ContentBlock, ImageContent, PromptCapabilities};
//!
//! // Nothing advertised: `session/list` is refused, naming the capability it needs.
//! let caps = AgentCapabilities::new();
//! assert_eq!(agent_allows(Some(&caps), "session/list"), Err("sessionCapabilities.list"));
//! // A baseline method has no gate.
//! assert_eq!(agent_allows(None, "session/prompt"), Ok(()));
//!
//! // Prompt content beyond text and resource links needs its own capability.
//! let image = ContentBlock::Image(Box::new(ImageContent::new("aGk=", "image/png")));
//! assert_eq!(prompt_block_allowed(None, &image), Err("promptCapabilities.image"));
//! let prompt = PromptCapabilities::new().image(true);
//! assert_eq!(prompt_block_allowed(Some(&prompt), &image), Ok(()));
//! ```

use crate::methods::{agent as am, client as cm};
use crate::{
    AgentCapabilities, ClientCapabilities, ContentBlock, ElicitationCapabilities, ElicitationMode,
    McpCapabilities, McpServer, PromptCapabilities, SessionCapabilities,
};

/// The capability a method needs, as a dotted path of the `initialize` result/params
/// (e.g. "sessionCapabilities.list", "fs.readTextFile", "terminal").
///
/// `C` is the capabilities object the path starts from: [`AgentCapabilities`] for the
/// methods the agent serves, [`ClientCapabilities`] for those the client serves.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Gate<C: 'static> {
    /// The method name (`methods::agent::*` or `methods::client::*`).
    pub method: &'static str,
    /// The capability, as the path under `agentCapabilities`/`clientCapabilities` (the
    /// name an error should show).
    pub capability: &'static str,
    /// True when the advertised capabilities include it (a `true` flag, or an object that is
    /// present and not `null`).
    pub granted: fn(&C) -> bool,
}

/// The gates of the methods the agent serves (client → agent), including notifications; draft methods under their features.
///
/// Sources: the chapters "Overview" (optional methods), "Session Setup" (load, resume,
/// close), "Session List", "Session Delete" and "Authentication" (logout); for the drafts,
/// the unstable schema's capability descriptions and the MCP-over-ACP RFD.
pub static AGENT_GATES: &[Gate<AgentCapabilities>] = &[
    Gate {
        method: am::SESSION_LOAD,
        capability: "loadSession",
        granted: |c| c.load_session == Some(true),
    },
    Gate {
        method: am::SESSION_LIST,
        capability: "sessionCapabilities.list",
        granted: |c| session(c).is_some_and(|s| s.list.is_some()),
    },
    Gate {
        method: am::SESSION_RESUME,
        capability: "sessionCapabilities.resume",
        granted: |c| session(c).is_some_and(|s| s.resume.is_some()),
    },
    Gate {
        method: am::SESSION_CLOSE,
        capability: "sessionCapabilities.close",
        granted: |c| session(c).is_some_and(|s| s.close.is_some()),
    },
    Gate {
        method: am::SESSION_DELETE,
        capability: "sessionCapabilities.delete",
        granted: |c| session(c).is_some_and(|s| s.delete.is_some()),
    },
    Gate {
        method: am::LOGOUT,
        capability: "auth.logout",
        granted: |c| c.auth.as_ref().is_some_and(|a| a.logout.is_some()),
    },
    #[cfg(feature = "unstable_session_fork")]
    Gate {
        method: am::SESSION_FORK,
        capability: "sessionCapabilities.fork",
        granted: |c| session(c).is_some_and(|s| s.fork.is_some()),
    },
    #[cfg(feature = "unstable_llm_providers")]
    Gate {
        method: am::PROVIDERS_LIST,
        capability: "providers",
        granted: |c| c.providers.is_some(),
    },
    #[cfg(feature = "unstable_llm_providers")]
    Gate {
        method: am::PROVIDERS_SET,
        capability: "providers",
        granted: |c| c.providers.is_some(),
    },
    #[cfg(feature = "unstable_llm_providers")]
    Gate {
        method: am::PROVIDERS_DISABLE,
        capability: "providers",
        granted: |c| c.providers.is_some(),
    },
    #[cfg(feature = "unstable_mcp_over_acp")]
    Gate {
        method: am::MCP_MESSAGE,
        capability: "mcpCapabilities.acp",
        granted: |c| c.mcp_capabilities.as_ref().and_then(|m| m.acp) == Some(true),
    },
    #[cfg(feature = "unstable_auth_status")]
    Gate {
        method: am::AUTH_STATUS,
        capability: "auth.status",
        granted: |c| c.auth.as_ref().is_some_and(|a| a.status.is_some()),
    },
    #[cfg(feature = "unstable_session_archive")]
    Gate {
        method: am::SESSION_ARCHIVE,
        capability: "sessionCapabilities.archive",
        granted: |c| session(c).is_some_and(|s| s.archive.is_some()),
    },
    #[cfg(feature = "unstable_session_archive")]
    Gate {
        method: am::SESSION_UNARCHIVE,
        capability: "sessionCapabilities.archive",
        granted: |c| session(c).is_some_and(|s| s.archive.is_some()),
    },
    #[cfg(feature = "unstable_session_status")]
    Gate {
        method: am::SESSION_STATUS,
        capability: "sessionCapabilities.status",
        granted: |c| session(c).is_some_and(|s| s.status.is_some()),
    },
    #[cfg(feature = "unstable_session_set_title")]
    Gate {
        method: am::SESSION_SET_TITLE,
        capability: "sessionCapabilities.title",
        granted: |c| session(c).is_some_and(|s| s.title.is_some()),
    },
];

/// The gates of the methods the client serves (agent → client).
///
/// Sources: the chapters "Overview" (optional methods), "File System", "Terminals" and
/// "Elicitation". `elicitation/create` needs `elicitation` here; the mode a request uses
/// needs its own capability too (see [`elicitation_mode_allowed`]). The draft `mcp/message`
/// and `auth/status_update` have no gate here: the client advertises nothing for them (the
/// agent sends `mcp/message` only to servers the client declared, and `auth/status_update`
/// only when it advertised `auth.status` itself).
pub static CLIENT_GATES: &[Gate<ClientCapabilities>] = &[
    Gate {
        method: cm::FS_READ_TEXT_FILE,
        capability: "fs.readTextFile",
        granted: |c| c.fs.as_ref().and_then(|f| f.read_text_file) == Some(true),
    },
    Gate {
        method: cm::FS_WRITE_TEXT_FILE,
        capability: "fs.writeTextFile",
        granted: |c| c.fs.as_ref().and_then(|f| f.write_text_file) == Some(true),
    },
    Gate {
        method: cm::TERMINAL_CREATE,
        capability: "terminal",
        granted: terminal,
    },
    Gate {
        method: cm::TERMINAL_OUTPUT,
        capability: "terminal",
        granted: terminal,
    },
    Gate {
        method: cm::TERMINAL_WAIT_FOR_EXIT,
        capability: "terminal",
        granted: terminal,
    },
    Gate {
        method: cm::TERMINAL_KILL,
        capability: "terminal",
        granted: terminal,
    },
    Gate {
        method: cm::TERMINAL_RELEASE,
        capability: "terminal",
        granted: terminal,
    },
    Gate {
        method: cm::ELICITATION_CREATE,
        capability: "elicitation",
        granted: |c| c.elicitation.is_some(),
    },
    Gate {
        method: cm::ELICITATION_COMPLETE,
        capability: "elicitation.url",
        granted: |c| c.elicitation.as_ref().is_some_and(|e| e.url.is_some()),
    },
];

fn session(caps: &AgentCapabilities) -> Option<&SessionCapabilities> {
    caps.session_capabilities.as_ref()
}

fn terminal(caps: &ClientCapabilities) -> bool {
    caps.terminal == Some(true)
}

/// The gate of `method` among the methods the agent serves; `None` when it has none.
pub fn agent_gate(method: &str) -> Option<&'static Gate<AgentCapabilities>> {
    AGENT_GATES.iter().find(|g| g.method == method)
}

/// The gate of `method` among the methods the client serves; `None` when it has none.
pub fn client_gate(method: &str) -> Option<&'static Gate<ClientCapabilities>> {
    CLIENT_GATES.iter().find(|g| g.method == method)
}

/// Ok when `caps` (None: nothing advertised) allows the client to call `method` on the agent; Err(the capability path) otherwise. Methods with no gate are allowed.
///
/// # Errors
///
/// The capability `method` needs, when `caps` lacks it.
pub fn agent_allows(caps: Option<&AgentCapabilities>, method: &str) -> Result<(), &'static str> {
    allows(agent_gate(method), caps)
}

/// Ok when `caps` (None: nothing advertised) allows the agent to call `method` on the client;
/// Err(the capability path) otherwise. Methods with no gate are allowed.
///
/// # Errors
///
/// The capability `method` needs, when `caps` lacks it.
pub fn client_allows(caps: Option<&ClientCapabilities>, method: &str) -> Result<(), &'static str> {
    allows(client_gate(method), caps)
}

fn allows<C>(gate: Option<&'static Gate<C>>, caps: Option<&C>) -> Result<(), &'static str> {
    match gate {
        Some(gate) if !caps.is_some_and(gate.granted) => Err(gate.capability),
        _ => Ok(()),
    }
}

/// Prompt content an agent accepts: Err("promptCapabilities.image") etc.
///
/// Text and resource links are baseline; images, audio and embedded resources need
/// `promptCapabilities.image`, `.audio` and `.embeddedContext` (chapter "Content"). A block
/// of a kind this library does not know is let through.
///
/// # Errors
///
/// The capability `block` needs, when `caps` (None: nothing advertised) lacks it.
pub fn prompt_block_allowed(
    caps: Option<&PromptCapabilities>,
    block: &ContentBlock,
) -> Result<(), &'static str> {
    let (flag, capability): (fn(&PromptCapabilities) -> Option<bool>, _) = match block {
        ContentBlock::Image(_) => (|p| p.image, "promptCapabilities.image"),
        ContentBlock::Audio(_) => (|p| p.audio, "promptCapabilities.audio"),
        ContentBlock::Resource(_) => (|p| p.embedded_context, "promptCapabilities.embeddedContext"),
        _ => return Ok(()),
    };
    if caps.and_then(flag) == Some(true) {
        Ok(())
    } else {
        Err(capability)
    }
}

/// MCP server transports an agent accepts: Err("mcpCapabilities.http") etc.
///
/// Every agent supports stdio; HTTP and SSE need `mcpCapabilities.http` and `.sse` (chapter
/// "Session Setup"), and the draft ACP transport `mcpCapabilities.acp`. A transport this
/// library does not know is let through.
///
/// # Errors
///
/// The capability `server` needs, when `caps` (None: nothing advertised) lacks it.
pub fn mcp_server_allowed(
    caps: Option<&McpCapabilities>,
    server: &McpServer,
) -> Result<(), &'static str> {
    let (flag, capability): (fn(&McpCapabilities) -> Option<bool>, _) = match server {
        McpServer::Http(_) => (|m| m.http, "mcpCapabilities.http"),
        McpServer::Sse(_) => (|m| m.sse, "mcpCapabilities.sse"),
        #[cfg(feature = "unstable_mcp_over_acp")]
        McpServer::Acp(_) => (|m| m.acp, "mcpCapabilities.acp"),
        _ => return Ok(()),
    };
    if caps.and_then(flag) == Some(true) {
        Ok(())
    } else {
        Err(capability)
    }
}

/// Elicitation modes a client accepts: Err("elicitation.form") or Err("elicitation.url").
///
/// The chapter "Elicitation": each mode exists only when its field is present and not `null`
/// (`elicitation: {}` advertises none), and agents must not request a mode the client did not
/// advertise. A mode this library does not know needs `elicitation` itself.
///
/// # Errors
///
/// The capability `mode` needs, when `caps` (None: no `elicitation` advertised) lacks it.
pub fn elicitation_mode_allowed(
    caps: Option<&ElicitationCapabilities>,
    mode: &ElicitationMode,
) -> Result<(), &'static str> {
    let (ok, capability) = match mode {
        ElicitationMode::Form(_) => (caps.is_some_and(|e| e.form.is_some()), "elicitation.form"),
        ElicitationMode::Url(_) => (caps.is_some_and(|e| e.url.is_some()), "elicitation.url"),
        ElicitationMode::Other { .. } => (caps.is_some(), "elicitation"),
    };
    if ok { Ok(()) } else { Err(capability) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods;
    use serde_json::{Value, json};

    /// The methods the agent serves that the specification gates, with the capability, as the
    /// official chapters state it (`../shared/spec/protocol/*.md`; the drafts: the unstable
    /// schema's capability descriptions and `rfds/mcp-over-acp.md`).
    const AGENT_SPEC: &[(&str, &str)] = &[
        // overview.md "Optional Methods"; session-setup.md "Loading Sessions".
        ("session/load", "loadSession"),
        // session-list.md "Checking Support".
        ("session/list", "sessionCapabilities.list"),
        // session-setup.md "Resuming Sessions".
        ("session/resume", "sessionCapabilities.resume"),
        // session-setup.md "Closing Active Sessions".
        ("session/close", "sessionCapabilities.close"),
        // session-delete.md "Checking Support".
        ("session/delete", "sessionCapabilities.delete"),
        // overview.md; authentication.md "Logging out" (`agentCapabilities.auth.logout`).
        ("logout", "auth.logout"),
        // schema.unstable.json SessionCapabilities.fork.
        #[cfg(feature = "unstable_session_fork")]
        ("session/fork", "sessionCapabilities.fork"),
        // schema.unstable.json AgentCapabilities.providers.
        #[cfg(feature = "unstable_llm_providers")]
        ("providers/list", "providers"),
        #[cfg(feature = "unstable_llm_providers")]
        ("providers/set", "providers"),
        #[cfg(feature = "unstable_llm_providers")]
        ("providers/disable", "providers"),
        // rfds/mcp-over-acp.md "Capability advertising".
        #[cfg(feature = "unstable_mcp_over_acp")]
        ("mcp/message", "mcpCapabilities.acp"),
        // schema.unstable.json AgentAuthCapabilities.status.
        #[cfg(feature = "unstable_auth_status")]
        ("auth/status", "auth.status"),
        // schema.unstable.json SessionCapabilities.archive, .status, .title.
        #[cfg(feature = "unstable_session_archive")]
        ("session/archive", "sessionCapabilities.archive"),
        #[cfg(feature = "unstable_session_archive")]
        ("session/unarchive", "sessionCapabilities.archive"),
        #[cfg(feature = "unstable_session_status")]
        ("session/status", "sessionCapabilities.status"),
        #[cfg(feature = "unstable_session_set_title")]
        ("session/set_title", "sessionCapabilities.title"),
    ];

    /// The methods the client serves that the specification gates.
    const CLIENT_SPEC: &[(&str, &str)] = &[
        // overview.md "Optional Methods"; file-system.md.
        ("fs/read_text_file", "fs.readTextFile"),
        ("fs/write_text_file", "fs.writeTextFile"),
        // overview.md; terminals.md.
        ("terminal/create", "terminal"),
        ("terminal/output", "terminal"),
        ("terminal/release", "terminal"),
        ("terminal/wait_for_exit", "terminal"),
        ("terminal/kill", "terminal"),
        // overview.md ("requires the matching `elicitation` mode capability"); elicitation.md.
        ("elicitation/create", "elicitation"),
        // elicitation.md "URL completion": only URL elicitations complete out of band.
        ("elicitation/complete", "elicitation.url"),
    ];

    /// The methods the chapters list as baseline (or give no capability).
    const AGENT_BASELINE: &[&str] = &[
        "initialize",
        "authenticate",
        "session/new",
        "session/set_mode",
        "session/set_config_option",
        "session/prompt",
        "session/cancel",
        // rfds/proxy-chains.md: a proxy serves them to its conductor, without capability.
        #[cfg(feature = "unstable_proxy_chains")]
        "proxy/initialize",
        #[cfg(feature = "unstable_proxy_chains")]
        "proxy/successor",
    ];
    const CLIENT_BASELINE: &[&str] = &[
        "session/request_permission",
        "session/update",
        #[cfg(feature = "unstable_mcp_over_acp")]
        "mcp/message",
        #[cfg(feature = "unstable_auth_status")]
        "auth/status_update",
        #[cfg(feature = "unstable_proxy_chains")]
        "proxy/initialize",
        #[cfg(feature = "unstable_proxy_chains")]
        "proxy/successor",
    ];

    fn pairs<C>(gates: &[Gate<C>]) -> Vec<(&'static str, &'static str)> {
        let mut pairs: Vec<_> = gates.iter().map(|g| (g.method, g.capability)).collect();
        pairs.sort_unstable();
        pairs
    }

    fn sorted(spec: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        let mut spec = spec.to_vec();
        spec.sort_unstable();
        spec
    }

    #[test]
    fn the_tables_are_the_specifications() {
        assert_eq!(pairs(AGENT_GATES), sorted(AGENT_SPEC));
        assert_eq!(pairs(CLIENT_GATES), sorted(CLIENT_SPEC));
    }

    #[test]
    fn every_method_is_gated_or_baseline() {
        for method in methods::agent::ALL {
            let gated = agent_gate(method).is_some();
            assert_ne!(gated, AGENT_BASELINE.contains(method), "{method}");
        }
        for method in methods::client::ALL {
            let gated = client_gate(method).is_some();
            assert_ne!(gated, CLIENT_BASELINE.contains(method), "{method}");
        }
        for gate in AGENT_GATES {
            assert!(
                methods::agent::ALL.contains(&gate.method),
                "{}",
                gate.method
            );
        }
        for gate in CLIENT_GATES {
            assert!(
                methods::client::ALL.contains(&gate.method),
                "{}",
                gate.method
            );
        }
    }

    #[test]
    fn methods_without_a_gate_are_allowed_with_nothing_advertised() {
        for method in AGENT_BASELINE.iter().chain(&["_x/ext", "no/such"]) {
            assert_eq!(agent_allows(None, method), Ok(()), "{method}");
            assert_eq!(
                agent_allows(Some(&AgentCapabilities::new()), method),
                Ok(())
            );
        }
        for method in CLIENT_BASELINE.iter().chain(&["_x/ext", "no/such"]) {
            assert_eq!(client_allows(None, method), Ok(()), "{method}");
            assert_eq!(
                client_allows(Some(&ClientCapabilities::new()), method),
                Ok(())
            );
        }
    }

    /// The capability paths whose value is a flag (the others are objects).
    const FLAGS: &[&str] = &[
        "loadSession",
        "fs.readTextFile",
        "fs.writeTextFile",
        "terminal",
        "mcpCapabilities.acp",
    ];

    /// The capabilities object advertising exactly the dotted `path`: `true` for a flag, an
    /// object with the required fields otherwise.
    fn advertising<C: serde::de::DeserializeOwned>(path: &str) -> C {
        let leaf = if FLAGS.contains(&path) {
            json!(true)
        } else {
            json!({})
        };
        let value = path
            .rsplit('.')
            .fold(leaf, |inner, key| json!({ key: inner }));
        crate::from_value(value).unwrap_or_else(|e| panic!("advertising {path}: {e}"))
    }

    /// Each path names what its check reads: advertising exactly that path grants the gate
    /// (and every gate of the same capability or of one above it), and no other.
    fn paths_match<C: serde::de::DeserializeOwned>(gates: &[Gate<C>], nothing: &C) {
        for gate in gates {
            assert!(
                !(gate.granted)(nothing),
                "{} granted by nothing",
                gate.method
            );
            let caps: C = advertising(gate.capability);
            for other in gates {
                // Advertising `a.b` advertises `a` too.
                let within = gate.capability.strip_prefix(other.capability);
                let expected = within.is_some_and(|rest| rest.is_empty() || rest.starts_with('.'));
                assert_eq!(
                    (other.granted)(&caps),
                    expected,
                    "{} by {}",
                    other.method,
                    gate.capability
                );
            }
        }
    }

    #[test]
    fn the_capability_paths_are_what_the_checks_read() {
        paths_match(AGENT_GATES, &AgentCapabilities::new());
        paths_match(CLIENT_GATES, &ClientCapabilities::new());
        // A `false` flag advertises nothing.
        let caps: AgentCapabilities = crate::from_value(json!({"loadSession": false})).unwrap();
        assert_eq!(
            agent_allows(Some(&caps), "session/load"),
            Err("loadSession")
        );
        let caps: ClientCapabilities = crate::from_value(json!({"terminal": false})).unwrap();
        assert_eq!(client_allows(Some(&caps), "terminal/kill"), Err("terminal"));
    }

    #[test]
    fn allows_reports_the_capability_and_none_means_nothing() {
        for gate in AGENT_GATES {
            assert_eq!(agent_allows(None, gate.method), Err(gate.capability));
            let caps: AgentCapabilities = advertising(gate.capability);
            assert_eq!(agent_allows(Some(&caps), gate.method), Ok(()));
        }
        for gate in CLIENT_GATES {
            assert_eq!(client_allows(None, gate.method), Err(gate.capability));
            let caps: ClientCapabilities = advertising(gate.capability);
            assert_eq!(client_allows(Some(&caps), gate.method), Ok(()));
        }
    }

    fn block(value: Value) -> ContentBlock {
        crate::from_value(value).unwrap()
    }

    #[test]
    fn prompt_content_needs_its_capability() {
        let image = block(json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}));
        let audio = block(json!({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}));
        let resource = block(json!({"type": "resource",
            "resource": {"uri": "file:///a", "text": "a"}}));
        let text = block(json!({"type": "text", "text": "hi"}));
        let link = block(json!({"type": "resource_link", "uri": "file:///a", "name": "a"}));
        let cases = [
            (&image, "promptCapabilities.image", "image"),
            (&audio, "promptCapabilities.audio", "audio"),
            (
                &resource,
                "promptCapabilities.embeddedContext",
                "embeddedContext",
            ),
        ];
        for (block, capability, field) in cases {
            assert_eq!(prompt_block_allowed(None, block), Err(capability));
            let none = PromptCapabilities::new();
            assert_eq!(prompt_block_allowed(Some(&none), block), Err(capability));
            let only: PromptCapabilities = crate::from_value(json!({ field: true })).unwrap();
            for (other, other_capability, _) in cases {
                let expected = if other_capability == capability {
                    Ok(())
                } else {
                    Err(other_capability)
                };
                assert_eq!(prompt_block_allowed(Some(&only), other), expected);
            }
            let off: PromptCapabilities = crate::from_value(json!({ field: false })).unwrap();
            assert_eq!(prompt_block_allowed(Some(&off), block), Err(capability));
        }
        assert_eq!(prompt_block_allowed(None, &text), Ok(()));
        assert_eq!(prompt_block_allowed(None, &link), Ok(()));
    }

    #[test]
    fn mcp_transports_need_their_capability() {
        let server = |value: Value| crate::from_value::<McpServer>(value).unwrap();
        let stdio = server(json!({"name": "s", "command": "/bin/s", "args": [], "env": []}));
        let http =
            server(json!({"type": "http", "name": "h", "url": "http://127.0.0.1/", "headers": []}));
        let sse =
            server(json!({"type": "sse", "name": "e", "url": "http://127.0.0.1/", "headers": []}));
        assert_eq!(mcp_server_allowed(None, &stdio), Ok(()));
        assert_eq!(mcp_server_allowed(None, &http), Err("mcpCapabilities.http"));
        assert_eq!(mcp_server_allowed(None, &sse), Err("mcpCapabilities.sse"));
        let http_only = McpCapabilities::new().http(true);
        assert_eq!(mcp_server_allowed(Some(&http_only), &http), Ok(()));
        assert_eq!(
            mcp_server_allowed(Some(&http_only), &sse),
            Err("mcpCapabilities.sse")
        );
        let sse_only = McpCapabilities::new().sse(true).http(false);
        assert_eq!(mcp_server_allowed(Some(&sse_only), &sse), Ok(()));
        assert_eq!(
            mcp_server_allowed(Some(&sse_only), &http),
            Err("mcpCapabilities.http")
        );
        #[cfg(feature = "unstable_mcp_over_acp")]
        {
            let acp = server(json!({"type": "acp", "name": "a", "serverId": "srv-1"}));
            assert_eq!(
                mcp_server_allowed(Some(&http_only), &acp),
                Err("mcpCapabilities.acp")
            );
            let acp_only = McpCapabilities::new().acp(true);
            assert_eq!(mcp_server_allowed(Some(&acp_only), &acp), Ok(()));
        }
    }

    #[test]
    fn elicitation_modes_need_their_capability() {
        let mode = |value: Value| {
            crate::from_value::<crate::CreateElicitationRequest>(value)
                .unwrap()
                .mode
        };
        let form = mode(json!({"message": "m", "mode": "form", "sessionId": "s",
            "requestedSchema": {"type": "object", "properties": {}}}));
        let url = mode(json!({"message": "m", "mode": "url", "sessionId": "s",
            "elicitationId": "e", "url": "https://example.com/"}));
        let other = mode(json!({"message": "m", "mode": "telepathy", "sessionId": "s"}));
        assert_eq!(
            elicitation_mode_allowed(None, &form),
            Err("elicitation.form")
        );
        assert_eq!(elicitation_mode_allowed(None, &url), Err("elicitation.url"));
        assert_eq!(elicitation_mode_allowed(None, &other), Err("elicitation"));
        // `{}` advertises no mode.
        let empty = ElicitationCapabilities::new();
        assert_eq!(
            elicitation_mode_allowed(Some(&empty), &form),
            Err("elicitation.form")
        );
        assert_eq!(
            elicitation_mode_allowed(Some(&empty), &url),
            Err("elicitation.url")
        );
        assert_eq!(elicitation_mode_allowed(Some(&empty), &other), Ok(()));
        let form_only: ElicitationCapabilities = crate::from_value(json!({"form": {}})).unwrap();
        assert_eq!(elicitation_mode_allowed(Some(&form_only), &form), Ok(()));
        assert_eq!(
            elicitation_mode_allowed(Some(&form_only), &url),
            Err("elicitation.url")
        );
        let url_only: ElicitationCapabilities = crate::from_value(json!({"url": {}})).unwrap();
        assert_eq!(elicitation_mode_allowed(Some(&url_only), &url), Ok(()));
        assert_eq!(
            elicitation_mode_allowed(Some(&url_only), &form),
            Err("elicitation.form")
        );
    }

    /// The gates the chapters state in prose: the overview's "(requires `X` capability)" and
    /// the chapters' "If `X` is not present, ... MUST NOT attempt to call `method`".
    fn gates_in_chapters(dir: &std::path::Path) -> Vec<(String, String)> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
        };
        // The first `quoted` text after `marker` in `text`.
        let quoted_after = |text: &str, marker: &str| -> Option<String> {
            let rest = &text[text.find(marker)? + marker.len()..];
            let start = rest.find('`')? + 1;
            let len = rest[start..].find('`')?;
            Some(rest[start..start + len].to_owned())
        };
        let mut found = Vec::new();
        let overview = read("overview.md");
        for field in overview.split("<ResponseField").skip(1) {
            let field = field.split("</ResponseField>").next().unwrap_or_default();
            let text = field.split_whitespace().collect::<Vec<_>>().join(" ");
            let method = text
                .split_once("name=\"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(name, _)| name.to_owned());
            if let (Some(method), Some(capability)) = (method, quoted_after(&text, "(requires")) {
                found.push((method, capability));
            }
        }
        for chapter in ["session-setup.md", "session-list.md", "session-delete.md"] {
            for line in read(chapter)
                .lines()
                .filter(|l| l.contains("attempt to call `"))
            {
                let capability = quoted_after(line, "If ");
                let method = quoted_after(line, "attempt to call ");
                if let (Some(method), Some(capability)) = (method, capability) {
                    found.push((method, capability));
                }
            }
        }
        found
    }

    #[test]
    #[ignore = "needs the official ACP specification (../shared/spec/2026-11, or ACP_SPEC_DIR); CI runs it"]
    fn the_chapters_state_the_same_gates() {
        let dir = acp_testkit::Spec::official().dir().join("protocol");
        let found = gates_in_chapters(&dir);
        // load, logout, 2 fs, 5 terminal, elicitation/create; load, list, resume, close, delete.
        assert!(
            found.len() >= 15,
            "only {found:?} found in {}",
            dir.display()
        );
        for (method, capability) in &found {
            let capability = capability
                .strip_prefix("agentCapabilities.")
                .unwrap_or(capability);
            let gate = agent_gate(method)
                .map(|g| g.capability)
                .or_else(|| client_gate(method).map(|g| g.capability));
            assert_eq!(gate, Some(capability), "{method}");
        }
        // Every stable gate is stated there, but `elicitation/complete`'s (elicitation.md:
        // URL completion, for URL elicitations only).
        let stated = |method: &str| found.iter().any(|(m, _)| m == method);
        let stable = AGENT_SPEC.iter().take(6).chain(CLIENT_SPEC); // The drafts come last.
        for (method, _) in stable.filter(|(m, _)| *m != "elicitation/complete") {
            assert!(stated(method), "{method} is gated but no chapter says so");
        }
    }
}
