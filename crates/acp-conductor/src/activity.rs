//! A writer that records when it last wrote, so that the conductor can let its last answers
//! (the errors of a chain that ended) reach the predecessor before it closes the connection.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::AsyncWrite;

/// When a [`Tracked`] writer last wrote or flushed.
#[derive(Debug)]
pub(crate) struct Activity {
    start: Instant,
    /// Milliseconds since `start` of the last write or flush.
    last: AtomicU64,
}

impl Activity {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            start: Instant::now(),
            last: AtomicU64::new(0),
        })
    }

    fn touch(&self) {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(now, Ordering::Relaxed);
    }

    fn quiet_for(&self) -> Duration {
        let last = Duration::from_millis(self.last.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(last)
    }

    /// Waits until nothing was written for `quiet`, for at most `limit`.
    pub(crate) async fn settled(&self, quiet: Duration, limit: Duration) {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            let quiet_for = self.quiet_for();
            if quiet_for >= quiet {
                return;
            }
            tokio::time::sleep(quiet - quiet_for).await;
        }
    }
}

/// `W`, recording its activity in an [`Activity`].
#[derive(Debug)]
pub(crate) struct Tracked<W> {
    pub(crate) inner: W,
    pub(crate) activity: Arc<Activity>,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Tracked<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.activity.touch();
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.activity.touch();
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
