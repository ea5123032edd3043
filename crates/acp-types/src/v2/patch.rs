//! The three states of a field of a v2 upsert: omitted, `null`, or a value.

/// A field of a v2 upsert (`tool_call_update`, `terminal_update`, the whole-message updates,
/// `session_info_update`, `compaction_update`, ...), where omitted, `null` and a value mean
/// three different things to the receiver, which keeps the state the updates build up:
///
/// - [`Unchanged`](Self::Unchanged): the field was omitted; the stored value stays as it is
///   (for an id seen for the first time: the field starts at its initial state, which the
///   field's documentation names);
/// - [`Clear`](Self::Clear): the field was `null`; the stored value is cleared, or reset to the
///   initial state where the schema names one (a tool call's `kind` to `other`, its `status` to
///   `pending`);
/// - [`Set`](Self::Set): the field had a value, which replaces the stored one (arrays as a whole;
///   a `_meta` object instead patches the stored metadata key by key).
///
/// In a wire object each state is written back as it came: `Unchanged` as no field at all,
/// `Clear` as `null`. On its own, `Patch` serializes `Clear` as `null` and `Set` as the value,
/// and refuses to serialize `Unchanged`, which only an enclosing object can express (by leaving
/// the field out); it deserializes `null` as `Clear` and anything else as `Set`.
///
/// ```
/// use acp_types::v2::{Patch, ToolCallUpdate, ToolCallStatus};
///
/// let update: ToolCallUpdate =
///     acp_types::from_str(r#"{"toolCallId":"call-1","title":null,"status":"completed"}"#)?;
/// assert_eq!(update.title, Patch::Clear);
/// assert_eq!(update.status, Patch::Set(ToolCallStatus::Completed));
/// assert_eq!(update.kind, Patch::Unchanged);
///
/// let mut stored = Some("Reading main.rs".to_owned());
/// update.title.clone().apply_to(&mut stored);
/// assert_eq!(stored, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[allow(clippy::exhaustive_enums)] // The three states are the whole of the patch semantics.
pub enum Patch<T> {
    /// Omitted: leave the stored value as it is.
    #[default]
    Unchanged,
    /// `null`: clear the stored value (or reset it to its initial state).
    Clear,
    /// A value: replace the stored value.
    Set(T),
}

impl<T> Patch<T> {
    /// True for [`Unchanged`](Self::Unchanged) (the field is omitted on the wire).
    pub fn is_unchanged(&self) -> bool {
        matches!(self, Self::Unchanged)
    }

    /// The value of a [`Set`](Self::Set), `None` otherwise.
    pub fn as_set(&self) -> Option<&T> {
        match self {
            Self::Set(value) => Some(value),
            Self::Unchanged | Self::Clear => None,
        }
    }

    /// A patch of a reference to the value.
    pub fn as_ref(&self) -> Patch<&T> {
        match self {
            Self::Unchanged => Patch::Unchanged,
            Self::Clear => Patch::Clear,
            Self::Set(value) => Patch::Set(value),
        }
    }

    /// Maps the value of a [`Set`](Self::Set).
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Patch<U> {
        match self {
            Self::Unchanged => Patch::Unchanged,
            Self::Clear => Patch::Clear,
            Self::Set(value) => Patch::Set(f(value)),
        }
    }

    /// Applies the patch to a stored optional value: `Unchanged` keeps it, `Clear` empties it,
    /// `Set` replaces it.
    pub fn apply_to(self, stored: &mut Option<T>) {
        match self {
            Self::Unchanged => {}
            Self::Clear => *stored = None,
            Self::Set(value) => *stored = Some(value),
        }
    }

    /// The stored value after the patch, for a field with an initial state: `Unchanged` keeps
    /// `stored`, `Clear` resets it to `initial`, `Set` replaces it.
    pub fn apply_or(self, stored: T, initial: T) -> T {
        match self {
            Self::Unchanged => stored,
            Self::Clear => initial,
            Self::Set(value) => value,
        }
    }
}

impl<T> From<T> for Patch<T> {
    fn from(value: T) -> Self {
        Self::Set(value)
    }
}

impl<T> From<Option<T>> for Patch<T> {
    /// `Some` sets, `None` clears (sends `null`).
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Clear, Self::Set)
    }
}

impl<T: serde::Serialize> serde::Serialize for Patch<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Set(value) => value.serialize(serializer),
            Self::Clear => serializer.serialize_unit(),
            Self::Unchanged => Err(serde::ser::Error::custom(
                "an unchanged patch field is left out of its object, not written",
            )),
        }
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Patch<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Option::<T>::deserialize(deserializer)?.map_or(Self::Clear, Self::Set))
    }
}
