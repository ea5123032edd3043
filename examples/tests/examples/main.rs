//! The tests of the example programs: each one run as a reader would run it.
//!
//! One test executable for these tests (each module was a test file of its own): one link
//! instead of many, and a smaller `target`.

mod examples;
mod toolkit;
