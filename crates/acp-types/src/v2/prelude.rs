//! What every file of v2 wire types starts from: `use super::prelude::*;`.
//!
//! Like the crate's prelude, but naming the v2 types: the crate root's v1 types of the same
//! names are not in scope here (only those v2 re-exports, see [`super`]).

pub(crate) use std::collections::BTreeMap;

pub(crate) use super::*;
pub(crate) use crate::wire::{Extras, Meta, wire_object};
pub(crate) use crate::wire_enum::{id_type, string_enum, tagged_union};
