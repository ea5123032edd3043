//! Why a conductor could not start, or why its chain ended early.

/// What ends a conductor's run other than its predecessor (the editor) closing the connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The chain is not one this mode can run: agent mode needs at least the agent, proxy mode
    /// at least one proxy.
    #[error("{0}")]
    Chain(&'static str),

    /// A component could not be started.
    #[error("cannot start `{component}`: {source}")]
    Spawn {
        /// The component's command.
        component: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },

    /// A component closed its connection or exited while the chain was running: the chain
    /// ended (every request still open was answered with an error, every process stopped).
    #[error("the chain ended: `{component}` (component {index}) {how}")]
    ComponentEnded {
        /// The component's command.
        component: String,
        /// Its place in the chain (0 is the first proxy).
        index: usize,
        /// How it ended (`exited with code 1`, `closed its output`, ...).
        how: String,
    },

    /// Reading from or writing to the predecessor failed.
    #[error("the connection to the predecessor failed: {0}")]
    Io(#[source] std::io::Error),
}
