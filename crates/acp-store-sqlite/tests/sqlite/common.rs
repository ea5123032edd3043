//! What the durable store tests share (the PostgreSQL backend's include this file too): the
//! agent's state of a session, updates, listings, and a deadline on every test.

use std::future::Future;
use std::time::Duration;

use acp_agent::{SessionState, SessionStore};
use acp_types::*;
use serde::{Deserialize, Serialize};

/// How long any one test may take.
pub(crate) const DEADLINE: Duration = Duration::from_secs(60);

/// Runs `test` on a runtime, failing it past [`DEADLINE`].
pub(crate) fn bounded<F: Future<Output = ()>>(test: F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            tokio::time::timeout(DEADLINE, test)
                .await
                .expect("the test ran past its deadline")
        });
}

/// The agent's state of a session in these tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Note {
    pub(crate) cwd: String,
    pub(crate) title: Option<String>,
    pub(crate) turns: u32,
}

impl Note {
    pub(crate) fn new(cwd: &str) -> Self {
        Self {
            cwd: cwd.to_owned(),
            title: None,
            turns: 0,
        }
    }
}

impl SessionState for Note {
    fn cwd(&self) -> &str {
        &self.cwd
    }

    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

/// An agent message chunk of `text`.
pub(crate) fn chunk(text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(text.to_owned()))
}

/// The texts of the message chunks of a history.
pub(crate) fn texts(history: &[SessionUpdate]) -> Vec<String> {
    history
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AgentMessageChunk(c) | SessionUpdate::UserMessageChunk(c) => {
                match &c.content {
                    ContentBlock::Text(t) => Some(t.text.clone()),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// The ids of a listing page.
pub(crate) fn ids(page: &ListSessionsResponse) -> Vec<SessionId> {
    page.sessions.iter().map(|s| s.session_id.clone()).collect()
}

/// Every session `store` lists in `cwd`, page by page (`page_len` each), and the pages' sizes.
pub(crate) async fn list_all(
    store: &SessionStore<Note>,
    cwd: Option<&str>,
    page_len: usize,
) -> (Vec<SessionId>, Vec<usize>) {
    let (mut all, mut sizes, mut cursor) = (Vec::new(), Vec::new(), None::<String>);
    loop {
        let page = store
            .list_async(cursor.as_deref(), page_len, cwd, |id, s| {
                Some(SessionInfo::new(id.clone(), s.cwd.as_str()))
            })
            .await
            .expect("a page");
        sizes.push(page.sessions.len());
        all.extend(ids(&page));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return (all, sizes),
        }
        assert!(sizes.len() < 1000, "the listing does not end");
    }
}
