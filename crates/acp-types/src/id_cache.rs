//! The last identifier decoded, per identifier type and thread, shared by the next equal one.
//!
//! A stream of updates names the same session in every notification and the same message in
//! every chunk of it: decoding each of those ids into a fresh `Arc<str>` would cost an
//! allocation per update for text the previous update already holds. Each identifier type keeps
//! the last id it decoded on the current thread (a `Cell`, no lock); an equal id is a clone of
//! that `Arc` (a reference count), any other a new `Arc` that replaces it. Ids longer than
//! [`MAX_SHARED`] are never kept, so a peer's oversized id is not held after its message.

use std::cell::Cell;
use std::sync::Arc;
use std::thread::LocalKey;

/// The longest id kept for the next one (protocol ids are short: UUIDs, `msg-<hex>-<n>`).
pub(crate) const MAX_SHARED: usize = 128;

/// The slot of one identifier type: its last decoded id on this thread.
pub(crate) type Slot = LocalKey<Cell<Option<Arc<str>>>>;

/// `text` as an `Arc<str>`: the one in `slot` when equal, else a new one, kept in `slot`.
#[inline]
pub(crate) fn shared(slot: &'static Slot, text: &str) -> Arc<str> {
    if text.len() > MAX_SHARED {
        return Arc::from(text);
    }
    slot.try_with(|last| {
        let id = match last.take() {
            Some(previous) if *previous == *text => previous,
            _ => Arc::from(text),
        };
        last.set(Some(Arc::clone(&id)));
        id
    })
    // The thread is ending (its locals are gone): no sharing.
    .unwrap_or_else(|_| Arc::from(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SLOT: Cell<Option<Arc<str>>> = const { Cell::new(None) };
    }

    #[test]
    fn an_equal_id_shares_the_last_one() {
        let first = shared(&SLOT, "msg-1");
        let again = shared(&SLOT, "msg-1");
        assert!(Arc::ptr_eq(&first, &again));
        let other = shared(&SLOT, "msg-2");
        assert_eq!(&*other, "msg-2");
        assert!(!Arc::ptr_eq(&first, &other));
        // Only the last id is kept.
        assert!(!Arc::ptr_eq(&first, &shared(&SLOT, "msg-1")));
    }

    #[test]
    fn a_long_id_is_never_kept() {
        let long = "x".repeat(MAX_SHARED + 1);
        let first = shared(&SLOT, &long);
        let again = shared(&SLOT, &long);
        assert_eq!(first, again);
        assert!(!Arc::ptr_eq(&first, &again));
        // The slot still holds what it held before.
        let short = shared(&SLOT, "s1");
        assert!(Arc::ptr_eq(&short, &shared(&SLOT, "s1")));
    }
}
