//! A component of the chain: the command of a proxy or of the agent, and its running process.

use std::ffi::OsString;
use std::fmt;
use std::process::Stdio;

use acp_process::{ProcessGroup, Stderr, forward_stderr};
use tokio::process::{ChildStdin, ChildStdout};

use crate::Error;
use crate::words::{WordsError, split};

/// The command line of one component (a proxy, or the agent at the end of the chain).
///
/// ```
/// use acp_conductor::Component;
///
/// let proxy = Component::parse("context-proxy --line 'Use British spelling.'")?;
/// assert_eq!(proxy.program(), "context-proxy");
/// assert_eq!(proxy.args(), ["--line", "Use British spelling."]);
/// # Ok::<(), acp_conductor::WordsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    program: OsString,
    args: Vec<OsString>,
    /// How it is named in logs and errors: the command as given.
    name: String,
}

impl Component {
    /// A component running `program` with `args`.
    pub fn new(
        program: impl Into<OsString>,
        args: impl IntoIterator<Item = impl Into<OsString>>,
    ) -> Self {
        let program = program.into();
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let mut name = program.to_string_lossy().into_owned();
        for arg in &args {
            name.push(' ');
            name.push_str(&arg.to_string_lossy());
        }
        Self {
            program,
            args,
            name,
        }
    }

    /// A component from one command string, split into words as a POSIX shell splits a simple
    /// command (quotes and backslashes; no variables, globs or other expansions), the form
    /// the official conductor's command line takes.
    ///
    /// # Errors
    ///
    /// An empty command, an unclosed quote, a trailing backslash.
    pub fn parse(command: &str) -> Result<Self, WordsError> {
        let mut words = split(command)?.into_iter();
        let program = words.next().ok_or(WordsError::Empty)?;
        let mut component = Self::new(program, words);
        command.trim().clone_into(&mut component.name);
        Ok(component)
    }

    /// The program.
    pub fn program(&self) -> &std::ffi::OsStr {
        &self.program
    }

    /// Its arguments.
    pub fn args(&self) -> &[OsString] {
        &self.args
    }

    /// The command, as given (for logs and errors).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Starts it in a process group of its own, its stdin and stdout piped, its stderr as
    /// `stderr` says.
    pub(crate) fn spawn(&self, index: usize, stderr: &Stderr) -> Result<Running, Error> {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr.stdio());
        let mut group = ProcessGroup::spawn(&mut command).map_err(|source| Error::Spawn {
            component: self.name.clone(),
            source,
        })?;
        let child = group.child();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Spawn {
                component: self.name.clone(),
                source: std::io::Error::other("its stdin or stdout is not piped"),
            });
        };
        if let Some(pipe) = child.stderr.take() {
            tokio::spawn(forward_stderr(pipe, stderr.clone()));
        }
        tracing::debug!(index, component = %self.name, pid = group.id(), "started");
        Ok(Running {
            group,
            pipes: Pipes { stdin, stdout },
        })
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A started component: its process group and its pipes.
#[derive(Debug)]
pub(crate) struct Running {
    pub(crate) group: ProcessGroup,
    pub(crate) pipes: Pipes,
}

/// The stdin and stdout of a started component: the conductor's connection to it.
#[derive(Debug)]
pub(crate) struct Pipes {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
}
