//! Fuzzes the `content_length` target; see `acp_fuzz::codec` for the checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz::codec::content_length(data));
