//! A prompt as large as a frame may be (32 MiB) through chains of 1 and 3 pass-through
//! proxies: it reaches the agent intact, and no proxy holds more than a few copies of it.

use acp_codec::DEFAULT_MAX_FRAME_LEN;
use acp_conductor::{Conductor, Direction, Link};
use acp_types::methods::SessionPrompt;
use acp_types::{ContentBlock, ImageContent, PromptRequest, SessionUpdate, StopReason};

use crate::common::{Editor, agent, proxy, token, within};

/// How long the big prompt's turn may take: a debug build parses and checks each copy of it
/// against the schema on every hop, on a shared machine.
const BIG_STEP: std::time::Duration = std::time::Duration::from_secs(180);

/// The most memory a proxy may take for the message at its peak (above what it held before),
/// as a multiple of the message: the frame read, the envelope written, and the buffers between
/// them.
const RSS_FACTOR: u64 = 4;

/// The image of the prompt: base64 data as long as the frame limit allows for the whole
/// `session/prompt` message (less a margin for the request id), made of varied bytes.
fn image(session: &acp_types::SessionId) -> (ImageContent, usize) {
    let empty = PromptRequest::new(
        session.clone(),
        vec![ContentBlock::Image(Box::new(ImageContent::new(
            "",
            "image/png",
        )))],
    );
    let envelope = serde_json::json!({
        "jsonrpc": "2.0", "id": 1_000_000, "method": "session/prompt", "params": empty,
    });
    let overhead = serde_json::to_vec(&envelope).expect("serializable").len();
    // Whole base64 quads: 3 bytes each.
    let quads = (DEFAULT_MAX_FRAME_LEN - overhead) / 4;
    let bytes: Vec<u8> = (0..quads * 3)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
        .collect();
    (ImageContent::from_bytes(&bytes, "image/png"), bytes.len())
}

/// A memory figure of a process's status (`VmRSS:`, `VmHWM:` for the peak), in bytes.
#[cfg(target_os = "linux")]
fn rss(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The pids of the test's proxy processes (marked with `token`).
#[cfg(target_os = "linux")]
fn proxy_pids(token: &str) -> Vec<u32> {
    crate::common::alive(token)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmd| {
                cmd.split(|&b| b == 0)
                    .any(|arg| arg.ends_with(b"chain_proxy"))
            })
        })
        .collect()
}

#[allow(clippy::print_stderr)] // The measured time and memory, for whoever reads the output.
async fn through(proxies: usize) {
    let t = token(&format!("big{proxies}"));
    let mut components: Vec<_> = (0..proxies).map(|_| proxy(&t, &["pass"])).collect();
    components.push(agent(&t));
    let editor = Editor::start(Conductor::agent(components));
    let session = editor.open_session().await;
    // What each proxy holds before the big prompt: its peak is measured above it.
    #[cfg(target_os = "linux")]
    let baselines: Vec<(u32, u64)> = proxy_pids(&t)
        .into_iter()
        .map(|pid| (pid, rss(pid, "VmRSS:").expect("the proxy's VmRSS")))
        .collect();
    let (image, decoded) = image(&session);
    let data = image.data.clone();
    let prompt = PromptRequest::new(session.clone(), vec![ContentBlock::Image(Box::new(image))]);
    let started = std::time::Instant::now();
    let response = tokio::time::timeout(BIG_STEP, editor.agent.request::<SessionPrompt>(&prompt))
        .await
        .unwrap_or_else(|_| panic!("the 32 MiB prompt took longer than {BIG_STEP:?}"))
        .expect("the 32 MiB prompt went through the chain");
    eprintln!(
        "{proxies} prox(ies): the 32 MiB prompt's turn took {:?}",
        started.elapsed()
    );
    assert_eq!(response.stop_reason, StopReason::EndTurn);

    // The agent got the very data, and decoded all of it.
    let to_agent = editor
        .checker
        .messages(Link::Component(proxies), Direction::Sent);
    let received = to_agent
        .iter()
        .find(|m| m["method"] == "session/prompt")
        .expect("the prompt reached the agent");
    let blocks = received["params"]["prompt"].as_array().expect("a prompt");
    assert_eq!(blocks.len(), 1, "nothing added or lost");
    assert!(
        blocks[0]["data"].as_str() == Some(data.as_str()),
        "the image data reached the agent intact"
    );
    let said = format!("an image (image/png, {decoded} bytes)");
    let said_all: String = editor
        .updates
        .lock()
        .expect("updates")
        .iter()
        .filter_map(|u| match &u.update {
            SessionUpdate::AgentMessageChunk(chunk) => chunk.content.as_text().map(str::to_owned),
            _ => None,
        })
        .collect();
    assert!(
        said_all.contains(&said),
        "the agent says it got {said}; it said: {said_all}"
    );

    #[cfg(target_os = "linux")]
    {
        assert_eq!(baselines.len(), proxies, "every proxy found: {baselines:?}");
        let bound = RSS_FACTOR * DEFAULT_MAX_FRAME_LEN as u64;
        for (pid, baseline) in baselines {
            let peak = rss(pid, "VmHWM:").expect("the proxy's VmHWM");
            let grown = peak.saturating_sub(baseline);
            eprintln!(
                "proxy {pid}: {} MiB before the prompt, peak {} MiB (+{} MiB)",
                baseline >> 20,
                peak >> 20,
                grown >> 20
            );
            assert!(
                grown <= bound,
                "proxy {pid} grew by {} MiB for the prompt, over {} MiB",
                grown >> 20,
                bound >> 20
            );
        }
    }
    editor.checker.assert_clean();
    editor.driver.abort();
    drop(editor.agent);
    within("the conductor's end", editor.conductor)
        .await
        .expect("the conductor task")
        .expect("the editor's hang-up is a clean end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_32_mib_prompt_passes_one_proxy_intact_within_memory_bounds() {
    through(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_32_mib_prompt_passes_three_proxies_intact_within_memory_bounds() {
    through(3).await;
}
