//! The floor for `decode`: a minimal program that only base64url-decodes the
//! header and payload of each token and parses them with serde_json, printing one
//! compact JSON line per token. No shapes, no claims typing, no findings. Built by
//! scripts/bench.sh (`cargo build --release --example minimal_decode`) and timed
//! side by side with `kubectl-satoken decode -o json`.
//!
//! Usage: `minimal_decode [FILE]` (stdin without FILE); one token per line.

use std::io::{self, BufRead, BufReader, Read, Write};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

fn main() -> io::Result<()> {
    let input: Box<dyn Read> = match std::env::args_os().nth(1) {
        Some(path) => Box::new(std::fs::File::open(path)?),
        None => Box::new(io::stdin().lock()),
    };
    let reader = BufReader::with_capacity(64 * 1024, input);
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in reader.lines() {
        let line = line?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split('.');
        let (Some(h), Some(p)) = (parts.next(), parts.next()) else {
            writeln!(out, "{{\"error\":\"not a JWT\"}}")?;
            continue;
        };
        let decode = |s: &str| -> Option<Value> {
            let bytes = URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).ok()?;
            serde_json::from_slice(&bytes).ok()
        };
        match (decode(h), decode(p)) {
            (Some(header), Some(payload)) => {
                serde_json::to_writer(
                    &mut out,
                    &serde_json::json!({"header": header, "payload": payload}),
                )?;
                out.write_all(b"\n")?;
            }
            _ => writeln!(out, "{{\"error\":\"undecodable\"}}")?,
        }
    }
    out.flush()
}
