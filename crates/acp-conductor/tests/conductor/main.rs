//! The conductor with real processes: the demo agent (`acp-demo`'s `agent` program) behind
//! chains of 0, 1 and 3 scripted proxies (`examples/chain_proxy.rs`), driven by an editor on
//! `acp-rpc`; every message of every hop is checked against the schema. And a chain served
//! over WebSocket by the demo's bridge.

mod big_prompt;
mod chains;
mod common;
mod mcp;
mod remote;
mod supervision;
