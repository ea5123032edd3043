//! The stable-toolchain smoke run of every fuzz target: each target's check over its seed
//! corpus (`seeds/<target>/`) and its regressions (`regressions/<target>/`), then, for a few
//! seconds, over deterministic mutations of the seeds.
//!
//! A regression whose name starts with `open-` is a bug found but not fixed yet: it is run and
//! its status printed, but it does not fail the test; drop the prefix once it is fixed.
//!
//! `ACP_FUZZ_SMOKE_SECS` sets the mutation time per target (default 3; 0 runs the files only).
//! A failing mutated input is written to `target/smoke-failures/<target>-<name>`. Replay any
//! input with `ACP_FUZZ_REPLAY=<target>:<file> cargo test --release --no-default-features
//! --test smoke replay -- --nocapture` (or `cargo fuzz run -O <target> <file>`); keep it as a
//! test by adding it to `regressions/<target>/`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The largest mutated input (larger seeds are cut to it before mutating further).
const MAX_LEN: usize = 8 * 1024;
/// The most mutated inputs per target, whatever the time budget.
const MAX_RUNS: u64 = 1_000_000;

/// Tokens the mutator inserts: JSON syntax and the names and values ACP messages are made of.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\\",
    b"\\u0000",
    b"\\ud800",
    b"\n",
    b"\r\n",
    b"null",
    b"true",
    b"false",
    b"0",
    b"-1",
    b"1.5",
    b"1e400",
    b"9223372036854775808",
    b"\"jsonrpc\":\"2.0\"",
    b"\"id\":",
    b"\"method\":",
    b"\"params\":",
    b"\"result\":",
    b"\"error\":",
    b"\"code\":",
    b"\"message\":",
    b"\"data\":",
    b"\"_meta\":",
    b"\"sessionId\":",
    b"\"type\":",
    b"\"text\":",
    b"\"sessionUpdate\":",
    b"\"content\":",
    b"\"outcome\":",
    b"\"mode\":",
    b"\"action\":",
    b"\"protocolVersion\":",
    b"\"requestId\":",
    b"\"initialize\"",
    b"\"session/new\"",
    b"\"session/prompt\"",
    b"\"session/load\"",
    b"\"session/cancel\"",
    b"\"session/update\"",
    b"\"session/set_mode\"",
    b"\"$/cancel_request\"",
    b"\"_echo\"",
    b"\"_note\"",
    b"\"fs/read_text_file\"",
    b"\"agent_message_chunk\"",
    b"\"tool_call\"",
    b"\"selected\"",
    b"\"cancelled\"",
    b"Content-Length: ",
    b"Content-Length: 10\r\n\r\n",
    b"\r\n\r\n",
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (which must not be 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Applies one to four random edits to `input`.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>, seeds: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(4) {
        let len = input.len();
        match rng.below(9) {
            0 if len > 0 => {
                let at = rng.below(len);
                input[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                const SPECIAL: &[u8] = b"\0\xff\"{}[],:\n\\0 -.eE\x80";
                let at = rng.below(len);
                input[at] = SPECIAL[rng.below(SPECIAL.len())];
            }
            2 => {
                let at = rng.below(len + 1);
                input.insert(at, rng.next() as u8);
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(16));
                input.drain(at..at + n);
            }
            4 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                let copy = input[at..at + n].to_vec();
                let to = rng.below(len + 1);
                input.splice(to..to, copy);
            }
            5 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                let at = rng.below(len + 1);
                input.splice(at..at, token.iter().copied());
            }
            6 if !seeds.is_empty() => {
                let other = &seeds[rng.below(seeds.len())];
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let n = 1 + rng.below((other.len() - from).min(256));
                    let at = rng.below(len + 1);
                    input.splice(at..at, other[from..from + n].iter().copied());
                }
            }
            7 if len > 0 => input.truncate(rng.below(len)),
            // The leading selector/config bytes of every target.
            _ if len > 0 => input[rng.below(len.min(2))] = rng.next() as u8,
            _ => input.push(rng.next() as u8),
        }
    }
    input.truncate(MAX_LEN);
}

/// The files of `fuzz/<dir>/<target>/`, sorted, or none.
fn files(dir: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(target);
    let Ok(entries) = std::fs::read_dir(&path) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("a readable file");
            (p, bytes)
        })
        .collect()
}

/// Runs `check` on `input`; on a panic, saves the input and fails with where it is.
fn run(target: &str, check: fn(&[u8]), input: &[u8], name: &str) {
    if catch_unwind(AssertUnwindSafe(|| check(input))).is_ok() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/smoke-failures");
    std::fs::create_dir_all(&dir).expect("a writable target dir");
    let file = dir.join(format!("{target}-{name}"));
    std::fs::write(&file, input).expect("a writable target dir");
    panic!(
        "{target} failed on {name} (the panic message is above); the input is in {}",
        file.display()
    );
}

fn smoke(target: &str) {
    let check = acp_fuzz::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, check)| *check)
        .expect("a listed target");
    let seeds = files("seeds", target);
    assert!(!seeds.is_empty(), "no seeds in fuzz/seeds/{target}/");
    for (path, bytes) in seeds.iter().chain(&files("regressions", target)) {
        let name = path.file_name().expect("a file name").to_string_lossy();
        if name.starts_with("open-") {
            // A bug found and reported but not fixed yet: reported here, not failed on.
            let fails = catch_unwind(AssertUnwindSafe(|| check(bytes))).is_err();
            eprintln!(
                "{target}: {name}: {}",
                if fails {
                    "still fails (an open bug)"
                } else {
                    "passes now: rename it without `open-`"
                }
            );
            continue;
        }
        run(target, check, bytes, &name);
    }

    let secs = std::env::var("ACP_FUZZ_SMOKE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let budget = Duration::from_secs_f64(secs);
    let seeds: Vec<Vec<u8>> = seeds.into_iter().map(|(_, bytes)| bytes).collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ target.len() as u64);
    let start = Instant::now();
    let mut runs = 0;
    while runs < MAX_RUNS && start.elapsed() < budget {
        let mut input = seeds[rng.below(seeds.len())].clone();
        input.truncate(MAX_LEN);
        mutate(&mut rng, &mut input, &seeds);
        run(target, check, &input, &format!("mutation-{runs}"));
        runs += 1;
    }
    eprintln!(
        "{target}: {} files, {runs} mutated inputs in {:.1?}",
        seeds.len(),
        start.elapsed()
    );
}

#[test]
fn ndjson() {
    smoke("ndjson");
}

#[test]
fn content_length() {
    smoke("content_length");
}

#[test]
fn auto() {
    smoke("auto");
}

#[test]
fn types_envelopes() {
    smoke("types_envelopes");
}

#[test]
fn types_definitions() {
    smoke("types_definitions");
}

#[test]
fn rpc_driver() {
    smoke("rpc_driver");
}

/// Runs one input, given as `ACP_FUZZ_REPLAY=<target>:<file>`; does nothing without it.
#[test]
fn replay() {
    let Ok(spec) = std::env::var("ACP_FUZZ_REPLAY") else {
        return;
    };
    let (target, file) = spec
        .split_once(':')
        .expect("ACP_FUZZ_REPLAY=<target>:<file>");
    let check = acp_fuzz::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, check)| *check)
        .expect("a listed target");
    check(&std::fs::read(file).expect("a readable file"));
}

#[test]
fn every_target_is_smoke_tested() {
    let names: Vec<&str> = acp_fuzz::TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        [
            "ndjson",
            "content_length",
            "auto",
            "types_envelopes",
            "types_definitions",
            "rpc_driver"
        ]
    );
}
