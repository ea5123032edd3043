//! The signals that stop the client: SIGINT (Ctrl-C), SIGTERM, and SIGHUP (its terminal closed:
//! the agent and the commands it started must not outlive it).

/// A signal asking the client to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGHUP: the terminal went away (a closed window, an ended SSH session).
    Hangup,
}

impl Stop {
    /// The signal's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
            Stop::Hangup => "SIGHUP",
        }
    }

    /// The exit status of a program stopped by the signal, by convention 128 + its number.
    pub(crate) fn exit_code(self) -> u8 {
        match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
            Stop::Hangup => 129,
        }
    }
}

/// The stop signals, handled by the client from its start (instead of ending it at once).
#[derive(Debug)]
pub(crate) struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    hangup: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Starts handling SIGINT, SIGTERM and SIGHUP. A signal that cannot be handled keeps its
    /// default action (it ends the client).
    pub(crate) fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
                hangup: signal(SignalKind::hangup()).ok(),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// The next stop signal.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub(crate) async fn recv(&mut self) -> Stop {
        #[cfg(unix)]
        {
            async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
                match signal {
                    Some(signal) => {
                        if signal.recv().await.is_none() {
                            std::future::pending::<()>().await;
                        }
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                () = next(&mut self.interrupt) => Stop::Interrupt,
                () = next(&mut self.terminate) => Stop::Terminate,
                () = next(&mut self.hangup) => Stop::Hangup,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Stop::Interrupt
        }
    }
}
