//! JSON values as the wire types read them: duplicate keys refused at every depth, values
//! buffered as their borrowed text where possible, and unknown fields kept to the exact text of
//! their numbers.
//!
//! - **Duplicate keys.** RFC 8259 leaves the meaning of an object with a repeated name open, and
//!   `serde_json` silently keeps the last one. Every object this crate decodes refuses them
//!   instead (`duplicate field `x``), at any depth: the envelope, every wire object, and the JSON
//!   values kept inside them. So one document has one meaning whichever path decodes it, and a
//!   re-encode cannot differ from what was received. (Extension params and results, kept as
//!   their raw text, are not looked into.)
//! - **Buffering.** Where a decoder must read ahead (a union whose tag is not its first field),
//!   [`BufferSeed`] keeps each value as a slice of the input text when decoding from text, and
//!   replays it from there, so that the variant reads it as if it had streamed. The strict
//!   first pass of [`crate::decode`] parses it into a [`Value`] instead, which is cheaper (the
//!   text is scanned once), and fails on a float, which only the text keeps exactly; the
//!   lenient pass then decodes the document again.
//! - **Exact numbers in unknown fields.** Without `serde_json`'s `arbitrary_precision`, a
//!   [`Value`] holds numbers as `u64`, `i64` or `f64`: `123456789012345678901234567890`,
//!   `1.0000000000000000001`, `-0` or `1.50` would be written back differently, and `1e400` not
//!   at all. [`UnknownSeed`] keeps the text of an unknown field's value when a number in it
//!   would not come back the same, and [`Extras`](crate::Extras) writes that text back.

use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The error for a key given twice, in the words serde uses for derived types.
pub(crate) fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate field `{key}`"))
}

/// A JSON value whose objects were checked for duplicate keys at every depth.
pub(crate) struct UniqueValue(pub(crate) Value);

impl<'de> Deserialize<'de> for UniqueValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ValueSeed { no_floats: false }
            .deserialize(deserializer)
            .map(UniqueValue)
    }
}

/// Reads a JSON value, refusing duplicate keys at every depth.
pub(crate) fn unique_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    UniqueValue::deserialize(deserializer).map(|v| v.0)
}

/// Parses JSON text into a value, refusing duplicate keys at every depth.
pub(crate) fn unique_value_from_str(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = unique_value(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Reads the entries of a map into `object`, refusing a key already there.
pub(crate) fn unique_entries<'de, A: MapAccess<'de>>(
    map: &mut A,
    object: &mut Map<String, Value>,
) -> Result<(), A::Error> {
    ValueSeed { no_floats: false }.entries(map, object)
}

/// The message of the error that sends a strict decode of a value with a float in it back to
/// the lenient pass, which keeps the text of that value.
const FLOAT_IN_STRICT_MODE: &str = "a number that is not an integer, read in strict mode";

/// Builds a [`Value`] like `serde_json`'s own visitor, and refuses duplicate keys.
///
/// With `no_floats`, it also refuses any number that is not an integer: a [`Value`] without
/// one is exactly what was received (integers of 64 bits and strings are kept as they are), so
/// in strict mode, where a value is buffered or kept as an unknown field without its text, a
/// float makes the decode fail, and [`crate::decode`] decodes again in lenient mode, which
/// keeps the text.
#[derive(Clone, Copy)]
struct ValueSeed {
    no_floats: bool,
}

impl ValueSeed {
    fn entries<'de, A: MapAccess<'de>>(
        self,
        map: &mut A,
        object: &mut Map<String, Value>,
    ) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(duplicate(&key));
            }
            let value = map.next_value_seed(self)?;
            object.insert(key, value);
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        if self.no_floats {
            return Err(E::custom(FLOAT_IN_STRICT_MODE));
        }
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        self.entries(&mut map, &mut object)?;
        Ok(Value::Object(object))
    }
}

/// The name `serde_json` gives the newtype struct through which a [`RawValue`] is read.
///
/// Found by asking `RawValue`'s own `Deserialize` impl, so that it is not copied from
/// `serde_json`'s sources; `serde_json`'s deserializers answer a request for it with the text of
/// the value.
fn raw_value_token() -> &'static str {
    static TOKEN: OnceLock<&'static str> = OnceLock::new();
    TOKEN.get_or_init(|| {
        /// A deserializer that only records the name of the newtype struct it is asked for.
        struct Capture(std::cell::Cell<&'static str>);

        impl<'de> Deserializer<'de> for &Capture {
            type Error = de::value::Error;

            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
                Err(de::Error::custom("only records a name"))
            }

            fn deserialize_newtype_struct<V: Visitor<'de>>(
                self,
                name: &'static str,
                _: V,
            ) -> Result<V::Value, Self::Error> {
                self.0.set(name);
                Err(de::Error::custom("only records a name"))
            }

            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
                byte_buf option unit unit_struct seq tuple tuple_struct map struct enum
                identifier ignored_any
            }
        }

        let capture = Capture(std::cell::Cell::new(""));
        let _ = <Box<RawValue> as Deserialize>::deserialize(&capture);
        capture.0.get()
    })
}

