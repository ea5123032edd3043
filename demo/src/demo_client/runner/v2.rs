//! The client on a v2 connection (feature `unstable_protocol_v2`): `initialize` asks for v2 and
//! falls back to v1 ([`AgentHandle::negotiate`](acp_client::AgentHandle::negotiate)), and says
//! which version it got; on v2 the session methods, the prompt turn (acknowledged at once,
//! ended by the `idle` state update) and the client commands use the v2 handle. What v2 has no
//! method for (`session/load`, modes as a method, the draft `:fork` and `:providers`) is done
//! the v2 way (`session/resume` with replay, the `mode` configuration option) or refused with
//! a message saying so.

use acp_client::v2::{AgentHandle as V2Handle, Negotiated};
use acp_types::*;
use serde_json::json;

use super::super::output::options_line_v2;
use super::{Failure, Runner, TurnEnded};

/// The `configId` of the option that stands for the session's mode on v2 (what the migration
/// guide asks agents to offer instead of `session/set_mode`: the option of category `mode`).
const MODE_CATEGORY: &str = "mode";

impl Runner {
    /// `initialize` as v2 with `fallback` for a v1-only agent, then the session as the
    /// negotiated version says; false if the session could not start.
    pub(super) async fn start_negotiating(
        &mut self,
        options: &super::super::Options,
        fallback: InitializeRequest,
    ) -> bool {
        let info = fallback
            .client_info
            .clone()
            .unwrap_or_else(|| Implementation::new("acp-demo-client", env!("CARGO_PKG_VERSION")));
        // v2 defines no standard client capability; the v1 ones ride along for a v1 agent.
        let request =
            v2::InitializeRequest::new(2u16, info).capabilities(v2::ClientCapabilities::new());
        let negotiated = match self.call(self.agent.negotiate(request, fallback)).await {
            Ok(negotiated) => negotiated,
            Err(failure) => return self.fail("initialize", &failure).await,
        };
        let version = negotiated.protocol_version();
        let out = &self.shared.output;
        out.event(
            json!({ "event": "negotiated", "protocolVersion": version }),
            Some(out.style().dim(&format!("negotiated ACP v{version}"))),
        );
        match negotiated {
            Negotiated::V2(response) => {
                let Some(v2) = self.agent.v2() else {
                    return self
                        .fail(
                            "initialize",
                            &Failure::Refused("no v2 handle after v2".into()),
                        )
                        .await;
                };
                self.v2 = Some(v2.clone());
                self.started_v2(options, &v2, response).await
            }
            Negotiated::V1(response) => self.started(options, response).await,
            other => {
                let message = format!("the agent negotiated ACP v{}", other.protocol_version());
                self.fail("initialize", &Failure::Refused(message)).await
            }
        }
    }

    /// After a v2 `initialize`: shows the agent, signs in (`auth/login`) if asked, opens the
    /// session and sets `--mode` through the mode option.
    async fn started_v2(
        &mut self,
        options: &super::super::Options,
        v2: &V2Handle,
        response: v2::InitializeResponse,
    ) -> bool {
        let out = &self.shared.output;
        let info = &response.info;
        let name = format!(
            "{} {}",
            info.title.as_deref().unwrap_or(&info.name),
            info.version
        );
        let methods: Vec<(String, String)> = response
            .auth_methods
            .iter()
            .flatten()
            .filter_map(|m| match m {
                v2::AuthMethod::Agent(agent) => {
                    Some((agent.method_id.to_string(), agent.name.clone()))
                }
                _ => None,
            })
            .collect();
        let mut human = format!(
            "Connected to {} (protocol version 2).\n  It offers: {}.",
            out.style().bold(&name),
            offers_v2(response.capabilities.as_ref())
        );
        for (id, name) in &methods {
            human.push_str(&format!("\n    {id}: {name}"));
        }
        out.event(
            json!({
                "event": "initialized",
                "protocolVersion": response.protocol_version,
                "agentInfo": response.info,
                "agentCapabilities": response.capabilities,
                "authMethods": response.auth_methods,
            }),
            Some(human),
        );
        if let Some(id) = self.auth.clone() {
            if !methods.iter().any(|(m, _)| *m == id) {
                let message =
                    format!("the agent offers no `agent` sign-in method `{id}` on v2 (auth/login)");
                return self.fail("auth/login", &Failure::Refused(message)).await;
            }
            if let Err(failure) = self
                .call(v2.login(v2::LoginAuthRequest::new(id.as_str())))
                .await
            {
                return self.fail("auth/login", &failure).await;
            }
            out.event(
                json!({ "event": "authenticated", "methodId": id, "kind": "agent" }),
                Some(out.style().dim(&format!("  Signed in with {id}."))),
            );
        }
        if !self.new_session().await {
            return false;
        }
        if let Some(mode) = &options.mode {
            return self.command(&format!(":mode {mode}")).await == Some(true);
        }
        true
    }

