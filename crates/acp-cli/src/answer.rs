//! The checker's answers to the requests a peer makes of it: a result or an error's code and
//! message, from the raw params typed for the library that computes it, as a response message.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use acp_types::{ErrorCode, ErrorObject};

/// An answer to the peer: the result, or the error's code and message.
pub(crate) type Answer = Result<Value, (i64, String)>;

/// The params of a request the checker serves, typed (`-32602` when they do not fit).
pub(crate) fn typed_params<T: DeserializeOwned>(
    method: &str,
    params: &Value,
) -> Result<T, (i64, String)> {
    T::deserialize(params).map_err(|e| {
        (
            i64::from(ErrorCode::INVALID_PARAMS.0),
            format!("`{method}`: {e}"),
        )
    })
}

/// A library's answer (`acp_client::Workspace`, `Terminals`) as the checker sends it.
pub(crate) fn answer<T: Serialize>(result: Result<T, ErrorObject>) -> Answer {
    match result {
        Ok(value) => serde_json::to_value(value).map_err(|e| (-32603, e.to_string())),
        Err(error) => Err((i64::from(error.code.0), error.message)),
    }
}

/// The response to request `id`.
pub(crate) fn response_to(id: Value, result: Answer) -> Value {
    match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    }
}
