//! The checks behind the fuzz targets of this repository.
//!
//! Every target is a plain function from the fuzzer's bytes to nothing, which panics when a
//! property fails; the binaries in `fuzz_targets/` only hand libFuzzer's input to it, and the
//! smoke test (`tests/smoke.rs`) runs the same functions over the seed corpora and over
//! deterministic mutations of them on a stable toolchain. [`TARGETS`] lists them all.
//!
//! | target | module |
//! | --- | --- |
//! | `ndjson`, `content_length`, `auto` | [`codec`]: the `acp-codec` decoders |
//! | `types_envelopes`, `types_definitions` | [`types`]: the `acp-types` decoders |
//! | `rpc_driver` | [`rpc`]: the `acp-rpc` driver |

pub mod codec;
pub mod rpc;
pub mod types;

/// A target's check: panics when a property fails for the input.
pub type Check = fn(&[u8]);

/// Every fuzz target: its name (the binary's and the seed directory's) and its check.
pub const TARGETS: &[(&str, Check)] = &[
    ("ndjson", codec::ndjson),
    ("content_length", codec::content_length),
    ("auto", codec::auto),
    ("types_envelopes", types::envelopes),
    ("types_definitions", types::definitions),
    ("rpc_driver", rpc::driver),
];
