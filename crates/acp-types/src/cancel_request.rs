//! Cancelling one request of any method (`$/cancel_request`).

use crate::prelude::*;

wire_object! {
    /// Cancels one JSON-RPC request that is still running (`$/cancel_request`).
    #[new(request_id: impl Into<RequestId>)]
    pub struct CancelRequestNotification {
        /// The id of the request to cancel.
        req request_id: RequestId = "requestId";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
