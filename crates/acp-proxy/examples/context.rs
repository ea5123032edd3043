//! A proxy that adds a line of project context to every prompt on its way to the agent.
//!
//! ```text
//! acp conduct -- "context 'This is a Rust workspace; run cargo test to check a change.'" "my-agent"
//! ```

use acp_proxy::{Context, Proxy};
use acp_types::{ErrorObject, PromptRequest, PromptResponse, methods};

async fn add_context(
    cx: Context,
    mut prompt: PromptRequest,
    line: &str,
) -> Result<PromptResponse, ErrorObject> {
    prompt.prompt.insert(0, line.into());
    cx.successor()
        .request::<methods::SessionPrompt>(&prompt)
        .await
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), acp_rpc::Error> {
    let line: &'static str = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Project context: none given.".to_owned())
        .leak();
    let proxy = Proxy::new().on_prompt(move |cx, prompt| add_context(cx, prompt, line));
    let (_cx, driver) = proxy.serve_stdio();
    driver.await
}
