//! The machinery every wire type is built from.
//!
//! Wire objects are declared with [`wire_object!`], tagged unions with [`tagged_union!`], string
//! enums with [`string_enum!`] and identifiers with [`id_type!`]. The macros write the
//! `Serialize`, `Deserialize` and `JsonSchema` impls by hand instead of deriving them, for three
//! reasons:
//!
//! - **Exactness.** Decoding keeps what a derive would lose: object fields this crate does not
//!   model and optional fields sent as an explicit `null` are remembered in [`Extras`] and
//!   written back unchanged.
//! - **Leniency exactly where the schema prescribes it.** Fields marked
//!   `x-deserialize-default-on-error` fall back to their default when their value is invalid, and
//!   arrays marked `x-deserialize-skip-invalid-items` drop the items that do not decode. Every
//!   other violation is an error.
//! - **Speed.** Unions read their tag without buffering the object when the tag comes first (as
//!   every known implementation writes it), and valid documents take a fast path that never
//!   buffers a lenient field (see [`decode`](crate::decode)).

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub(crate) use crate::wire_value::{
    BufferSeed, Buffered, UniqueValue, UnknownSeed, UnknownValue, duplicate, unique_value,
};

/// Field flag: the schema marks the field `x-deserialize-default-on-error`.
pub(crate) const DOE: u8 = 1;
/// Field flag: the schema marks the array field `x-deserialize-skip-invalid-items`.
pub(crate) const SKIP: u8 = 2;
/// Field flag: the schema allows `null` for the optional field (kept as an explicit null).
pub(crate) const NULLABLE: u8 = 4;
/// Field flag: the schema requires the text of the (required) field to be non-empty
/// (`minLength: 1`); an empty string is refused when decoding.
pub(crate) const NON_EMPTY: u8 = 8;
/// Field flag: the schema marks the field `x-deserialize-default-on-null` (November 2026): an
/// explicit `null` takes the default (an optional field is absent, a required one gets its
/// type's default, e.g. an empty list), and any other wrong value is an error. The `null` is
/// remembered and written back, for an exact round trip, until the field is changed.
pub(crate) const NULL_DEFAULT: u8 = 16;

/// Extension data carried in `_meta`: any JSON object, opaque to this crate.
pub type Meta = Map<String, Value>;

/// What a decoded object carried beyond its modelled fields: fields this crate does not know
/// (from a newer peer, or extensions) and optional fields that were sent as an explicit `null`.
///
/// Both are written back when the value is encoded, so decoding and re-encoding a document
/// yields the same JSON. A freshly built value has none; the common case costs one null pointer.
///
/// Unknown fields are [`Value`]s, whose numbers are `u64`, `i64` or `f64`. When a number of a
/// field decoded from text would not be written back as it was received (an integer beyond
/// 64 bits, more digits than an `f64` keeps, `-0`, `1.50`, `1E5`, or `1e400`, which no `f64`
/// holds and which the [`Value`] shows as the largest `f64`), the field's exact text is kept
/// too, and written back for as long as the field's value is unchanged. (Serializing such a
/// value into a [`Value`] with `serde_json::to_value` cannot keep that text, and fails for a
/// number beyond `f64`.) Fields of the few objects that are decoded through a buffered
/// [`Value`] (those whose shape needs a look at several fields first, and values decoded with
/// [`from_value`](crate::from_value)) have no text to keep.
#[derive(Clone, Default)]
pub struct Extras(Option<Box<ExtrasInner>>);

/// Equal when they keep the same things, whatever their order (the order of an object's keys
/// carries no meaning) and whether the empty state is allocated or not.
impl PartialEq for Extras {
    fn eq(&self, other: &Self) -> bool {
        match (self.0.as_deref(), other.0.as_deref()) {
            (None, None) => true,
            (Some(one), None) | (None, Some(one)) => one.is_empty(),
            (Some(a), Some(b)) => a == b,
        }
    }
}

#[derive(Clone, Default)]
struct ExtrasInner {
    fields: Map<String, Value>,
    nulls: Vec<&'static str>,
    /// Number fields received in the other literal form (see `NumberForm`).
    number_forms: Vec<&'static str>,
    /// The exact text of unknown fields whose numbers a [`Value`] does not keep.
    exact: Vec<(String, Box<RawValue>)>,
}

impl ExtrasInner {
    fn is_empty(&self) -> bool {
        self.fields.is_empty()
            && self.nulls.is_empty()
            && self.number_forms.is_empty()
            && self.exact.is_empty()
    }
}

impl PartialEq for ExtrasInner {
    fn eq(&self, other: &Self) -> bool {
        // Each list names a field at most once: equal lengths and inclusion make equal sets.
        fn same<T>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
            a.len() == b.len() && a.iter().all(|x| b.iter().any(|y| eq(x, y)))
        }
        self.fields == other.fields
            && same(&self.nulls, &other.nulls, PartialEq::eq)
            && same(&self.number_forms, &other.number_forms, PartialEq::eq)
            && same(&self.exact, &other.exact, |(k1, v1), (k2, v2)| {
                k1 == k2 && v1.get() == v2.get()
            })
    }
}

impl Extras {
    /// The fields of the object that this crate does not model, in no particular order.
    pub fn unknown_fields(&self) -> Option<&Map<String, Value>> {
        self.0
            .as_deref()
            .map(|inner| &inner.fields)
            .filter(|f| !f.is_empty())
    }

    /// Mutable access to the unmodelled fields, to add or remove extension data.
    pub fn unknown_fields_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.0.get_or_insert_with(Default::default).fields
    }

    /// True when nothing beyond the modelled fields was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.as_deref().is_none_or(|inner| {
            inner.fields.is_empty() && inner.nulls.is_empty() && inner.number_forms.is_empty()
        })
    }

    pub(crate) fn insert_unknown(&mut self, key: String, value: Value) {
        self.unknown_fields_mut().insert(key, value);
    }

    /// Records an unknown field read from the wire, with its exact text if it has one.
    ///
    /// # Errors
    ///
    /// When the field was already recorded: a key given twice.
    pub(crate) fn insert_unknown_checked<E: de::Error>(
        &mut self,
        key: String,
        value: UnknownValue,
    ) -> Result<(), E> {
        let inner = self.0.get_or_insert_with(Default::default);
        if inner.fields.contains_key(&key) {
            return Err(duplicate(&key));
        }
        if let Some(exact) = value.exact {
            inner.exact.push((key.clone(), exact));
        }
        inner.fields.insert(key, value.value);
        Ok(())
    }

    /// True when `key` is one of the unknown fields.
    pub(crate) fn has_unknown(&self, key: &str) -> bool {
        self.0
            .as_deref()
            .is_some_and(|inner| inner.fields.contains_key(key))
    }

    pub(crate) fn mark_null(&mut self, field: &'static str) {
        let inner = self.0.get_or_insert_with(Default::default);
        if !inner.nulls.contains(&field) {
            inner.nulls.push(field);
        }
    }

    /// Forgets every explicit null (for a conversion to a version where `null` means
    /// something else, such as a v2 patch's "clear").
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn forget_nulls(&mut self) {
        if let Some(inner) = self.0.as_deref_mut() {
            inner.nulls.clear();
        }
    }

    pub(crate) fn unmark_null(&mut self, field: &'static str) {
        if let Some(inner) = self.0.as_deref_mut() {
            inner.nulls.retain(|f| *f != field);
        }
    }

    /// Remembers that the number field `field` was received in the other literal form.
    pub(crate) fn mark_number_form(&mut self, field: &'static str) {
        let inner = self.0.get_or_insert_with(Default::default);
        if !inner.number_forms.contains(&field) {
            inner.number_forms.push(field);
        }
    }

    pub(crate) fn unmark_number_form(&mut self, field: &'static str) {
        if let Some(inner) = self.0.as_deref_mut() {
            inner.number_forms.retain(|f| *f != field);
        }
    }

    /// True when the number field `field` was received as a literal of the other form than
    /// its Rust type: an integer literal (`5`) for an `f64` field, or an integral float literal
    /// (`5.0`, an integer to JSON Schema) for an integer field. It is written back in that
    /// form as long as its value has one.
    pub fn number_form_kept(&self, field: &str) -> bool {
        self.0
            .as_deref()
            .is_some_and(|inner| inner.number_forms.contains(&field))
    }

    /// True when the optional field `field` was received as an explicit `null`.
    pub fn was_null(&self, field: &str) -> bool {
        self.0
            .as_deref()
            .is_some_and(|inner| inner.nulls.contains(&field))
    }

    /// Writes the explicit `null` of an absent optional field, if it was received that way.
    pub(crate) fn serialize_null<M: SerializeMap>(
        &self,
        map: &mut M,
        field: &'static str,
    ) -> Result<(), M::Error> {
        if self.was_null(field) {
            map.serialize_entry(field, &())?;
        }
        Ok(())
    }

    /// Writes the unmodelled fields after the modelled ones: as received, for a field whose
    /// exact text was kept and whose value is unchanged.
    pub(crate) fn serialize_unknown<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        if let Some(inner) = self.0.as_deref() {
            for (k, v) in &inner.fields {
                match inner.exact_text(k, v) {
                    Some(exact) => map.serialize_entry(k, exact)?,
                    None => map.serialize_entry(k, v)?,
                }
            }
        }
        Ok(())
    }
}

