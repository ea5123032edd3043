//! The store's own tests: history bounds, owners, turns, caps and expiry (on the store's test
//! clock, so they neither sleep nor race).

use std::collections::HashSet;
use std::time::Duration;

use super::history::json_len;
use super::*;

fn chunk(text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(text.to_owned()))
}

fn texts<'a>(updates: impl IntoIterator<Item = &'a SessionUpdate>) -> Vec<String> {
    updates
        .into_iter()
        .map(|u| match u {
            SessionUpdate::AgentMessageChunk(c) => match &c.content {
                ContentBlock::Text(t) => t.text.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        })
        .collect()
}

fn listed<S>(
    store: &SessionStore<S>,
    cursor: Option<&str>,
    page_len: usize,
) -> ListSessionsResponse {
    store
        .list(cursor, page_len, |id, _| {
            Some(SessionInfo::new(id.clone(), "/"))
        })
        .unwrap()
}

fn ids(page: &ListSessionsResponse) -> Vec<SessionId> {
    page.sessions.iter().map(|s| s.session_id.clone()).collect()
}

#[test]
fn history_drops_the_oldest_past_its_count() {
    let mut history = History::new(HistoryLimits::new(3, usize::MAX));
    for i in 0..5 {
        assert!(history.push(chunk(&i.to_string())));
    }
    assert_eq!(texts(history.iter()), ["2", "3", "4"]);
}

#[test]
fn history_drops_the_oldest_past_its_bytes_and_refuses_an_update_over_the_bound() {
    let one = json_len(&chunk("aaaa"));
    assert_eq!(one, serde_json::to_vec(&chunk("aaaa")).unwrap().len());
    let mut history = History::new(HistoryLimits::new(100, 2 * one));
    for text in ["aaaa", "bbbb", "cccc"] {
        history.push(chunk(text));
    }
    assert_eq!(texts(history.iter()), ["bbbb", "cccc"]);
    assert_eq!(history.bytes(), 2 * one);
    // Too large for the whole bound: not kept, and nothing dropped for it.
    assert!(!history.push(chunk(&"x".repeat(2 * one))));
    assert_eq!(texts(history.iter()), ["bbbb", "cccc"]);
}

#[test]
fn only_conversation_is_recorded_and_terminals_are_left_out() {
    let store = SessionStore::new();
    let id = store.create(()).unwrap();
    assert!(!store.record(
        &id,
        &SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new("ask"))
    ));
    let update = ToolCallUpdate::new("call-1").content(vec![
        ToolCallContent::from(Terminal::new("term-1")),
        ToolCallContent::from("done"),
    ]);
    assert!(store.record(&id, &SessionUpdate::from(update)));
    let history = store.history(&id).unwrap();
    let SessionUpdate::ToolCallUpdate(kept) = &history[0] else {
        panic!("{history:?}");
    };
    assert_eq!(kept.content.as_ref().map(Vec::len), Some(1));
    assert!(!store.record(&SessionId::from("nope"), &chunk("x")));
}

#[test]
fn ids_are_128_random_bits_and_distinct() {
    let store = SessionStore::new();
    let mut seen = HashSet::new();
    for _ in 0..2_000 {
        let id = store.create(()).unwrap();
        let hex = id.as_str().strip_prefix("sess-").unwrap();
        assert_eq!(hex.len(), 32, "{id}");
        assert!(u128::from_str_radix(hex, 16).is_ok(), "{id}");
        assert!(seen.insert(id.clone()), "{id} came twice");
    }
    // Nothing sequential: the ids share no common prefix past `sess-` (2,000 ids with one
    // 32-bit prefix would be a one-in-a-million chance for random ones).
    let prefixes: HashSet<_> = seen.iter().map(|id| &id.as_str()[5..13]).collect();
    assert!(
        prefixes.len() > 1_990,
        "{} distinct prefixes",
        prefixes.len()
    );
}

