//! The Agent Client Protocol conductor: runs a chain of ACP proxies in front of an agent and
//! presents the whole chain to the editor as one agent (draft feature `unstable_proxy_chains`;
//! the command is `acp conduct -- "proxy1 …" "proxy2 …" "agent …"`).
//!
//! ```text
//! acp-types, acp-codec, acp-rpc, acp-process   the wire, framing, connections, processes
//! acp-conductor                                <- you are here: spawns and routes a chain
//! ```
//!
//! ```
//! # #[cfg(unix)]
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use acp_conductor::{Component, Conductor};
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//!
//! // An "agent" that answers one `initialize` and then waits for its input to end.
//! let agent = Component::parse(
//!     r#"sh -c 'read -r _; echo "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1}}"; cat >/dev/null'"#,
//! )?;
//! let (editor, conductor_io) = tokio::io::duplex(64 * 1024);
//! let (reader, writer) = tokio::io::split(conductor_io);
//! let conductor = tokio::spawn(Conductor::agent([agent]).run(reader, writer));
//!
//! let (editor_read, mut editor_write) = tokio::io::split(editor);
//! editor_write
//!     .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n")
//!     .await?;
//! let mut answer = String::new();
//! BufReader::new(editor_read).read_line(&mut answer).await?;
//! assert!(answer.contains(r#""protocolVersion":1"#));
//!
//! // The editor hangs up: the agent's input closes, it exits, the conductor returns.
//! drop(editor_write);
//! conductor.await??;
//! # Ok(()) }
//! # #[cfg(not(unix))]
//! # fn main() {}
//! ```
//!
//! # The chain
//!
//! The conductor starts each component (proxy 1 … proxy *n*, then the agent) in a process
//! group of its own, talks to each over its stdin and stdout (NDJSON), and routes every
//! message (the [`Conductor`] docs give the rules): the editor's `initialize` reaches the first
//! proxy as `proxy/initialize`; a proxy reaches its successor by wrapping a message in
//! `proxy/successor`, which the conductor unwraps and sends on (an `initialize` wrapped for a
//! proxy becomes `proxy/initialize` again, for the agent stays `initialize`); a message from a
//! successor reaches its proxy wrapped in `proxy/successor`; what the first proxy sends its
//! predecessor goes to the editor. Ids are the conductor's own on each hop, cancellation is
//! hop by hop (`$/cancel_request` of a forwarded request cancels the request it was forwarded
//! as), and params and results are never re-serialized: they go on as the bytes that arrived.
//! The method names are those of the November 2026 draft schema (`proxy/initialize`,
//! `proxy/successor`). The official conductor releases of 2026 (`agent-client-protocol-conductor`
//! 2.x) spell them `_proxy/initialize` and `_proxy/successor`; following them on the wire, this
//! conductor accepts both spellings from its proxies (and, in proxy mode, from its own
//! conductor, whose spelling it answers in), and a proxy that refuses `proxy/initialize` as an
//! unknown method is initialized with `_proxy/initialize` and spoken to in that spelling from
//! then on.
//!
//! In proxy mode ([`Conductor::proxy`]) the conductor is itself a proxy: started with
//! `proxy/initialize`, it runs only proxies, and what the last one sends its successor goes
//! out wrapped in `proxy/successor` to the outer conductor, so chains nest.
//!
//! With no proxy at all, the conductor relays bytes between the editor and the agent
//! unchanged.
//!
//! # Speed
//!
//! A notification that nothing ahead of it on its connection waits for is forwarded from the
//! frame it came in (its params unparsed and uncopied, written straight into the next hop's
//! buffer), and each connection reads the frames that are ready before it writes, so a burst
//! goes on in one write. A conductor does little work per message and much waking of tasks:
//! run it on a single-threaded runtime (`acp conduct` does), where the task that read a
//! message and the one that writes it take turns on one thread instead of waking each other
//! across threads.
//!
//! # MCP servers of proxies
//!
//! A proxy may give the agent MCP servers of the ACP transport (`{"type": "acp"}`, reached with
//! `mcp/message`; draft feature `unstable_mcp_over_acp`). The proxies are always told that the
//! agent takes them (`mcpCapabilities.acp: true`); for an agent that does not, the conductor
//! bridges: it declares each such server to the agent as a Streamable HTTP server on
//! `127.0.0.1` (a random port, a random path per server; `mcpCapabilities.http` of the agent
//! needed, otherwise the server is left out) and relays what the agent posts there to the
//! proxy as `mcp/message`. The bridge stops with the chain.
//!
//! # Supervision
//!
//! - A component that exits or closes its output ends the chain: each request still open is
//!   answered with a `-32603` error naming the component and how it ended, every process is
//!   stopped (its group: helpers included), and [`Conductor::run`] returns
//!   [`Error::ComponentEnded`].
//! - The editor closing the connection closes every component's input; each gets
//!   [`Conductor::grace`] to exit by itself, then `SIGTERM` and as long again, then `SIGKILL`.

#![doc(test(attr(deny(warnings))))]

mod activity;
mod bridge;
mod component;
mod conductor;
mod error;
mod relay;
mod route;
mod supervise;
mod words;

pub use acp_process::Stderr;
pub use acp_rpc::Direction;
pub use component::Component;
pub use conductor::{Conductor, DEFAULT_GRACE, Link, Mode};
pub use error::Error;
pub use words::WordsError;
