//! Benchmark programs of `BENCH.md` and traffic generators for the workspace (not published).
//!
//! ```
//! // Every S1 chunk is 64 bytes and carries its number.
//! let text = acp_bench::scenarios::chunk_text(7);
//! assert_eq!(text.len(), acp_bench::scenarios::CHUNK_LEN);
//! assert_eq!(acp_bench::scenarios::chunk_number(&text), Some(7));
//! ```
//!
//! - [`scenarios`]: what the S1-S3 agents and clients (and the S5 load client) share: the prompt
//!   commands, the chunk texts, latency summaries, `/proc` figures and the report line.
//! - `bench_agent`, `bench_client` (binaries): S1-S3 on `acp-rpc`.
//! - `bench_trait_agent`, `bench_trait_client` (binaries): S1-S3 on the `acp-agent` and
//!   `acp-client` traits; `bench_trait_agent --listen ADDR` is the server of S5.
//! - `bench_limit_agent`, `bench_limit_client` (binaries): the hand-written "physical limit"
//!   pair, no RPC layer.
//! - `bench_s5_client` (binary): the load client of S5 (many remote connections).
//! - [`s4`]: the deterministic ACP traffic of benchmark scenario S4.
//! - `s4_gen` (binary): writes S4 traffic to a file.
//! - `s4_codec` (binary): framing throughput of `acp-codec` on S4 traffic, against a bare `memchr`
//!   newline scan.
//! - `s4_types` (binary): typed decoding and encoding of S4 traffic with `acp-types`, against
//!   `serde_json::from_slice` into a struct of `IgnoredAny` fields.
//! - `s1_line` (binary): the cost of decoding one S1 notification line, floor to typed.
//! - [`report`]: the command line and memory report the S4 programs share.
//!
//! `bench.sh` (S1-S3, program pairs side by side) and `bench_s5.sh` (S5) in this directory build
//! the programs in release mode and print the medians of several runs; the README's
//! "Benchmarks" section has the commands.

pub mod report;
pub mod s4;
pub mod scenarios;
