//! Property round trips of the v2 upserts (below).
