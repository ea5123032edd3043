//! Serving a v2 client: negotiation, the v2 methods mapped onto the [`Agent`] trait, and the
//! prompt lifecycle the library runs.

use std::sync::{Arc, Mutex};

use acp_types::v2;
use acp_types::v2::methods::agent as m;
use acp_types::*;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::convert::{self, transcode};
use super::modes::{MODE_OPTION, Modes};
use super::turns::{Begin, TurnGuard};
use crate::connection::{AgentHandler, PromptGuard};
use crate::signal::Signal;
use crate::{Agent, PromptContext};

/// The protocol version v2 connections speak.
pub(crate) const V2: ProtocolVersion = ProtocolVersion(2);

/// The versions this agent supports, for the `-32022` error's data.
const SUPPORTED: [ProtocolVersion; 2] = [ProtocolVersion::V1, V2];

/// A decoded request of a v2 client.
pub(crate) enum Call {
    Initialize(Box<v2::InitializeRequest>),
    NewSession(v2::NewSessionRequest),
    Prompt(v2::PromptRequest),
    Resume(v2::ResumeSessionRequest),
    List(v2::ListSessionsRequest),
    Close(CloseSessionRequest),
    Delete(DeleteSessionRequest),
    SetConfigOption(v2::SetSessionConfigOptionRequest),
    Login(v2::LoginAuthRequest),
    Logout(v2::LogoutAuthRequest),
    ToolCallCancel(v2::CancelToolCallRequest),
    TerminalCancel(v2::CancelTerminalRequest),
}

/// A decoded notification of a v2 client.
pub(crate) enum Notification {
    Cancel(v2::CancelSessionNotification),
}

/// The answer to a v2 request, as JSON. The answer to `session/prompt` also starts its turn
/// once it is written: the acknowledgement precedes every update of the turn.
pub(crate) struct Answer {
    json: Box<RawValue>,
    acknowledged: Mutex<Option<oneshot::Sender<()>>>,
}

impl Answer {
    fn new(result: &impl Serialize) -> Result<Self, ErrorObject> {
        let json = serde_json::value::to_raw_value(result).map_err(|e| {
            ErrorObject::internal_error(format_args!("could not serialize the result: {e}"))
        })?;
        Ok(Self {
            json,
            acknowledged: Mutex::new(None),
        })
    }
}

impl Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let sender = self
            .acknowledged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(sender) = sender {
            let _ = sender.send(());
        }
        self.json.serialize(serializer)
    }
}

/// Decodes `params` as `T`, a `-32602` naming the method when they do not fit.
fn params<T: serde::de::DeserializeOwned>(
    method: &str,
    params: Option<&RawValue>,
) -> Result<T, ErrorObject> {
    acp_types::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| ErrorObject::invalid_params(format_args!("`{method}`: {e}")))
}

/// The `-32022` error of `initialize` for a version at or below which none is supported.
fn unsupported_version(requested: u16) -> ErrorObject {
    let data = v2::UnsupportedProtocolVersionErrorData::new(
        ProtocolVersion(requested),
        SUPPORTED.to_vec(),
    );
    ErrorObject::new(
        ErrorCode(v2::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0),
        format!(
            "Unsupported protocol version: {requested} was requested, and this agent supports \
             versions 1 and 2 only"
        ),
    )
    .with_data(serde_json::to_value(&data).unwrap_or_default())
}

/// The `protocolVersion` an `initialize` request asks for, read as v1 reads it (the field is
/// the same in both versions); `None` when unreadable (the v1 path then answers why).
fn requested_version(params: Option<&RawValue>) -> Option<u16> {
    let request: InitializeRequest = acp_types::from_str(params?.get()).ok()?;
    Some(request.protocol_version.0)
}

