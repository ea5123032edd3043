//! What a v2 agent may call on the client: decoding by method, the gates, and the answers.
//!
//! v2 removed the client's file system and terminals: a v2 agent calling `fs/*` or
//! `terminal/*` gets `-32601` saying so, and the [`Client`](crate::Client)'s v1 methods are
//! never called on a v2 connection.

use acp_types::methods::client as v1m;
use acp_types::v2::{self, methods::client as m};
use acp_types::{
    AgentNotificationParams, AgentRequestParams, ErrorCode, ErrorObject, ExtNotification,
    ExtRequest, ExtResponse,
};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::admit::Admission;

use super::shared::Shared;

/// A decoded request of a v2 agent.
#[derive(Debug)]
pub(crate) enum Request {
    /// `session/request_permission`.
    Permission(Box<v2::RequestPermissionRequest>),
    /// `elicitation/create`.
    Elicitation(Box<v2::CreateElicitationRequest>),
    /// An extension method.
    Ext(ExtRequest),
}

/// A decoded notification of a v2 agent.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // Moved once per update: a box would allocate per update.
pub(crate) enum Notification {
    /// `session/update`.
    Update(v2::UpdateSessionNotification),
    /// `elicitation/complete`.
    CompleteElicitation(acp_types::CompleteElicitationNotification),
    /// An extension notification.
    Ext(ExtNotification),
    /// `$/cancel_request`, which the connection handles itself.
    Protocol,
}

/// The client's answer to a v2 request.
#[derive(Debug)]
pub(crate) enum Answer {
    Permission(v2::RequestPermissionResponse),
    Elicitation(v2::CreateElicitationResponse),
    Ext(ExtResponse),
}

impl Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Permission(r) => r.serialize(serializer),
            Answer::Elicitation(r) => r.serialize(serializer),
            Answer::Ext(r) => r.serialize(serializer),
        }
    }
}

/// Decodes params for `method` as `T`, `-32602` with the decoder's message when they do not fit.
fn decode<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    acp_types::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| ErrorObject::invalid_params(&e))
}

/// The error for a v1 client method called on a v2 connection.
fn v1_only(method: &str) -> ErrorObject {
    let why = if method.starts_with("fs/") || method.starts_with("terminal/") {
        ", which has no client file system or terminals"
    } else {
        ""
    };
    ErrorObject::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "Method not found: `{method}` is an ACP v1 method; this connection speaks protocol \
             version 2{why}"
        ),
    )
}

/// Decodes a request of a v2 agent, refusing what the client did not advertise and sessions
/// it does not have.
pub(crate) fn decode_request(
    shared: &Shared,
    admission: &Admission,
    refuse_unadvertised: bool,
    method: &str,
    params: Option<&RawValue>,
) -> Result<Request, ErrorObject> {
    match method {
        m::SESSION_REQUEST_PERMISSION => {
            let request: v2::RequestPermissionRequest = decode(params)?;
            admission.check_session(&request.session_id)?;
            Ok(Request::Permission(Box::new(request)))
        }
        m::ELICITATION_CREATE => {
            let advertised = shared.advertised.get().and_then(|c| c.elicitation.as_ref());
            if refuse_unadvertised && advertised.is_none() {
                return Err(ErrorObject::capability_not_advertised(
                    method,
                    "elicitation",
                ));
            }
            let request: v2::CreateElicitationRequest = decode(params)?;
            if refuse_unadvertised {
                let (ok, capability) = match &request.mode {
                    v2::ElicitationMode::Form => (
                        advertised.is_some_and(|e| e.form.is_some()),
                        "elicitation.form",
                    ),
                    v2::ElicitationMode::Url => (
                        advertised.is_some_and(|e| e.url.is_some()),
                        "elicitation.url",
                    ),
                    _ => (true, "elicitation"),
                };
                if !ok {
                    return Err(ErrorObject::capability_not_advertised(method, capability));
                }
            }
            if let Some(session_id) = &request.session_id {
                admission.check_session(session_id)?;
            }
            Ok(Request::Elicitation(Box::new(request)))
        }
        _ if acp_types::is_extension_method(method) => {
            match acp_rpc::decode_params::<AgentRequestParams>(method, params)? {
                AgentRequestParams::Ext(request) => Ok(Request::Ext(request)),
                _ => Err(ErrorObject::method_not_found(method)),
            }
        }
        _ if v1m::ALL.contains(&method) => Err(v1_only(method)),
        _ => Err(ErrorObject::method_not_found(method)),
    }
}

