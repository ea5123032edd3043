//! The JSON Schema of v2, generated from the v2 types.
//!
//! [`bundle`] returns one schema whose `$defs` carry the official v2 definition names (the v1
//! types v2 re-exports among them), with the official `x-method` / `x-side` annotations, and
//! whose root accepts any v2 message. The repository keeps it in `schema/acp.v2.schema.json`,
//! with the method names in `schema/meta.v2.json`, and with every draft feature on (`unstable`)
//! in `schema/acp.v2.unstable.schema.json` and `schema/meta.v2.unstable.json`; regenerate them
//! with
//!
//! ```text
//! ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --features unstable_protocol_v2 --test types -- v2::schema
//! ACP_UPDATE_SCHEMA=1 cargo test -p acp-types --features unstable,unstable_protocol_v2 --test types -- v2::schema
//! ```

use serde_json::{Map, Value, json};

use super::methods::{self, agent, client, protocol};
use super::*;

macro_rules! names {
    ($($name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

/// The six JSON-RPC envelope definitions.
pub const ENVELOPES: &[&str] = &[
    "AgentRequest",
    "AgentResponse",
    "AgentNotification",
    "ClientRequest",
    "ClientResponse",
    "ClientNotification",
];

/// The names of every definition of the v2 schema but the envelopes, in the official order.
pub const VALUE_DEFINITIONS: &[&str] = crate::for_each_v2_value_definition!(names);

/// The names of the definitions the drafts add to the v2 schema but their envelopes, in the
/// official order (with `unstable`: every draft feature on).
#[cfg(feature = "unstable")]
pub const DRAFT_DEFINITIONS: &[&str] = crate::for_each_v2_draft_definition!(names);

/// The three envelopes of proxy chains (draft `unstable_proxy_chains`).
pub const PROXY_ENVELOPES: &[&str] = &["ProxyRequest", "ProxyResponse", "ProxyNotification"];

/// The whole of v2 as one JSON Schema (see the [module docs](self)).
pub fn bundle() -> Value {
    let mut generator = crate::schema::generator();
    macro_rules! add_all {
        ($($name:ident),* $(,)?) => {
            $( generator.subschema_for::<$name>(); )*
        };
    }
    crate::for_each_v2_value_definition!(add_all);
    #[cfg(feature = "unstable")]
    crate::for_each_v2_draft_definition!(add_all);
    #[cfg(feature = "unstable_proxy_chains")]
    add_all!(ProxyRequest, ProxyResponse, ProxyNotification);
    add_all!(
        AgentRequest,
        AgentResponse,
        AgentNotification,
        ClientRequest,
        ClientResponse,
        ClientNotification,
    );
    let mut defs: Map<String, Value> = generator.take_definitions(true);
    for (name, def) in &mut defs {
        if let Some(obj) = def.as_object_mut() {
            obj.insert("title".into(), Value::String(name.clone()));
        }
    }
    for method in methods::DEFINITIONS {
        for name in std::iter::once(method.params).chain(method.result) {
            if let Some(obj) = defs.get_mut(name).and_then(Value::as_object_mut) {
                obj.insert("x-side".into(), method.side.as_str().into());
                obj.insert("x-method".into(), method.method.into());
            }
        }
    }
    for name in ENVELOPES.iter().chain(PROXY_ENVELOPES) {
        if let Some(obj) = defs.get_mut(*name).and_then(Value::as_object_mut) {
            obj.insert("x-docs-ignore".into(), true.into());
        }
    }
    let side = |title: &str, description: &str, kinds: [&str; 3]| {
        json!({
            "title": title,
            "description": description,
            "type": "object",
            "properties": { "jsonrpc": { "type": "string", "enum": [crate::JSONRPC_VERSION] } },
            "required": ["jsonrpc"],
            "anyOf": [
                { "title": "Request", "allOf": [{ "$ref": format!("#/$defs/{}", kinds[0]) }] },
                { "title": "Response", "allOf": [{ "$ref": format!("#/$defs/{}", kinds[1]) }] },
                { "title": "Notification", "allOf": [{ "$ref": format!("#/$defs/{}", kinds[2]) }] },
            ],
        })
    };
    #[allow(unused_mut)] // Without proxy chains, the three sides are all.
    let mut sides = vec![
        side(
            "Agent",
            "A message the agent sends.",
            ["AgentRequest", "AgentResponse", "AgentNotification"],
        ),
        side(
            "Client",
            "A message the client sends.",
            ["ClientRequest", "ClientResponse", "ClientNotification"],
        ),
        json!({
            "title": "ProtocolLevel",
            "description": "A protocol-level notification either side may send.",
            "type": "object",
            "properties": {
                "jsonrpc": { "type": "string", "enum": [crate::JSONRPC_VERSION] },
                "method": { "type": "string" },
                "params": {
                    "anyOf": [
                        { "allOf": [{ "$ref": "#/$defs/CancelRequestNotification" }] },
                        { "type": "null" },
                    ],
                },
            },
            "required": ["jsonrpc", "method"],
            "x-docs-ignore": true,
        }),
    ];
    #[cfg(feature = "unstable_proxy_chains")]
    sides.push(side(
        "Proxy",
        "A message between a proxy and its conductor (draft).",
        ["ProxyRequest", "ProxyResponse", "ProxyNotification"],
    ));
    let description = if crate::schema::UNSTABLE_FEATURES.is_empty() {
        "Any JSON-RPC message of the Agent Client Protocol v2 (draft), generated by the acp-types crate."
    } else {
        "Any JSON-RPC message of the Agent Client Protocol v2 (draft) with its draft features, generated by the acp-types crate."
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ACP v2 messages",
        "description": description,
        "anyOf": sides,
        "$defs": defs,
    })
}

/// The v2 method names, grouped by the side that serves them (the shape of the official
/// `v2/meta.json`).
pub fn meta() -> Value {
    let group = |names: &[&str]| -> Value {
        names
            .iter()
            .map(|m| (crate::schema::key_of(m), json!(m)))
            .collect::<Map<String, Value>>()
            .into()
    };
    json!({
        "version": 2,
        "agentMethods": group(agent::ALL),
        "clientMethods": group(client::ALL),
        "protocolMethods": group(protocol::ALL),
    })
}
