//! A scripted ACP proxy for the conductor's tests, on `acp-rpc` alone: `chain_proxy MODE`.
//!
//! - `pass`: forwards everything, untouched.
//! - `inject TEXT`: adds a text block TEXT in front of every `session/prompt`'s prompt.
//! - `die-mid-turn`: forwards everything, and exits (code 3) half a second after forwarding a
//!   `session/prompt`, in the middle of the turn.
//! - `nest CMD…`: a conductor in proxy mode running the proxies CMD… (a nested chain).
//!
//! A message from the predecessor goes to the successor wrapped in `proxy/successor`; one from
//! the successor (which the conductor delivers wrapped in `proxy/successor`) goes to the
//! predecessor unwrapped; `proxy/initialize` goes on as a wrapped `initialize`.

// A test program: it ends itself on purpose (`die-mid-turn`, a failed nested chain).
#![allow(clippy::disallowed_methods)]

use std::sync::Arc;
use std::time::Duration;

use acp_rpc::{Config, Handler, Peer};
use acp_types::ErrorObject;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::value::RawValue;

/// The proxy's behaviour.
#[derive(Clone)]
enum Mode {
    Pass,
    Inject(String),
    DieMidTurn,
}

/// Where one message goes.
struct Out {
    /// Wrapped in `proxy/successor` for the successor, or plain for the predecessor.
    to_successor: bool,
    method: String,
    params: Option<Box<RawValue>>,
}

#[derive(Serialize)]
struct Envelope<'a> {
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a RawValue>,
}

#[derive(serde::Deserialize)]
struct Wrapped {
    method: String,
    #[serde(default)]
    params: Option<Box<RawValue>>,
}

struct Proxy {
    conductor: Peer,
    mode: Mode,
}

impl Proxy {
    fn route(&self, method: &str, params: Option<&RawValue>) -> Result<Out, ErrorObject> {
        match method {
            "proxy/successor" => {
                let text = params.map_or("null", RawValue::get);
                let wrapped: Wrapped =
                    serde_json::from_str(text).map_err(ErrorObject::invalid_params)?;
                Ok(Out {
                    to_successor: false,
                    method: wrapped.method,
                    params: wrapped.params,
                })
            }
            "proxy/initialize" => Ok(Out {
                to_successor: true,
                method: "initialize".to_owned(),
                params: params.map(ToOwned::to_owned),
            }),
            "session/prompt" => Ok(Out {
                to_successor: true,
                method: method.to_owned(),
                params: self.prompt(params)?,
            }),
            _ => Ok(Out {
                to_successor: true,
                method: method.to_owned(),
                params: params.map(ToOwned::to_owned),
            }),
        }
    }

    /// The params of a prompt on its way to the successor.
    fn prompt(&self, params: Option<&RawValue>) -> Result<Option<Box<RawValue>>, ErrorObject> {
        match &self.mode {
            Mode::Pass => Ok(params.map(ToOwned::to_owned)),
            Mode::DieMidTurn => {
                tokio::spawn(async {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    std::process::exit(3);
                });
                Ok(params.map(ToOwned::to_owned))
            }
            Mode::Inject(text) => {
                let mut value: serde_json::Value =
                    serde_json::from_str(params.map_or("{}", RawValue::get))
                        .map_err(ErrorObject::invalid_params)?;
                if let Some(prompt) = value
                    .get_mut("prompt")
                    .and_then(serde_json::Value::as_array_mut)
                {
                    prompt.insert(0, serde_json::json!({ "type": "text", "text": text }));
                }
                serde_json::value::to_raw_value(&value)
                    .map(Some)
                    .map_err(ErrorObject::internal_error)
            }
        }
    }

    async fn request(&self, out: Out) -> Result<Box<RawValue>, ErrorObject> {
        let result = if out.to_successor {
            let envelope = Envelope {
                method: &out.method,
                params: out.params.as_deref(),
            };
            self.conductor
                .request_raw("proxy/successor", &envelope)
                .await
        } else {
            self.conductor.request_raw(&out.method, &out.params).await
        };
        match result {
            Ok(raw) => raw.to_raw_value().map_err(|e| e.to_error_object()),
            Err(e) => Err(e.to_error_object()),
        }
    }

    async fn notify(&self, out: Out) {
        let _ = if out.to_successor {
            let envelope = Envelope {
                method: &out.method,
                params: out.params.as_deref(),
            };
            self.conductor
                .notify_raw("proxy/successor", &envelope)
                .await
        } else {
            self.conductor.notify_raw(&out.method, &out.params).await
        };
    }
}

impl Handler for Proxy {
    type Request = Out;
    type Notification = Out;
    type Response = Box<RawValue>;

    fn decode_request(&self, method: &str, params: Option<&RawValue>) -> Result<Out, ErrorObject> {
        self.route(method, params)
    }

    fn decode_notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Out, ErrorObject> {
        self.route(method, params)
    }

    fn handle_request(
        self: &Arc<Self>,
        out: Out,
    ) -> BoxFuture<'static, Result<Box<RawValue>, ErrorObject>> {
        let this = self.clone();
        Box::pin(async move { this.request(out).await })
    }

    fn handle_notification(self: &Arc<Self>, out: Out) -> BoxFuture<'static, ()> {
        let this = self.clone();
        Box::pin(async move { this.notify(out).await })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("nest") {
        let components = args[1..]
            .iter()
            .map(|command| acp_conductor::Component::parse(command).expect("a proxy command"));
        if let Err(e) = acp_conductor::Conductor::proxy(components)
            .run_stdio()
            .await
        {
            tracing::error!("the nested chain: {e}");
            std::process::exit(1);
        }
        return;
    }
    let mode = match args.first().map(String::as_str) {
        Some("inject") => Mode::Inject(args.get(1).cloned().unwrap_or_default()),
        Some("die-mid-turn") => Mode::DieMidTurn,
        _ => Mode::Pass,
    };
    let (stdin, stdout) = acp_rpc::stdio();
    let (_conductor, driver) = acp_rpc::connect(
        |conductor| Proxy { conductor, mode },
        stdin,
        stdout,
        Config::default(),
    );
    let _ = driver.await;
}
