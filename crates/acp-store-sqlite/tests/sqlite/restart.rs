//! A store dropped and opened again on the same file: every session, its state, owner and
//! history are there.

use acp_agent::{DurableOptions, HistoryLimits, StoreLimits};
use acp_types::*;

use crate::common::{Note, bounded, chunk, list_all, texts};
use crate::scratch::{Scratch, open};

#[test]
fn sessions_state_and_history_survive_a_reopen() {
    let dir = Scratch::new("restart");
    let path = dir.file("sessions.db");
    bounded(async {
        let store = open(&path, DurableOptions::DEFAULT).await;
        let alice = store.owned_by("alice");
        let first = alice.create_async(Note::new("/work/a")).await.unwrap();
        let second = alice.create_async(Note::new("/work/b")).await.unwrap();
        for i in 0..50 {
            assert!(alice.record(&first, &chunk(&format!("update {i}"))));
        }
        alice
            .with(&first, |n| {
                n.title = Some("First".into());
                n.turns = 3;
            })
            .unwrap();
        let before_history = alice.history(&first).unwrap();
        alice.flush().await.unwrap();
        drop((store, alice));

        let store = open(&path, DurableOptions::DEFAULT).await;
        let alice = store.owned_by("alice");
        // Nothing is in memory until it is asked for.
        assert!(!alice.contains(&first));
        let (listed, _) = list_all(&alice, None, 10).await;
        assert_eq!(listed, [first.clone(), second.clone()]);
        alice.fetch(&first).await.unwrap();
        assert_eq!(alice.history(&first).unwrap(), before_history);
        assert_eq!(
            alice.with(&first, |n| n.clone()).unwrap(),
            Note {
                cwd: "/work/a".into(),
                title: Some("First".into()),
                turns: 3
            }
        );
        // Recording goes on where it stopped.
        assert!(alice.record(&first, &chunk("after the reopen")));
        alice.flush().await.unwrap();
        drop((store, alice));

        let store = open(&path, DurableOptions::DEFAULT).await;
        store.fetch(&first).await.unwrap();
        let history = texts(&store.history(&first).unwrap());
        assert_eq!(history.len(), 51);
        assert_eq!(history[0], "update 0");
        assert_eq!(history[50], "after the reopen");
    });
}

#[test]
fn the_history_bound_holds_in_the_database() {
    let dir = Scratch::new("bound");
    let path = dir.file("sessions.db");
    let limits = StoreLimits::DEFAULT.history(HistoryLimits::new(5, usize::MAX));
    let options = DurableOptions::DEFAULT.limits(limits);
    bounded(async {
        let store = open(&path, options).await;
        let id = store.create_async(Note::new("/w")).await.unwrap();
        for i in 0..20 {
            store.record(&id, &chunk(&i.to_string()));
        }
        store.flush().await.unwrap();
        drop(store);
        let store = open(&path, options).await;
        store.fetch(&id).await.unwrap();
        assert_eq!(
            texts(&store.history(&id).unwrap()),
            ["15", "16", "17", "18", "19"]
        );
        // And the next number follows the last kept one.
        store.record(&id, &chunk("20"));
        store.flush().await.unwrap();
        drop(store);
        let store = open(&path, options).await;
        store.fetch(&id).await.unwrap();
        assert_eq!(
            texts(&store.history(&id).unwrap()),
            ["16", "17", "18", "19", "20"]
        );
    });
}

#[test]
fn owners_hold_across_a_reopen() {
    let dir = Scratch::new("owners");
    let path = dir.file("sessions.db");
    let limits = StoreLimits::DEFAULT.max_sessions_per_owner(2);
    let options = DurableOptions::DEFAULT.limits(limits);
    bounded(async {
        let store = open(&path, options).await;
        let alice = store.owned_by("alice");
        let one = alice.create_async(Note::new("/a")).await.unwrap();
        alice.create_async(Note::new("/a")).await.unwrap();
        alice.record(&one, &chunk("secret"));
        alice.flush().await.unwrap();
        drop((store, alice));

        let store = open(&path, options).await;
        let (alice, mallory) = (store.owned_by("alice"), store.owned_by("mallory"));
        // Another owner: not found, not listed, not deleted, not loaded into memory.
        let error = mallory.fetch(&one).await.unwrap_err();
        assert_eq!(error.code, ErrorObject::session_not_found("").code);
        assert!(list_all(&mallory, None, 10).await.0.is_empty());
        assert_eq!(mallory.remove_async(&one).await.unwrap(), None);
        assert!(!store.contains(&one));
        // The cap counts the sessions made before the reopen.
        let refused = alice.create_async(Note::new("/a")).await.unwrap_err();
        assert!(refused.message.contains("too many sessions"), "{refused:?}");
        // Alice's session is hers still, whole.
        alice.fetch(&one).await.unwrap();
        assert_eq!(texts(&alice.history(&one).unwrap()), ["secret"]);
        // Her delete reaches the database.
        assert!(alice.remove_async(&one).await.unwrap().is_some());
        alice.flush().await.unwrap();
        drop((store, alice, mallory));
        let store = open(&path, options).await;
        assert!(store.owned_by("alice").fetch(&one).await.is_err());
        assert_eq!(
            list_all(&store.owned_by("alice"), None, 10).await.0.len(),
            1
        );
    });
}
