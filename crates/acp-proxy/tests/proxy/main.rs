//! The integration tests of acp-proxy: a proxy between a scripted editor and a scripted
//! successor, both played by a scripted conductor over a duplex pipe, in raw JSON; every
//! message on the wire (and every message wrapped in an envelope) checked against the draft
//! schema.
//!
//! One test executable, one module per concern.

mod backpressure;
mod cancel;
mod child_examples;
mod conductor;
mod failure;
mod intercept;
mod mcp;
mod passthrough;
