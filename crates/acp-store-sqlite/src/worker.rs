//! The thread that owns the SQLite connection: every blocking call runs there, sent by the
//! async methods through a bounded channel, the answer coming back on a oneshot.

use std::thread;

use acp_agent::backend::BackendError;
use rusqlite::Connection;
use rusqlite::ffi::ErrorCode;
use tokio::sync::{mpsc, oneshot};

/// A unit of work for the connection's thread.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// How many jobs may wait for the thread before their senders wait.
const QUEUE: usize = 64;

/// The handle of the connection's thread; the thread ends (closing the file) when it is
/// dropped.
#[derive(Debug)]
pub(crate) struct Worker {
    jobs: mpsc::Sender<Job>,
}

impl Worker {
    /// Starts the thread with the connection `open` makes (on the thread).
    pub(crate) async fn start(
        open: impl FnOnce() -> Result<Connection, BackendError> + Send + 'static,
    ) -> Result<Self, BackendError> {
        let (jobs, mut queue) = mpsc::channel::<Job>(QUEUE);
        let (opened, ready) = oneshot::channel();
        thread::Builder::new()
            .name("acp-store-sqlite".into())
            .spawn(move || {
                let mut conn = match open() {
                    Ok(conn) => {
                        let _ = opened.send(Ok(()));
                        conn
                    }
                    Err(error) => {
                        let _ = opened.send(Err(error));
                        return;
                    }
                };
                while let Some(job) = queue.blocking_recv() {
                    job(&mut conn);
                }
                if let Err((_, error)) = conn.close() {
                    tracing::warn!(%error, "closing the session database failed");
                }
            })
            .map_err(|e| BackendError::permanent(format_args!("cannot start a thread: {e}")))?;
        ready
            .await
            .map_err(|_| BackendError::permanent("the session database's thread ended"))??;
        Ok(Self { jobs })
    }

    /// Runs `job` on the connection's thread and returns what it returned.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, BackendError> {
        let (answer, answered) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = answer.send(job(conn).map_err(|e| classify(&e)));
        });
        self.jobs
            .send(job)
            .await
            .map_err(|_| BackendError::permanent("the session database's thread ended"))?;
        answered
            .await
            .map_err(|_| BackendError::permanent("the session database's thread ended"))?
    }
}

/// A SQLite error as a [`BackendError`]: transient when trying again may help (the file is
/// busy or locked, the disk is full or failed), permanent otherwise (corrupt, not a database).
pub(crate) fn classify(error: &rusqlite::Error) -> BackendError {
    let transient = matches!(
        error.sqlite_error_code(),
        Some(
            ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked
                | ErrorCode::SystemIoFailure
                | ErrorCode::DiskFull
                | ErrorCode::OutOfMemory
        )
    );
    let message = format!("the session database failed: {error}");
    match transient {
        true => BackendError::transient(message),
        false => BackendError::permanent(message),
    }
}
