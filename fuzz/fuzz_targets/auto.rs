//! Fuzzes the auto-detecting decoder, with and without switching; see `src/lib.rs` for the checks.
#![no_main]

use acp_codec::AutoCodec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The low bit of the limit byte also decides whether switching is allowed.
    let switching = data.first().is_some_and(|b| b & 1 == 1);
    acp_codec_fuzz::check_decoder(
        data,
        |max_len| AutoCodec::with_max_len(max_len).allow_switching(switching),
        |codec| codec.framing().filter(|_| !switching),
    );
});
