//! Two stores on one database, as two agent processes behind a load balancer.

use std::time::Duration;

use acp_agent::{DurableOptions, SessionStore, StoreLimits};
use acp_store_postgres::PostgresBackend;
use acp_testkit::services::Postgres;
use acp_types::*;

use crate::common::{Note, bounded, chunk, list_all, texts};

/// A store ("node") on the database at `url`.
async fn node(url: &str, options: DurableOptions) -> SessionStore<Note> {
    let backend = PostgresBackend::open(url).await.expect("open the database");
    SessionStore::durable(backend, options).expect("a durable store")
}

#[test]
fn a_session_made_on_one_node_is_listed_and_loaded_on_another() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("nodes");
    bounded(async {
        let (a, b) = (
            node(&url, DurableOptions::DEFAULT).await,
            node(&url, DurableOptions::DEFAULT).await,
        );
        let (alice_a, alice_b) = (a.owned_by("alice"), b.owned_by("alice"));
        let id = alice_a.create_async(Note::new("/w")).await.unwrap();
        alice_a.record(&id, &chunk("on a"));
        alice_a
            .with(&id, |n| n.title = Some("Made on A".into()))
            .unwrap();
        alice_a.flush().await.unwrap();

        // B lists it (with its title) and takes it up, history and all.
        let page = alice_b
            .list_async(None, 10, Some("/w"), |id, s| {
                let info = SessionInfo::new(id.clone(), s.cwd.as_str());
                Some(match &s.title {
                    Some(title) => info.title(title.as_str()),
                    None => info,
                })
            })
            .await
            .unwrap();
        assert_eq!(page.sessions.len(), 1);
        assert_eq!(page.sessions[0].title.as_deref(), Some("Made on A"));
        alice_b.fetch(&id).await.unwrap();
        assert_eq!(texts(&alice_b.history(&id).unwrap()), ["on a"]);
        alice_b.record(&id, &chunk("on b"));
        alice_b.flush().await.unwrap();

        // A loads it again: `load` reads the database, which B wrote last.
        alice_a.refresh(&id).await.unwrap();
        assert_eq!(texts(&alice_a.history(&id).unwrap()), ["on a", "on b"]);

        // Another owner sees nothing of it on either node.
        for mallory in [a.owned_by("mallory"), b.owned_by("mallory")] {
            let error = mallory.fetch(&id).await.unwrap_err();
            assert_eq!(error.code, ErrorObject::session_not_found("").code);
            assert!(list_all(&mallory, None, 10).await.0.is_empty());
            assert_eq!(mallory.remove_async(&id).await.unwrap(), None);
        }
    });
}

#[test]
fn sessions_survive_a_reopen_with_their_owner_paged_by_query() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("reopen");
    let options = DurableOptions::DEFAULT.limits(StoreLimits::DEFAULT.max_sessions_per_owner(30));
    bounded(async {
        let store = node(&url, options).await;
        let bob = store.owned_by("bob");
        let mut made = Vec::new();
        for i in 0..30 {
            let id = bob
                .create_async(Note::new(if i % 2 == 0 { "/even" } else { "/odd" }))
                .await
                .unwrap();
            bob.record(&id, &chunk(&format!("turn {i}")));
            made.push(id);
        }
        bob.flush().await.unwrap();
        drop((store, bob));

        let store = node(&url, options).await;
        let bob = store.owned_by("bob");
        let (listed, sizes) = list_all(&bob, None, 7).await;
        assert_eq!(listed, made);
        assert_eq!(sizes, [7, 7, 7, 7, 2]);
        let evens: Vec<SessionId> = made.iter().step_by(2).cloned().collect();
        assert_eq!(list_all(&bob, Some("/even"), 4).await.0, evens);
        // The per-owner cap counts what is in the database.
        let refused = bob.create_async(Note::new("/even")).await.unwrap_err();
        assert!(refused.message.contains("too many sessions"), "{refused:?}");
        bob.fetch(&made[29]).await.unwrap();
        assert_eq!(texts(&bob.history(&made[29]).unwrap()), ["turn 29"]);
        // Ids and cwds from the wire are parameters, and bounded.
        let odd = SessionId::from("sess-'); DELETE FROM acp_sessions; --");
        assert!(bob.fetch(&odd).await.is_err());
        assert_eq!(list_all(&bob, None, 100).await.0.len(), 30);
    });
}

#[test]
fn a_server_that_goes_away_is_a_clear_error() {
    let Some(server) = Postgres::start() else {
        return;
    };
    let url = server.create_database("gone");
    let options = DurableOptions::DEFAULT.max_backoff(Duration::from_millis(100));
    bounded(async {
        let store = node(&url, options).await;
        let id = store.create_async(Note::new("/g")).await.unwrap();
        store.flush().await.unwrap();
        drop(server);
        // A running turn goes on in memory; new sessions are refused with a clear error.
        assert!(store.record(&id, &chunk("after the server went")));
        let refused = store.create_async(Note::new("/g")).await.unwrap_err();
        assert!(refused.message.contains("unavailable"), "{refused:?}");
        while store.is_available() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(store.create(Note::new("/g")).is_err());
        assert!(PostgresBackend::open(&url).await.is_err());
    });
}