/// A value read ahead of its use: a slice of the input text when decoding from text, otherwise
/// (decoding from a [`Value`]) the value itself.
#[derive(Debug)]
pub(crate) enum Buffered<'de> {
    /// The exact JSON text of the value, borrowed from the input.
    Text(&'de str),
    /// The value, already checked for duplicate keys.
    Value(Value),
}

impl Buffered<'_> {
    /// The value as a [`Value`] (parsed, for text).
    pub(crate) fn into_value<E: de::Error>(self) -> Result<Value, E> {
        match self {
            Buffered::Text(text) => unique_value_from_str(text).map_err(E::custom),
            Buffered::Value(value) => Ok(value),
        }
    }
}

/// Reads a value into a [`Buffered`] without parsing it when the input is text.
pub(crate) struct BufferSeed;

impl<'de> DeserializeSeed<'de> for BufferSeed {
    type Value = Buffered<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Buffered<'de>, D::Error> {
        if !crate::mode::lenient_mode() {
            // Strict mode: a value once parsed costs less than text skipped and parsed later,
            // and without floats it is exact (see `ValueSeed`).
            return ValueSeed { no_floats: true }
                .deserialize(deserializer)
                .map(Buffered::Value);
        }
        deserializer.deserialize_newtype_struct(raw_value_token(), BufferVisitor)
    }
}

/// Takes the text `serde_json` hands out for the raw-value newtype, or, from any other
/// deserializer, builds the value.
struct BufferVisitor;

impl<'de> Visitor<'de> for BufferVisitor {
    type Value = Buffered<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Buffered<'de>, D::Error> {
        unique_value(d).map(Buffered::Value)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Buffered<'de>, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Buffered::Value(Value::Object(Map::new())));
        };
        if first == raw_value_token() {
            // `serde_json`'s answer: one entry whose value is the text of the value.
            return map.next_value_seed(TextSeed);
        }
        // A deserializer that passed the object itself.
        let mut object = Map::new();
        object.insert(first, map.next_value::<UniqueValue>()?.0);
        unique_entries(&mut map, &mut object)?;
        Ok(Buffered::Value(Value::Object(object)))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Value(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Value(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Value(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Buffered<'de>, E> {
        ValueSeed { no_floats: false }
            .visit_f64(v)
            .map(Buffered::Value)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Value(Value::String(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Value(Value::String(v)))
    }

    fn visit_none<E: de::Error>(self) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Value(Value::Null))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Value(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Buffered<'de>, D::Error> {
        unique_value(d).map(Buffered::Value)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Buffered<'de>, A::Error> {
        ValueSeed { no_floats: false }
            .visit_seq(seq)
            .map(Buffered::Value)
    }
}

/// The text of a raw value: borrowed when the input allows, parsed otherwise (a value the
/// input did not lend is not worth keeping as text).
struct TextSeed;

impl<'de> DeserializeSeed<'de> for TextSeed {
    type Value = Buffered<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Buffered<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TextSeed {
    type Value = Buffered<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the text of a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Buffered<'de>, E> {
        Ok(Buffered::Text(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Buffered<'de>, E> {
        unique_value_from_str(v)
            .map(Buffered::Value)
            .map_err(E::custom)
    }
}

/// The value of an unknown field, and its text when a number in it would not be written back
/// the same from the [`Value`].
#[derive(Debug)]
pub(crate) struct UnknownValue {
    pub(crate) value: Value,
    pub(crate) exact: Option<Box<RawValue>>,
}

/// Reads the value of an unknown field (see [`UnknownValue`]).
pub(crate) struct UnknownSeed;

impl<'de> DeserializeSeed<'de> for UnknownSeed {
    type Value = UnknownValue;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<UnknownValue, D::Error> {
        // In strict mode, `BufferSeed` yields a value without floats, which is exact.
        match BufferSeed.deserialize(deserializer)? {
            Buffered::Text(text) => unknown_from_text(text).map_err(de::Error::custom),
            Buffered::Value(value) => Ok(UnknownValue { value, exact: None }),
        }
    }
}

/// Reads the value of an unknown field from its JSON text.
pub(crate) fn unknown_from_text(text: &str) -> Result<UnknownValue, serde_json::Error> {
    let numbers = scan_numbers(text);
    if numbers.exact {
        return Ok(UnknownValue {
            value: unique_value_from_str(text)?,
            exact: None,
        });
    }
    let value = lossy_value(text, numbers.out_of_range)?;
    let exact = RawValue::from_string(text.to_owned())?;
    Ok(UnknownValue {
        value,
        exact: Some(exact),
    })
}

/// The [`Value`] of JSON text whose numbers may not fit one: numbers beyond `f64` become the
/// largest finite `f64` of their sign, the others their nearest `f64`.
pub(crate) fn lossy_value(text: &str, out_of_range: bool) -> Result<Value, serde_json::Error> {
    if !out_of_range {
        return unique_value_from_str(text);
    }
    let mut clamped = String::with_capacity(text.len());
    let mut rest = 0;
    for (start, end) in number_tokens(text) {
        let token = &text[start..end];
        if serde_json::from_str::<Value>(token).is_err() {
            clamped.push_str(&text[rest..start]);
            clamped.push_str(if token.starts_with('-') {
                "-1.7976931348623157e308"
            } else {
                "1.7976931348623157e308"
            });
            rest = end;
        }
    }
    clamped.push_str(&text[rest..]);
    unique_value_from_str(&clamped)
}

/// What the numbers of some JSON text are like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Numbers {
    /// Every number is written back from its [`Value`] exactly as it is written here.
    exact: bool,
    /// Some number is beyond the range of `f64`, which `serde_json` refuses.
    out_of_range: bool,
}

/// Checks every number of valid JSON text.
fn scan_numbers(text: &str) -> Numbers {
    let mut numbers = Numbers {
        exact: true,
        out_of_range: false,
    };
    for (start, end) in number_tokens(text) {
        let token = &text[start..end];
        if integer_is_exact(token) {
            continue;
        }
        match serde_json::from_str::<Value>(token) {
            // Exact after all when written back the same (`1.5` as written).
            Ok(value) => {
                if serde_json::to_string(&value).ok().as_deref() != Some(token) {
                    numbers.exact = false;
                }
            }
            Err(_) => {
                numbers.exact = false;
                numbers.out_of_range = true;
                break;
            }
        }
    }
    numbers
}

/// True for an integer literal that a `u64` or an `i64` holds (and so is written back as is).
fn integer_is_exact(token: &str) -> bool {
    let (negative, digits) = match token.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, token),
    };
    // JSON has no leading zeros, so up to 18 digits always fit, and `-0` is the float `-0.0`.
    !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !(negative && digits == "0")
}

