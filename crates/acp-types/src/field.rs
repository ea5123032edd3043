//! What the setters of the wire types take: [`IntoField`].

use std::path::Path;

/// A value a setter takes for a field of type `T`.
///
/// Every setter (`.title("Read")`, `.line(1)`, `.kind(ToolKind::Read)`) takes
/// `impl IntoField<T>`, where `T` is the field's type:
/// - for an integer field (`u32`, `u64`, `i64`...), exactly that type, so that a bare
///   literal works: `.line(1)`, `.size(1024)` (convert another integer type with
///   `u32::try_from` or `u64::from` yourself); a float field (`f64`) takes any number that
///   converts to it without loss (`1.5`, `1`);
/// - for every other field (marked by [`ConvertibleField`]), anything `Into` the field's type:
///   `&str` for a `String` or an id, a borrowed id for an id (`&SessionId`: a cheap clone), a
///   `Vec` for a list, a variant's struct for its union...
///
/// Fields holding file system paths (`cwd`, `path`, `additionalDirectories`) are the exception:
/// like the constructors, their setters take any `impl AsRef<Path>` (`&str`, `String`, `&Path`,
/// `PathBuf`...), or any iterator of such for a list, and store the path's text.
///
/// ```
/// use std::path::PathBuf;
/// use acp_types::{CreateTerminalRequest, NewSessionRequest, SessionId};
///
/// let session = SessionId::new("sess-1");
/// let home = PathBuf::from("/home/me");
/// let run = CreateTerminalRequest::new(&session, "make").cwd(&home);
/// assert_eq!((run.session_id, run.cwd.as_deref()), (session, Some("/home/me")));
/// let new = NewSessionRequest::new(&home, vec![]).additional_directories([home.join("lib")]);
/// assert_eq!(new.additional_directories, Some(vec!["/home/me/lib".to_owned()]));
/// ```
///
/// Optional fields follow one rule: the setter sets the field (`Some`); to chain a setter with
/// an `Option` in hand, use the type's `maybe` method (`.maybe(line, ToolCallLocation::line)`:
/// nothing changes for `None`); to clear a field, assign `None` to it (the fields are public);
/// to send an explicit `null` where the schema allows it, use the type's `set_null`.
///
/// ```
/// use acp_types::{ToolCallLocation, ToolCall, ToolKind};
///
/// let line: Option<u32> = None;
/// let location = ToolCallLocation::new("/src/main.rs").line(1);
/// assert_eq!(location.line, Some(1));
/// let location = location.maybe(line, ToolCallLocation::line);
/// assert_eq!(location.line, Some(1), "None leaves the field as it was");
/// let call = ToolCall::new("call-1", "Read main.rs").kind(ToolKind::Read).locations(vec![location]);
/// # let _ = call;
/// ```
pub trait IntoField<T> {
    /// The field's value.
    fn into_field(self) -> T;
}

/// A field type whose setters take anything `Into` it (see [`IntoField`]): every field type
/// but numbers, which take exactly their own type so that a bare literal infers.
pub trait ConvertibleField {}

impl<T: ConvertibleField, U: Into<T>> IntoField<T> for U {
    fn into_field(self) -> T {
        self.into()
    }
}

macro_rules! exact_numbers {
    ($($ty:ty),*) => {
        $(
            impl IntoField<$ty> for $ty {
                fn into_field(self) -> $ty {
                    self
                }
            }
        )*
    };
}
exact_numbers!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

/// Floats take what converts to them without loss, as `Into` did: `1.5` and `1` both work.
macro_rules! float_from {
    ($float:ty: $($ty:ty),*) => {
        $(
            impl IntoField<$float> for $ty {
                fn into_field(self) -> $float {
                    <$float>::from(self)
                }
            }
        )*
    };
}
float_from!(f64: f64, f32, i32, u32, i16, u16, i8, u8);
float_from!(f32: f32, i16, u16, i8, u8);

impl ConvertibleField for String {}
impl ConvertibleField for bool {}
impl ConvertibleField for serde_json::Value {}
impl<K, V> ConvertibleField for serde_json::Map<K, V> {}
impl<T> ConvertibleField for Vec<T> {}
impl<T> ConvertibleField for Box<T> {}
impl<K, V> ConvertibleField for std::collections::BTreeMap<K, V> {}
impl<K, V, S> ConvertibleField for std::collections::HashMap<K, V, S> {}

/// A path as the protocol carries it: text (the bytes of a path that is not UTF-8 are replaced
/// with U+FFFD, as the protocol has no other form for them).
pub(crate) fn path_text(path: impl AsRef<Path>) -> String {
    path.as_ref().to_string_lossy().into_owned()
}
