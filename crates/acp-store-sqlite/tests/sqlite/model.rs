//! A backend against a model of what [`Write`]s mean (the PostgreSQL backend's tests include
//! this file too): random batches of upserts and appends interleaved as the store's writer
//! makes them, appends that replace a kept update or land below a trim, upserts of a session
//! twice in a batch, trims, clears and deletes; every session reads back as the model says.

use std::collections::BTreeMap;
use std::future::Future;

use acp_agent::backend::{Backend, SessionRow, Write};

/// A session's row with `id` and `state`.
pub(crate) fn row(id: &str, state: &str) -> SessionRow {
    SessionRow::new(
        id.to_owned(),
        Some("alice".to_owned()),
        "/w".to_owned(),
        None,
        1,
        2,
        state.to_owned(),
    )
}

/// A small deterministic generator (xorshift), so that a failure is found again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// What the writes mean: per session, its row and its updates by number.
#[derive(Default)]
struct Model {
    rows: BTreeMap<String, SessionRow>,
    histories: BTreeMap<String, BTreeMap<u64, String>>,
}

impl Model {
    fn apply(&mut self, write: &Write) {
        match write {
            Write::Upsert(r) => {
                self.rows.insert(r.id.clone(), r.clone());
            }
            Write::Append { id, seq, update } => {
                self.histories
                    .entry(id.to_string())
                    .or_default()
                    .insert(*seq, update.clone());
            }
            Write::Trim { id, keep_from } => {
                if let Some(h) = self.histories.get_mut(id) {
                    h.retain(|n, _| n >= keep_from);
                }
            }
            Write::ClearHistory { id } => {
                self.histories.remove(id);
            }
            Write::Delete { id } => {
                self.histories.remove(id);
                self.rows.remove(id);
            }
            _ => {}
        }
    }

    /// Session `id` as a load should read it: its row and history, or nothing.
    fn load(&self, id: &str) -> Option<(SessionRow, Vec<(u64, String)>)> {
        let row = self.rows.get(id)?.clone();
        let history = self
            .histories
            .get(id)
            .map(|h| h.iter().map(|(n, u)| (*n, u.clone())).collect())
            .unwrap_or_default();
        Some((row, history))
    }
}

/// Commits 300 random batches through the backends `open` makes (a fresh one every 50
/// batches, as after a restart) and checks every session after each.
pub(crate) async fn batches_read_back_as_the_model_says<B, F>(open: impl Fn() -> F)
where
    B: Backend,
    F: Future<Output = B>,
{
    let mut backend = open().await;
    let sessions = ["a", "b", "c"];
    let mut next = [0u64; 3];
    let mut model = Model::default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..300 {
        let mut batch = Vec::new();
        for _ in 0..rng.below(16) {
            let k = rng.below(3) as usize;
            let id = sessions[k].to_owned();
            let write = match rng.below(24) {
                // Mostly the next update, sometimes past a gap.
                0..=11 => {
                    next[k] += 1 + u64::from(rng.below(10) == 0) * rng.below(5);
                    Write::Append {
                        id: id.into(),
                        seq: next[k],
                        update: format!("{{\"r\":{round},\"n\":{}}}", next[k]),
                    }
                }
                // An update that replaces a kept one, or lands below a trim.
                12 | 13 => Write::Append {
                    id: id.into(),
                    seq: rng.below(next[k] + 1),
                    update: format!("\"again {round}\nwith a line break\""),
                },
                14..=17 => Write::Upsert(row(&id, &format!("{{\"round\":{round}}}"))),
                18 | 19 => Write::Trim {
                    keep_from: next[k].saturating_sub(rng.below(8)),
                    id,
                },
                20 => Write::ClearHistory { id },
                21 => {
                    next[k] = rng.below(3);
                    Write::Delete { id }
                }
                _ => Write::Upsert(row(&id, "{}")),
            };
            model.apply(&write);
            batch.push(write);
        }
        backend.commit(batch).await.expect("commit");
        if round % 50 == 49 {
            drop(backend);
            backend = open().await;
        }
        for id in sessions {
            let stored = backend.load(id).await.expect("load");
            let stored = stored.map(|s| (s.row, s.history));
            assert_eq!(stored, model.load(id), "session {id}, round {round}");
        }
    }
}