/// Decodes a notification of a v2 agent; updates for sessions the client does not have are
/// refused (and dropped with a warning by the connection).
pub(crate) fn decode_notification(
    shared: &Shared,
    admission: &Admission,
    refuse_unadvertised: bool,
    method: &str,
    params: Option<&RawValue>,
) -> Result<Notification, ErrorObject> {
    match method {
        m::SESSION_UPDATE => {
            let notification: v2::UpdateSessionNotification = decode(params)?;
            admission.check_session(&notification.session_id)?;
            Ok(Notification::Update(notification))
        }
        m::ELICITATION_COMPLETE => {
            let url = shared
                .advertised
                .get()
                .and_then(|c| c.elicitation.as_ref())
                .is_some_and(|e| e.url.is_some());
            if refuse_unadvertised && !url {
                return Err(ErrorObject::capability_not_advertised(
                    method,
                    "elicitation.url",
                ));
            }
            Ok(Notification::CompleteElicitation(decode(params)?))
        }
        v2::methods::protocol::CANCEL_REQUEST => Ok(Notification::Protocol),
        _ if acp_types::is_extension_method(method) => {
            match acp_rpc::decode_params::<AgentNotificationParams>(method, params)? {
                AgentNotificationParams::Ext(notification) => Ok(Notification::Ext(notification)),
                _ => Err(ErrorObject::method_not_found(method)),
            }
        }
        _ if v1m::ALL.contains(&method) => Err(v1_only(method)),
        _ => Err(ErrorObject::method_not_found(method)),
    }
}

impl<C: crate::Client> crate::connection::ClientHandler<C> {
    /// Answers a request of a v2 agent through the [`Client`](crate::Client).
    pub(crate) async fn handle_v2_request(&self, request: Request) -> Result<Answer, ErrorObject> {
        Ok(match request {
            Request::Permission(request) => {
                let session_id = request.session_id.clone();
                Answer::Permission(
                    self.cancellable_permission(
                        session_id,
                        self.client.request_permission_v2(*request),
                        || v2::RequestPermissionResponse::new(v2::CancelledPermissionOutcome::new()),
                    )
                    .await?,
                )
            }
            Request::Elicitation(request) => {
                Answer::Elicitation(self.client.create_elicitation_v2(*request).await?)
            }
            Request::Ext(request) => Answer::Ext(self.client.ext_method(request).await?),
        })
    }

    /// Handles a notification of a v2 agent: updates feed the turn watch and the streams
    /// first, then the [`Client`](crate::Client).
    pub(crate) async fn handle_v2_notification(
        &self,
        notification: Notification,
    ) -> Result<(), ErrorObject> {
        match notification {
            Notification::Update(update) => {
                let shared = &self.state.v2;
                shared.publish(&update);
                // Kept for after the client: the update moves into it.
                let state = match &update.update {
                    v2::SessionUpdate::StateUpdate(state) => {
                        Some((update.session_id.clone(), state.clone()))
                    }
                    _ => None,
                };
                let result = self.client.session_notification_v2(update).await;
                if let Some((session_id, state)) = state {
                    shared.state_handled(&session_id, &state);
                }
                result
            }
            Notification::CompleteElicitation(n) => self.client.complete_elicitation(n).await,
            Notification::Ext(n) => self.client.ext_notification(n).await,
            Notification::Protocol => Ok(()),
        }
    }
}
