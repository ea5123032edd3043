//! The scripted demo: what `cargo run --bin client` shows with no arguments.
//!
//! It runs in a fresh temporary directory holding a few small files, which it removes at the
//! end; nothing is written anywhere else.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::Shared;
use super::editor::Policy;
use super::runner::{CancelWhen, Flow, Runner};

/// The project the demo agent works on.
const NOTES: &str = "\
# Demo project
- [x] Parse the input
- [ ] TODO: handle empty files
- [ ] TODO: write the README
";

/// A 1x1 PNG image.
const PIXEL_PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0xf8, 0x5f,
    0x0f, 0x00, 0x02, 0x87, 0x01, 0x80, 0xeb, 0x47, 0xba, 0x92, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A short WAV file: 8-bit mono at 8 kHz, a few samples of a square wave.
fn beep_wav() -> Vec<u8> {
    let samples: Vec<u8> = (0..64)
        .map(|i| if i % 8 < 4 { 0xC0 } else { 0x40 })
        .collect();
    let len = u32::try_from(samples.len()).unwrap_or(0);
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // The format chunk's size.
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM.
    wav.extend_from_slice(&1u16.to_le_bytes()); // Mono.
    wav.extend_from_slice(&8000u32.to_le_bytes()); // Samples per second.
    wav.extend_from_slice(&8000u32.to_le_bytes()); // Bytes per second.
    wav.extend_from_slice(&1u16.to_le_bytes()); // Block alignment.
    wav.extend_from_slice(&8u16.to_le_bytes()); // Bits per sample.
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&len.to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

/// The demo's temporary directory, removed when dropped.
#[derive(Debug)]
pub(crate) struct DemoDir {
    path: PathBuf,
}

impl DemoDir {
    /// Creates a fresh directory in the system's temporary directory, with the demo files.
    pub(crate) fn create() -> io::Result<Self> {
        let base = std::env::temp_dir();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = base.join(format!("acp-demo-{}-{stamp}", std::process::id()));
        std::fs::create_dir(&path)?;
        let dir = Self { path };
        std::fs::write(dir.path.join("notes.txt"), NOTES)?;
        std::fs::write(dir.path.join("pixel.png"), PIXEL_PNG)?;
        std::fs::write(dir.path.join("beep.wav"), beep_wav())?;
        Ok(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DemoDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn narrate(shared: &Shared, heading: &str, text: &str) {
    let s = shared.output.style();
    shared.output.event(
        json!({ "event": "narration", "heading": heading, "text": text }),
        Some(format!(
            "\n{}\n{}",
            s.cyan(&s.bold(&format!("== {heading}"))),
            s.cyan(text)
        )),
    );
}

/// The first lines of the demo.
pub(crate) fn introduce(shared: &Shared, dir: &Path) {
    narrate(
        shared,
        "ACP demo",
        &format!(
            "The demo client drives the demo agent, both in this process, over an in-memory\n\
             pipe. Everything below is real protocol traffic, rendered as an editor would.\n\
             Working directory (temporary, removed at the end): {}",
            dir.display()
        ),
    );
}

/// The last lines of the demo; removes its directory.
pub(crate) fn conclude(shared: &Shared, dir: DemoDir) {
    drop(dir);
    narrate(
        shared,
        "Done",
        "The demo directory was removed. Next: `cargo run --bin client -- --help`, \
         `--interactive`,\nor `-- <any ACP agent command>`.",
    );
}

/// The tour itself.
pub(crate) async fn run(runner: &mut Runner) {
    let steps: [(&str, &str, &[&str]); 7] = [
        (
            "1. Streaming",
            "A prompt that is not a command: the agent streams a thought (shown as `thinking`),\n\
             then its reply, chunk by chunk. The first turn also brings the slash commands, a\n\
             session title and a usage update.",
            &["hello"],
        ),
        (
            "2. A plan, a diff and a permission",
            "`edit notes.txt`: the agent publishes a plan, reads the file through the client\n\
             (fs/read_text_file), proposes an edit as a diff, asks permission (the demo answers\n\
             for you: Allow once), then writes it through the client (fs/write_text_file).",
            &["edit notes.txt"],
        ),
        (
            "3. A terminal",
            "`run ...`: after another permission, the agent runs a command in a terminal the\n\
             client owns: terminal/create, wait_for_exit, output, release. The terminal is\n\
             embedded in the tool call, whose output the client shows.",
            &["run grep -n DONE notes.txt"],
        ),
        (
            "4. Attachments",
            "Each @mention becomes a content block of the kind the agent accepts: the text file\n\
             is embedded, the image and the audio are sent as such, the URL as a resource link.",
            &["what are these? @notes.txt @pixel.png @beep.wav @https://agentclientprotocol.com"],
        ),
        (
            "5. Modes and options",
            "The client switches the mode (session/set_mode) and the model option\n\
             (session/set_config_option); then the agent switches the mode itself.",
            &[":mode auto", ":config model demo-smart", "mode read-only"],
        ),
        (
            "6. Cancellation",
            "A slow stream; after its third chunk the client sends session/cancel, and the turn\n\
             ends with stopReason `cancelled`.",
            &["stream 20 200"],
        ),
        (
            "7. Sessions",
            "List the sessions, close this one, load it back (its history is replayed as\n\
             updates), start another, resume the first without replay, delete the other.",
            &[
                ":list",
                ":close",
                ":load #1",
                ":new",
                ":resume #1",
                ":delete #2",
                ":list",
            ],
        ),
    ];
    runner.shared().set_policy(Policy::Allow("the demo"));
    if runner.is_v2() {
        narrate(
            runner.shared(),
            "On ACP v2",
            "Both sides speak the v2 draft (`--protocol 1` for v1). v2 has no client file system\n\
             or terminals: in steps 2 and 3 the agent says so instead of asking. Modes are the\n\
             `mode` configuration option, and `:load` is session/resume with the history replayed.",
        );
    }
    for (heading, text, prompts) in steps {
        narrate(runner.shared(), heading, text);
        for prompt in prompts {
            let cancel = if prompt.starts_with("stream") {
                CancelWhen::AfterChunks(4)
            } else {
                CancelWhen::Never
            };
            // Stopped by a signal, or the agent is gone: the tour ends.
            if runner.step_with(prompt, cancel).await == Flow::Quit {
                return;
            }
        }
    }
}
