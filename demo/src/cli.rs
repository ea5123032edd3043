//! What the programs' command lines share: clap parses them, then a check says what clap
//! cannot (flags that need each other, cargo features a flag needs), as a usage error.

use std::ffi::OsString;

use clap::error::ErrorKind;
use clap::{Command, FromArgMatches};

/// Parses `args` (the program name first) as `command` describes them, then runs `check` on
/// the result.
///
/// # Errors
///
/// A usage error: clap's, or `check`'s message with the usage line and exit code 2. The help
/// and the version come back as errors too: [`clap::Error::exit`] prints them on stdout and
/// exits with 0.
pub fn parse<T, I, A>(
    mut command: Command,
    args: I,
    check: impl FnOnce(&T) -> Result<(), String>,
) -> Result<T, clap::Error>
where
    T: FromArgMatches,
    I: IntoIterator<Item = A>,
    A: Into<OsString> + Clone,
{
    let parsed = T::from_arg_matches(&command.try_get_matches_from_mut(args)?)?;
    check(&parsed).map_err(|message| command.error(ErrorKind::ArgumentConflict, message))?;
    Ok(parsed)
}