/// Decodes a request as v2 when the connection speaks v2 (or this `initialize` asks for v2);
/// `None` when the v1 path applies (a v1 connection, an extension method).
pub(crate) fn decode_request<A: Agent>(
    handler: &AgentHandler<A>,
    method: &str,
    raw: Option<&RawValue>,
) -> Result<Option<Call>, ErrorObject> {
    if !handler.client.is_v2() {
        if method != m::INITIALIZE
            || handler.state.initialized.get().is_some()
            || !handler.options.negotiate_version
        {
            return Ok(None);
        }
        return match requested_version(raw) {
            Some(0) => Err(unsupported_version(0)),
            Some(v) if v >= V2.0 && handler.options.max_protocol_version >= V2 => {
                Ok(Some(Call::Initialize(params(method, raw)?)))
            }
            _ => Ok(None),
        };
    }
    if acp_types::is_extension_method(method) {
        return Ok(None);
    }
    Ok(Some(match method {
        m::INITIALIZE => Call::Initialize(params(method, raw)?),
        m::SESSION_NEW => Call::NewSession(params(method, raw)?),
        m::SESSION_PROMPT => Call::Prompt(params(method, raw)?),
        m::SESSION_RESUME => Call::Resume(params(method, raw)?),
        m::SESSION_LIST => Call::List(params(method, raw)?),
        m::SESSION_CLOSE => Call::Close(params(method, raw)?),
        m::SESSION_DELETE => Call::Delete(params(method, raw)?),
        m::SESSION_SET_CONFIG_OPTION => Call::SetConfigOption(params(method, raw)?),
        m::AUTH_LOGIN | m::AUTH_LOGOUT
            if handler.options.refuse_unadvertised && !authenticates(handler) =>
        {
            let mut error = ErrorObject::method_not_found(method);
            error.message =
                format!("Method not found: `{method}` (the agent advertised no `authMethods`)");
            return Err(error);
        }
        m::AUTH_LOGIN => Call::Login(params(method, raw)?),
        m::AUTH_LOGOUT => Call::Logout(params(method, raw)?),
        m::TOOL_CALL_CANCEL => {
            let request: v2::CancelToolCallRequest = params(method, raw)?;
            let cursors = handler.client.cursors();
            if handler.options.refuse_unadvertised
                && !cursors.tool_call_cancellable(&request.session_id, &request.tool_call_id)
            {
                return Err(ErrorObject::invalid_params(format_args!(
                    "tool call {} of session {} cannot be cancelled: it is unknown, final, or \
                     does not advertise `capabilities.cancel`",
                    request.tool_call_id, request.session_id
                )));
            }
            Call::ToolCallCancel(request)
        }
        m::TERMINAL_CANCEL => {
            let request: v2::CancelTerminalRequest = params(method, raw)?;
            let cursors = handler.client.cursors();
            if handler.options.refuse_unadvertised
                && !cursors.terminal_cancellable(&request.session_id, &request.terminal_id)
            {
                return Err(ErrorObject::invalid_params(format_args!(
                    "terminal {} of session {} cannot be cancelled: it is unknown, has exited, \
                     or does not advertise `capabilities.cancel`",
                    request.terminal_id, request.session_id
                )));
            }
            Call::TerminalCancel(request)
        }
        other => return Err(not_in_v2(other)),
    }))
}

/// True when the agent advertised authentication methods: v2 clients may call `auth/login`
/// and `auth/logout` only then.
fn authenticates<A>(handler: &AgentHandler<A>) -> bool {
    handler
        .state
        .advertised
        .get()
        .and_then(|r| r.auth_methods.as_ref())
        .is_some_and(|methods| !methods.is_empty())
}

/// Decodes a notification as v2 on a v2 connection; `None` when the v1 path applies.
pub(crate) fn decode_notification<A: Agent>(
    handler: &AgentHandler<A>,
    method: &str,
    raw: Option<&RawValue>,
) -> Result<Option<Notification>, ErrorObject> {
    if !handler.client.is_v2() || acp_types::is_extension_method(method) {
        return Ok(None);
    }
    match method {
        m::SESSION_CANCEL => Ok(Some(Notification::Cancel(params(method, raw)?))),
        other => Err(not_in_v2(other)),
    }
}

