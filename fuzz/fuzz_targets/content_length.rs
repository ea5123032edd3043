//! Fuzzes the Content-Length decoder; see `src/lib.rs` for the checks.
#![no_main]

use acp_codec::{ContentLengthCodec, Framing};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    acp_codec_fuzz::check_decoder(data, ContentLengthCodec::with_max_len, |_| {
        Some(Framing::ContentLength)
    });
});
