//! Fuzzes the `types_definitions` target; see `acp_fuzz::types` for the checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz::types::definitions(data));