impl ExtrasInner {
    /// The exact text kept for the unknown field `key`, if its value is still `value`.
    fn exact_text(&self, key: &str, value: &Value) -> Option<&RawValue> {
        if self.exact.is_empty() {
            return None;
        }
        let (_, exact) = self.exact.iter().find(|(k, _)| k == key)?;
        let received = crate::wire_value::unknown_from_text(exact.get()).ok()?;
        (received.value == *value).then_some(&**exact)
    }
}

impl fmt::Debug for Extras {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_deref() {
            None => f.write_str("Extras"),
            Some(inner) => f
                .debug_struct("Extras")
                .field("unknown_fields", &inner.fields)
                .field("nulls", &inner.nulls)
                .field("number_forms", &inner.number_forms)
                .field("exact", &inner.exact)
                .finish(),
        }
    }
}

/// Implemented by every wire object: writes its fields into an already open JSON object.
///
/// Tagged unions use it to write the tag first and then the variant's fields, without
/// buffering.
pub trait WireFields {
    /// Writes every present field (and the [`Extras`]) as entries of `map`.
    ///
    /// # Errors
    ///
    /// Whatever the serializer reports.
    fn serialize_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;

    /// The unmodelled fields and explicit nulls this value carries.
    fn extras(&self) -> &Extras;

    /// Mutable access to the unmodelled fields and explicit nulls.
    fn extras_mut(&mut self) -> &mut Extras;
}

impl<T: WireFields> WireFields for Box<T> {
    fn serialize_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        (**self).serialize_fields(map)
    }

    fn extras(&self) -> &Extras {
        (**self).extras()
    }

    fn extras_mut(&mut self) -> &mut Extras {
        (**self).extras_mut()
    }
}

/// What a tagged union needs of a variant's payload: writing its fields into the union's
/// object (after the tag) and telling whether it holds a field (to refuse a tag given twice).
///
/// Every wire object has it; a tagged union declared `nested = true` has it too, for a union
/// that is the payload of another union's variant.
pub(crate) trait VariantFields {
    /// Writes the payload's fields as entries of `map`.
    ///
    /// # Errors
    ///
    /// Whatever the serializer reports.
    fn serialize_variant_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;

    /// True when the payload holds the field `key` among those it does not model.
    fn has_field(&self, key: &str) -> bool;
}

impl<T: WireFields> VariantFields for T {
    fn serialize_variant_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        self.serialize_fields(map)
    }

    fn has_field(&self, key: &str) -> bool {
        self.extras().has_unknown(key)
    }
}

/// The type of a union variant's payload: `T`, or `Box<T>` for a variant declared `as boxed`
/// (a large payload, boxed so that the union stays small to move).
macro_rules! maybe_box {
    ($t:ty) => { $t };
    ($t:ty, boxed) => { Box<$t> };
}
pub(crate) use maybe_box;

/// Serializes a wire object as a JSON object.
pub(crate) fn serialize_object<T: WireFields, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    value.serialize_fields(&mut map)?;
    map.end()
}

/// The outcome of decoding an optional field.
pub(crate) enum Slot<T> {
    /// A value of the field's type, and whether its number literal had the other form.
    Value(T, bool),
    /// An explicit `null`, allowed by the schema.
    Null,
    /// An invalid value the schema says to treat as absent (`x-deserialize-default-on-error`).
    Invalid,
}

/// Decodes the value of a required field.
pub(crate) struct Required<T, const F: u8>(PhantomData<T>);

impl<T, const F: u8> Required<T, F> {
    pub(crate) fn new() -> Self {
        Self(PhantomData)
    }
}

/// How a required field's value was written, beyond the value itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// As we would write it.
    Plain,
    /// A number literal of the other form (see [`Extras::number_form_kept`]).
    OtherForm,
    /// An explicit `null` that took the default ([`NULL_DEFAULT`]).
    Null,
}

impl Mark {
    fn from_other_form(other_form: bool) -> Self {
        if other_form {
            Self::OtherForm
        } else {
            Self::Plain
        }
    }

    /// Records the mark of the field `json` in `extras`.
    pub(crate) fn record(self, extras: &mut Extras, json: &'static str) {
        match self {
            Mark::Plain => {
                extras.unmark_number_form(json);
                extras.unmark_null(json);
            }
            Mark::OtherForm => {
                extras.mark_number_form(json);
                extras.unmark_null(json);
            }
            Mark::Null => {
                extras.unmark_number_form(json);
                extras.mark_null(json);
            }
        }
    }
}

impl<'de, T, const F: u8> DeserializeSeed<'de> for Required<T, F>
where
    T: Deserialize<'de> + LenientValue,
{
    /// The value, and how it was written.
    type Value = (T, Mark);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(T, Mark), D::Error> {
        if F & NULL_DEFAULT != 0 {
            return match Optional::<T, F>::new().deserialize(deserializer)? {
                Slot::Value(value, other_form) => Ok((value, Mark::from_other_form(other_form))),
                Slot::Null | Slot::Invalid => T::lenient_default()
                    .map(|value| (value, Mark::Null))
                    .ok_or_else(|| de::Error::custom("null, and the field's type has no default")),
            };
        }
        self.deserialize_value(deserializer)
            .map(|(value, other_form)| (value, Mark::from_other_form(other_form)))
    }
}

impl<T: LenientValue, const F: u8> Required<T, F> {
    /// Decodes the value, and whether it was a number literal of the other form.
    fn deserialize_value<'de, D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<(T, bool), D::Error>
    where
        T: Deserialize<'de>,
    {
        if F & (DOE | SKIP) != 0 && crate::mode::lenient_mode() {
            let value = unique_value(deserializer)?;
            match from_buffered::<T>(value, F) {
                Ok(v) => Ok(v),
                // The schema prescribes the default for an invalid value.
                Err(e) if F & DOE != 0 => T::lenient_default()
                    .map(|v| (v, false))
                    .ok_or_else(|| de::Error::custom(e)),
                Err(e) => Err(de::Error::custom(e)),
            }
        } else if T::NUMBER {
            let number = serde_json::Number::deserialize(deserializer)?;
            from_number::<T, D::Error>(&number)
        } else {
            let value = T::deserialize_checked(deserializer)?;
            if F & NON_EMPTY != 0 && value.is_empty_text() {
                return Err(de::Error::invalid_length(0, &"a non-empty string"));
            }
            Ok((value, false))
        }
    }
}

/// True when `value` is its type's default, the value a [`NULL_DEFAULT`] field takes for `null`.
pub(crate) fn is_lenient_default<T: LenientValue + PartialEq>(value: &T) -> bool {
    T::lenient_default().is_some_and(|default| *value == default)
}

