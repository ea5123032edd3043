//! Fuzzes the `rpc_driver` target; see `acp_fuzz::rpc` for the checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz::rpc::driver(data));
