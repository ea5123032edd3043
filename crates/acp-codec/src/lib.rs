//! Framing for the Agent Client Protocol (work in progress).
