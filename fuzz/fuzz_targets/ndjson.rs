//! Fuzzes the `ndjson` target; see `acp_fuzz::codec` for the checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz::codec::ndjson(data));