/// `-32601` for a method v2 does not have (v1's `session/load`, `session/set_mode`,
/// `authenticate`, ...).
fn not_in_v2(method: &str) -> ErrorObject {
    let mut error = ErrorObject::method_not_found(method);
    error.message = format!(
        "Method not found: `{method}` is not a method of ACP protocol version 2, which this \
         connection speaks"
    );
    error
}

/// Runs the checks the v1 path applies to a request (absolute paths, what the agent
/// advertised) on its v1 form.
fn admit<A>(handler: &AgentHandler<A>, params: &ClientRequestParams) -> Result<(), ErrorObject> {
    if handler.options.require_absolute_cwd {
        crate::cwd::check(params)?;
    }
    if handler.options.refuse_unadvertised {
        crate::admit::check_request(handler.state.advertised.get(), params)?;
    }
    Ok(())
}

/// The v1 request `$value` of `ClientRequestParams::$variant`, after the checks of [`admit`].
macro_rules! admitted {
    ($handler:expr, $variant:ident, $value:expr) => {{
        let params = ClientRequestParams::$variant($value);
        admit($handler, &params)?;
        let ClientRequestParams::$variant(value) = params else {
            unreachable!("built above")
        };
        value
    }};
}

/// Serves a v2 request whose meaning is a v1 method's: `request` converted to the v1 params,
/// `call` (the trait method), its answer converted to the v2 result `R`.
async fn through_v1<P, T, R, F>(
    request: &impl Serialize,
    method: &str,
    call: impl FnOnce(P) -> F,
) -> Result<Answer, ErrorObject>
where
    P: serde::de::DeserializeOwned,
    T: Serialize,
    R: serde::de::DeserializeOwned + Serialize,
    F: Future<Output = Result<T, ErrorObject>>,
{
    let v1 = transcode(request).map_err(unreadable(method))?;
    let response = call(v1).await?;
    let answer: R = transcode(&response)
        .map_err(|reason| unsayable("answer")(format!("(to `{method}`) {reason}")))?;
    Answer::new(&answer)
}

/// A value of the agent's that cannot be said in v2: an internal error naming it.
fn unsayable(what: &str) -> impl FnOnce(String) -> ErrorObject + '_ {
    move |reason| {
        ErrorObject::internal_error(format_args!(
            "the agent's {what} cannot be said in protocol version 2: {reason}"
        ))
    }
}

/// A client's v2 request that has no v1 form.
fn unreadable(what: &str) -> impl FnOnce(String) -> ErrorObject + '_ {
    move |reason| ErrorObject::invalid_params(format_args!("{what}: {reason}"))
}

/// The v2 form of a v1 session answer (`session/new`, `session/resume` through `session/load`
/// or `session/resume`) for `session_id` (`None`: the answer's own): its config options, with
/// its modes among them as the config option `mode` (see [`Modes`]).
fn session_response<T: serde::de::DeserializeOwned>(
    response: &impl Serialize,
    what: &str,
    cursors: &super::Cursors,
    session_id: Option<&SessionId>,
) -> Result<T, ErrorObject> {
    let mut json = serde_json::to_value(response).map_err(|e| unsayable(what)(e.to_string()))?;
    if let Some(options) = json.get_mut("configOptions") {
        convert::config_options_to_v2(options);
    }
    if let Some(object) = json.as_object_mut()
        && let Some(modes) = Modes::take(object)
    {
        let own = object
            .get("sessionId")
            .and_then(Value::as_str)
            .map(SessionId::from);
        if let Some(session_id) = session_id.or(own.as_ref()) {
            cursors.set_modes(session_id, modes);
        }
    }
    convert::read(json).map_err(unsayable(what))
}

