//! The files of the client cases: fixtures the checker puts in the session's working directory
//! (and removes again), and the watch for files a client writes where it was not asked to.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How deep below the watched directory files are listed.
const WATCH_DEPTH: usize = 3;

/// How many files are listed at most (the directory may be a large project's parent).
const WATCH_FILES: usize = 10_000;

/// A file of the checker's in the session's working directory, removed when dropped.
#[derive(Debug)]
pub(super) struct Fixture(PathBuf);

impl Fixture {
    /// Creates `name` holding `content` in `dir`, never overwriting a file that is there.
    pub(super) fn create(dir: &Path, name: &str, content: &str) -> io::Result<Self> {
        let path = dir.join(name);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        let fixture = Self(path);
        file.write_all(content.as_bytes())?;
        Ok(fixture)
    }

    /// Claims `name` in `dir` for a file the client is to write: an error when something is
    /// there already; what the client wrote is removed when dropped.
    pub(super) fn claim(dir: &Path, name: &str) -> io::Result<Self> {
        let path = dir.join(name);
        if path.symlink_metadata().is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists already", path.display()),
            ));
        }
        Ok(Self(path))
    }

    /// Where the file is.
    pub(super) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The files below `dir` (relative paths, sorted), [`WATCH_DEPTH`] levels deep, at most
/// [`WATCH_FILES`]; symbolic links are not followed.
pub(super) fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if out.len() == WATCH_FILES {
                break;
            }
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if depth + 1 < WATCH_DEPTH {
                    stack.push((path, depth + 1));
                }
            } else if let Ok(rel) = path.strip_prefix(dir) {
                out.push(rel.to_path_buf());
            }
        }
    }
    out.sort();
    out
}
