//! The server's short answers: a status and a line of plain text saying why.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::server::NotOpened;

/// `status` with `message` as its plain-text body.
pub(crate) fn text(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.into(),
    )
        .into_response()
}

/// A refusal that passes: `Retry-After: 1`.
pub(crate) fn retry_later(status: StatusCode, why: &'static str) -> Response {
    let mut response = text(status, why);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// A connection that could not be opened, as an answer (those that pass with `Retry-After`).
pub(crate) fn not_opened((status, why): NotOpened) -> Response {
    match status {
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => retry_later(status, why),
        _ => text(status, why),
    }
}