/// `session/set_config_option`: the config option `mode` of a session whose modes it offers
/// switches the mode through [`Agent::set_session_mode`]; any other goes to
/// [`Agent::set_session_config_option`]. The answer lists the modes' option too.
async fn set_config_option<A: Agent>(
    this: &AgentHandler<A>,
    request: v2::SetSessionConfigOptionRequest,
) -> Result<Answer, ErrorObject> {
    let cursors = this.client.cursors();
    let session_id = request.session_id.clone();
    if request.config_id.as_str() == MODE_OPTION
        && let Some(offered) = cursors.with_modes(&session_id, |modes| modes.clone())
    {
        let json = serde_json::to_value(&request).unwrap_or_default();
        let mode = json["value"].as_str().unwrap_or_default().to_owned();
        if json["type"] != "id" || !offered.offers(&mode) {
            return Err(ErrorObject::invalid_params(format_args!(
                "`{mode}` is not one of the modes of session {session_id}"
            )));
        }
        let mut v1 = SetSessionModeRequest::new(session_id.clone(), mode.as_str());
        v1.meta = request.meta.clone();
        this.agent.set_session_mode(v1).await?;
        let options = cursors.with_modes(&session_id, |modes| {
            modes.set_current(&mode);
            modes.options()
        });
        let answer: v2::SetSessionConfigOptionResponse =
            convert::read(json!({"configOptions": options.unwrap_or_default()}))
                .map_err(unsayable("config options"))?;
        return Answer::new(&answer);
    }
    let v1 = transcode(&request).map_err(unreadable(m::SESSION_SET_CONFIG_OPTION))?;
    let response = this.agent.set_session_config_option(v1).await?;
    let mut json =
        serde_json::to_value(&response).map_err(|e| unsayable("answer")(e.to_string()))?;
    if let Some(options) = json.get_mut("configOptions") {
        convert::config_options_to_v2(options);
    }
    if let Some(Value::Array(own)) = json.get("configOptions").cloned()
        && let Some(all) = cursors.with_modes(&session_id, |modes| {
            modes.set_others(own);
            modes.options()
        })
    {
        json["configOptions"] = all;
    }
    let answer: v2::SetSessionConfigOptionResponse =
        convert::read(json).map_err(unsayable("session/set_config_option answer"))?;
    Answer::new(&answer)
}

/// The v1 form of a v2 session request (`session/new`, `session/resume`): v2 lets
/// `mcpServers` be omitted or `null` (none), v1 requires the list; `replayFrom` has no v1
/// form (the caller chose the method by it).
fn session_request_to_v1<T: serde::de::DeserializeOwned>(
    request: &impl Serialize,
    method: &str,
) -> Result<T, ErrorObject> {
    let mut json = serde_json::to_value(request).map_err(|e| unreadable(method)(e.to_string()))?;
    if let Some(object) = json.as_object_mut() {
        object.remove("replayFrom");
        let servers = object.entry("mcpServers").or_insert(Value::Null);
        if servers.is_null() {
            *servers = Value::Array(Vec::new());
        }
    }
    convert::read(json).map_err(unreadable(method))
}