/// Decodes a buffered field value: numbers by [`LenientValue::from_number`], anything else by
/// [`LenientValue::from_lenient`].
fn from_buffered<T: LenientValue>(value: Value, flags: u8) -> Result<(T, bool), serde_json::Error> {
    if T::NUMBER {
        match &value {
            Value::Number(number) => from_number(number),
            other => Err(de::Error::invalid_type(unexpected(other), &T::EXPECTED)),
        }
    } else {
        T::from_lenient(value, flags).map(|v| (v, false))
    }
}

/// Converts a JSON number for a number field, or explains why it does not fit.
fn from_number<T: LenientValue, E: de::Error>(number: &serde_json::Number) -> Result<(T, bool), E> {
    T::from_number(number).ok_or_else(|| {
        let value = Value::Number(number.clone());
        E::invalid_value(unexpected(&value), &T::EXPECTED)
    })
}

/// Decodes the value of an optional field, telling an explicit `null` apart.
pub(crate) struct Optional<T, const F: u8>(PhantomData<T>);

impl<T, const F: u8> Optional<T, F> {
    pub(crate) fn new() -> Self {
        Self(PhantomData)
    }
}

impl<'de, T, const F: u8> DeserializeSeed<'de> for Optional<T, F>
where
    T: Deserialize<'de> + LenientValue,
{
    type Value = Slot<T>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot<T>, D::Error> {
        let not_nullable = || {
            de::Error::invalid_type(
                de::Unexpected::Unit,
                &"a value (this field is optional but not nullable)",
            )
        };
        if F & (DOE | SKIP) != 0 && crate::mode::lenient_mode() {
            let value = unique_value(deserializer)?;
            if value.is_null() {
                return if F & (NULLABLE | NULL_DEFAULT) != 0 {
                    Ok(Slot::Null)
                } else if F & DOE != 0 {
                    Ok(Slot::Invalid)
                } else {
                    Err(not_nullable())
                };
            }
            match from_buffered::<T>(value, F) {
                Ok((v, other_form)) => Ok(Slot::Value(v, other_form)),
                Err(_) if F & DOE != 0 => Ok(Slot::Invalid),
                Err(e) => Err(de::Error::custom(e)),
            }
        } else if T::NUMBER {
            match Option::<serde_json::Number>::deserialize(deserializer)? {
                Some(number) => {
                    from_number::<T, D::Error>(&number).map(|(v, other)| Slot::Value(v, other))
                }
                None if F & (NULLABLE | NULL_DEFAULT) != 0 => Ok(Slot::Null),
                None => Err(not_nullable()),
            }
        } else {
            match deserializer.deserialize_option(OptionVisitor::<T>(PhantomData))? {
                Some(v) => Ok(Slot::Value(v, false)),
                None if F & (NULLABLE | NULL_DEFAULT) != 0 => Ok(Slot::Null),
                None => Err(not_nullable()),
            }
        }
    }
}

/// Reads `null` as `None` and anything else with [`LenientValue::deserialize_checked`].
struct OptionVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de> + LenientValue> Visitor<'de> for OptionVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        T::deserialize_checked(d).map(Some)
    }
}

/// How a type decodes from a buffered JSON value in lenient mode.
///
/// Arrays apply `x-deserialize-skip-invalid-items` (the `SKIP` flag) here; every other type
/// decodes normally.
pub(crate) trait LenientValue: Sized {
    /// Decodes from a buffered value; `flags` are the field's flags.
    fn from_lenient(value: Value, flags: u8) -> Result<Self, serde_json::Error>;

    /// The value an invalid required field falls back to, if the type has one.
    fn lenient_default() -> Option<Self>;

    /// True for number types, whose fields decode through [`from_number`](Self::from_number)
    /// and keep the form of their literal (see [`Extras::number_form_kept`]): JSON Schema's
    /// `integer` includes integral floats (`5.0`) and its `number` integer literals (`5`), and
    /// either is written back as it came.
    const NUMBER: bool = false;

    /// What a number field expects, for error messages.
    const EXPECTED: &'static str = "a number";

    /// Converts a JSON number: the value, and whether its literal had the other form than the
    /// type's own (an integer literal for a float type, `5.0` for an integer type).
    fn from_number(_number: &serde_json::Number) -> Option<(Self, bool)> {
        None
    }

    /// The value as a literal of the other form, when it has one (`5` for `5.0_f64`, `5.0` for
    /// `5_u32`).
    fn other_form(&self) -> Option<serde_json::Number> {
        None
    }

    /// Decodes the value as `Deserialize` does, except that the JSON objects and maps held
    /// directly (a [`Value`], `_meta`, a map field) refuse duplicate keys, as the wire types do.
    fn deserialize_checked<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>
    where
        Self: Deserialize<'de>,
    {
        Self::deserialize(deserializer)
    }

    /// True for an empty string (the only value a [`NON_EMPTY`] field refuses).
    fn is_empty_text(&self) -> bool {
        false
    }
}

impl LenientValue for f64 {
    fn from_lenient(value: Value, _flags: u8) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn lenient_default() -> Option<Self> {
        Some(0.0)
    }

    const NUMBER: bool = true;
    const EXPECTED: &'static str = "a number";

    fn from_number(number: &serde_json::Number) -> Option<(Self, bool)> {
        number.as_f64().map(|v| (v, !number.is_f64()))
    }

    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    fn other_form(&self) -> Option<serde_json::Number> {
        // Integral and below 2^63 in magnitude, so the cast is exact.
        const LIMIT: f64 = 9_223_372_036_854_775_808.0;
        (self.is_finite() && self.fract() == 0.0 && self.abs() < LIMIT)
            .then(|| serde_json::Number::from(*self as i64))
    }
}

/// Reads an integer of type `T` from a JSON number: an integer literal, or an integral float
/// literal (which JSON Schema counts as an integer), reported as the other form.
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
pub(crate) fn integer_from_number<T: TryFrom<i128>>(
    number: &serde_json::Number,
) -> Option<(T, bool)> {
    if let Some(u) = number.as_u64() {
        return T::try_from(i128::from(u)).ok().map(|v| (v, false));
    }
    if let Some(i) = number.as_i64() {
        return T::try_from(i128::from(i)).ok().map(|v| (v, false));
    }
    let f = number.as_f64()?;
    // `as` saturates, so a float beyond i128 fails the round trip and is rejected.
    let i = f as i128;
    (f.fract() == 0.0 && i as f64 == f)
        .then(|| T::try_from(i).ok())
        .flatten()
        .map(|v| (v, true))
}

/// Implements [`LenientValue`] for integer types.
macro_rules! lenient_integer {
    ($($t:ty => $expected:literal),* $(,)?) => {
        $(
            impl LenientValue for $t {
                fn from_lenient(value: Value, _flags: u8) -> Result<Self, serde_json::Error> {
                    serde_json::from_value(value)
                }

                fn lenient_default() -> Option<Self> {
                    Some(0)
                }

                const NUMBER: bool = true;
                const EXPECTED: &'static str = $expected;

                fn from_number(number: &serde_json::Number) -> Option<(Self, bool)> {
                    integer_from_number(number)
                }

                #[allow(clippy::cast_precision_loss)]
                fn other_form(&self) -> Option<serde_json::Number> {
                    serde_json::Number::from_f64(*self as f64)
                }
            }
        )*
    };
}

lenient_integer!(
    u16 => "an integer from 0 to 65535",
    u32 => "an integer from 0 to 4294967295",
    u64 => "a non-negative integer below 2^64",
    i32 => "an integer of 32 bits",
    i64 => "an integer of 64 bits",
);

/// Writes a field's value, in the other number form when it was received that way.
pub(crate) struct FieldOut<'a, T>(pub(crate) &'a T, pub(crate) bool);

impl<T: serde::Serialize + LenientValue> serde::Serialize for FieldOut<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if T::NUMBER && self.1 {
            if let Some(number) = self.0.other_form() {
                return number.serialize(serializer);
            }
        }
        self.0.serialize(serializer)
    }
}

