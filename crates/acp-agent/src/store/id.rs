//! Session ids that cannot be guessed: a client that knows its own ids learns nothing about
//! anyone else's.

use acp_types::{ErrorObject, SessionId};

/// What every id made by [`random`] starts with.
pub(super) const PREFIX: &str = "sess-";

/// The number of random bytes in an id.
const RANDOM_BYTES: usize = 16;

/// A fresh id: [`PREFIX`] and 128 random bits from the operating system, as 32 lowercase hex
/// digits.
///
/// # Errors
///
/// An internal error when the operating system has no randomness to give (never a
/// predictable id instead).
pub(super) fn random() -> Result<SessionId, ErrorObject> {
    let mut bytes = [0u8; RANDOM_BYTES];
    getrandom::fill(&mut bytes).map_err(|error| {
        tracing::error!(%error, "no randomness for a session id");
        ErrorObject::internal_error(format_args!(
            "cannot make a session id: no randomness ({error})"
        ))
    })?;
    Ok(SessionId::from(encode(&bytes)))
}

/// [`PREFIX`] and `bytes` in lowercase hex.
fn encode(bytes: &[u8; RANDOM_BYTES]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(PREFIX.len() + 2 * RANDOM_BYTES);
    id.push_str(PREFIX);
    for byte in bytes {
        id.push(char::from(HEX[usize::from(byte >> 4)]));
        id.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_prefix_and_32_hex_digits() {
        assert_eq!(
            encode(&[
                0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0, 0, 0, 0, 0, 0, 0, 0xff
            ]),
            "sess-0123456789abcdef00000000000000ff"
        );
        let id = random().unwrap();
        let hex = id.as_str().strip_prefix(PREFIX).unwrap();
        assert_eq!(hex.len(), 32);
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
    }
}
