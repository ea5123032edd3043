//! What the S4 programs share: reading their input, the `IgnoredAny` floor, and reporting
//! memory.

use serde::Deserialize;
use serde::de::IgnoredAny;

/// The floor of BENCH.md: a JSON-RPC message parsed by `serde_json::from_slice` into a struct
/// of `IgnoredAny` fields, which validates the JSON and keeps nothing.
#[derive(Debug, Deserialize)]
pub struct Floor {
    /// `jsonrpc`.
    pub jsonrpc: IgnoredAny,
    /// `id`.
    pub id: Option<IgnoredAny>,
    /// `method`.
    pub method: Option<IgnoredAny>,
    /// `params`.
    pub params: Option<IgnoredAny>,
    /// `result`.
    pub result: Option<IgnoredAny>,
    /// `error`.
    pub error: Option<IgnoredAny>,
}

/// The peak resident set size of this process so far (`VmHWM`), in KiB; `None` where `/proc`
/// does not tell.
#[must_use]
pub fn peak_rss_kb() -> Option<u64> {
    let stats = crate::scenarios::ProcStats::read(None).ok()?;
    (stats.peak_rss_kb > 0).then_some(stats.peak_rss_kb)
}

/// The command line of the S4 programs: `[--file PATH | --bytes N] [--seed S]`.
#[derive(Debug, Clone)]
pub struct S4Args {
    /// Read the traffic from this NDJSON file instead of generating it.
    pub file: Option<String>,
    /// How much traffic to generate (default 100,000,000 bytes).
    pub bytes: usize,
    /// The generator's seed (default 1).
    pub seed: u64,
}

impl S4Args {
    /// Parses the process's arguments.
    ///
    /// # Errors
    ///
    /// A usage message naming `program`.
    pub fn parse(program: &str) -> Result<Self, String> {
        let mut args = Self {
            file: None,
            bytes: 100_000_000,
            seed: 1,
        };
        let mut it = std::env::args().skip(1);
        while let Some(arg) = it.next() {
            let parsed = match arg.as_str() {
                "--file" => it.next().map(|v| args.file = Some(v)),
                "--bytes" => it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .map(|v| args.bytes = v),
                "--seed" => it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .map(|v| args.seed = v),
                _ => None,
            };
            if parsed.is_none() {
                return Err(format!(
                    "usage: {program} [--file PATH | --bytes N] [--seed S]"
                ));
            }
        }
        Ok(args)
    }

    /// The traffic: read from the file, or generated.
    ///
    /// # Errors
    ///
    /// When the file cannot be read.
    pub fn load(&self) -> Result<Vec<u8>, String> {
        match &self.file {
            Some(path) => std::fs::read(path).map_err(|e| format!("reading {path}: {e}")),
            None => Ok(crate::s4::generate(self.seed, self.bytes)),
        }
    }
}