/// Handles a v2 request.
pub(crate) fn handle<A: Agent>(
    this: Arc<AgentHandler<A>>,
    call: Call,
) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
    async move {
        let agent = &this.agent;
        match call {
            Call::Initialize(request) => {
                let v1 = convert::initialize_to_v1(&request);
                let response = agent.initialize(v1.clone()).await?;
                let info = this.options.default_agent_info();
                let answer = convert::initialize_to_v2(&response, V2, &info)
                    .map_err(|e| ErrorObject::internal_error(&e))?;
                if this.state.initialized.set(v1).is_ok() {
                    let _ = this.state.advertised.set(response);
                    this.client.peer().set_protocol_version(V2);
                }
                Answer::new(&answer)
            }
            Call::NewSession(request) => {
                let v1: NewSessionRequest = session_request_to_v1(&request, m::SESSION_NEW)?;
                let v1 = admitted!(&this, NewSession, v1);
                this.client.cursors().room_for(None)?;
                let response = agent.new_session(v1).await?;
                this.client.cursors().open(&response.session_id);
                Answer::new(&session_response::<v2::NewSessionResponse>(
                    &response,
                    "session/new answer",
                    this.client.cursors(),
                    None,
                )?)
            }
            Call::Prompt(request) => prompt(this.clone(), request).await,
            Call::Resume(request) => resume(&this, request).await,
            Call::List(request) => {
                let advertised = this.state.advertised.get();
                let lists = advertised
                    .and_then(|r| r.agent_capabilities.as_ref())
                    .and_then(|c| c.session_capabilities.as_ref())
                    .is_some_and(|s| s.list.is_some());
                if !lists {
                    // v2 makes listing baseline; an agent that keeps no sessions lists none.
                    return Answer::new(&v2::ListSessionsResponse::new(Vec::new()));
                }
                through_v1::<_, _, v2::ListSessionsResponse, _>(&request, m::SESSION_LIST, |r| {
                    agent.list_sessions(r)
                })
                .await
            }
            Call::Close(request) => {
                this.client.cursors().check_open(&request.session_id)?;
                // The schema: held prompts answer `-32800` and never run; the running turn's
                // final updates and its `idle` (`cancelled`) precede this answer, and nothing
                // of the session follows it.
                this.state.turns.close(&request.session_id);
                this.cancel_prompts(&request.session_id);
                this.state.turns.idle(&request.session_id).await;
                this.client.cursors().forget(&request.session_id);
                this.state.turns.closed(&request.session_id);
                let closes = this
                    .state
                    .advertised
                    .get()
                    .and_then(|r| r.agent_capabilities.as_ref())
                    .and_then(|c| c.session_capabilities.as_ref())
                    .is_some_and(|s| s.close.is_some());
                if closes {
                    Answer::new(&agent.close_session(request).await?)
                } else {
                    // v2 makes closing baseline; an agent without `close` holds nothing to free.
                    Answer::new(&CloseSessionResponse::default())
                }
            }
            Call::Delete(request) => {
                if this.options.refuse_unadvertised {
                    crate::admit::check_method(
                        this.state.advertised.get(),
                        methods::agent::SESSION_DELETE,
                    )?;
                }
                let session_id = request.session_id.clone();
                let answer = Answer::new(&agent.delete_session(request).await?);
                this.cancel_prompts(&session_id);
                this.client.cursors().forget(&session_id);
                answer
            }
            Call::SetConfigOption(request) => {
                this.client.cursors().check_open(&request.session_id)?;
                set_config_option(&this, request).await
            }
            Call::Login(request) => {
                through_v1::<_, _, v2::LoginAuthResponse, _>(&request, m::AUTH_LOGIN, |r| {
                    agent.authenticate(r)
                })
                .await
            }
            Call::Logout(request) => {
                let logs_out = this
                    .state
                    .advertised
                    .get()
                    .and_then(|r| r.agent_capabilities.as_ref())
                    .and_then(|c| c.auth.as_ref())
                    .is_some_and(|a| a.logout.is_some());
                if !logs_out {
                    // v2 requires `auth/logout` of every agent with `authMethods`. One that
                    // did not advertise v1's `auth.logout` keeps no sign-in of its own to end.
                    tracing::debug!(
                        "auth/logout of an agent without `auth.logout`: nothing to end"
                    );
                    return Answer::new(&v2::LogoutAuthResponse::new());
                }
                through_v1::<_, _, v2::LogoutAuthResponse, _>(&request, m::AUTH_LOGOUT, |r| {
                    agent.logout(r)
                })
                .await
            }
            Call::ToolCallCancel(request) => {
                this.client.cursors().check_open(&request.session_id)?;
                Answer::new(&agent.cancel_tool_call(request).await?)
            }
            Call::TerminalCancel(request) => {
                this.client.cursors().check_open(&request.session_id)?;
                Answer::new(&agent.cancel_terminal(request).await?)
            }
        }
    }
    .boxed()
}

