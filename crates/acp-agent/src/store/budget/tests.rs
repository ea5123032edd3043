//! The history budgets' tests: the bounds per owner and in all, which updates go first, and
//! counts that match the histories after any sequence of operations (on the store's test
//! clock, so the least-recently-used order is exact).

use std::collections::BTreeSet;
use std::time::Duration;

use super::super::history::{SLOT, cost_of, json_len};
use super::super::*;
use super::Owned;

const TICK: Duration = Duration::from_millis(1);

fn chunk(text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(text.to_owned()))
}

/// What the budgets count for `chunk(text)`.
fn cost(text: &str) -> usize {
    cost_of(json_len(&chunk(text)))
}

fn texts(updates: &[SessionUpdate]) -> Vec<String> {
    updates
        .iter()
        .map(|u| match u {
            SessionUpdate::AgentMessageChunk(ContentChunk {
                content: ContentBlock::Text(t),
                ..
            }) => t.text.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// Session `id`'s kept texts, read without marking the session used.
fn kept<S>(store: &SessionStore<S>, id: &SessionId) -> Vec<String> {
    let sessions = store.shared.sessions.lock().unwrap();
    let number = sessions.numbers[id];
    let history: Vec<_> = sessions.by_number[&number]
        .history
        .iter()
        .cloned()
        .collect();
    texts(&history)
}

/// Checks every count and order against the histories themselves, recomputed from the kept
/// updates, and the budgets against the counts.
fn check_counts<S>(store: &SessionStore<S>) {
    let limits = store.store_limits();
    let sessions = store.shared.sessions.lock().unwrap();
    let mut total = 0;
    let mut holding = BTreeSet::new();
    let mut owners: HashMap<Arc<str>, Owned> = HashMap::new();
    for (&number, stored) in &sessions.by_number {
        let bytes: usize = stored.history.iter().map(|u| cost_of(json_len(u))).sum();
        assert_eq!(bytes, stored.history.cost(), "session {number}");
        assert!(stored.history.len() <= limits.history.max_updates);
        assert!(stored.history.bytes() <= limits.history.max_bytes);
        total += bytes;
        let key = (stored.used, number);
        if !stored.history.is_empty() {
            holding.insert(key);
        }
        if let Some(owner) = &stored.owner {
            let entry = owners.entry(Arc::clone(owner)).or_default();
            entry.sessions += 1;
            entry.bytes += bytes;
            if !stored.history.is_empty() {
                entry.holding.insert(key);
            }
        }
    }
    assert_eq!(sessions.bytes, total, "the store's count drifted");
    assert!(
        total <= limits.max_history_bytes,
        "{total} bytes in the store"
    );
    assert_eq!(sessions.holding, holding);
    assert_eq!(sessions.owned.len(), owners.len(), "{:?}", sessions.owned);
    for (owner, expected) in owners {
        let held = &sessions.owned[&owner];
        assert_eq!(held.sessions, expected.sessions, "{owner}");
        assert_eq!(held.bytes, expected.bytes, "{owner}'s count drifted");
        assert_eq!(held.holding, expected.holding, "{owner}");
        assert!(held.bytes <= limits.max_history_bytes_per_owner, "{owner}");
    }
}

#[test]
fn one_owner_never_holds_more_than_its_budget_and_others_keep_theirs() {
    let one = cost("update 00");
    let limits = StoreLimits::DEFAULT.max_history_bytes_per_owner(20 * one);
    let store = SessionStore::with_store_limits(limits);
    let (alice, bob) = (store.owned_by("alice"), store.owned_by("bob"));
    let theirs = bob.create(()).unwrap();
    for i in 0..15 {
        assert!(bob.record(&theirs, &chunk(&format!("update {i:02}"))));
    }
    let mine: Vec<_> = (0..10).map(|_| alice.create(()).unwrap()).collect();
    for round in 0..10 {
        for id in &mine {
            assert!(alice.record(id, &chunk(&format!("update {round:02}"))));
            let held: usize = mine
                .iter()
                .map(|id| {
                    alice
                        .history(id)
                        .unwrap()
                        .iter()
                        .map(json_len)
                        .sum::<usize>()
                })
                .sum::<usize>()
                + SLOT * mine.iter().map(|id| kept(&alice, id).len()).sum::<usize>();
            assert!(held <= 20 * one, "alice holds {held} bytes");
            assert_eq!(alice.history_bytes(), held);
            check_counts(&store);
        }
    }
    assert_eq!(alice.history_bytes(), 20 * one);
    // Alice's flood took nothing from bob.
    assert_eq!(bob.history(&theirs).unwrap().len(), 15);
    assert_eq!(bob.history_bytes(), 15 * one);
    assert_eq!(store.history_bytes(), 35 * one);
}

#[test]
fn the_store_budget_bounds_every_owner_together() {
    let one = cost("update 00");
    let limits = StoreLimits::DEFAULT.max_history_bytes(12 * one);
    let store = SessionStore::with_store_limits(limits);
    let views = [
        store.owned_by("alice"),
        store.owned_by("bob"),
        store.clone(),
    ];
    let ids: Vec<_> = views.iter().map(|v| v.create(()).unwrap()).collect();
    for i in 0..30 {
        let (view, id) = (&views[i % 3], &ids[i % 3]);
        store.advance(TICK);
        assert!(view.record(id, &chunk(&format!("update {i:02}"))));
        assert!(store.history_bytes() <= 12 * one);
        check_counts(&store);
    }
    assert_eq!(store.history_bytes(), 12 * one);
    // Taken in turns, the least recently used session holds the oldest update of all: the
    // store keeps the newest 12, whoever recorded them.
    assert_eq!(
        kept(&store, &ids[0]),
        ["update 18", "update 21", "update 24", "update 27"]
    );
    assert_eq!(
        kept(&store, &ids[1]),
        ["update 19", "update 22", "update 25", "update 28"]
    );
    assert_eq!(
        kept(&store, &ids[2]),
        ["update 20", "update 23", "update 26", "update 29"]
    );
    // A flood from one owner takes from the least recently used session of all (bob's, used
    // before the unowned one), all of it before the next.
    store.advance(TICK);
    for i in 0..4 {
        assert!(views[0].record(&ids[0], &chunk(&format!("update f{i}"))));
    }
    assert!(kept(&store, &ids[1]).is_empty());
    assert_eq!(kept(&store, &ids[2]).len(), 4);
    assert_eq!(kept(&store, &ids[0]).len(), 8);
    check_counts(&store);
}

#[test]
fn the_session_recorded_into_keeps_its_newest_updates() {
    let one = cost("update 00");
    let limits = StoreLimits::DEFAULT.max_history_bytes_per_owner(5 * one);
    let store = SessionStore::with_store_limits(limits);
    let alice = store.owned_by("alice");
    let (other, id) = (alice.create(()).unwrap(), alice.create(()).unwrap());
    assert!(alice.record(&other, &chunk("other 00")));
    for i in 0..8 {
        store.advance(TICK);
        assert!(alice.record(&id, &chunk(&format!("update {i:02}"))));
        check_counts(&store);
    }
    // The other session gave first; then the session alone was over, and gave its oldest.
    assert!(kept(&alice, &other).is_empty());
    assert_eq!(
        kept(&alice, &id),
        [
            "update 03",
            "update 04",
            "update 05",
            "update 06",
            "update 07"
        ]
    );
    // An update over the whole budget is not kept, and drops nothing.
    assert!(!alice.record(&id, &chunk(&"x".repeat(5 * one))));
    assert_eq!(kept(&alice, &id).len(), 5);
    // Nor is one over the store's budget, in an unowned session.
    let small = SessionStore::<()>::with_store_limits(StoreLimits::DEFAULT.max_history_bytes(one));
    let unowned = small.create(()).unwrap();
    assert!(small.record(&unowned, &chunk("update 00")));
    assert!(!small.record(&unowned, &chunk("update 000")));
    assert_eq!(kept(&small, &unowned), ["update 00"]);
    assert!(small.record(&unowned, &chunk("update 01")));
    assert_eq!(kept(&small, &unowned), ["update 01"]);
}

#[test]
fn eviction_takes_the_oldest_updates_of_the_least_recently_used_session_first() {
    let one = cost("1a");
    let limits = StoreLimits::DEFAULT.max_history_bytes_per_owner(9 * one);
    let store = SessionStore::with_store_limits(limits);
    let alice = store.owned_by("alice");
    let ids: Vec<_> = (0..3).map(|_| alice.create(()).unwrap()).collect();
    for (n, id) in ids.iter().enumerate() {
        for letter in ["a", "b", "c"] {
            store.advance(TICK);
            assert!(alice.record(id, &chunk(&format!("{}{letter}", n + 1))));
        }
    }
    // Session 1 is used again (a load reads it): session 2 is now the least recently used.
    store.advance(TICK);
    assert_eq!(alice.history(&ids[0]).map(|h| h.len()), Some(3));
    store.advance(TICK);
    assert!(alice.record(&ids[2], &chunk("3d")));
    assert_eq!(kept(&alice, &ids[1]), ["2b", "2c"]);
    assert_eq!(kept(&alice, &ids[0]), ["1a", "1b", "1c"]);
    // Two at once: session 2's last update, then the next least recently used, session 1.
    store.advance(TICK);
    assert!(alice.record(&ids[2], &chunk(&"3".repeat(json_len(&chunk("3e")) + 1))));
    assert!(kept(&alice, &ids[1]).len() <= 1);
    store.advance(TICK);
    assert!(alice.record(&ids[2], &chunk("3f")));
    assert!(kept(&alice, &ids[1]).is_empty());
    assert_eq!(
        kept(&alice, &ids[0]).first().map(String::as_str),
        Some("1b")
    );
    assert_eq!(kept(&alice, &ids[2]).last().map(String::as_str), Some("3f"));
    check_counts(&store);
}

#[test]
fn removed_replaced_and_expired_sessions_give_their_bytes_back() {
    let minute = Duration::from_secs(60);
    let store = SessionStore::with_store_limits(StoreLimits::DEFAULT.idle_expiry(Some(minute)));
    let alice = store.owned_by("alice");
    let (a, b, c) = (
        alice.create(0).unwrap(),
        alice.create(0).unwrap(),
        alice.create(0).unwrap(),
    );
    for id in [&a, &b, &c] {
        assert!(alice.record(id, &chunk("hello")));
    }
    assert_eq!(alice.history_bytes(), 3 * cost("hello"));
    alice.remove(&a);
    assert_eq!(alice.history_bytes(), 2 * cost("hello"));
    assert_eq!(alice.insert(b.clone(), 1), Ok(Some(0)));
    assert_eq!(alice.history_bytes(), cost("hello"));
    check_counts(&store);
    store.advance(minute);
    assert_eq!((alice.history_bytes(), store.history_bytes()), (0, 0));
    assert!(!alice.contains(&c));
    check_counts(&store);
}

/// A small deterministic generator (xorshift), so the sequence is the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn counts_match_the_histories_after_any_sequence_of_operations() {
    let one = cost("x");
    let limits = StoreLimits::DEFAULT
        .history(HistoryLimits::new(8, 6 * one))
        .max_history_bytes_per_owner(10 * one)
        .max_history_bytes(16 * one)
        .max_sessions(24)
        .idle_expiry(Some(Duration::from_secs(1)));
    let store = SessionStore::with_store_limits(limits);
    let views = [
        store.owned_by("alice"),
        store.owned_by("bob"),
        store.owned_by("carol"),
        store.clone(),
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ids: Vec<SessionId> = Vec::new();
    let mut turns = Vec::new();
    for step in 0..3_000 {
        let view = &views[rng.below(views.len())];
        let pick = |rng: &mut Rng, ids: &[SessionId]| {
            (!ids.is_empty()).then(|| ids[rng.below(ids.len())].clone())
        };
        match rng.below(20) {
            0..=2 => {
                if let Ok(id) = view.create(()) {
                    ids.push(id);
                }
            }
            3..=11 => {
                if let Some(id) = pick(&mut rng, &ids) {
                    let text = "x".repeat(1 + rng.below(4 * one));
                    let kept = view.record(&id, &chunk(&text));
                    if kept {
                        assert_eq!(
                            texts(&store.history(&id).unwrap()).last(),
                            Some(&text),
                            "step {step}: the newest update was dropped"
                        );
                    }
                }
            }
            12 => {
                if let Some(id) = pick(&mut rng, &ids) {
                    view.remove(&id);
                }
            }
            13 => {
                if let Some(id) = pick(&mut rng, &ids) {
                    let _ = view.insert(id, ());
                }
            }
            14 => {
                if rng.below(10) == 0 {
                    view.clear();
                }
            }
            15 => {
                if let Some(id) = pick(&mut rng, &ids)
                    && let Ok(turn) = view.begin_turn(&id)
                {
                    turns.push(turn);
                }
            }
            16 => {
                if !turns.is_empty() {
                    drop(turns.swap_remove(rng.below(turns.len())));
                }
            }
            17 => store.advance(Duration::from_millis(rng.below(400) as u64)),
            _ => {
                if let Some(id) = pick(&mut rng, &ids) {
                    let _ = view.history(&id);
                }
            }
        }
        ids.retain(|id| store.contains(id));
        check_counts(&store);
        let (mut sum, mut alice) = (0, 0);
        for id in &ids {
            let bytes = kept(&store, id).iter().map(|t| cost(t)).sum::<usize>();
            sum += bytes;
            if views[0].contains(id) {
                alice += bytes;
            }
        }
        assert_eq!(store.history_bytes(), sum, "step {step}");
        assert_eq!(views[0].history_bytes(), alice, "step {step}");
    }
    drop(turns);
    store.clear();
    assert_eq!(store.history_bytes(), 0);
    check_counts(&store);
}
