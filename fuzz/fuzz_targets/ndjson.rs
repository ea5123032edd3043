//! Fuzzes the NDJSON decoder; see `src/lib.rs` for the checks.
#![no_main]

use acp_codec::{Framing, NdjsonCodec};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    acp_codec_fuzz::check_decoder(data, NdjsonCodec::with_max_len, |_| Some(Framing::Ndjson));
});