/// Handles a v2 notification.
pub(crate) async fn handle_notification<A: Agent>(
    this: &AgentHandler<A>,
    notification: Notification,
) -> Result<(), ErrorObject> {
    match notification {
        Notification::Cancel(n) => {
            if this.client.cursors().check_open(&n.session_id).is_err() {
                // A notification gets no answer: a session not open here is not this
                // connection's to cancel.
                tracing::debug!(session = %n.session_id, "session/cancel of a session not open on this connection: ignored");
                return Ok(());
            }
            this.cancel_prompts(&n.session_id);
            let mut v1 = CancelNotification::new(n.session_id);
            v1.meta = n.meta;
            this.agent.cancel(v1).await
        }
    }
}

/// `session/prompt`: acknowledges with the user message's id as soon as the session takes the
/// prompt (see [`accept`]); the turn runs in a task
/// of its own once the acknowledgement is written: the `user_message`, `running`, the agent's
/// updates (`requires_action` while a permission request waits), and `idle` with the stop
/// reason once the agent's [`prompt`](Agent::prompt) returned (so after every update it sent).
async fn prompt<A: Agent>(
    this: Arc<AgentHandler<A>>,
    request: v2::PromptRequest,
) -> Result<Answer, ErrorObject> {
    let session_id = request.session_id.clone();
    this.client.cursors().check_open(&session_id)?;
    if request.prompt.is_empty() {
        // The schema lets an agent refuse it without inserting it.
        return Err(ErrorObject::invalid_params(
            "the prompt is empty: send at least one content block",
        ));
    }
    let mut blocks = Vec::with_capacity(request.prompt.len());
    for block in &request.prompt {
        blocks.push(
            ContentBlock::try_from(block.clone())
                .map_err(|e| unreadable("the prompt")(e.to_string()))?,
        );
    }
    let mut v1 = PromptRequest::new(session_id.clone(), blocks);
    v1.meta = request.meta.clone();
    let v1 = admitted!(&this, Prompt, v1);
    let (guard, slot) = accept(&this, &session_id).await?;
    let cursors = this.client.cursors();
    let message_id = cursors.new_id();
    cursors.start_user_message(&session_id, message_id.clone());
    let (acknowledged, written) = oneshot::channel();
    let mut answer = Answer::new(&v2::PromptResponse::new(message_id.clone()))?;
    answer.acknowledged = Mutex::new(Some(acknowledged));
    let signal = guard.signal().clone();
    let context = PromptContext::new(this.client.clone(), session_id.clone(), signal.clone())
        .with_user_message(message_id.clone());
    let client = this.client.clone();
    tokio::spawn(async move {
        if written.await.is_err() {
            // The acknowledgement was never written (the request was cancelled first).
            return;
        }
        let turn = async {
            let user = v2::UserMessage::new(message_id).content(request.prompt);
            client.send_v2(&session_id, user).await?;
            client.send_state(&session_id, running()).await?;
            let result = this.agent.prompt(v1, context).await;
            let mut idle = v2::IdleStateUpdate::new();
            if this.options.cancelled_stop_reason && signal.is_set() {
                idle.stop_reason = Some(v2::StopReason::Cancelled);
            } else {
                match result {
                    Ok(response) => {
                        if !WireFields::extras(&response).is_empty() {
                            tracing::warn!(
                                "the prompt answer's fields beyond stopReason, usage and _meta \
                                 have no place in a v2 idle state: left out"
                            );
                        }
                        // The draft's end-of-turn usage has its place in the v2 idle too.
                        #[cfg(feature = "unstable_end_turn_token_usage")]
                        {
                            idle.usage = response.usage.map(Box::new);
                        }
                        idle.stop_reason = Some(convert::stop_reason_to_v2(&response.stop_reason));
                        idle.meta = response.meta;
                    }
                    Err(error) => {
                        tracing::debug!(%error, "the turn failed");
                        idle.stop_reason = Some(v2::StopReason::Error);
                        idle.error = Some(Box::new(convert::error_to_v2(error)));
                    }
                }
            }
            client.cursors().close(&session_id);
            // No prompt runs from here: a `session/resume` now reports `idle`.
            drop(guard);
            let sent = client
                .send_state(&session_id, v2::StateUpdate::Idle(idle))
                .await;
            // The next held prompt is answered only now, after this turn's `idle`: a client
            // takes the first `idle` after a prompt's answer as that prompt's end.
            drop(slot);
            sent
        };
        tokio::select! {
            result = turn => if let Err(error) = result {
                tracing::debug!(%error, "the turn's updates could not be sent");
            },
            () = client.peer().closed() => {}
        }
    });
    Ok(answer)
}

