//! Typed errors of the pure core. Every variant here is bad input (exit code 2);
//! `app.rs` adds context with anyhow and `exit.rs` maps them to exit codes.
//!
//! Messages are lowercase sentence fragments that name what is wrong and never
//! contain the token itself.

use std::path::PathBuf;

/// Which part of a compact JWS a problem is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::Display)]
pub enum Segment {
    #[strum(to_string = "header (segment 1)")]
    Header,
    #[strum(to_string = "payload (segment 2)")]
    Payload,
    #[strum(to_string = "signature (segment 3)")]
    Signature,
}

/// A token text that is not a well-formed JWT with usable claims.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("no token: the input is empty")]
    Empty,
    /// Larger than any JWT a Kubernetes API server would accept in a header.
    #[error("token is {size} bytes, over the {limit}-byte limit for one token")]
    TooLarge { size: usize, limit: usize },
    /// A byte that cannot appear in a compact JWS (binary data, a pasted terminal escape…).
    #[error(
        "not a token: byte 0x{byte:02x} at offset {offset} cannot appear in a JWT (binary data?)"
    )]
    Binary { byte: u8, offset: usize },
    /// `Basic …` and other non-bearer credentials (the `Authorization` value
    /// of another scheme). The credentials themselves are never repeated.
    #[error(
        "this is `{scheme}` authentication, not a bearer token: a ServiceAccount token is sent as `Authorization: Bearer <token>`"
    )]
    NotBearer { scheme: &'static str },
    #[error("token contains whitespace at offset {offset}: was it line-wrapped when copied?")]
    InnerWhitespace { offset: usize },
    /// Words with spaces between them (a sentence, a config line): a text
    /// file given where a token belongs.
    #[error(
        "not a token: this is text with spaces in it, and a token is one unbroken word (header.payload.signature)"
    )]
    Text,
    #[error(
        "this is a JWE (encrypted token, 5 segments), not a signed JWT: ServiceAccount tokens are never encrypted"
    )]
    Jwe,
    /// A JSON-serialised JWS (`{"payload":…}`), refused by kube-apiserver since 1.31.
    #[error(
        "this is a JSON-serialised JWS, not a compact JWT: kube-apiserver accepts only header.payload.signature"
    )]
    JsonSerialized,
    #[error(
        "not a JWT: expected 3 dot-separated segments (header.payload.signature), found {found}"
    )]
    SegmentCount { found: usize },
    #[error("the {segment} is empty")]
    EmptySegment { segment: Segment },
    #[error("the {segment} is not base64url: {detail}")]
    Base64 { segment: Segment, detail: String },
    #[error("the {segment} is not JSON: {detail}")]
    Json { segment: Segment, detail: String },
    #[error("the {segment} is JSON but not an object (found {found})")]
    NotObject {
        segment: Segment,
        found: &'static str,
    },
    #[error("claim `{claim}` must be {expected}, found {found}")]
    ClaimType {
        claim: String,
        expected: &'static str,
        found: String,
    },
}

/// Could not get token text out of the input at all.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A file named with `-f`, or the in-pod default, could not be read.
    // The path is in the context every caller adds ("cannot read a token from file …").
    #[error("{source}")]
    ReadFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "it does not exist: no token was given and none is mounted here (not in a pod?); pass TOKEN, --token-file FILE, or pipe one on stdin"
    )]
    NoToken { path: PathBuf },
    #[error("cannot read {what}: {source}")]
    Read {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("input is over the {limit}-byte limit for a JSON document")]
    DocumentTooLarge { limit: usize },
    #[error("line is over the {limit}-byte limit for one token")]
    LineTooLarge { limit: usize },
    /// Bytes that are not text (not UTF-8, or a NUL): `-f /dev/urandom`, a
    /// binary file. Refused whole, rather than read as a batch of broken tokens.
    #[error("line {line} is binary data (byte 0x{byte:02x} at offset {offset}), not tokens")]
    Binary {
        line: usize,
        byte: u8,
        offset: usize,
    },
    #[error("input looks like JSON but {0}")]
    UnknownJson(String),
    /// Input that is plainly not token text, named (a PEM key, a kubeconfig
    /// without a token, a log).
    #[error("{0}")]
    NotToken(String),
    #[error("Secret data.token is not valid base64: {0}")]
    SecretBase64(String),
    #[error(transparent)]
    Token(#[from] TokenError),
}

/// Parses YAML (or JSON) within bounds: 200,000 nodes, nesting 32 deep, and
/// `aliases` aliases and anchors each; the error in words, on one line.
pub fn from_yaml<T: serde::de::DeserializeOwned>(text: &str, aliases: usize) -> Result<T, String> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: 200_000,
            max_aliases: aliases,
            max_anchors: aliases,
            max_depth: 32,
        },
    };
    serde_saphyr::from_str_with_options(text, options).map_err(|e| yaml_error(&e))
}

/// A YAML parse error in words, on one line: serde-saphyr's messages for
/// users ("duplicate mapping key `kind` is not allowed here at line 2
/// column 1"), with its own limits said plainly instead of in its Debug form.
fn yaml_error(e: &serde_saphyr::Error) -> String {
    use serde_saphyr::{Error, MessageFormatter, UserMessageFormatter};
    use std::borrow::Cow;
    struct Plain;
    impl MessageFormatter for Plain {
        fn format_message<'a>(&self, err: &'a Error) -> Cow<'a, str> {
            match err {
                Error::Budget { .. } => Cow::Borrowed(
                    "the YAML is over this tool's bounds (nodes, aliases, anchors or nesting)",
                ),
                _ => UserMessageFormatter.format_message(err),
            }
        }
    }
    let text = e.render_with_options(serde_saphyr::render_options! {
        formatter: &Plain,
        snippets: serde_saphyr::SnippetMode::Off,
    });
    text.lines().next().unwrap_or("").to_owned()
}
