//! The proxies of the conductor's tests, written with `acp-proxy`: `chain_proxy MODE`.
//!
//! - `pass`: forwards everything, untouched.
//! - `inject TEXT`: adds a text block TEXT in front of every `session/prompt`'s prompt (a
//!   context-injecting proxy).
//! - `die-mid-turn`: forwards everything, and exits (code 3) half a second after forwarding a
//!   `session/prompt`, in the middle of the turn.
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
        _ => Proxy::new(),
    };
    let (_cx, driver) = proxy.serve_stdio();
    let _ = driver.await;
}
