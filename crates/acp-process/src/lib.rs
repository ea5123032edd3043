//! Child processes for Agent Client Protocol programs: a [`ProcessGroup`] that is stopped with
//! everything it started, and [`forward_stderr`], which reads a child's stderr safely to its
//! end.
//!
//! ```text
//! acp-process  <- you are here: process groups and stderr, for whoever starts programs
//! acp-client     spawns agents (and terminal commands) with it
//! acp-http       its bridge runs one stdio agent program per remote connection with it
//! ```
//!
//! An agent is a program that starts programs of its own (shells, compilers, language
//! servers). Killing only the agent leaves them running; this crate puts the agent in a
//! process group of its own (on Unix) and signals the whole group, and dropping the
//! [`ProcessGroup`] kills whatever is left of it. The agent's stderr, where agents log, is
//! read to its end in bounded lines, so that the program never blocks on (or dies of) a full
//! or closed pipe, whatever it writes.
//!
//! ```
//! # #[cfg(unix)]
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use std::process::Stdio;
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! use acp_process::{ProcessGroup, Stderr, StopStage, forward_stderr};
//!
//! // A program that starts a helper, logs a line, and would run for a minute.
//! let mut command = tokio::process::Command::new("sh");
//! command
//!     .arg("-c")
//!     .arg("sleep 60 & echo started >&2; exec sleep 60")
//!     .stderr(Stdio::piped());
//! let mut group = ProcessGroup::spawn(&mut command)?;
//!
//! let (lines, mut logged) = tokio::sync::mpsc::unbounded_channel();
//! let stderr = group.child().stderr.take().expect("piped");
//! let logging = tokio::spawn(forward_stderr(
//!     stderr,
//!     Stderr::Lines(Arc::new(move |line: &str| drop(lines.send(line.to_owned())))),
//! ));
//! assert_eq!(logged.recv().await.as_deref(), Some("started"));
//!
//! // SIGTERM to the program and its helper, a second to exit, then SIGKILL.
//! let stopped = group.stop(Duration::from_secs(1)).await?;
//! assert_eq!(stopped.stage, StopStage::Terminated);
//! // The helper held the pipe too: the log ends only because it was stopped as well.
//! tokio::time::timeout(Duration::from_secs(10), logging)
//!     .await
//!     .expect("the whole group ended")
//!     .expect("the log task");
//! # Ok(()) }
//! # #[cfg(not(unix))]
//! # fn main() {}
//! ```

#![doc(test(attr(deny(warnings))))]

mod group;
mod stderr;

pub use group::{ProcessGroup, StopStage, Stopped};
pub use stderr::{MAX_STDERR_LINE, Stderr, forward_stderr};
