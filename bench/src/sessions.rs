//! The session store of `bench_trait_agent --listen ADDR --sessions WHERE` (BENCH.md
//! S5-store): every session made and every update sent is recorded, in memory (`memory`), in
//! a SQLite file (a path) or in PostgreSQL (`postgres://…`), so that S5 measures what
//! recording costs against each store in the same run.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let store = acp_bench::sessions::open("memory").await.unwrap();
//! assert!(!store.is_durable());
//! # }
//! ```

use acp_agent::{DurableOptions, SessionState, SessionStore};
use serde::{Deserialize, Serialize};

/// What the bench agent keeps per session: its working directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchSession {
    /// The `cwd` of `session/new`.
    pub cwd: String,
}

impl SessionState for BenchSession {
    fn cwd(&self) -> &str {
        &self.cwd
    }
}

/// Opens the store `location` names: `memory`, `postgres://…` (or `postgresql://…`), or else
/// the path of a SQLite file; the durable ones with the default group-commit window and queue.
///
/// # Errors
///
/// A message saying why the database cannot be opened.
pub async fn open(location: &str) -> Result<SessionStore<BenchSession>, String> {
    let options = DurableOptions::DEFAULT;
    let store = if location == "memory" {
        return Ok(SessionStore::new());
    } else if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        let backend = acp_store_postgres::PostgresBackend::open(location)
            .await
            .map_err(|e| e.to_string())?;
        SessionStore::durable(backend, options)
    } else {
        let backend = acp_store_sqlite::SqliteBackend::open(location)
            .await
            .map_err(|e| e.to_string())?;
        SessionStore::durable(backend, options)
    };
    store.map_err(|e| e.message)
}
