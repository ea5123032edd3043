//! Macros for the enum-shaped wire types: tagged unions, string enums and identifiers.

/// Declares a union of wire objects told apart by a tag field (`"type"`, `"sessionUpdate"`, ...).
///
/// The tag is read first when it comes first (no buffering); otherwise the object is buffered
/// and the tag looked up. An optional `unknown` variant keeps objects with an unknown tag as raw
/// JSON, and an optional `default` variant is used when the tag is absent (the schema's untagged
/// branch); a tag equal to the default variant's own name is kept with its fields.
///
/// `schema_extend = f,` (after `unknown`) names a `fn(&mut Map<String, Value>)` applied to the
/// finished schema of the union: for what the variants cannot say (v2's catch-all branches that
/// require members of every kind).
///
/// A variant may carry one `#[cfg(...)]` after its doc comment (a variant of a draft feature):
/// when the condition does not hold, its tag is an unknown tag like any other.
macro_rules! tagged_union {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident {
            tag = $tag:literal,
            combinator = $comb:literal,
            discriminator = $disc:literal,
            open = $open:literal,
            $( nested = $nested:tt, )?
            $( default = $dvar:ident ($dty:ty) = $dtag:literal, )?
            $( unknown = $uvar:ident, $( unknown_requires = [$($ureq:literal),* $(,)?], )? )?
            $( schema_extend = $ext:path, )?
            variants {
                $(
                    $(#[doc = $vdoc:literal])*
                    $(#[cfg($vcfg:meta)])?
                    $var:ident ($vty:ty) = $vtag:literal $(as $boxed:ident)?,
                )*
            }
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        // Hot variants stay inline (a box costs each decode an allocation); large, rarer ones are
        // declared `as boxed`, so that moving a decoded value stays cheap.
        #[allow(clippy::large_enum_variant)]
        pub enum $name {
            $(
                $(#[doc = $vdoc])*
                $(#[cfg($vcfg)])?
                $var($crate::wire::maybe_box!($vty $(, $boxed)?)),
            )*
            $(
                #[doc = concat!("The untagged branch (`\"", $tag, "\"` absent, or `\"", $dtag, "\"`).")]
                $dvar($dty),
            )?
            $(
                #[doc = concat!(
                    "An object whose `\"", $tag, "\"` this crate does not know (from a newer peer),",
                    " kept as raw JSON and written back unchanged."
                )]
                $uvar(::serde_json::Value),
            )?
        }

        impl $crate::ConvertibleField for $name {}

        $crate::wire_enum::tagged_union!(@nested $($nested)? $name $tag [$($(#[cfg($vcfg)])? $var $vtag)*] [$($uvar)?]);

        impl $name {
            /// The tags this crate knows, in schema order.
            pub const TAGS: &'static [&'static str] = &[$($(#[cfg($vcfg)])? $vtag,)* $($dtag)?];

            /// The tag value of this variant (`None` for an unknown variant without a string tag).
            pub fn tag(&self) -> Option<&str> {
                match self {
                    $( $(#[cfg($vcfg)])? Self::$var(_) => Some($vtag), )*
                    $( Self::$dvar(_) => Some($dtag), )?
                    $( Self::$uvar(value) => value.get($tag).and_then(::serde_json::Value::as_str), )?
                }
            }

            #[allow(unused_mut)]
            fn from_tag_rest<'de, A: ::serde::de::MapAccess<'de>>(
                tag: &str,
                mut map: A,
            ) -> Result<Self, A::Error> {
                match tag {
                    $(
                        $(#[cfg($vcfg)])?
                        $vtag => {
                            let inner = $crate::wire::from_rest::<$vty, A>(map)?;
                            // The tag again among the rest: a key given twice.
                            if $crate::wire::VariantFields::has_field(&inner, $tag) {
                                return Err($crate::wire::duplicate($tag));
                            }
                            Ok(Self::$var(inner.into()))
                        }
                    )*
                    $(
                        $dtag => {
                            let mut inner: $dty = $crate::wire::from_rest(map)?;
                            if $crate::wire::WireFields::extras(&inner).has_unknown($tag) {
                                return Err($crate::wire::duplicate($tag));
                            }
                            $crate::wire::WireFields::extras_mut(&mut inner)
                                .insert_unknown($tag.to_owned(), ::serde_json::Value::from($dtag));
                            Ok(Self::$dvar(inner))
                        }
                    )?
                    other => {
                        $(
                            let mut object = ::serde_json::Map::new();
                            object.insert($tag.to_owned(), ::serde_json::Value::from(other));
                            $crate::wire::drain_map(&mut map, &mut object)?;
                            $( Self::unknown_requires(&object, &[$($ureq),*])?; )?
                            return Ok(Self::$uvar(::serde_json::Value::Object(object)));
                        )?
                        #[allow(unreachable_code)]
                        {
                            $crate::wire::skip_map(&mut map)?;
                            Err(::serde::de::Error::unknown_variant(other, Self::TAGS))
                        }
                    }
                }
            }

            /// Refuses an object of an unknown tag that lacks a field the schema requires of every
            /// kind (`unknown_requires`).
            #[allow(dead_code)]
            fn unknown_requires<E: ::serde::de::Error>(
                object: &::serde_json::Map<String, ::serde_json::Value>,
                required: &[&'static str],
            ) -> Result<(), E> {
                match required.iter().find(|field| !object.contains_key(**field)) {
                    Some(field) => Err(E::missing_field(field)),
                    None => Ok(()),
                }
            }

            /// The slow path: decodes a buffered object (its tag anywhere, or absent).
            fn from_object(
                mut object: ::serde_json::Map<String, ::serde_json::Value>,
            ) -> Result<Self, ::serde_json::Error> {
                use ::serde::de::Error as _;
                let tag = match object.remove($tag) {
                    Some(::serde_json::Value::String(tag)) => tag,
                    Some(other) => {
                        $(
                            // The untagged branch accepts any object, whatever its tag field
                            // holds: the field is kept as one of its unknown fields.
                            object.insert($tag.to_owned(), other);
                            let object = ::serde_json::Value::Object(object);
                            return $crate::wire::decode_buffered::<$dty>(&object).map(Self::$dvar);
                        )?
                        #[allow(unreachable_code)]
                        return Err($crate::wire::error_at(
                            $tag,
                            ::serde_json::Error::invalid_type(
                                $crate::wire::unexpected(&other),
                                &"a tag string",
                            ),
                        ));
                    }
                    None => {
                        $(
                            let object = ::serde_json::Value::Object(object);
                            return $crate::wire::decode_buffered::<$dty>(&object).map(Self::$dvar);
                        )?
                        #[allow(unreachable_code)]
                        return Err(::serde_json::Error::missing_field($tag));
                    }
                };
                match tag.as_str() {
                    $(
                        $(#[cfg($vcfg)])?
                        $vtag => $crate::wire::decode_buffered::<$vty>(&::serde_json::Value::Object(object))
                            .map(|v| Self::$var(v.into())),
                    )*
                    $(
                        $dtag => {
                            let mut inner: $dty = $crate::wire::decode_buffered(
                                &::serde_json::Value::Object(object),
                            )?;
                            $crate::wire::WireFields::extras_mut(&mut inner)
                                .insert_unknown($tag.to_owned(), ::serde_json::Value::from($dtag));
                            Ok(Self::$dvar(inner))
                        }
                    )?
                    _ => {
                        $(
                            object.insert($tag.to_owned(), ::serde_json::Value::String(tag));
                            $( Self::unknown_requires(&object, &[$($ureq),*])?; )?
                            return Ok(Self::$uvar(::serde_json::Value::Object(object)));
                        )?
                        #[allow(unreachable_code)]
                        Err(::serde_json::Error::unknown_variant(&tag, Self::TAGS))
                    }
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap as _;
                match self {
                    $(
                        $(#[cfg($vcfg)])?
                        Self::$var(inner) => {
                            let mut map = serializer.serialize_map(None)?;
                            map.serialize_entry($tag, $vtag)?;
                            $crate::wire::VariantFields::serialize_variant_fields(inner, &mut map)?;
                            map.end()
                        }
                    )*
                    $( Self::$dvar(inner) => ::serde::Serialize::serialize(inner, serializer), )?
                    $( Self::$uvar(value) => ::serde::Serialize::serialize(value, serializer), )?
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct UnionVisitor;

                impl<'de> ::serde::de::Visitor<'de> for UnionVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " object"))
                    }

                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        match map.next_key_seed($crate::wire::KeySeed(&[$tag]))? {
                            // Fast path: the tag comes first, the variant reads the rest.
                            Some($crate::wire::Key::Known(_)) => {
                                let has_default = false $( || { let _ = $dtag; true } )?;
                                match map.next_value_seed($crate::wire::TagSeed { any: has_default })? {
                                    $crate::wire::Tag::Other(value) => {
                                        // Not a string: only an untagged branch takes it.
                                        let mut object = ::serde_json::Map::new();
                                        object.insert($tag.to_owned(), value);
                                        $crate::wire::drain_map(&mut map, &mut object)?;
                                        $name::from_object(object).map_err($crate::wire::json_err)
                                    }
                                    tag => $name::from_tag_rest(tag.as_str(), map),
                                }
                            }
                            // Slow path: buffer the entries before the tag (as slices of the
                            // input text, when decoding from text), then replay them to the
                            // variant, which reads the rest from the live map.
                            Some($crate::wire::Key::Unknown(first)) => {
                                let value = map.next_value_seed($crate::wire::BufferSeed)?;
                                let mut buffered = vec![(first, value)];
                                loop {
                                    match map.next_key_seed($crate::wire::KeySeed(&[$tag]))? {
                                        Some($crate::wire::Key::Known(_)) => {
                                            match map.next_value::<$crate::wire::UniqueValue>()?.0 {
                                                ::serde_json::Value::String(tag) => {
                                                    return $name::from_tag_rest(
                                                        &tag,
                                                        $crate::wire::Replay::new(buffered, map),
                                                    );
                                                }
                                                // Not a string: decide on the whole object.
                                                other => {
                                                    let mut object = $crate::wire::collect_buffered(buffered)?;
                                                    if object.contains_key($tag) {
                                                        return Err($crate::wire::duplicate($tag));
                                                    }
                                                    object.insert($tag.to_owned(), other);
                                                    $crate::wire::drain_map(&mut map, &mut object)?;
                                                    return $name::from_object(object)
                                                        .map_err($crate::wire::json_err);
                                                }
                                            }
                                        }
                                        Some($crate::wire::Key::Unknown(key)) => {
                                            let value = map.next_value_seed($crate::wire::BufferSeed)?;
                                            buffered.push((key, value));
                                        }
                                        // No tag at all.
                                        None => {
                                            return $name::from_object($crate::wire::collect_buffered(buffered)?)
                                                .map_err($crate::wire::json_err);
                                        }
                                    }
                                }
                            }
                            None => $name::from_object(::serde_json::Map::new())
                                .map_err($crate::wire::json_err),
                        }
                    }
                }

                deserializer.deserialize_map(UnionVisitor)
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

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                let mut branches: Vec<::serde_json::Value> = Vec::new();
                $(
                    $(#[cfg($vcfg)])?
                    {
                        let reference = generator.subschema_for::<$vty>().to_value();
                        let mut branch = ::serde_json::json!({
                            "type": "object",
                            "properties": { $tag: { "type": "string", "const": $vtag } },
                            "required": [$tag],
                            "allOf": [reference],
                        });
                        let description = $crate::wire::doc_text(&[$($vdoc),*]);
                        if !description.is_empty() {
                            branch["description"] = description.into();
                        }
                        branches.push(branch);
                    }
                )*
                $(
                    let reference = generator.subschema_for::<$dty>().to_value();
                    branches.push(::serde_json::json!({ "allOf": [reference] }));
                )?
                if $open {
                    // The schema's explicit catch-all branch: any other tag string.
                    let known: Vec<::serde_json::Value> = [$($(#[cfg($vcfg)])? $vtag),*]
                        .iter()
                        .map(|t| ::serde_json::json!({
                            "type": "object",
                            "properties": { $tag: { "type": "string", "const": t } },
                            "required": [$tag],
                        }))
                        .collect();
                    branches.push(::serde_json::json!({
                        "type": "object",
                        "description": "Any other tag, with any fields.",
                        "properties": { $tag: { "type": "string" } },
                        "required": [$tag],
                        "not": { "anyOf": known },
                        "additionalProperties": true,
                    }));
                }
                let mut object = ::serde_json::Map::new();
                object.insert(
                    "description".into(),
                    $crate::wire::doc_text(&[$($doc),*]).into(),
                );
                object.insert($comb.into(), branches.into());
                if $disc {
                    object.insert(
                        "discriminator".into(),
                        ::serde_json::json!({ "propertyName": $tag }),
                    );
                }
                $( $ext(&mut object); )?
                ::schemars::Schema::from(object)
            }
        }
    };
    // `nested = true`: the union is itself the payload of a variant of another union (v2's
    // `state_update` carries a `StateUpdate`): it writes its tag and fields into the outer
    // object.
    (@nested true $name:ident $tag:literal [$($(#[cfg($vcfg:meta)])? $var:ident $vtag:literal)*] [$($uvar:ident)?]) => {
        impl $crate::wire::VariantFields for $name {
            fn serialize_variant_fields<M: ::serde::ser::SerializeMap>(
                &self,
                map: &mut M,
            ) -> Result<(), M::Error> {
                match self {
                    $(
                        $(#[cfg($vcfg)])?
                        Self::$var(inner) => {
                            map.serialize_entry($tag, $vtag)?;
                            $crate::wire::VariantFields::serialize_variant_fields(inner, map)
                        }
                    )*
                    $(
                        Self::$uvar(value) => {
                            if let ::serde_json::Value::Object(object) = value {
                                for (key, value) in object {
                                    map.serialize_entry(key, value)?;
                                }
                            }
                            Ok(())
                        }
                    )?
                }
            }

            fn has_field(&self, key: &str) -> bool {
                key == $tag
                    || match self {
                        $(
                            $(#[cfg($vcfg)])?
                            Self::$var(inner) => $crate::wire::VariantFields::has_field(inner, key),
                        )*
                        $( Self::$uvar(value) => value.get(key).is_some(), )?
                    }
            }
        }
    };
    (@nested $name:ident $($rest:tt)*) => {};
}
pub(crate) use tagged_union;

/// Declares a string enum. Unknown strings decode into the `Unknown` variant (or, where the
/// schema has an explicit catch-all branch, the `Other` variant) and are written back unchanged.
macro_rules! string_enum {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident {
            $(
                $(#[doc = $vdoc:literal])*
                $var:ident = $value:literal,
            )*
        }
        $catch:ident, open_schema = $open:literal $(, inline = $inline:literal)?
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $(
                $(#[doc = $vdoc])*
                $var,
            )*
            /// A value this crate does not know (from a newer peer), kept verbatim.
            $catch(String),
        }

        impl $crate::ConvertibleField for $name {}

        impl $name {
            /// The values this crate knows, in schema order.
            pub const VALUES: &'static [&'static str] = &[$($value),*];

            /// The wire value.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$var => $value, )*
                    Self::$catch(value) => value,
                }
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $value => Self::$var, )*
                    other => Self::$catch(other.to_owned()),
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct EnumVisitor;

                impl ::serde::de::Visitor<'_> for EnumVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " string"))
                    }

                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok($name::from(v))
                    }
                }

                deserializer.deserialize_str(EnumVisitor)
            }
        }

        $crate::wire::lenient_no_default!($name);

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            // `inline = true`: an enum the schema writes in place (a tag of a flattened union),
            // not a definition of its own.
            fn inline_schema() -> bool {
                false $(|| $inline)?
            }

            fn json_schema(_generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                let mut branches: Vec<::serde_json::Value> = Vec::new();
                $(
                    let mut branch = ::serde_json::json!({ "type": "string", "const": $value });
                    let description = $crate::wire::doc_text(&[$($vdoc),*]);
                    if !description.is_empty() {
                        branch["description"] = description.into();
                    }
                    branches.push(branch);
                )*
                let mut object = ::serde_json::Map::new();
                object.insert(
                    "description".into(),
                    $crate::wire::doc_text(&[$($doc),*]).into(),
                );
                if $open {
                    branches.push(::serde_json::json!({
                        "type": "string",
                        "description": "Any other value.",
                    }));
                    object.insert("anyOf".into(), branches.into());
                } else {
                    object.insert("oneOf".into(), branches.into());
                }
                ::schemars::Schema::from(object)
            }
        }
    };
}
pub(crate) use string_enum;

/// Declares an identifier: a transparent, cheaply cloned string newtype.
macro_rules! id_type {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident;
    ) => {
        $(#[doc = $doc])*
        ///
        /// Transparent on the wire (a JSON string); cloning is cheap (a shared `Arc<str>`), and
        /// decoding the same id as the last one of its type on the thread shares its text.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(clippy::exhaustive_structs)] // A transparent newtype: its one field is the wire value.
        pub struct $name(pub ::std::sync::Arc<str>);

        impl $crate::ConvertibleField for $name {}

        impl $name {
            /// Builds an identifier from any string.
            pub fn new(id: impl Into<::std::sync::Arc<str>>) -> Self {
                Self(id.into())
            }

            /// The identifier as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self(value.into())
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                Self(value.into())
            }
        }

        impl From<::std::sync::Arc<str>> for $name {
            fn from(value: ::std::sync::Arc<str>) -> Self {
                Self(value)
            }
        }

        impl From<&$name> for $name {
            /// A copy of the identifier (cheap: the text is shared), so that a borrowed id
            /// passes wherever an owned one is taken.
            fn from(value: &$name) -> Self {
                value.clone()
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl ::std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct IdVisitor;

                impl ::serde::de::Visitor<'_> for IdVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " string"))
                    }

                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        // The same id as the last one of this type: its `Arc`, no allocation.
                        thread_local! {
                            static LAST: ::std::cell::Cell<Option<::std::sync::Arc<str>>> =
                                const { ::std::cell::Cell::new(None) };
                        }
                        Ok($name($crate::id_cache::shared(&LAST, v)))
                    }
                }

                deserializer.deserialize_str(IdVisitor)
            }
        }

        $crate::wire::lenient_no_default!($name);

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!({
                    "type": "string",
                    "description": $crate::wire::doc_text(&[$($doc),*]),
                })
            }
        }
    };
}
pub(crate) use id_type;