/// Registers a prompt of `session_id` among the running ones, once the session's turn (if
/// any) has ended with its `idle`: v2 answers `session/prompt` when the prompt is inserted, so a
/// prompt sent while a turn runs is held, not refused (with the one-prompt rule on; held
/// prompts count among the connection's requests in flight, which are bounded). A held prompt
/// that `session/cancel` or `session/close` cancels before it is inserted answers `-32800`
/// and never runs, as the schema's `CancelSessionNotification` and `CloseSessionRequest` ask.
async fn accept<A>(
    this: &AgentHandler<A>,
    session_id: &SessionId,
) -> Result<(PromptGuard, Option<TurnGuard>), ErrorObject> {
    if !this.options.one_prompt_per_session {
        return Ok((this.register_prompt(session_id)?, None));
    }
    let turns = &this.state.turns;
    let cancelled = Signal::default();
    let held = turns.hold(session_id, &cancelled);
    loop {
        // Listen before looking, so that a change between the two is not missed.
        let changed = turns.changed();
        tokio::pin!(changed);
        changed.as_mut().enable();
        match turns.begin(&held) {
            Begin::Started(turn) => {
                // Closed while it was held: it is not inserted.
                if this.client.cursors().check_open(session_id).is_err() {
                    return Err(not_inserted(session_id));
                }
                let guard = this.register_prompt(session_id)?;
                if cancelled.is_set() {
                    // Cancelled between its start and its registration: it is inserted, and
                    // its turn ends `cancelled`.
                    guard.signal().set();
                }
                return Ok((guard, Some(turn)));
            }
            Begin::Cancelled => return Err(not_inserted(session_id)),
            Begin::Wait => changed.await,
        }
    }
}

/// The `-32800` of a prompt that `session/cancel` or `session/close` kept from being inserted.
fn not_inserted(session_id: &SessionId) -> ErrorObject {
    let mut error = ErrorObject::request_cancelled();
    error.message = format!(
        "Request cancelled: the prompt was held while a turn of session {session_id} ran, and \
         session/cancel or session/close cancelled it before it was inserted"
    );
    error
}

/// A `running` state.
fn running() -> v2::StateUpdate {
    v2::StateUpdate::Running(v2::RunningStateUpdate::new())
}

/// `session/resume` without `replayFrom` of an agent without v1's `session/resume` (v2 makes
/// resuming baseline): a session open on this connection is resumed as it is; otherwise an
/// agent that can load sessions (v1's `loadSession`, as a [`SessionStore`](crate::SessionStore)
/// backed one does) loads it through [`Agent::load_session`] with its replay left out; any
/// other session is `-32002`, as the library cannot tell whether it exists.
async fn resume_baseline<A: Agent>(
    this: &AgentHandler<A>,
    request: &v2::ResumeSessionRequest,
    loads: bool,
) -> Result<v2::ResumeSessionResponse, ErrorObject> {
    let cursors = this.client.cursors();
    if cursors.check_open(&request.session_id).is_ok() {
        let options = cursors.with_modes(&request.session_id, |modes| modes.options());
        let json = match options {
            Some(options) => json!({"configOptions": options}),
            None => json!({}),
        };
        return convert::read(json).map_err(unsayable("session/resume answer"));
    }
    if !loads {
        let mut error = ErrorObject::session_not_found(request.session_id.as_str());
        error.message.push_str(
            ": this agent resumes only the sessions open on this connection (it supports neither \
             v1's `session/resume` nor `session/load`)",
        );
        return Err(error);
    }
    resume_by_loading(this, request, false).await
}