/// Implements [`LenientValue`] for a type that decodes from a buffered value as usual.
macro_rules! lenient_plain {
    ($($t:ty),* $(,)?) => {
        $(
            impl $crate::wire::LenientValue for $t {
                fn from_lenient(
                    value: ::serde_json::Value,
                    _flags: u8,
                ) -> Result<Self, ::serde_json::Error> {
                    ::serde_json::from_value(value)
                }

                fn lenient_default() -> Option<Self> {
                    Some(<$t as ::core::default::Default>::default())
                }
            }
        )*
    };
}

/// Implements [`LenientValue`] for a type with no default (only ever used on non-defaulting
/// fields, where the fallback is never taken).
macro_rules! lenient_no_default {
    ($($t:ty),* $(,)?) => {
        $(
            impl $crate::wire::LenientValue for $t {
                fn from_lenient(
                    value: ::serde_json::Value,
                    _flags: u8,
                ) -> Result<Self, ::serde_json::Error> {
                    ::serde_json::from_value(value)
                }

                fn lenient_default() -> Option<Self> {
                    None
                }
            }
        )*
    };
}
pub(crate) use lenient_no_default;

lenient_plain!(bool);

impl LenientValue for String {
    fn from_lenient(value: Value, _flags: u8) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn lenient_default() -> Option<Self> {
        Some(String::new())
    }

    fn is_empty_text(&self) -> bool {
        self.is_empty()
    }
}

impl LenientValue for Value {
    fn from_lenient(value: Value, _flags: u8) -> Result<Self, serde_json::Error> {
        Ok(value)
    }

    fn lenient_default() -> Option<Self> {
        Some(Value::Null)
    }

    fn deserialize_checked<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        unique_value(deserializer)
    }
}

impl LenientValue for Map<String, Value> {
    fn from_lenient(value: Value, _flags: u8) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn lenient_default() -> Option<Self> {
        Some(Map::new())
    }

    fn deserialize_checked<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(UniqueObject)
    }
}

/// Reads a JSON object into a [`Map`], refusing duplicate keys at every depth.
struct UniqueObject;

impl<'de> Visitor<'de> for UniqueObject {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = Map::new();
        crate::wire_value::unique_entries(&mut map, &mut object)?;
        Ok(object)
    }
}

/// Reads a JSON object into a `BTreeMap`, refusing duplicate keys.
struct UniqueBTreeMap<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for UniqueBTreeMap<T> {
    type Value = std::collections::BTreeMap<String, T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = std::collections::BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(duplicate(&key));
            }
            let value = map.next_value::<T>()?;
            out.insert(key, value);
        }
        Ok(out)
    }
}

impl<T> LenientValue for Vec<T>
where
    T: serde::de::DeserializeOwned,
{
    fn from_lenient(value: Value, flags: u8) -> Result<Self, serde_json::Error> {
        if flags & SKIP == 0 {
            return serde_json::from_value(value);
        }
        match value {
            // Keep the items that decode; the schema says to skip the others.
            Value::Array(items) => Ok(items
                .into_iter()
                .filter_map(|item| T::deserialize(item).ok())
                .collect()),
            other => Err(de::Error::invalid_type(unexpected(&other), &"an array")),
        }
    }

    fn lenient_default() -> Option<Self> {
        Some(Vec::new())
    }
}

impl<T> LenientValue for std::collections::BTreeMap<String, T>
where
    T: serde::de::DeserializeOwned,
{
    fn from_lenient(value: Value, _flags: u8) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn lenient_default() -> Option<Self> {
        Some(Self::new())
    }

    fn deserialize_checked<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(UniqueBTreeMap::<T>(PhantomData))
    }
}

impl<T: LenientValue> LenientValue for Box<T> {
    fn from_lenient(value: Value, flags: u8) -> Result<Self, serde_json::Error> {
        T::from_lenient(value, flags).map(Box::new)
    }

    fn lenient_default() -> Option<Self> {
        T::lenient_default().map(Box::new)
    }
}

/// Describes a JSON value for error messages.
pub(crate) fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                de::Unexpected::Unsigned(u)
            } else if let Some(i) = n.as_i64() {
                de::Unexpected::Signed(i)
            } else {
                n.as_f64()
                    .map_or(de::Unexpected::Other("number"), de::Unexpected::Float)
            }
        }
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

/// Builds an error raised at `path` inside a value decoded on its own (a buffered object, a
/// field taken apart by hand), for a caller whose path tracker cannot see inside that value.
///
/// The path travels as a prefix of the message (`` at `path`: ... ``, the form
/// [`DecodeError`](crate::DecodeError) displays), joined to any path `error` already carries;
/// [`crate::decode`] moves it into [`DecodeError::path`](crate::DecodeError::path).
pub(crate) fn error_at<E: de::Error>(path: &str, error: impl fmt::Display) -> E {
    let message = error.to_string();
    let (inner, rest) = split_path(&message);
    let joined = join_path(path, inner.unwrap_or_default());
    if joined.is_empty() {
        E::custom(rest)
    } else {
        E::custom(format_args!("at `{joined}`: {rest}"))
    }
}

/// Splits the path prefix written by [`error_at`] off an error message.
pub(crate) fn split_path(message: &str) -> (Option<&str>, &str) {
    if let Some(rest) = message.strip_prefix("at `") {
        if let Some(end) = rest.find("`: ") {
            return (Some(&rest[..end]), &rest[end + 3..]);
        }
    }
    (None, message)
}

/// Joins an outer field path and a path inside it (`.` and `""` are the empty path).
pub(crate) fn join_path(outer: &str, inner: &str) -> String {
    let outer = if outer == "." { "" } else { outer };
    let inner = if inner == "." { "" } else { inner };
    if outer.is_empty() {
        inner.to_owned()
    } else if inner.is_empty() {
        outer.to_owned()
    } else if inner.starts_with('[') {
        format!("{outer}{inner}")
    } else {
        format!("{outer}.{inner}")
    }
}

/// Decodes a buffered value with `seed`; when that fails, decodes it again with a path tracker
/// so that the error names the offending field inside the value (see [`error_at`]).
pub(crate) fn decode_tracked<'a, S: DeserializeSeed<'a>>(
    make_seed: impl Fn() -> S,
    value: &'a Value,
) -> Result<S::Value, serde_json::Error> {
    make_seed().deserialize(value).or_else(|_| {
        let mut track = serde_path_to_error::Track::new();
        match make_seed().deserialize(serde_path_to_error::Deserializer::new(value, &mut track)) {
            Ok(v) => Ok(v),
            Err(e) => Err(error_at(&track.path().to_string(), e)),
        }
    })
}

/// Decodes `T` from a buffered value, naming the offending field on failure.
pub(crate) fn decode_buffered<T: serde::de::DeserializeOwned>(
    value: &Value,
) -> Result<T, serde_json::Error> {
    decode_tracked(|| PhantomData::<T>, value)
}

/// The position of `name` in `fields`, computed at compile time so that a decoded key is
/// matched to its field by index rather than by comparing strings again.
pub(crate) const fn field_index(fields: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < fields.len() {
        let (a, b) = (fields[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("a field name missing from the field list");
}

/// A map key: either one of the names a visitor expects, or another one, kept for [`Extras`].
pub(crate) enum Key {
    /// The index of the expected name.
    Known(usize),
    /// A name the visitor does not model.
    Unknown(String),
}

/// Reads a map key without allocating when it is one of `names`.
pub(crate) struct KeySeed(pub(crate) &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(match self.0.iter().position(|name| *name == v) {
            Some(i) => Key::Known(i),
            None => Key::Unknown(v.to_owned()),
        })
    }
}

/// Reads a tag value (the discriminator of a union) as a string, borrowing when possible.
///
/// With `any`, a value that is not a string is returned as [`Tag::Other`] instead of failing
/// (for unions whose untagged branch accepts any tag field).
pub(crate) struct TagSeed {
    pub(crate) any: bool,
}

/// A tag value, borrowed from the input when the input allows it.
pub(crate) enum Tag<'de> {
    Borrowed(&'de str),
    Owned(String),
    /// Not a string (only with [`TagSeed::any`]).
    Other(Value),
}

impl Tag<'_> {
    /// The tag string (empty for [`Tag::Other`]).
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Tag::Borrowed(s) => s,
            Tag::Owned(s) => s,
            Tag::Other(_) => "",
        }
    }
}

