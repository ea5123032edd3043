//! What every file of wire types starts from: `use crate::prelude::*;`.
//!
//! The declaring macros ([`wire_object!`], [`tagged_union!`], [`string_enum!`], [`id_type!`]),
//! the types their declarations name ([`Extras`], [`Meta`], `BTreeMap`, `Path`) and every item
//! of the crate root, so that a file of wire types imports them in one line. A glob import
//! warns about nothing a file leaves unused, unlike the list of imports it replaces.

pub(crate) use std::collections::BTreeMap;
pub(crate) use std::path::Path;

pub(crate) use crate::wire::{Extras, Meta, wire_object};
pub(crate) use crate::wire_enum::{id_type, string_enum, tagged_union};
pub(crate) use crate::*;
