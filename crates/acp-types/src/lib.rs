//! ACP types (work in progress).
