//! The proxies of the conductor's tests, written with `acp-proxy`: `chain_proxy MODE`.
//!
//! - `pass`: forwards everything, untouched.
//! - `inject TEXT`: adds a text block TEXT in front of every `session/prompt`'s prompt (a
//!   context-injecting proxy).
//! - `die-mid-turn`: forwards everything, and exits (code 3) half a second after forwarding a
//!   `session/prompt`, in the middle of the turn.
//! - `extension-spelling`: a pass-through proxy that knows only the official conductor's
//!   spelling, `_proxy/initialize` and `_proxy/successor` (it refuses `proxy/initialize` as an
//!   unknown method), written on bare `acp-rpc`.
//! - `nest CMD…`: a conductor in proxy mode running the proxies CMD… (a nested chain).
//! - `conduct CMD…`: a conductor in terminal mode running CMD… (proxies, then the agent), as
//!   `acp conduct` does, for a bridge to serve.

// A test program: it ends itself on purpose (`die-mid-turn`, a failed nested chain).
#![allow(clippy::disallowed_methods)]

use std::time::Duration;

use acp_conductor::{Component, Conductor};
use acp_proxy::{Context, Proxy};
use acp_types::{ErrorObject, PromptRequest, PromptResponse, methods};

/// Forwards the prompt with `text` in front of it.
async fn inject(
    cx: Context,
    text: String,
    mut prompt: PromptRequest,
) -> Result<PromptResponse, ErrorObject> {
    prompt.prompt.insert(0, text.into());
    cx.successor()
        .request::<methods::SessionPrompt>(&prompt)
        .await
}

/// Forwards the prompt, and ends the process half a second later.
async fn die_mid_turn(cx: Context, prompt: PromptRequest) -> Result<PromptResponse, ErrorObject> {
    tokio::spawn(async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        std::process::exit(3);
    });
    cx.successor()
        .request::<methods::SessionPrompt>(&prompt)
        .await
}

/// The `_proxy/successor` envelope: the wrapped message.
#[derive(serde::Deserialize)]
struct Wrapped {
    method: String,
    #[serde(default)]
    params: Option<Box<serde_json::value::RawValue>>,
}

/// Serves the `extension-spelling` proxy: `_proxy/initialize`, the methods of a prompt turn
/// toward the agent, and `_proxy/successor` from the agent toward the editor.
async fn extension_spelling() {
    use acp_rpc::{Peer, Router};
    use serde_json::value::RawValue;

    fn raw(
        result: Result<acp_rpc::RawResult, acp_rpc::Error>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        result
            .and_then(|r| r.to_raw_value())
            .map_err(|e| e.to_error_object())
    }
    fn unwrap(params: Option<&RawValue>) -> Result<Wrapped, ErrorObject> {
        serde_json::from_str(params.map_or("null", RawValue::get))
            .map_err(ErrorObject::invalid_params)
    }
    let to_successor = |peer: &Peer, method: &'static str| {
        let peer = peer.clone();
        move |params: Option<Box<RawValue>>| {
            let peer = peer.clone();
            async move {
                let envelope = serde_json::json!({ "method": method, "params": params });
                raw(peer.request_raw("_proxy/successor", &envelope).await)
            }
        }
    };
    let (stdin, stdout) = acp_rpc::stdio();
    let (_conductor, driver) = acp_rpc::connect(
        |peer| {
            let (requests, notifications) = (peer.clone(), peer.clone());
            Router::new()
                .request_raw("_proxy/initialize", to_successor(&peer, "initialize"))
                .request_raw("session/new", to_successor(&peer, "session/new"))
                .request_raw("session/prompt", to_successor(&peer, "session/prompt"))
                .request_raw("_proxy/successor", move |params| {
                    let peer = requests.clone();
                    async move {
                        let wrapped = unwrap(params.as_deref())?;
                        raw(peer.request_raw(&wrapped.method, &wrapped.params).await)
                    }
                })
                .notification_raw("_proxy/successor", move |params| {
                    let peer = notifications.clone();
                    let wrapped = unwrap(params);
                    async move {
                        if let Ok(wrapped) = wrapped {
                            let _ = peer.notify_raw(&wrapped.method, &wrapped.params).await;
                        }
                    }
                })
        },
        stdin,
        stdout,
        acp_rpc::Config::default(),
    );
    let _ = driver.await;
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let proxy = match args.first().map(String::as_str) {
        Some(mode @ ("nest" | "conduct")) => {
            let components = args[1..]
                .iter()
                .map(|command| Component::parse(command).expect("a component command"));
            let conductor = if mode == "nest" {
                Conductor::proxy(components)
            } else {
                Conductor::agent(components)
            };
            if let Err(e) = conductor.run_stdio().await {
                tracing::error!("the chain: {e}");
                std::process::exit(1);
            }
            return;
        }
        Some("inject") => {
            let text = args.get(1).cloned().unwrap_or_default();
            Proxy::new().on_prompt(move |cx, prompt| inject(cx, text.clone(), prompt))
        }
        Some("die-mid-turn") => Proxy::new().on_prompt(die_mid_turn),
        Some("extension-spelling") => return extension_spelling().await,
        _ => Proxy::new(),
    };
    let (_cx, driver) = proxy.serve_stdio();
    let _ = driver.await;
}
