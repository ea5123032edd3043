//! The tests of the benchmark programs: each scenario runs, and the S4 traffic is valid.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod programs;
mod s4_schema;
