//! A chunk of history: consecutive updates of one session kept in one row, so that a commit
//! writes one row per session and stretch of updates, and a trim of the bounded history drops
//! whole rows instead of one B-tree entry per update (the cost that dominated S1 with every
//! update recorded).
//!
//! The row holds the first and last sequence numbers and the updates as one BLOB: each
//! update's length in bytes (4 bytes, little-endian) followed by its JSON text. A length
//! prefix, not a separator, so that any text round-trips exactly.

use rusqlite::types::Type;

/// The most updates one chunk holds: a trim frees space at most this many updates late, and
/// a chunk stays a few tens of KiB for typical updates.
pub(crate) const MAX_UPDATES: usize = 256;

/// The bytes of `updates` as a chunk's BLOB.
///
/// # Errors
///
/// An update of 4 GiB or more, which the prefix cannot say (SQLite refuses a value past 1 GB
/// anyway, as it did one such update in a row of its own).
pub(crate) fn encode<'a>(
    updates: impl Iterator<Item = &'a str> + Clone,
) -> rusqlite::Result<Vec<u8>> {
    let size: usize = updates.clone().map(|u| 4 + u.len()).sum();
    let mut blob = Vec::with_capacity(size);
    for update in updates {
        let len = u32::try_from(update.len())
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
        blob.extend_from_slice(&len.to_le_bytes());
        blob.extend_from_slice(update.as_bytes());
    }
    Ok(blob)
}

/// The updates of the chunk that starts at `first` and ends at `last`, read from `blob`,
/// numbered from `first`; each one numbered `from` or later is handed to `keep`.
///
/// # Errors
///
/// A BLOB that is not a chunk of that many updates (a truncated or altered row): the database
/// is corrupt, and the caller reports it rather than guessing.
pub(crate) fn decode(
    first: u64,
    last: u64,
    blob: &[u8],
    from: u64,
    mut keep: impl FnMut(u64, String),
) -> rusqlite::Result<()> {
    let corrupt = |what: &str| {
        rusqlite::Error::FromSqlConversionFailure(
            3,
            Type::Blob,
            format!("a history chunk of updates {first}..={last} is corrupt: {what}").into(),
        )
    };
    let mut rest = blob;
    let mut seq = first;
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let len = u32::from_le_bytes(*len) as usize;
        if tail.len() < len {
            return Err(corrupt("an update runs past the end"));
        }
        let (text, tail) = tail.split_at(len);
        if seq > last {
            return Err(corrupt("more updates than its numbers say"));
        }
        if seq >= from {
            let text = std::str::from_utf8(text).map_err(|_| corrupt("not UTF-8"))?;
            keep(seq, text.to_owned());
        }
        rest = tail;
        match seq.checked_add(1) {
            Some(next) => seq = next,
            None if rest.is_empty() => return Ok(()),
            None => return Err(corrupt("numbers past the largest")),
        }
    }
    if !rest.is_empty() {
        return Err(corrupt("a cut length"));
    }
    if seq != last.wrapping_add(1) {
        return Err(corrupt("fewer updates than its numbers say"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(first: u64, last: u64, blob: &[u8], from: u64) -> rusqlite::Result<Vec<(u64, String)>> {
        let mut out = Vec::new();
        decode(first, last, blob, from, |seq, text| out.push((seq, text)))?;
        Ok(out)
    }

    #[test]
    fn updates_round_trip_exactly_and_a_floor_filters() {
        let updates = ["{\"a\":1}", "", "line\nbreak \u{e9}", "{}"];
        let blob = encode(updates.iter().copied()).unwrap();
        let back = all(7, 10, &blob, 0).unwrap();
        let texts: Vec<&str> = back.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, updates);
        assert_eq!(
            back.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
            [7, 8, 9, 10]
        );
        let kept = all(7, 10, &blob, 9).unwrap();
        assert_eq!(kept, [(9, updates[2].to_owned()), (10, "{}".to_owned())]);
    }

    #[test]
    fn a_damaged_chunk_is_an_error() {
        let blob = encode(["abc", "de"].into_iter()).unwrap();
        for (first, last, bytes) in [
            (1, 2, &blob[..blob.len() - 1]),
            (1, 2, &blob[..5]),
            (1, 3, &blob[..]),
            (1, 1, &blob[..]),
        ] {
            let error = all(first, last, bytes, 0).unwrap_err();
            assert!(error.to_string().contains("corrupt"), "{error}");
        }
        let mut bad = blob.clone();
        bad[4] = 0xff;
        assert!(all(1, 2, &bad, 0).is_err());
    }
}
