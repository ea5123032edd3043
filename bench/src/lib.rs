//! Benchmark programs and traffic generators for the workspace (not published).
//!
//! - [`s4`]: the deterministic ACP traffic of benchmark scenario S4.
//! - `s4_gen` (binary): writes S4 traffic to a file.
//! - `s4_codec` (binary): framing throughput of `acp-codec` on S4 traffic, against a bare `memchr`
//!   newline scan.
//! - `s4_types` (binary): typed decoding and encoding of S4 traffic with `acp-types`, against
//!   `serde_json::from_slice` into a struct of `IgnoredAny` fields.
//! - `s1_line` (binary): the cost of decoding one S1 notification line, floor to typed.
//! - [`report`]: the command line and memory report the programs share.

pub mod report;
pub mod s4;
