//! Write an Agent Client Protocol proxy: intercept what you care about, forward everything else
//! untouched.
//!
//! ```text
//! acp-types / acp-codec / acp-rpc   the wire types, framing and connection
//! acp-proxy   <- you are here: a component of a proxy chain, between an editor and an agent
//! acp-agent / acp-client            the two ends
//! ```
//!
//! A proxy sits in a chain run by a *conductor* (design: the "proxy chains" RFD; messages:
//! `proxy/initialize` and `proxy/successor` of the draft feature `unstable_proxy_chains`). It
//! speaks to the conductor alone, on stdio: what its predecessor (the editor, or the proxy
//! before it) sends arrives as plain messages, and it answers them plainly; what it sends to its
//! successor (the next proxy, or the agent) it wraps in `proxy/successor`, and what the
//! successor sends comes back wrapped the same way. The conductor routes the envelopes; the
//! proxy never knows who its successor is.
//!
//! A [`Proxy`] lists the calls it intercepts; everything else goes through untouched. This
//! one adds a line of project context to every prompt:
//!
//! ```
//! use acp_proxy::{Context, Proxy};
//! use acp_types::{ErrorObject, PromptRequest, PromptResponse, methods};
//!
//! async fn add_context(cx: Context, mut prompt: PromptRequest) -> Result<PromptResponse, ErrorObject> {
//!     prompt.prompt.insert(0, "Project context: a Rust workspace; `cargo test` checks it.".into());
//!     cx.successor().request::<methods::SessionPrompt>(&prompt).await
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let (proxy_io, conductor_io) = tokio::io::duplex(64 * 1024);
//! # let (reader, writer) = tokio::io::split(proxy_io);
//! // Under a conductor: `Proxy::new().on_prompt(add_context).serve_stdio()`.
//! let (_cx, driver) = Proxy::new().on_prompt(add_context).serve(reader, writer);
//! tokio::spawn(driver);
//! # // A conductor stand-in: it sends a prompt, and answers the wrapped one as the agent would.
//! # let (reader, writer) = tokio::io::split(conductor_io);
//! # let (proxy, conductor) = acp_rpc::connect(|_| acp_rpc::Router::new().request_raw("proxy/successor", |params| {
//! #     let envelope: serde_json::Value = serde_json::from_str(params.as_deref().map_or("{}", |p| p.get())).unwrap_or_default();
//! #     let blocks = envelope["params"]["prompt"].as_array().map_or(0, Vec::len);
//! #     async move {
//! #         assert_eq!(blocks, 2, "the context line went first");
//! #         Ok(serde_json::value::to_raw_value(&PromptResponse::new(acp_types::StopReason::EndTurn)).expect("json"))
//! #     }
//! # }), reader, writer, Default::default());
//! # tokio::spawn(conductor);
//! # let done = proxy.request::<methods::SessionPrompt>(&PromptRequest::new("s1", vec!["Hi".into()])).await?;
//! # assert_eq!(done.stop_reason, acp_types::StopReason::EndTurn);
//! # Ok(()) }
//! ```
//!
//! # What goes through untouched
//!
//! A message without a handler is forwarded without being decoded: its params are copied byte
//! for byte into the envelope (or out of it), and the answer comes back byte for byte, so
//! unknown fields, `_meta`, key order, numbers and extension methods (`_vendor/thing`) arrive as
//! they were sent. Only the envelope's own `_meta` is dropped, as the schema says (it is
//! hop-local). Absent params are sent as `null`, which the schema reads as the same. An error
//! answer is re-encoded (its code, message and data unchanged).
//!
//! # Initialization
//!
//! The conductor sends `proxy/initialize` with the editor's `initialize` params; the proxy
//! forwards an `initialize` to its successor and answers with the successor's answer (or what
//! [`Proxy::on_initialize`] makes of it: the place to change the capabilities the chain
//! advertises). A plain `initialize` is refused: it means the component was started as the
//! last of a chain, with no successor.
//!
//! # The official conductor's spelling
//!
//! The November schema and the design document name the methods `proxy/initialize` and
//! `proxy/successor`; the official Rust conductor (`agent-client-protocol-conductor` 2.x) sends
//! `_proxy/initialize` and `_proxy/successor`, extension-method names. A proxy accepts both,
//! learns the conductor's spelling from the initialize request it gets, and wraps what it
//! sends to its successor in the same spelling ([`Dialect`]). Both spellings carry the same
//! envelope (`method`, `params`, an optional `_meta`).
//!
//! # Ordering, cancellation, backpressure
//!
//! - **Ordering.** What the proxy forwards goes out in the order it came in: each message
//!   is sent once every message read before it was queued, so a permission request of the
//!   agent never overtakes the tool-call update before it, even while the editor reads slowly.
//!   The connection also hands a response to its waiter only after the notifications received
//!   before it were handled; so the updates of a turn reach the editor before the turn's answer,
//!   through any number of proxies. An intercepted notification keeps its place until its
//!   handler returns; an intercepted request's handler starts in its place, and what it sends
//!   later (after awaiting the successor, say) goes out when it sends it.
//! - **Cancellation.** `session/cancel` is an ordinary notification: it is forwarded. A
//!   `$/cancel_request` from the predecessor cancels the handler of the request it names; the
//!   forwarding in flight is dropped, which sends `$/cancel_request` for the `proxy/successor`
//!   request on the connection to the conductor (cancellation is per hop; the schema's rule).
//!   A `$/cancel_request` wrapped in `proxy/successor` is dropped, since its id names a request
//!   of another connection (the official conductor never sends one).
//! - **Backpressure.** Everything goes through the connection's bounded outgoing buffer and
//!   bounded notification queue: when the editor reads slowly, the proxy's sends wait, its
//!   queue fills, it stops reading, and the conductor (then the agent) is slowed down in turn.
//!   Memory stays within the connection's limits ([`acp_rpc::Config`]).
//! - **Exactly one answer.** Every request gets one: its handler's, the forwarded answer, or an
//!   error saying why not (the connection to the conductor closed: `-32603` naming the side
//!   that cannot be reached; an error of the conductor's own, such as a successor that died,
//!   arrives unchanged).
//!
//! # MCP tools
//!
//! [`Proxy::mcp_server`] gives the agent an MCP server written with rmcp, reached through the
//! ACP connection (`mcp/message`, draft feature `unstable_mcp_over_acp`): the proxy declares it
//! in every session it forwards and answers the agent's inner MCP requests with it. See
//! [`mcp`] and `examples/mcp_tool.rs`.
//!
//! # Per-session state
//!
//! Handlers are closures: keep state in what they capture (an `Arc` of a map from session id
//! to whatever the proxy tracks), and clean it up on `session/close` or when a session's
//! prompt ends.

#![doc(test(attr(deny(warnings))))]

mod envelope;
mod handler;
mod hop;
pub mod mcp;
mod order;
mod proxy;

pub use envelope::{Dialect, EXT_PROXY_INITIALIZE, EXT_PROXY_SUCCESSOR};
pub use hop::{Context, Hop, Toward};
pub use proxy::Proxy;

pub use acp_rpc::{Config, Driver};
