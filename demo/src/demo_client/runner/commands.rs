//! The client commands (`:new`, `:list`, `:load`, ...): the session methods of the protocol.

use acp_types::*;
use serde_json::json;

use super::super::output::options_line;
use super::Runner;

impl Runner {
    /// A command's session argument: `#N` is the Nth session this client started (if there
    /// is one), anything else is the id itself.
    fn session_ref(&self, arg: &str) -> String {
        arg.strip_prefix('#')
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| self.started.get(n.checked_sub(1)?))
            .map_or_else(|| arg.to_owned(), ToString::to_string)
    }

    /// A client command; `Some(true)` when it succeeded, `None` for an unknown one.
    pub(crate) async fn command(&mut self, line: &str) -> Option<bool> {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or_default();
        let args: Vec<&str> = words.collect();
        let arg = args.first().map(|a| self.session_ref(a));
        #[cfg(feature = "unstable_protocol_v2")]
        if let Some(v2) = self.v2.clone() {
            if let Some(ok) = self.command_v2(&v2, name, &args, arg.clone()).await {
                return Some(ok);
            }
        }
        let out = &self.shared.output;
        let s = out.style();
        let current = self.session.clone();
        let need = |what: Option<String>| what.or(current.as_ref().map(ToString::to_string));
        let ok = match (name, need(arg.clone())) {
            (":help", _) => {
                let help = super::super::CLIENT_COMMANDS;
                // The draft commands (`:fork`, `:providers`), after the others.
                #[cfg(feature = "unstable")]
                let draft = super::super::DRAFT_USAGE;
                #[cfg(feature = "unstable")]
                let help = &format!(
                    "{help}\n{}",
                    draft.find("  :").map_or("", |start| &draft[start..])
                );
                out.event(json!({ "event": "help" }), Some(help.to_owned()));
                true
            }
            (":new", _) => self.new_session().await,
            (":list", _) => self.list().await,
            (":cancel", _) => {
                out.event(
                    json!({ "event": "note", "text": "no turn is running" }),
                    Some(s.dim("  (no turn is running)")),
                );
                true
            }
            (":load", Some(id)) if arg.is_some() => {
                out.start_replay();
                let request =
                    LoadSessionRequest::new(id.as_str(), self.cwd(), Vec::<McpServer>::new());
                let result = self.call(self.agent.load_session(request)).await;
                let replayed = out.end_replay();
                match result {
                    Ok(response) => {
                        self.remember(&id.as_str().into(), response.config_options);
                        self.session = Some(id.as_str().into());
                        out.event(
                            json!({ "event": "session_load", "sessionId": id, "replayed": replayed }),
                            Some(format!(
                                "  Loaded {id}: the agent replayed its history as {replayed} \
                                 session/update notifications (not shown again)."
                            )),
                        );
                        true
                    }
                    Err(failure) => self.fail("session/load", &failure).await,
                }
            }
            (":resume", Some(id)) if arg.is_some() => {
                let request = ResumeSessionRequest::new(id.as_str(), self.cwd());
                match self.call(self.agent.resume_session(request)).await {
                    Ok(response) => {
                        self.remember(&id.as_str().into(), response.config_options);
                        self.session = Some(id.as_str().into());
                        out.event(
                            json!({ "event": "session_resume", "sessionId": id }),
                            Some(format!(
                                "  Resumed {id} (no replay); it is the current session."
                            )),
                        );
                        true
                    }
                    Err(failure) => self.fail("session/resume", &failure).await,
                }
            }
            (":close", Some(id)) => {
                let request = CloseSessionRequest::new(id.as_str());
                match self.call(self.agent.close_session(request)).await {
                    Ok(_) => {
                        out.event(
                            json!({ "event": "session_close", "sessionId": id }),
                            Some(format!("  Closed {id}.")),
                        );
                        true
                    }
                    Err(failure) => self.fail("session/close", &failure).await,
                }
            }
            (":delete", Some(id)) if arg.is_some() => {
                let request = DeleteSessionRequest::new(id.as_str());
                match self.call(self.agent.delete_session(request)).await {
                    Ok(_) => {
                        if current.as_ref().is_some_and(|c| c.as_str() == id) {
                            self.session = None;
                        }
                        out.event(
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
                let request = SetSessionModeRequest::new(session.clone(), mode.as_str());
                match self.call(self.agent.set_session_mode(request)).await {
                    Ok(_) => {
                        out.event(
                            json!({ "event": "mode_set", "sessionId": session, "modeId": mode }),
                            Some(format!(
                                "  Asked for mode {} (session/set_mode).",
                                s.bold(&mode)
                            )),
                        );
                        true
                    }
                    Err(failure) => self.fail("session/set_mode", &failure).await,
                }
            }
            (":config", _) if args.len() == 2 && current.is_some() => {
                let (id, value) = (args[0], args[1]);
                let Some(session) = current else {
                    return Some(false);
                };
                let value = if self.shared.is_boolean_option(&session, id)
                    && matches!(value, "true" | "false")
                {
                    SessionConfigOptionValue::Boolean(value == "true")
                } else {
                    SessionConfigOptionValue::ValueId(value.into())
                };
                let request = SetSessionConfigOptionRequest::new(session.clone(), id, value);
                match self
                    .call(self.agent.set_session_config_option(request))
                    .await
                {
                    Ok(response) => {
                        let line = options_line(&response.config_options);
                        out.event(
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
                        self.remember(&session, Some(response.config_options));
                        true
                    }
                    Err(failure) => self.fail("session/set_config_option", &failure).await,
                }
            }
            #[cfg(feature = "unstable")]
            (":fork", Some(id)) => self.fork(id).await,
            #[cfg(feature = "unstable")]
            (":providers", _)
                if matches!(args.as_slice(), [] | ["set", _, _, _] | ["disable", _]) =>
            {
                self.providers(&args).await
            }
            _ => {
                let message = format!(
                    "`{line}` is not a client command, or lacks an argument (:help lists them)"
                );
                self.failures += 1;
                out.error(
                    json!({ "event": "error", "during": "client command", "message": message }),
                    &format!("error: {message}"),
                );
                return None;
            }
        };
        Some(ok)
    }

    async fn list(&mut self) -> bool {
        let mut sessions = Vec::new();
        let mut cursor = None;
        loop {
            let mut request = ListSessionsRequest::new();
            request.cursor = cursor.take();
            match self.call(self.agent.list_sessions(request)).await {
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
        let out = &self.shared.output;
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
        out.event(
            json!({ "event": "sessions", "sessions": sessions }),
            Some(human),
        );
        true
    }
}