/// `session/resume` through [`Agent::load_session`]: with `replay` the history it sends is
/// converted and sent, else it is left out.
async fn resume_by_loading<A: Agent>(
    this: &AgentHandler<A>,
    request: &v2::ResumeSessionRequest,
    replay: bool,
) -> Result<v2::ResumeSessionResponse, ErrorObject> {
    let v1: LoadSessionRequest = session_request_to_v1(request, m::SESSION_RESUME)?;
    let v1 = admitted!(this, LoadSession, v1);
    let cursors = this.client.cursors();
    let session_id = &request.session_id;
    let loading = |on| {
        if replay {
            cursors.set_replaying(session_id, on);
        } else {
            cursors.set_silent(session_id, on);
        }
    };
    loading(true);
    let response = this.agent.load_session(v1).await;
    loading(false);
    let response = response?;
    cursors.close(session_id);
    session_response(
        &response,
        "session/resume answer",
        cursors,
        Some(session_id),
    )
}

/// `session/resume`: without `replayFrom` through the agent's `session/resume`, with
/// `replayFrom: start` through its `session/load` (which streams the history, converted); then
/// the current state (`running` while a prompt of the session runs, else `idle`), then the
/// answer.
async fn resume<A: Agent>(
    this: &AgentHandler<A>,
    request: v2::ResumeSessionRequest,
) -> Result<Answer, ErrorObject> {
    this.client.cursors().room_for(Some(&request.session_id))?;
    let caps = this
        .state
        .advertised
        .get()
        .and_then(|r| r.agent_capabilities.clone())
        .unwrap_or_default();
    let mut json =
        serde_json::to_value(&request).map_err(|e| unreadable("session/resume")(e.to_string()))?;
    if let Some(object) = json.as_object_mut() {
        object.remove("replayFrom");
    }
    let answer: v2::ResumeSessionResponse = match &request.replay_from {
        None if caps
            .session_capabilities
            .as_ref()
            .is_some_and(|s| s.resume.is_some()) =>
        {
            let v1: ResumeSessionRequest = session_request_to_v1(&request, m::SESSION_RESUME)?;
            let v1 = admitted!(this, ResumeSession, v1);
            let response = this.agent.resume_session(v1).await?;
            session_response(
                &response,
                "session/resume answer",
                this.client.cursors(),
                Some(&request.session_id),
            )?
        }
        None => resume_baseline(this, &request, caps.load_session == Some(true)).await?,
        Some(v2::ReplayFrom::Start(_)) => {
            if caps.load_session != Some(true) {
                return Err(ErrorObject::invalid_params(
                    "replayFrom `start` is not supported: this agent cannot replay a session's \
                     history (it does not support v1's `session/load`)",
                ));
            }
            resume_by_loading(this, &request, true).await?
        }
        Some(other) => {
            let kind = serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str().map(str::to_owned)))
                .unwrap_or_default();
            return Err(ErrorObject::invalid_params(format_args!(
                "replayFrom `{kind}` is not supported: this agent replays from `start` only"
            )));
        }
    };
    this.client.cursors().open(&request.session_id);
    let state = if this.state.prompts().contains_key(&request.session_id) {
        running()
    } else {
        v2::StateUpdate::Idle(v2::IdleStateUpdate::new())
    };
    this.client
        .send_state(&request.session_id, state)
        .await
        .map_err(ErrorObject::from)?;
    Answer::new(&answer)
}
