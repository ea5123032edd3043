//! The checks of objects with a flattened union (`#[check(..)]` of `wire_object!`): the fields
//! the kind of the object requires, which the macro cannot see field by field.

use serde::de::DeserializeOwned;

/// Fails naming the first field of `fields` (name, present) that is absent.
pub(super) fn require(fields: &[(&str, bool)]) -> Result<(), String> {
    match fields.iter().find(|(_, present)| !present) {
        Some((name, _)) => Err(format!("missing field `{name}`")),
        None => Ok(()),
    }
}

/// Exactly one of the alternatives (each a list of required fields) must hold, as in a JSON
/// Schema `oneOf`.
pub(super) fn one_of(alternatives: &[&[(&str, bool)]]) -> Result<(), String> {
    let holding = alternatives
        .iter()
        .filter(|fields| fields.iter().all(|(_, present)| *present))
        .count();
    let names = || {
        alternatives
            .iter()
            .map(|fields| {
                fields
                    .iter()
                    .map(|(name, _)| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .collect::<Vec<_>>()
            .join(" or ")
    };
    match holding {
        1 => Ok(()),
        0 => Err(format!("needs {}", names())),
        _ => Err(format!("needs exactly one of {}", names())),
    }
}

/// A field whose type depends on the kind of the object: it must decode as `T` (when present).
pub(super) fn typed<T: DeserializeOwned>(
    name: &str,
    value: Option<&serde_json::Value>,
) -> Result<(), String> {
    match value {
        Some(value) => T::deserialize(value)
            .map(drop)
            .map_err(|e| format!("at `{name}`: {e}")),
        None => Ok(()),
    }
}

/// A list member needs at least `min` items (`minItems`).
pub(super) fn min_items<T>(name: &str, items: &[T], min: usize) -> Result<(), String> {
    if items.len() < min {
        return Err(format!(
            "`{name}` needs at least {min} item(s), not {}",
            items.len()
        ));
    }
    Ok(())
}

/// An optional list member, when present, needs at least `min` items (`minItems`).
pub(super) fn min_items_opt<T>(
    name: &str,
    items: Option<&Vec<T>>,
    min: usize,
) -> Result<(), String> {
    items.map_or(Ok(()), |items| min_items(name, items, min))
}

/// A number member must lie within the schema's `minimum` and `maximum`.
pub(super) fn in_range<T: PartialOrd + std::fmt::Display>(
    name: &str,
    value: T,
    min: Option<T>,
    max: Option<T>,
) -> Result<(), String> {
    let low = min.as_ref().is_some_and(|min| value < *min);
    let high = max.as_ref().is_some_and(|max| value > *max);
    if low || high {
        return Err(format!("`{name}` is out of bounds: {value}"));
    }
    Ok(())
}