    /// `session/new` on v2.
    pub(super) async fn new_session_v2(&mut self, v2: &V2Handle) -> bool {
        let request = v2::NewSessionRequest::new(self.cwd());
        match self.call(v2.new_session(request)).await {
            Ok(response) => {
                let id = response.session_id.clone();
                if let Some(options) = &response.config_options {
                    self.shared.output.options_v2(&id, options);
                }
                self.session = Some(id.clone());
                self.started.push(id.clone());
                let out = &self.shared.output;
                let mut human = format!(
                    "Session {} started in {}.",
                    out.style().bold(id.as_str()),
                    self.cwd()
                );
                if let Some(options) = &response.config_options {
                    human.push_str(&format!("\n  Options: {}", options_line_v2(options)));
                }
                out.event(
                    json!({
                        "event": "session_new",
                        "sessionId": id,
                        "configOptions": response.config_options,
                    }),
                    Some(human),
                );
                true
            }
            Err(failure) => self.fail("session/new", &failure).await,
        }
    }

    /// A client command on v2; `None` for those that are the same in both versions (`:help`,
    /// `:new`, `:cancel`) and unknown ones, which [`Runner::command`] handles.
    pub(super) async fn command_v2(
        &mut self,
        v2: &V2Handle,
        name: &str,
        args: &[&str],
        arg: Option<String>,
    ) -> Option<bool> {
        let current = self.session.clone();
        let target = arg.clone().or(current.as_ref().map(ToString::to_string));
        let ok = match (name, target) {
            (":list", _) => self.list_v2(v2).await,
            // v2 has no `session/load`: resuming with the whole history replayed is its form.
            (":load" | ":resume", Some(id)) if arg.is_some() => {
                self.resume_v2(v2, &id, name == ":load").await
            }
            (":close", Some(id)) => {
                let request = v2::CloseSessionRequest::new(id.as_str());
                match self.call(v2.close_session(request)).await {
                    Ok(_) => {
                        self.shared.output.event(
                            json!({ "event": "session_close", "sessionId": id }),
                            Some(format!("  Closed {id}.")),
                        );
                        true
                    }
                    Err(failure) => self.fail("session/close", &failure).await,
                }
            }
            (":delete", Some(id)) if arg.is_some() => {
                let request = v2::DeleteSessionRequest::new(id.as_str());
                match self.call(v2.delete_session(request)).await {
                    Ok(_) => {
                        if current.as_ref().is_some_and(|c| c.as_str() == id) {
                            self.session = None;
                        }
                        self.shared.output.event(
                            json!({ "event": "session_delete", "sessionId": id }),
                            Some(format!("  Deleted {id}.")),
                        );
                        true
                    }
                    Err(failure) => self.fail("session/delete", &failure).await,
                }
            }
            (":mode", _) if arg.is_some() && current.is_some() => {
                let (Some(mode), Some(session)) = (arg, current) else {
                    return Some(false);
                };
                let Some(config_id) = self.mode_option(&session) else {
                    let message = "the agent offers no mode (no configuration option of \
                                   category `mode`; v2 has no session/set_mode)";
                    return Some(self.fail("mode", &Failure::Refused(message.into())).await);
                };
                self.set_option_v2(v2, &session, &config_id, &mode).await
            }
            (":config", _) if args.len() == 2 && current.is_some() => {
                let Some(session) = current else {
                    return Some(false);
                };
                self.set_option_v2(v2, &session, args[0], args[1]).await
            }
            (":fork" | ":providers", _) => {
                let message = format!("{name} is a v1 draft method: not on a v2 connection");
                self.fail(name, &Failure::Refused(message)).await
            }
            _ => return None,
        };
        Some(ok)
    }

    /// The id of the session's mode option (category `mode`), from its model.
    fn mode_option(&self, session: &SessionId) -> Option<String> {
        let model = self.shared.output.model(session)?;
        model
            .config_options()
            .iter()
            .find(|o| {
                o.category
                    .as_ref()
                    .map(v2::SessionConfigOptionCategory::as_str)
                    == Some(MODE_CATEGORY)
            })
            .map(|o| o.config_id.to_string())
    }

    /// `session/set_config_option`: `value` is `true`/`false` for an on/off option, else the
    /// id of one of the option's values.
    async fn set_option_v2(
        &mut self,
        v2: &V2Handle,
        session: &SessionId,
        id: &str,
        value: &str,
    ) -> bool {
        let boolean = self.shared.output.model(session).is_some_and(|m| {
            m.config_options().iter().any(|o| {
                o.config_id.as_str() == id && matches!(o.kind, v2::SessionConfigKind::Boolean)
            })
        }) && matches!(value, "true" | "false");
        let mut request = if boolean {
            v2::SetSessionConfigOptionRequest::new(
                v2::SessionConfigValueKind::Boolean,
                session.clone(),
                id,
            )
        } else {
            v2::SetSessionConfigOptionRequest::new(
                v2::SessionConfigValueKind::Id,
                session.clone(),
                id,
            )
        };
        request.value = Some(if boolean {
            json!(value == "true")
        } else {
            json!(value)
        });
        match self.call(v2.set_session_config_option(request)).await {
            Ok(response) => {
                self.shared
                    .output
                    .options_v2(session, &response.config_options);
                let line = options_line_v2(&response.config_options);
                self.shared.output.event(
                    json!({
                        "event": "config_set",
                        "sessionId": session,
                        "configId": id,
                        "configOptions": response.config_options,
                    }),
                    Some(format!(
                        "  Set {id} (session/set_config_option). Options: {line}"
                    )),
                );
                true
            }
            Err(failure) => self.fail("session/set_config_option", &failure).await,
        }
    }

