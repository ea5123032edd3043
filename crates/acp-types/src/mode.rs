//! The decoding mode of the current thread: the strict fast path or the lenient pass.
//!
//! [`crate::decode`] first decodes a document in strict mode, where lenient fields decode
//! straight into their type without buffering their value; only when that fails does it decode
//! again in lenient mode. The mode is read deep inside the decoders (by both
//! [`wire`](crate::wire) and [`wire_value`](crate::wire_value)), where no argument can carry
//! it through `serde`'s traits, so it lives in a thread-local flag: one `Cell` read per lenient
//! field, no allocation. Both decoding modules depend on this one, never on each other for it.

use std::cell::Cell;

thread_local! {
    /// When set, lenient fields decode straight into their type without buffering; an invalid
    /// value then fails the whole decode, and [`crate::decode`] retries in lenient mode.
    /// Values read ahead or kept as unknown fields are parsed into `Value`s rather than kept as
    /// text, and a float among them fails the decode the same way (see `wire_value`).
    static STRICT: Cell<bool> = const { Cell::new(false) };
}

/// True when lenient fields must buffer their value so that an invalid one can be replaced.
#[inline]
pub(crate) fn lenient_mode() -> bool {
    !STRICT.with(Cell::get)
}

/// Runs `f` with the strict fast path on, restoring the previous mode afterwards (even on panic).
pub(crate) fn with_strict<R>(f: impl FnOnce() -> R) -> R {
    with_mode(true, f)
}

/// Runs `f` in lenient mode (the mode every plain `serde` decode uses).
pub(crate) fn with_lenient<R>(f: impl FnOnce() -> R) -> R {
    with_mode(false, f)
}

/// Runs `f` with the strict flag set to `strict`, restoring the previous value afterwards.
fn with_mode<R>(strict: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            STRICT.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(STRICT.with(|s| s.replace(strict)));
    f()
}