#[test]
fn sessions_are_created_replaced_and_removed() {
    let store = SessionStore::new();
    let one = store.create(1).unwrap();
    assert_eq!(store.insert("mine", 2), Ok(None));
    let mine = SessionId::from("mine");
    store.record(&mine, &chunk("x"));
    assert_eq!(store.insert("mine", 20), Ok(Some(2)));
    assert_eq!(store.history(&mine).map(|h| h.len()), Some(0));
    assert_eq!(store.with(&mine, |s| *s), Ok(20));
    assert_eq!(store.remove(&one), Some(1));
    let err = store.with(&one, |_| ()).unwrap_err();
    assert_eq!(err.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(store.len(), 1);
}

#[test]
fn listing_pages_in_creation_order() {
    let store = SessionStore::new();
    let created: Vec<_> = (0..5).map(|n| store.create(n).unwrap()).collect();
    let info = |id: &SessionId, n: &i32| (n % 2 == 0).then(|| SessionInfo::new(id.clone(), "/"));
    let page = store.list(None, 2, info).unwrap();
    assert_eq!(ids(&page), [created[0].clone(), created[2].clone()]);
    let cursor = page.next_cursor.clone().unwrap();
    assert!(!cursor.contains(&created[2].as_str()[5..]), "{cursor}");
    let page = store.list(Some(&cursor), 2, info).unwrap();
    assert_eq!(ids(&page), [created[4].clone()]);
    assert_eq!(page.next_cursor, None);
    assert!(store.list(Some("bogus"), 2, info).is_err());
}

#[test]
fn an_owner_sees_only_its_own_sessions() {
    let store = SessionStore::new();
    let (alice, bob) = (store.owned_by("alice"), store.owned_by("bob"));
    let a = alice.create("a").unwrap();
    assert!(alice.record(&a, &chunk("alice's secret")));
    let b = bob.create("b").unwrap();

    // Each view: only its own session, in every method.
    assert_eq!(ids(&listed(&alice, None, 10)), std::slice::from_ref(&a));
    assert_eq!(ids(&listed(&bob, None, 10)), std::slice::from_ref(&b));
    assert_eq!(
        bob.collect(|id, _| Some(id.clone())),
        std::slice::from_ref(&b)
    );
    assert_eq!((alice.len(), bob.len()), (1, 1));
    assert!(alice.contains(&a) && !bob.contains(&a));
    // Another owner's session is "not found", exactly as one that does not exist.
    let missing = SessionId::from("sess-00000000000000000000000000000000");
    let strange = |id: &SessionId| bob.with(id, |_| ()).unwrap_err();
    assert_eq!(strange(&a), ErrorObject::session_not_found(a.as_str()));
    assert_eq!(
        strange(&missing),
        ErrorObject::session_not_found(missing.as_str())
    );
    assert_eq!(bob.history(&a), None);
    assert!(!bob.record(&a, &chunk("bob's words")));
    assert_eq!(bob.remove(&a), None);
    assert_eq!(
        bob.begin_turn(&a).unwrap_err(),
        ErrorObject::session_not_found(a.as_str())
    );
    assert!(bob.insert(a.clone(), "stolen").is_err());
    // ...and alice's session is as she left it.
    assert_eq!(alice.with(&a, |s| *s), Ok("a"));
    assert_eq!(texts(&alice.history(&a).unwrap()), ["alice's secret"]);

    // A cursor of one view does not open another's sessions.
    let page = listed(&alice, None, 0);
    assert_eq!(
        ids(&listed(&bob, page.next_cursor.as_deref(), 10)),
        std::slice::from_ref(&b)
    );

    // The unscoped store sees both; a new view of an owner finds its sessions again.
    assert_eq!(store.len(), 2);
    assert_eq!(ids(&listed(&store, None, 10)), [a.clone(), b.clone()]);
    assert_eq!(store.owned_by("alice").with(&a, |s| *s), Ok("a"));
    assert_eq!(bob.remove(&b), Some("b"));
    assert_eq!(store.len(), 1);
}

#[test]
fn a_second_turn_of_a_session_is_refused_across_views() {
    let store = SessionStore::new();
    // Two connections of one user: two views of the same owner.
    let (first, second) = (store.owned_by("alice"), store.owned_by("alice"));
    let id = first.create(()).unwrap();
    let other = first.create(()).unwrap();
    let turn = first.begin_turn(&id).unwrap();
    assert_eq!(turn.session_id(), &id);
    for view in [&second, &first, &store] {
        let refused = view.begin_turn(&id).unwrap_err();
        assert_eq!(refused.code, ErrorCode::INVALID_REQUEST, "{refused:?}");
        assert!(refused.message.contains("already running"), "{refused:?}");
    }
    // Other sessions are not held up.
    let other_turn = second.begin_turn(&other).unwrap();
    drop(turn);
    let again = second.begin_turn(&id).unwrap();
    drop((again, other_turn));
    // A session removed during its turn: the guard ends without harm.
    let turn = first.begin_turn(&id).unwrap();
    assert_eq!(first.remove(&id), Some(()));
    drop(turn);
    assert!(!first.contains(&id));
}

#[test]
fn creating_past_a_bound_is_refused_without_evicting() {
    let limits = StoreLimits::DEFAULT
        .max_sessions(3)
        .max_sessions_per_owner(2);
    let store = SessionStore::with_store_limits(limits);
    let alice = store.owned_by("alice");
    let a1 = alice.create(()).unwrap();
    alice.create(()).unwrap();
    let refused = alice.create(()).unwrap_err();
    assert_eq!(refused.code, ErrorCode::INTERNAL_ERROR);
    assert!(refused.message.contains("too many sessions"), "{refused:?}");
    assert!(alice.insert("by-hand", ()).is_err());
    // Another owner has room of its own, up to the store's bound.
    let bob = store.owned_by("bob");
    bob.create(()).unwrap();
    let refused = bob.create(()).unwrap_err();
    assert!(refused.message.contains("at most 3"), "{refused:?}");
    assert_eq!(store.len(), 3, "nothing was evicted");
    assert!(alice.contains(&a1));
    // Deleting makes room again.
    alice.remove(&a1);
    bob.create(()).unwrap();
}

#[test]
fn idle_sessions_expire_and_used_ones_stay() {
    let minute = Duration::from_secs(60);
    let limits = StoreLimits::DEFAULT
        .idle_expiry(Some(minute))
        .max_sessions_per_owner(2);
    let store = SessionStore::with_store_limits(limits);
    let alice = store.owned_by("alice");
    let (used, idle, busy) = (
        alice.create(()).unwrap(),
        alice.create(()).unwrap(),
        store.create(()).unwrap(),
    );
    let turn = store.begin_turn(&busy).unwrap();
    store.advance(minute / 2);
    assert!(alice.record(&used, &chunk("still here")));
    store.advance(minute / 2);
    // `idle` went a full minute without use; `used` was recorded into half a minute ago.
    assert!(!alice.contains(&idle));
    assert!(alice.contains(&used));
    assert_eq!(alice.len(), 1);
    // Expiry made room under alice's bound of two.
    alice.create(()).unwrap();
    // A running turn keeps its session, however long; its end counts as a use.
    store.advance(10 * minute);
    assert!(store.contains(&busy));
    drop(turn);
    store.advance(minute - Duration::from_secs(1));
    assert!(store.contains(&busy));
    store.advance(Duration::from_secs(1));
    assert!(!store.contains(&busy));
    assert!(store.is_empty(), "{store:?}");
}

#[test]
fn without_an_expiry_sessions_stay() {
    let store = SessionStore::with_store_limits(StoreLimits::DEFAULT.idle_expiry(None));
    let id = store.create(()).unwrap();
    store.advance(Duration::from_secs(365 * 24 * 3600));
    assert!(store.contains(&id));
}

#[test]
fn clearing_a_view_removes_only_its_owners_sessions() {
    let limits = StoreLimits::DEFAULT.max_sessions_per_owner(2);
    let store = SessionStore::with_store_limits(limits);
    let (alice, bob) = (store.owned_by("alice"), store.owned_by("bob"));
    let a = [alice.create(()).unwrap(), alice.create(()).unwrap()];
    let b = bob.create(()).unwrap();
    assert_eq!(alice.clear(), 2);
    assert!(a.iter().all(|id| !store.contains(id)));
    assert!(bob.contains(&b));
    // Alice has room again.
    alice.create(()).unwrap();
    alice.create(()).unwrap();
    assert_eq!(store.clear(), 3);
    assert!(store.is_empty());
}