    /// `session/resume`, with the whole history replayed (`replayFrom: start`) when `replay`.
    async fn resume_v2(&mut self, v2: &V2Handle, id: &str, replay: bool) -> bool {
        let out = &self.shared.output;
        let mut request = v2::ResumeSessionRequest::new(id, self.cwd());
        if replay {
            request.replay_from = Some(v2::ReplayFrom::from(v2::ReplayFromStart::new()));
            out.start_replay();
        }
        let result = self.call(v2.resume_session(request)).await;
        let replayed = if replay { out.end_replay() } else { 0 };
        match result {
            Ok(response) => {
                if let Some(options) = &response.config_options {
                    self.shared.output.options_v2(&id.into(), options);
                }
                self.session = Some(id.into());
                let (event, human) = if replay {
                    (
                        json!({ "event": "session_load", "sessionId": id, "replayed": replayed }),
                        format!(
                            "  Resumed {id} with its history replayed (session/resume, \
                             replayFrom start) as {replayed} session/update notifications (not \
                             shown again)."
                        ),
                    )
                } else {
                    (
                        json!({ "event": "session_resume", "sessionId": id }),
                        format!("  Resumed {id} (no replay); it is the current session."),
                    )
                };
                self.shared.output.event(event, Some(human));
                true
            }
            Err(failure) => self.fail("session/resume", &failure).await,
        }
    }

    async fn list_v2(&mut self, v2: &V2Handle) -> bool {
        let mut sessions = Vec::new();
        let mut cursor = None;
        loop {
            let mut request = v2::ListSessionsRequest::new();
            request.cursor = cursor.take();
            match self.call(v2.list_sessions(request)).await {
                Ok(page) => {
                    sessions.extend(page.sessions);
                    match page.next_cursor {
                        Some(next) => cursor = Some(next),
                        None => break,
                    }
                }
                Err(failure) => return self.fail("session/list", &failure).await,
            }
        }
        let mut human = format!("  Sessions ({}):", sessions.len());
        for info in &sessions {
            let title = info.title.as_deref().unwrap_or("(untitled)");
            let current = if self.session.as_ref() == Some(&info.session_id) {
                "  <- current"
            } else {
                ""
            };
            human.push_str(&format!(
                "\n    {}  \u{201c}{title}\u{201d}{current}",
                info.session_id
            ));
        }
        self.shared.output.event(
            json!({ "event": "sessions", "sessions": sessions }),
            Some(human),
        );
        true
    }
}

/// A v2 prompt turn: `blocks` (built as v1 content, which v2 writes the same way) sent, and the
/// turn awaited to its `idle`.
pub(super) async fn prompt(
    v2: V2Handle,
    session: SessionId,
    blocks: Vec<ContentBlock>,
) -> Result<TurnEnded, Failure> {
    let blocks = serde_json::to_value(blocks)
        .and_then(serde_json::from_value::<Vec<v2::ContentBlock>>)
        .map_err(|e| Failure::Refused(format!("the prompt has no v2 form: {e}")))?;
    let end = v2.prompt(v2::PromptRequest::new(session, blocks)).await?;
    Ok(TurnEnded {
        reason: end
            .stop_reason()
            .map_or("(none)", v2::StopReason::as_str)
            .to_owned(),
        #[cfg(feature = "unstable")]
        usage: None,
    })
}

/// `session/cancel` on v2, not waiting for the `idle` that confirms it (the turn's own wait
/// ends with it).
pub(super) fn cancel(v2: &V2Handle, session: &SessionId) {
    let v2 = v2.clone();
    let notification = v2::CancelSessionNotification::new(session.clone());
    tokio::spawn(async move {
        let _ = v2.cancel(notification).await;
    });
}

/// What a v2 agent offers, in a few words.
fn offers_v2(caps: Option<&v2::AgentCapabilities>) -> String {
    let Some(session) = caps.and_then(|c| c.session.as_ref()) else {
        return "no sessions".to_owned();
    };
    let mut offers = vec!["sessions (new, list, resume with replay, close)".to_owned()];
    if let Some(prompt) = &session.prompt {
        for (present, name) in [
            (prompt.image.is_some(), "images"),
            (prompt.audio.is_some(), "audio"),
            (prompt.embedded_context.is_some(), "embedded files"),
        ] {
            if present {
                offers.push(format!("{name} in prompts"));
            }
        }
    }
    if session.delete.is_some() {
        offers.push("session/delete".to_owned());
    }
    offers.join(", ")
}
