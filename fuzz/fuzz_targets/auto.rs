//! Fuzzes the `auto` target; see `acp_fuzz::codec` for the checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz::codec::auto(data));
