//! Pure: which lines of a log the engine must read. Most of a day's API
//! server log is routine (watches, caches, traces, leases); the engine reads
//! a line only when it holds an anchor: a word every failure the engine
//! reads from one line carries (a status's words, an error's, the reasons'
//! `token`, the failure wordings of [`TRANSPORT`] and [`SERVICES`]), found by
//! one case-insensitive Aho-Corasick pass; or when it is a bare status (`401`,
//! `HTTP 403 Forbidden`) once its prefixes are peeled. tests/it/prefilter.rs
//! reads every corpus line by line with and without this test and requires
//! the same events.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use chrono::{DateTime, Utc};

use crate::diagnosis::extract::layers;
use crate::diagnosis::wordings::{SERVICES, TRANSPORT};

/// The anchors besides the wordings tables (matched in any case).
const WORDS: &[&str] = &[
    // Answers and their status words (`Unauthorized`, `Forbidden`, Status
    // reasons, the phrases beside a code, `code = Unauthenticated`).
    "unauthori",
    "authenticat",
    "forbidden",
    "denied",
    "deny",
    "permission",
    "credential",
    "logged in",
    "status",
    "code",
    "http/1.",
    "http/2 ",
    "http/2.0 ",
    "http/3",
    "not found",
    "notfound",
    "conflict",
    "already exists",
    "alreadyexists",
    "too many",
    "toomany",
    "too large",
    "unavailable",
    "bad gateway",
    "bad request",
    "badrequest",
    "unprocessable",
    "not allowed",
    "notallowed",
    "not acceptable",
    "not supported",
    "unsupported",
    "not implemented",
    // The reasons and what judges tokens.
    "token",
    "jose",
    "oidc",
    "invalid",
    "expired",
    "not match",
    "not valid",
    "x509",
    "certificate",
    "tls",
    "ssl",
    "tokenreview",
    "audit.k8s.io",
    "aadsts",
    "webidentity",
    // What a failure says of itself.
    "error",
    "fail",
    "exception",
    "refused",
    "unable",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "not authorized",
    "unreachable",
];

static ANCHORS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let wordings = TRANSPORT.iter().chain(SERVICES).map(|w| w.text);
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(WORDS.iter().copied().chain(wordings))
        .expect("short anchors always build")
});

/// Lines longer than this are never a bare status.
const SHORT: usize = 160;

/// Whether the engine must read `line` (see the module documentation).
pub fn candidate(line: &[u8], now: DateTime<Utc>) -> bool {
    ANCHORS.is_match(line) || (line.len() <= SHORT && bare_status(line, now))
}

/// `401`, `403 Forbidden`, `HTTP 404` behind a log's prefixes.
fn bare_status(line: &[u8], now: DateTime<Utc>) -> bool {
    let Ok(text) = std::str::from_utf8(line) else {
        return true;
    };
    let t = layers::strip(text, now).text.trim_start().as_bytes();
    let t = match t.get(..5) {
        Some(p) if p.eq_ignore_ascii_case(b"http ") => &t[5..],
        _ => t,
    };
    t.len() >= 3 && t[..3].iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wording_of_a_failure_is_a_candidate() {
        let now = crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap();
        for w in crate::diagnosis::wordings::all().chain(TRANSPORT).chain(SERVICES) {
            assert!(
                w.cause.is_none() || candidate(w.text.as_bytes(), now),
                "{}",
                w.text
            );
        }
        for line in ["401", "E0101 00:00:00.000000 1 x.go:1] 403 Forbidden", "HTTP 503"] {
            assert!(candidate(line.as_bytes(), now), "{line}");
        }
        for routine in [
            r#"I0101 00:00:00.000000       1 get.go:262] "Starting watch" path="/api/v1/pods" timeout="7m40s""#,
            "Trace[454033495]: [774.219ms] [774.255ms] END",
            "I0101 00:00:00.000000       1 cacher.go:847] cacher (pods): 6 objects queued in incoming channel.",
        ] {
            assert!(!candidate(routine.as_bytes(), now), "{routine}");
        }
    }
}