impl<'de> DeserializeSeed<'de> for TagSeed {
    type Value = Tag<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tag<'de>, D::Error> {
        if self.any {
            deserializer.deserialize_any(self)
        } else {
            deserializer.deserialize_str(self)
        }
    }
}

impl<'de> Visitor<'de> for TagSeed {
    type Value = Tag<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tag string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Tag<'de>, E> {
        Ok(Tag::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tag<'de>, E> {
        Ok(Tag::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Tag<'de>, E> {
        Ok(Tag::Owned(v))
    }

    // Only reached with `any`: keep what is not a string as a JSON value.
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Tag<'de>, E> {
        Ok(Tag::Other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Tag<'de>, E> {
        Ok(Tag::Other(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tag<'de>, E> {
        Ok(Tag::Other(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Tag<'de>, E> {
        Ok(Tag::Other(Value::from(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Tag<'de>, E> {
        Ok(Tag::Other(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Tag<'de>, E> {
        Ok(Tag::Other(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Tag<'de>, D::Error> {
        unique_value(d).map(Tag::Other)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Tag<'de>, A::Error> {
        unique_value(de::value::SeqAccessDeserializer::new(seq)).map(Tag::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Tag<'de>, A::Error> {
        unique_value(de::value::MapAccessDeserializer::new(map)).map(Tag::Other)
    }
}

/// Reads the rest of a map into a JSON object (used for unknown variants and the slow path),
/// refusing a key already in it.
pub(crate) fn drain_map<'de, A: MapAccess<'de>>(
    map: &mut A,
    into: &mut Map<String, Value>,
) -> Result<(), A::Error> {
    crate::wire_value::unique_entries(map, into)
}

/// Reads the rest of a map into `extras` as unknown fields (keeping exact numbers), refusing
/// a key given twice.
pub(crate) fn drain_unknown<'de, A: MapAccess<'de>>(
    map: &mut A,
    extras: &mut Extras,
) -> Result<(), A::Error> {
    while let Some(key) = map.next_key::<String>()? {
        let value = map.next_value_seed(UnknownSeed)?;
        extras.insert_unknown_checked(key, value)?;
    }
    Ok(())
}

/// The entries buffered before a union's tag, as a JSON object, refusing a key given twice.
pub(crate) fn collect_buffered<E: de::Error>(
    buffered: Vec<(String, Buffered<'_>)>,
) -> Result<Map<String, Value>, E> {
    let mut object = Map::new();
    for (key, value) in buffered {
        if object.contains_key(&key) {
            return Err(duplicate(&key));
        }
        object.insert(key, value.into_value()?);
    }
    Ok(object)
}

/// Skips the rest of a map.
pub(crate) fn skip_map<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    while map.next_key::<IgnoredAny>()?.is_some() {
        map.next_value::<IgnoredAny>()?;
    }
    Ok(())
}

/// Converts a `serde_json` error raised while decoding a buffered value into the caller's error.
pub(crate) fn json_err<E: de::Error>(e: serde_json::Error) -> E {
    E::custom(e)
}

/// Decodes `T` from the remaining entries of `map` (the fast path of a tagged union, after the
/// tag was read first).
pub(crate) fn from_rest<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    map: A,
) -> Result<T, A::Error> {
    T::deserialize(de::value::MapAccessDeserializer::new(map))
}

/// Builds the JSON Schema of a field from the schema of its type.
pub(crate) fn field_schema(
    mut schema: schemars::Schema,
    description: &str,
    flags: u8,
    nullable: bool,
) -> schemars::Schema {
    if nullable {
        schema = nullable_schema(schema);
    }
    let description = description.trim();
    let obj = schema.ensure_object();
    // Generators handle `$ref` best alone: move it under `allOf` when keywords join it.
    let has_extra = !description.is_empty() || flags & (DOE | SKIP | NULL_DEFAULT) != 0;
    if has_extra && obj.contains_key("$ref") {
        let reference = obj.remove("$ref").expect("checked above");
        obj.insert(
            "allOf".into(),
            Value::Array(vec![serde_json::json!({ "$ref": reference })]),
        );
    }
    if !description.is_empty() {
        obj.insert("description".into(), Value::String(description.to_owned()));
    }
    if flags & DOE != 0 {
        obj.insert("x-deserialize-default-on-error".into(), Value::Bool(true));
    }
    if flags & SKIP != 0 {
        obj.insert("x-deserialize-skip-invalid-items".into(), Value::Bool(true));
    }
    if flags & NULL_DEFAULT != 0 {
        obj.insert("x-deserialize-default-on-null".into(), Value::Bool(true));
    }
    if flags & NON_EMPTY != 0 {
        obj.insert("minLength".into(), Value::from(1));
    }
    schema
}

/// Allows `null` besides what `schema` allows.
pub(crate) fn nullable_schema(schema: schemars::Schema) -> schemars::Schema {
    let mut obj = schema.to_value();
    // A schema that allows anything (`{}` or `true`, a raw JSON field) allows `null` already.
    if obj == Value::Bool(true) || obj.as_object().is_some_and(Map::is_empty) {
        return schemars::Schema::try_from(obj).expect("an object or `true` is a schema");
    }
    if let Some(map) = obj.as_object_mut() {
        // A plain `type` keyword (no `$ref`, no combinators) widens in place, as in the
        // official schema (`"type": ["string", "null"]`).
        let simple = !map.contains_key("$ref")
            && !map.contains_key("anyOf")
            && !map.contains_key("oneOf")
            && !map.contains_key("allOf")
            && !map.contains_key("const")
            && !map.contains_key("enum");
        if simple {
            if let Some(Value::String(t)) = map.get("type").cloned() {
                map.insert("type".into(), serde_json::json!([t, "null"]));
                return schemars::Schema::try_from(obj).expect("an object is a schema");
            }
        }
    }
    schemars::Schema::try_from(serde_json::json!({ "anyOf": [obj, { "type": "null" }] }))
        .expect("an object is a schema")
}

/// Joins the lines of a doc comment into one description.
pub(crate) fn doc_text(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines {
        let line = line.strip_prefix(' ').unwrap_or(line);
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out.trim().to_owned()
}

/// Declares a wire object: a struct with hand-written `Serialize`, `Deserialize` (keeping
/// unknown fields and explicit nulls) and `JsonSchema`, plus chainable setters.
///
/// Field kinds:
/// - `req name: T = "json"`: required;
/// - `opt name: T = "json" [FLAGS]`: optional, stored as `Option<T>`;
/// - `raw name = "json" [FLAGS]`: optional, any JSON value (an explicit `null` is `Some(Null)`);
/// - `patch name: T = "json" [FLAGS]`: a field of a v2 upsert, stored as
///   [`Patch<T>`](crate::v2::Patch): omitted (`Unchanged`), `null` (`Clear`) and a value (`Set`)
///   are three states, each written back as it came (feature `unstable_protocol_v2`).
///
/// Flags: `DOE` (default on error), `SKIP` (skip invalid items), `NULLABLE` (null allowed),
/// `NON_EMPTY` (a required string field that must not be empty), `NULL_DEFAULT` (`null` takes
/// the default, `x-deserialize-default-on-null`).
///
/// A field carrying file system paths says so after its type: `name: String as path` (one
/// path) or `name: Vec<String> as paths` (a list). Its setter then takes `impl AsRef<Path>`
/// (or any iterator of such) and stores the text of the paths, as the constructors do.
///
/// The constructor `new` is generated from one of two attributes before `pub struct`:
/// - `#[optional_fields(new)]` (every field optional): `new()` and `Default` give the value with
///   no field set;
/// - `#[new(a: impl Into<A>, b: impl AsRef<Path>, c: u32, d: impl IntoField<f64>)]`: `new`
///   takes exactly these arguments, in this order, each named after the field it sets (every
///   required field, no optional one); the optional fields start absent. An argument is
///   converted by its form: `.into()`, the text of the path, as is, `.into_field()`. A
///   required field left out does not compile; an optional one named is an unused variable.
///
/// `#[check(f)]` (after `#[schema_extend(..)]`) names a `fn(&Self) -> Result<(), String>` run on
/// every decoded value: for the requirements a flattened union adds to an object (the fields a
/// kind needs), which no single field can check.
///
/// A field may carry one `#[cfg(...)]` after its doc comment (a field of a draft feature): it
/// then exists, decodes, encodes and appears in the schema only when the condition holds, and
/// otherwise is an unknown field kept in [`Extras`] like any other.
macro_rules! wire_object {
    (
        $(#[doc = $doc:literal])*
        $(#[schema_extend($ext:expr)])?
        $(#[check($check:path)])?
        $(#[optional_fields($new:ident)])?
        $(#[new($($arg:tt)*)])?
        pub struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                $(#[cfg($fcfg:meta)])?
                $kind:ident $field:ident $(: $ty:ty $(as $conv:ident)?)? = $json:literal $([$($flag:ident)|+])?;
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        // `#[optional_fields(new)]` (every field optional): `Default` and `new()` are the value
        // with none set.
        $( #[derive(Default)] #[cfg_attr(any(), $new)] )?
        #[non_exhaustive]
        pub struct $name {
            $(
                $(#[doc = $fdoc])*
                $(#[cfg($fcfg)])?
                pub $field: $crate::wire::wire_field_ty!($kind $($ty)?),
            )*
            extras: $crate::wire::Extras,
        }

        impl $crate::wire::WireFields for $name {
            fn serialize_fields<M: ::serde::ser::SerializeMap>(
                &self,
                map: &mut M,
            ) -> Result<(), M::Error> {
                $( $(#[cfg($fcfg)])? $crate::wire::wire_object!(
                    @ser $kind self map $field $json (0 $($(| $crate::wire::$flag)+)?)
                ); )*
                self.extras.serialize_unknown(map)
            }

            fn extras(&self) -> &$crate::wire::Extras {
                &self.extras
            }

            fn extras_mut(&mut self) -> &mut $crate::wire::Extras {
                &mut self.extras
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::wire::serialize_object(self, serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$($(#[cfg($fcfg)])? $json),*];

                struct ObjectVisitor;

                impl<'de> ::serde::de::Visitor<'de> for ObjectVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " object"))
                    }

                    #[allow(unused_mut, unused_variables, unused_assignments)]
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        const { assert!(FIELDS.len() <= 64, "one bit per field in `seen`") };
                        $( $(#[cfg($fcfg)])? let mut $field: $crate::wire::wire_field_ty!(@slot $kind $($ty)?) = None; )*
                        let mut extras = $crate::wire::Extras::default();
                        // The known fields read so far: a field given twice is refused.
                        let mut seen = 0_u64;
                        while let Some(key) = map.next_key_seed($crate::wire::KeySeed(FIELDS))? {
                            match key {
                                $crate::wire::Key::Unknown(name) => {
                                    let value = map.next_value_seed($crate::wire::UnknownSeed)?;
                                    extras.insert_unknown_checked(name, value)?;
                                }
                                $crate::wire::Key::Known(index) => {
                                    if seen & (1 << index) != 0 {
                                        return Err($crate::wire::duplicate(FIELDS[index]));
                                    }
                                    seen |= 1 << index;
                                    $(
                                        $(#[cfg($fcfg)])?
                                        if index == const { $crate::wire::field_index(FIELDS, $json) } {
                                            $crate::wire::wire_object!(
                                                @de $kind map extras $field $json
                                                ($($ty)?) (0 $($(| $crate::wire::$flag)+)?)
                                            );
                                            continue;
                                        }
                                    )*
                                }
                            }
                        }
                        $( $(#[cfg($fcfg)])? $crate::wire::wire_object!(@finish $kind $field $json); )*
                        let value = $name { $($(#[cfg($fcfg)])? $field,)* extras };
                        $( $check(&value).map_err(<A::Error as ::serde::de::Error>::custom)?; )?
                        Ok(value)
                    }
                }

                deserializer.deserialize_map(ObjectVisitor)
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            #[allow(unused_mut, unused_variables)] // A struct without fields.
            fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                let mut properties = ::serde_json::Map::new();
                #[allow(unused_mut)]
                let mut required: Vec<::serde_json::Value> = Vec::new();
                $(
                    $(#[cfg($fcfg)])?
                    {
                        let schema = $crate::wire::wire_object!(
                            @schema $kind generator ($($ty)?) (0 $($(| $crate::wire::$flag)+)?)
                            &[$($fdoc),*]
                        );
                        properties.insert($json.to_owned(), schema.to_value());
                        $crate::wire::wire_object!(@required $kind required $json);
                    }
                )*
                let mut object = ::serde_json::Map::new();
                object.insert("type".into(), "object".into());
                object.insert(
                    "description".into(),
                    $crate::wire::doc_text(&[$($doc),*]).into(),
                );
                object.insert("properties".into(), properties.into());
                if !required.is_empty() {
                    object.insert("required".into(), required.into());
                }
                object.insert("additionalProperties".into(), true.into());
                $( $ext(&mut object); )?
                ::schemars::Schema::from(object)
            }
        }

        impl $crate::wire::LenientValue for $name {
            fn from_lenient(value: ::serde_json::Value, _flags: u8) -> Result<Self, ::serde_json::Error> {
                ::serde_json::from_value(value)
            }

            fn lenient_default() -> Option<Self> {
                None
            }
        }

        $(
            impl $name {
                /// Builds the value with every optional field absent.
                pub fn $new() -> Self {
                    <Self as ::core::default::Default>::default()
                }
            }
        )?

        $crate::wire::wire_object!(
            @new $name [$($($arg)*)?] [$( $(#[cfg($fcfg)])? $kind $field )*]
        );

        impl $crate::ConvertibleField for $name {}

        #[allow(clippy::needless_update)]
        impl $name {
            $( $(#[cfg($fcfg)])? $crate::wire::wire_object!(@setter $kind $field $json $($ty $(as $conv)?)?); )*

            /// Applies `set` (one of this type's setters) to the value in `value`, if there
            /// is one: a setter chained with an `Option` (`None` changes nothing).
            #[must_use]
            pub fn maybe<V>(self, value: Option<V>, set: impl FnOnce(Self, V) -> Self) -> Self {
                match value {
                    Some(value) => set(self, value),
                    None => self,
                }
            }

            /// Sends the optional field `field` (its wire name, e.g. `"title"`) as an explicit
            /// `null`: the field is cleared and written as `null` until set again. Only for
            /// fields the schema lets be `null`; returns false (and changes nothing) for any
            /// other name.
            #[allow(unused_variables)]
            pub fn set_null(&mut self, field: &str) -> bool {
                $( $(#[cfg($fcfg)])? $crate::wire::wire_object!(
                    @null $kind self field $field $json (0 $($(| $crate::wire::$flag)+)?)
                ); )*
                false
            }

            /// The fields of the received object this crate does not model, and the optional
            /// fields received as an explicit `null`; both are written back on encoding.
            pub fn extras(&self) -> &$crate::wire::Extras {
                &self.extras
            }

            /// Mutable access to [`extras`](Self::extras), e.g. to attach extension fields.
            pub fn extras_mut(&mut self) -> &mut $crate::wire::Extras {
                &mut self.extras
            }
        }
    };

    // Serialization of one field.
    (@ser req $self:ident $map:ident $field:ident $json:literal ($flags:expr)) => {
        // A `null` received for a default-on-null field is written back while the field still
        // holds the default it took.
        if ($flags) & $crate::wire::NULL_DEFAULT != 0
            && $self.extras.was_null($json)
            && $crate::wire::is_lenient_default(&$self.$field)
        {
            $map.serialize_entry($json, &())?;
        } else {
            $map.serialize_entry(
                $json,
                &$crate::wire::FieldOut(&$self.$field, $self.extras.number_form_kept($json)),
            )?;
        }
    };
    (@ser opt $self:ident $map:ident $field:ident $json:literal ($flags:expr)) => {
        match &$self.$field {
            Some(value) => $map.serialize_entry(
                $json,
                &$crate::wire::FieldOut(value, $self.extras.number_form_kept($json)),
            )?,
            None => $self.extras.serialize_null($map, $json)?,
        }
    };
    (@ser patch $self:ident $map:ident $field:ident $json:literal ($flags:expr)) => {
        // `Unchanged` is the omitted field: nothing is written.
        match &$self.$field {
            $crate::v2::Patch::Unchanged => {}
            $crate::v2::Patch::Clear => $map.serialize_entry($json, &())?,
            $crate::v2::Patch::Set(value) => $map.serialize_entry(
                $json,
                &$crate::wire::FieldOut(value, $self.extras.number_form_kept($json)),
            )?,
        }
    };
    (@ser raw $self:ident $map:ident $field:ident $json:literal ($flags:expr)) => {
        if let Some(value) = &$self.$field {
            $map.serialize_entry($json, value)?;
        }
    };

    // Deserialization of one field's value.
    (@de req $map:ident $extras:ident $field:ident $json:literal ($ty:ty) ($flags:expr)) => {
        let (value, mark) =
            $map.next_value_seed($crate::wire::Required::<$ty, { $flags }>::new())?;
        $field = Some(value);
        mark.record(&mut $extras, $json);
    };
    (@de opt $map:ident $extras:ident $field:ident $json:literal ($ty:ty) ($flags:expr)) => {
        match $map.next_value_seed($crate::wire::Optional::<$ty, { $flags }>::new())? {
            $crate::wire::Slot::Value(value, other_form) => {
                $field = Some(value);
                $extras.unmark_null($json);
                if other_form {
                    $extras.mark_number_form($json);
                } else {
                    $extras.unmark_number_form($json);
                }
            }
            $crate::wire::Slot::Null => {
                $field = None;
                $extras.mark_null($json);
            }
            $crate::wire::Slot::Invalid => {
                $field = None;
                $extras.unmark_null($json);
            }
        }
    };
    (@de patch $map:ident $extras:ident $field:ident $json:literal ($ty:ty) ($flags:expr)) => {
        // A patch field always takes `null` (it clears); a value the schema says to treat as
        // absent (`x-deserialize-default-on-error`) leaves the field unchanged.
        match $map.next_value_seed(
            $crate::wire::Optional::<$ty, { ($flags) | $crate::wire::NULLABLE }>::new(),
        )? {
            $crate::wire::Slot::Value(value, other_form) => {
                $field = Some($crate::v2::Patch::Set(value));
                if other_form {
                    $extras.mark_number_form($json);
                } else {
                    $extras.unmark_number_form($json);
                }
            }
            $crate::wire::Slot::Null => $field = Some($crate::v2::Patch::Clear),
            $crate::wire::Slot::Invalid => $field = Some($crate::v2::Patch::Unchanged),
        }
    };
    (@de raw $map:ident $extras:ident $field:ident $json:literal () ($flags:expr)) => {
        $field = Some($map.next_value::<$crate::wire::UniqueValue>()?.0);
    };

    // Checks after the last key.
    (@finish req $field:ident $json:literal) => {
        let $field = match $field {
            Some(value) => value,
            None => return Err(<A::Error as ::serde::de::Error>::missing_field($json)),
        };
    };
    (@finish opt $field:ident $json:literal) => {};
    (@finish patch $field:ident $json:literal) => {
        let $field = $field.unwrap_or_default();
    };
    (@finish raw $field:ident $json:literal) => {};

    // The schema of one field.
    (@schema req $gen:ident ($ty:ty) ($flags:expr) $docs:expr) => {
        $crate::wire::field_schema($gen.subschema_for::<$ty>(), &$crate::wire::doc_text($docs), $flags, false)
    };
    (@schema opt $gen:ident ($ty:ty) ($flags:expr) $docs:expr) => {
        $crate::wire::field_schema(
            $gen.subschema_for::<$ty>(),
            &$crate::wire::doc_text($docs),
            $flags,
            ($flags) & $crate::wire::NULLABLE != 0,
        )
    };
    (@schema patch $gen:ident ($ty:ty) ($flags:expr) $docs:expr) => {
        $crate::wire::field_schema($gen.subschema_for::<$ty>(), &$crate::wire::doc_text($docs), $flags, true)
    };
    (@schema raw $gen:ident () ($flags:expr) $docs:expr) => {
        $crate::wire::field_schema(::schemars::json_schema!({}), &$crate::wire::doc_text($docs), $flags, false)
    };

    // `set_null` for one field: only optional fields the schema lets be `null`.
    (@null opt $self:ident $name:ident $field:ident $json:literal ($flags:expr)) => {
        if ($flags) & $crate::wire::NULLABLE != 0 && $name == $json {
            $self.$field = None;
            $self.extras.mark_null($json);
            return true;
        }
    };
    (@null patch $self:ident $name:ident $field:ident $json:literal ($flags:expr)) => {
        if $name == $json {
            $self.$field = $crate::v2::Patch::Clear;
            return true;
        }
    };
    (@null $kind:ident $self:ident $name:ident $field:ident $json:literal ($flags:expr)) => {};

    (@required req $required:ident $json:literal) => {
        $required.push($json.into());
    };
    (@required opt $required:ident $json:literal) => {};
    (@required patch $required:ident $json:literal) => {};
    (@required raw $required:ident $json:literal) => {};

    // The constructor of `#[new(...)]`, if given.
    (@new $name:ident [] [$($fields:tt)*]) => {};
    (@new $name:ident [$($arg:tt)+] [$( $(#[cfg($fcfg:meta)])? $kind:ident $field:ident )*]) => {
        impl $name {
            /// Builds the value from its required fields; optional ones start absent.
            pub fn new($($arg)+) -> Self {
                $crate::wire::wire_object!(@args $($arg)+);
                Self {
                    $( $(#[cfg($fcfg)])? $field: $crate::wire::wire_object!(@arg $kind $field), )*
                    extras: $crate::wire::Extras::default(),
                }
            }
        }
    };

    // The constructor's arguments, each converted (shadowed) into its field's type.
    (@args) => {};
    (@args $arg:ident : impl Into<$ty:ty> $(, $($rest:tt)*)?) => {
        let $arg: $ty = $arg.into();
        $crate::wire::wire_object!(@args $($($rest)*)?);
    };
    (@args $arg:ident : impl AsRef<$path:ty> $(, $($rest:tt)*)?) => {
        let $arg: String = $crate::field::path_text($arg);
        $crate::wire::wire_object!(@args $($($rest)*)?);
    };
    (@args $arg:ident : impl IntoField<$ty:ty> $(, $($rest:tt)*)?) => {
        let $arg: $ty = $crate::IntoField::into_field($arg);
        $crate::wire::wire_object!(@args $($($rest)*)?);
    };
    (@args $arg:ident : $ty:ty $(, $($rest:tt)*)?) => {
        $crate::wire::wire_object!(@args $($($rest)*)?);
    };

    // The value of one field in the constructor: the argument of its name, or absent.
    (@arg req $field:ident) => { $field };
    (@arg opt $field:ident) => { None };
    (@arg patch $field:ident) => { $crate::v2::Patch::Unchanged };
    (@arg raw $field:ident) => { None };

    // Chainable setters of path fields: any path, stored as its text.
    (@setter req $field:ident $json:literal $ty:ty as path) => {
        #[doc = concat!("Sets `", $json, "` to the text of a path.")]
        #[must_use]
        pub fn $field(mut self, path: impl AsRef<::std::path::Path>) -> Self {
            self.$field = $crate::field::path_text(path);
            self
        }
    };
    (@setter opt $field:ident $json:literal $ty:ty as path) => {
        #[doc = concat!("Sets `", $json, "` to the text of a path.")]
        #[must_use]
        pub fn $field(mut self, path: impl AsRef<::std::path::Path>) -> Self {
            self.$field = Some($crate::field::path_text(path));
            self.extras.unmark_null($json);
            self
        }
    };
    (@setter opt $field:ident $json:literal $ty:ty as paths) => {
        #[doc = concat!("Sets `", $json, "` to the text of each path.")]
        #[must_use]
        pub fn $field<P: AsRef<::std::path::Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
            self.$field = Some(paths.into_iter().map($crate::field::path_text).collect());
            self.extras.unmark_null($json);
            self
        }
    };

    // Chainable setters.
    (@setter req $field:ident $json:literal $ty:ty) => {
        #[doc = concat!("Sets `", $json, "`.")]
        #[must_use]
        pub fn $field(mut self, value: impl $crate::IntoField<$ty>) -> Self {
            self.$field = value.into_field();
            self.extras.unmark_number_form($json);
            self.extras.unmark_null($json);
            self
        }
    };
    (@setter opt $field:ident $json:literal $ty:ty) => {
        #[doc = concat!("Sets `", $json, "` (see [`IntoField`](", "crate::IntoField) for `Option`s).")]
        #[must_use]
        pub fn $field(mut self, value: impl $crate::IntoField<$ty>) -> Self {
            self.$field = Some(value.into_field());
            self.extras.unmark_null($json);
            self.extras.unmark_number_form($json);
            self
        }
    };
    (@setter patch $field:ident $json:literal $ty:ty) => {
        #[doc = concat!(
            "Sets `", $json, "` to a value (`Patch::Set`); assign `Patch::Clear` to the field to ",
            "send `null`, `Patch::Unchanged` to omit it."
        )]
        #[must_use]
        pub fn $field(mut self, value: impl $crate::IntoField<$ty>) -> Self {
            self.$field = $crate::v2::Patch::Set(value.into_field());
            self.extras.unmark_number_form($json);
            self
        }
    };
    (@setter raw $field:ident $json:literal) => {
        #[doc = concat!("Sets `", $json, "` to any JSON value.")]
        #[must_use]
        pub fn $field(mut self, value: impl Into<::serde_json::Value>) -> Self {
            self.$field = Some(value.into());
            self
        }
    };
}
pub(crate) use wire_object;

/// The Rust type of a field of a given kind (and of its decoding slot).
macro_rules! wire_field_ty {
    (req $ty:ty) => { $ty };
    (opt $ty:ty) => { Option<$ty> };
    (patch $ty:ty) => { $crate::v2::Patch<$ty> };
    (raw) => { Option<::serde_json::Value> };
    (@slot req $ty:ty) => { Option<$ty> };
    (@slot opt $ty:ty) => { Option<$ty> };
    (@slot patch $ty:ty) => { Option<$crate::v2::Patch<$ty>> };
    (@slot raw) => { Option<::serde_json::Value> };
}
pub(crate) use wire_field_ty;

/// A JSON object taken apart by a hand-written decoder (for the few types whose shape the
/// macros do not cover: untagged unions and objects with a flattened tagged part).
///
/// Fields apply the same rules as [`wire_object!`] fields; what is left over becomes
/// [`Extras`].
pub(crate) struct Parts {
    map: Map<String, Value>,
    extras: Extras,
}

impl Parts {
    pub(crate) fn new(map: Map<String, Value>) -> Self {
        Self {
            map,
            extras: Extras::default(),
        }
    }

    /// Decodes a JSON value that must be an object.
    pub(crate) fn from_value<E: de::Error>(value: Value, what: &str) -> Result<Self, E> {
        match value {
            Value::Object(map) => Ok(Self::new(map)),
            other => Err(E::invalid_type(unexpected(&other), &what)),
        }
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    pub(crate) fn peek(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// Removes a key without decoding it.
    pub(crate) fn take_raw(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    /// A required field.
    pub(crate) fn req<T, const F: u8>(&mut self, key: &'static str) -> Result<T, serde_json::Error>
    where
        T: serde::de::DeserializeOwned + LenientValue,
    {
        match self.map.remove(key) {
            Some(value) => {
                let (value, mark) = decode_tracked(Required::<T, F>::new, &value)
                    .map_err(|e| error_at::<serde_json::Error>(key, e))?;
                mark.record(&mut self.extras, key);
                Ok(value)
            }
            None => Err(de::Error::missing_field(key)),
        }
    }

    /// An optional field; an explicit null is remembered.
    pub(crate) fn opt<T, const F: u8>(
        &mut self,
        key: &'static str,
    ) -> Result<Option<T>, serde_json::Error>
    where
        T: serde::de::DeserializeOwned + LenientValue,
    {
        let Some(value) = self.map.remove(key) else {
            return Ok(None);
        };
        match decode_tracked(Optional::<T, F>::new, &value)
            .map_err(|e| error_at::<serde_json::Error>(key, e))?
        {
            Slot::Value(v, other_form) => {
                if other_form {
                    self.extras.mark_number_form(key);
                }
                Ok(Some(v))
            }
            Slot::Null => {
                self.extras.mark_null(key);
                Ok(None)
            }
            Slot::Invalid => Ok(None),
        }
    }

    /// What is left: the unknown fields, plus the nulls recorded.
    pub(crate) fn finish(self) -> Extras {
        let mut extras = self.extras;
        for (k, v) in self.map {
            extras.insert_unknown(k, v);
        }
        extras
    }

    /// The remaining fields as a JSON object (for decoding a flattened part).
    pub(crate) fn rest(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.map)
    }

    /// Puts back fields a flattened part did not use.
    pub(crate) fn put_back(&mut self, rest: Map<String, Value>) {
        self.map.extend(rest);
    }
}

/// Implements `Deserialize` through a JSON value: `$decode` takes the value and returns
/// `Result<Self, serde_json::Error>`.
macro_rules! deserialize_via_value {
    ($name:ident, $decode:path) => {
        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                let value = $crate::wire::unique_value(deserializer)?;
                $decode(value).map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }

        $crate::wire::lenient_no_default!($name);
    };
}
pub(crate) use deserialize_via_value;

/// A map whose first entries were already read (and buffered) before the tag of a union was
/// found: it replays them, then goes on with the rest of the live map.
///
/// This keeps the slow path of a union (tag not first) close to the fast one: only the entries
/// before the tag are buffered, as slices of the input text when decoding from text, and the
/// rest streams straight into the variant.
pub(crate) struct Replay<'de, A> {
    buffered: std::vec::IntoIter<(String, Buffered<'de>)>,
    /// The buffered value of the key just replayed, with that key (for error paths).
    value: Option<(String, Buffered<'de>)>,
    live: A,
}

impl<'de, A> Replay<'de, A> {
    pub(crate) fn new(buffered: Vec<(String, Buffered<'de>)>, live: A) -> Self {
        Self {
            buffered: buffered.into_iter(),
            value: None,
            live,
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if let Some((key, value)) = self.buffered.next() {
            let replayed = seed
                .deserialize(de::value::StrDeserializer::<A::Error>::new(&key))
                .map(Some);
            self.value = Some((key, value));
            return replayed;
        }
        self.live.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        // The caller's path tracker does not see replayed entries: track the path inside the
        // value here and put it, with the key, into the error (see `error_at`).
        let mut track = serde_path_to_error::Track::new();
        match self.value.take() {
            Some((key, Buffered::Text(text))) => {
                let mut de = serde_json::Deserializer::from_str(text);
                seed.deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track))
                    .map_err(|e| error_at(&join_path(&key, &track.path().to_string()), e))
            }
            Some((key, Buffered::Value(value))) => seed
                .deserialize(serde_path_to_error::Deserializer::new(value, &mut track))
                .map_err(|e| error_at(&join_path(&key, &track.path().to_string()), e)),
            None => self.live.next_value_seed(seed),
        }
    }
}
