//! Benchmark programs and traffic generators for the workspace (not published).
//!
//! - [`s4`]: the deterministic ACP traffic of benchmark scenario S4.
//! - `s4_gen` (binary): writes S4 traffic to a file.
//! - `s4_codec` (binary): framing throughput of `acp-codec` on S4 traffic, against a bare `memchr`
//!   newline scan.

pub mod s4;
