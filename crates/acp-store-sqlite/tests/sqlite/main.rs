//! The SQLite backend for real, in temporary directories.
