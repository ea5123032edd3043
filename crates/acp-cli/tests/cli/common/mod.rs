//! What the tests of `acp-cli` share: the `acp` binary and the test programs of `examples/`.

#![allow(dead_code)] // Each test file uses a part.

use std::path::PathBuf;
use std::process::Command;

/// The `acp` binary, as a command.
pub(crate) fn acp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_acp"))
}

/// A test program of this crate's `examples/` (`cargo test` builds them next to `acp`).
pub(crate) fn example(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_acp"))
        .parent()
        .expect("the binary's directory")
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "{} is not built", path.display());
    path
}
