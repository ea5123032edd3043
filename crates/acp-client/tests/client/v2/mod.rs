//! acp-client speaking v2 (feature `unstable_protocol_v2`), against a scripted agent: raw JSON
//! whose every message is validated against the v2 schema (and the v1 schema where the
//! connection is v1, or both while negotiating).

mod agent;

mod lifecycle;
mod model;
mod negotiate;
mod refuse;
