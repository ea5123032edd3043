//! The PostgreSQL backend against a real server.