/// The byte ranges of the number literals of valid JSON text (outside its strings).
fn number_tokens(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            match bytes[at] {
                b'"' => {
                    at += 1;
                    while at < bytes.len() && bytes[at] != b'"' {
                        // Skip the escaped byte too (it may be a quote).
                        at += if bytes[at] == b'\\' { 2 } else { 1 };
                    }
                    at += 1;
                }
                b'-' | b'0'..=b'9' => {
                    let start = at;
                    while at < bytes.len()
                        && matches!(bytes[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        at += 1;
                    }
                    return Some((start, at));
                }
                _ => at += 1,
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(text: &str) -> (bool, bool) {
        let n = scan_numbers(text);
        (n.exact, n.out_of_range)
    }

    #[test]
    fn numbers_that_a_value_writes_back_unchanged_are_exact() {
        for text in [
            "0",
            "-1",
            "123456789012345678",
            "1.5",
            "[1, 2.5, {\"a\": -3}]",
            "\"1.50 -0 1e400\"",
            "{\"k\\\"1.50\": 7}",
            "true",
        ] {
            assert_eq!(numbers(text), (true, false), "{text}");
        }
    }

    #[test]
    fn numbers_that_would_change_are_not() {
        for text in [
            "123456789012345678901234567890",
            "-0",
            "1.0000000000000000001",
            "1.50",
            "1E5",
            "18446744073709551616",
            "[1, 1.50]",
            "[1.50, 1]",
        ] {
            assert_eq!(numbers(text), (false, false), "{text}");
        }
        assert_eq!(numbers("1e400"), (false, true));
        assert_eq!(numbers("[-1e400, 2]"), (false, true));
    }

    #[test]
    fn numbers_beyond_f64_become_the_largest_f64_in_the_value() {
        let value = lossy_value("[1e400, -1e999, \"1e400\", 2]", true).unwrap();
        assert_eq!(value, serde_json::json!([f64::MAX, -f64::MAX, "1e400", 2]));
    }

    #[test]
    fn duplicate_keys_are_refused_at_every_depth() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"[{"b":{"c":1,"c":1}}]"#,
            r#"{"a":{"x":1},"b":[{"y":2,"y":3}]}"#,
        ] {
            let error = unique_value_from_str(text).unwrap_err();
            assert!(
                error.to_string().starts_with("duplicate field `"),
                "{error}"
            );
        }
        assert!(unique_value_from_str(r#"{"a":{"a":1}}"#).is_ok());
    }

    #[test]
    fn buffering_borrows_the_text_of_a_text_input() {
        let text = r#"{"x": [1.50, {"y": null}]}"#;
        let mut de = serde_json::Deserializer::from_str(text);
        match BufferSeed.deserialize(&mut de).unwrap() {
            Buffered::Text(raw) => assert_eq!(raw, text),
            Buffered::Value(v) => panic!("expected the text, got {v}"),
        }
        // From a value there is no text to keep.
        let value = serde_json::json!({"x": 1});
        match BufferSeed.deserialize(&value).unwrap() {
            Buffered::Value(v) => assert_eq!(v, value),
            Buffered::Text(raw) => panic!("unexpected text {raw}"),
        }
        assert!(!raw_value_token().is_empty());
    }
}
