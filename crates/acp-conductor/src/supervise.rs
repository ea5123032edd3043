//! The processes of the chain: noticing that one ended, telling how, stopping them all.

use std::time::Duration;

use acp_process::ProcessGroup;

/// How often the processes are checked for an exit that did not close their output (a helper
/// they started may hold it open).
const EXIT_POLL: Duration = Duration::from_millis(100);

/// The process groups of the components, in chain order, with their names.
#[derive(Debug)]
pub(crate) struct Processes {
    groups: Vec<ProcessGroup>,
    names: Vec<String>,
}

impl Processes {
    pub(crate) fn new(groups: Vec<ProcessGroup>, names: Vec<String>) -> Self {
        debug_assert_eq!(groups.len(), names.len(), "a name for every process");
        Self { groups, names }
    }

    /// The name of component `index`.
    pub(crate) fn name(&self, index: usize) -> &str {
        &self.names[index]
    }

    /// Resolves once a component's process has exited, with its index. Cancel safe.
    pub(crate) async fn exited(&mut self) -> usize {
        loop {
            for (index, group) in self.groups.iter_mut().enumerate() {
                if !matches!(group.try_wait(), Ok(None)) {
                    return index;
                }
            }
            tokio::time::sleep(EXIT_POLL).await;
        }
    }

    /// How component `index` ended, waiting up to `within` for its process to exit: `exited
    /// with code 1`, or, if it is still running, that it closed its connection.
    pub(crate) async fn how_ended(&mut self, index: usize, within: Duration) -> String {
        let group = &mut self.groups[index];
        match tokio::time::timeout(within, group.wait()).await {
            Ok(Ok(status)) => match status.code() {
                Some(code) => format!("exited with code {code}"),
                None => format!("ended ({status})"),
            },
            Ok(Err(e)) => format!("ended (its status cannot be read: {e})"),
            Err(_) => "closed its connection".to_owned(),
        }
    }

    /// Stops every component: each had its input closed, and gets `grace` to exit by itself,
    /// then `SIGTERM` and `grace` more, then `SIGKILL`; helpers left in their groups are
    /// killed. All at once, so the whole stop takes at most about twice `grace`.
    pub(crate) async fn stop_all(mut self, grace: Duration) {
        let names = &self.names;
        let stops = self
            .groups
            .iter_mut()
            .zip(names)
            .map(|(group, name)| async move {
                match group.wait_or_stop(grace).await {
                    Ok(stopped) => tracing::debug!(component = %name, "{stopped}"),
                    Err(error) => tracing::warn!(component = %name, %error, "cannot stop it"),
                }
            });
        futures::future::join_all(stops).await;
    }
}
