//! `session/list` by query: pages, the cwd filter, cursors, and what comes from the wire.

use acp_agent::DurableOptions;
use acp_types::*;

use crate::common::{Note, bounded, list_all};
use crate::scratch::{Scratch, open};

#[test]
fn pages_and_the_cwd_filter_are_the_databases() {
    let dir = Scratch::new("listing");
    let path = dir.file("sessions.db");
    bounded(async {
        let store = open(&path, DurableOptions::DEFAULT).await;
        let bob = store.owned_by("bob");
        let (mut in_a, mut all) = (Vec::new(), Vec::new());
        for i in 0..25 {
            let cwd = if i % 3 == 0 { "/a" } else { "/b" };
            let id = bob.create_async(Note::new(cwd)).await.unwrap();
            if cwd == "/a" {
                in_a.push(id.clone());
            }
            all.push(id);
        }
        // Someone else's sessions in the same cwd are not bob's.
        store
            .owned_by("eve")
            .create_async(Note::new("/a"))
            .await
            .unwrap();
        bob.flush().await.unwrap();
        drop((store, bob));

        let store = open(&path, DurableOptions::DEFAULT).await;
        let bob = store.owned_by("bob");
        let (listed, sizes) = list_all(&bob, None, 10).await;
        assert_eq!(listed, all, "creation order, every page");
        assert_eq!(sizes, [10, 10, 5]);
        let (listed, sizes) = list_all(&bob, Some("/a"), 4).await;
        assert_eq!(listed, in_a);
        assert_eq!(sizes, [4, 4, 1]);
        assert!(list_all(&bob, Some("/elsewhere"), 4).await.0.is_empty());
        // The unscoped store sees everyone's.
        assert_eq!(
            list_all(&store, Some("/a"), 100).await.0.len(),
            in_a.len() + 1
        );
    });
}

#[test]
fn what_comes_from_the_wire_is_bounded() {
    let dir = Scratch::new("wire");
    let path = dir.file("sessions.db");
    bounded(async {
        let store = open(&path, DurableOptions::DEFAULT).await;
        let invalid = ErrorObject::invalid_params("").code;
        let none = |_: &SessionId, _: &Note| None;
        for cursor in [
            "after-3",
            "at-x-y",
            "at-12",
            &format!("at-1-{}", "x".repeat(200)),
        ] {
            let error = store
                .list_async(Some(cursor), 10, None, none)
                .await
                .unwrap_err();
            assert_eq!(error.code, invalid, "{cursor}");
        }
        let long_cwd = format!("/{}", "d".repeat(5000));
        let error = store
            .list_async(None, 10, Some(&long_cwd), none)
            .await
            .unwrap_err();
        assert_eq!(error.code, invalid);
        let error = store.create_async(Note::new(&long_cwd)).await.unwrap_err();
        assert_eq!(error.code, invalid);
        let error = store
            .fetch(&SessionId::from("s".repeat(1000)))
            .await
            .unwrap_err();
        assert_eq!(error.code, invalid);
        // Quotes and SQL in an id or cwd are values, nothing more.
        let id = SessionId::from("sess-'; DROP TABLE sessions; --");
        let error = store.fetch(&id).await.unwrap_err();
        assert_eq!(error.code, ErrorObject::session_not_found("").code);
        let odd = store
            .create_async(Note::new("/it's \"odd\""))
            .await
            .unwrap();
        let (listed, _) = list_all(&store, Some("/it's \"odd\""), 10).await;
        assert_eq!(listed, [odd]);
    });
}
