//! A scratch directory for the database files, and a store on one.

use std::path::{Path, PathBuf};

use acp_agent::{DurableOptions, SessionStore};
use acp_store_sqlite::SqliteBackend;

use crate::common::Note;

/// A fresh directory under the system's temporary one; removed when dropped.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("acp-store-sqlite-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// The file `name` in the directory.
    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A store on the file at `path` with `options`.
pub(crate) async fn open(path: &Path, options: DurableOptions) -> SessionStore<Note> {
    let backend = SqliteBackend::open(path).await.expect("open the database");
    SessionStore::durable(backend, options).expect("a durable store")
}
