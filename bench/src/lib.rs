//! Benchmark programs and traffic generators (work in progress).
