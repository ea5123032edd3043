//! The in-memory layout of the hot v2 types: a session update moves by memmove through every
//! layer between the wire and the handler, so it must be no larger than its hot kinds, the
//! message chunks (large, rarer kinds are boxed, as in v1). The round trips of the boxed kinds are those of
//! `checklist`, `fixtures` and the property tests: boxing changes no wire form.

use std::mem::size_of;

use acp_types::v2::{ContentBlock, ContentChunk, SessionUpdate, TextContent};

/// The largest payload a union may keep inline next to its tag, over that of its hot kind.
const TAG: usize = 8;

#[test]
fn a_content_block_is_as_large_as_text() {
    assert!(
        size_of::<ContentBlock>() <= size_of::<TextContent>() + TAG,
        "ContentBlock is {} bytes, TextContent {}: box the large kinds",
        size_of::<ContentBlock>(),
        size_of::<TextContent>()
    );
    // As in v1, where the block is what a prompt's list holds.
    assert!(size_of::<ContentBlock>() <= size_of::<acp_types::ContentBlock>());
}

#[test]
fn a_session_update_is_as_large_as_a_message_chunk() {
    assert!(
        size_of::<SessionUpdate>() <= size_of::<ContentChunk>() + TAG,
        "SessionUpdate is {} bytes, ContentChunk {}: box the large kinds",
        size_of::<SessionUpdate>(),
        size_of::<ContentChunk>()
    );
    assert!(size_of::<ContentChunk>() <= size_of::<acp_types::ContentChunk>());
}
