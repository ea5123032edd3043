//! A wire log: the raw bytes of a transport, both ways, recorded to files for tests and
//! debugging.
//!
//! [`WireLog`] wraps a reader or a writer and appends every byte that passes through it to a file,
//! exactly as it went over the wire (framing included). [`open`] creates the pair of files
//! `PREFIX.recv` (what this side read) and `PREFIX.sent` (what it wrote); a test then splits
//! them into messages on its own and checks each one.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A reader or writer whose bytes are copied to a file as they pass. (A byte-level recorder of
/// one stream; the message-level observer of a connection is acp-rpc's `Observer`.)
#[derive(Debug)]
pub struct WireLog<T> {
    inner: T,
    log: File,
}

impl<T> WireLog<T> {
    /// Wraps `inner`, appending its traffic to `log`.
    pub fn new(inner: T, log: File) -> Self {
        Self { inner, log }
    }
}

/// The two files of a wire log: `PREFIX.recv` and `PREFIX.sent`.
pub fn paths(prefix: &Path) -> (PathBuf, PathBuf) {
    let with = |ext: &str| {
        let mut name = prefix.as_os_str().to_owned();
        name.push(ext);
        PathBuf::from(name)
    };
    (with(".recv"), with(".sent"))
}

/// Creates (truncating) the two files of a wire log: for the bytes received, and sent.
///
/// # Errors
///
/// When a file cannot be created.
pub fn open(prefix: &Path) -> io::Result<(File, File)> {
    let (recv, sent) = paths(prefix);
    Ok((File::create(recv)?, File::create(sent)?))
}

impl<T: AsyncRead + Unpin> AsyncRead for WireLog<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        // A small local file: a blocking write is fine for a debugging aid.
        self.log.write_all(&buf.filled()[before..])?;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WireLog<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = ready!(Pin::new(&mut self.inner).poll_write(cx, buf))?;
        self.log.write_all(&buf[..written])?;
        Poll::Ready(Ok(written))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
