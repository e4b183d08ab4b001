//! The JSON wire types of `decode`, and the token summary and [`Time`] every
//! other document shares: the documented schema (docs/output.md; the JSON
//! Schemas in docs/schema/ are generated from these types by
//! [`super::schema`]). Domain reports stay separate from these so the schema
//! changes only deliberately.

use std::borrow::Cow;
use std::io::Write as _;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::decode::DecodeReport;
use crate::findings::Finding;
use crate::input::Shape;
use crate::report::sanitize::is_dangerous;
use crate::timefmt::rfc3339;
use crate::token::{Binding, Header, ObjectRef, TokenKind};
use crate::window::{Verdict, at_seconds};

/// `decode -o json`: one document per token (a JSON Lines stream for batches,
/// where a line that is not a token is `{line, error}`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct DecodeJson<'a> {
    /// Line number in a batch (1-based); absent for a single token.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub line: Option<usize>,
    /// The token's family, told by its claims.
    pub kind: TokenKind,
    /// The object the token dies with.
    pub binding: Binding,
    /// How the token was wrapped in the input.
    pub input_shape: Shape,
    /// A CSI token map: the audience this token is keyed by (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csi_audience: Option<&'a str>,
    /// First 8 hex digits of SHA-256 of the token.
    #[schemars(regex(pattern = FINGERPRINT))]
    pub fingerprint: &'a str,
    /// JOSE header fields.
    pub header: &'a Header,
    /// The payload as decoded (raw; any claims).
    pub claims: &'a Map<String, Value>,
    /// `iss`, or null.
    pub issuer: Option<&'a str>,
    /// `sub`, or null.
    pub subject: Option<&'a str>,
    /// `aud` as a list (a string `aud` becomes one element).
    pub audiences: &'a [String],
    /// The ServiceAccount's namespace, or null.
    pub namespace: Option<&'a str>,
    /// The ServiceAccount, or null.
    pub service_account: Option<ObjectRef>,
    /// The bound pod, or null.
    pub pod: Option<ObjectRef>,
    /// The bound node, or null.
    pub node: Option<ObjectRef>,
    /// The bound (or legacy) Secret, or null.
    pub secret: Option<ObjectRef>,
    /// `iat`, or null.
    pub issued_at: Option<Time>,
    /// `nbf`, or null.
    pub not_before: Option<Time>,
    /// `exp`, or null.
    pub expires_at: Option<Time>,
    /// `kubernetes.io.warnafter`, or null.
    pub warn_after: Option<Time>,
    /// `exp - iat`, or null.
    pub lifetime_seconds: Option<i64>,
    /// `exp - evaluated_at` (negative when expired), or null.
    pub expires_in_seconds: Option<i64>,
    /// `JTI=<jti>`, as kube-apiserver writes it into user extra and audit
    /// events; null without `jti`.
    pub credential_id: Option<String>,
    /// The signature is described, never shown.
    pub signature: SignatureJson,
    /// The instant the token was judged at (`--now` or the clock).
    pub evaluated_at: Time,
    /// The leeway applied to `nbf`, `exp` and `iat`.
    #[schemars(range(min = 0))]
    pub leeway_seconds: i64,
    /// What kube-apiserver would do with the token at `evaluated_at` on this
    /// clock; null for legacy tokens.
    pub verdict: Option<Verdict>,
    /// What decode noticed.
    pub findings: &'a [Finding],
    /// `--authentication-config`: what its JWT authenticators make of the
    /// token (absent without the flag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authentication_config: Option<&'a crate::authconfig::AuthnConfigReport>,
}

/// The signature is described, never shown.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SignatureJson {
    /// Whether the signature segment is non-empty.
    pub present: bool,
    /// Decoded signature length.
    pub bytes: usize,
}

/// A token identified without being shown: the same shape wherever a report
/// names the token it judged (`classify`, `verify`, `probe`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct TokenSummaryJson<'a> {
    /// First 8 hex digits of SHA-256 of the token.
    #[schemars(regex(pattern = FINGERPRINT))]
    pub fingerprint: &'a str,
    /// The token's family, told by its claims.
    pub kind: TokenKind,
    /// The object the token dies with.
    pub binding: Binding,
    /// Header `alg`, or null.
    pub alg: Option<&'a str>,
    /// Header `kid`, or null when absent or empty.
    pub kid: Option<&'a str>,
    /// `iss`, or null.
    pub issuer: Option<&'a str>,
    /// `sub`, or null.
    pub subject: Option<&'a str>,
    /// `aud` as a list.
    pub audiences: &'a [String],
    /// `iat`, or null.
    pub issued_at: Option<Time>,
    /// `nbf`, or null.
    pub not_before: Option<Time>,
    /// `exp`, or null.
    pub expires_at: Option<Time>,
    /// `JTI=<jti>`, as kube-apiserver writes it into user extra and audit
    /// events; null without `jti`.
    pub credential_id: Option<String>,
}

const FINGERPRINT: &str = "^[0-9a-f]{8}$";

/// An RFC 3339 instant in UTC (`2026-01-01T00:00:00Z`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(extend("format" = "date-time"))]
pub struct Time(String);

impl Time {
    pub fn new(at: DateTime<Utc>) -> Self {
        Time(rfc3339(at))
    }

    /// A time claim (seconds since the epoch).
    pub fn seconds(s: Option<i64>) -> Option<Self> {
        s.map(|s| Time::new(at_seconds(s)))
    }
}

/// The text (a document read back may hold anything).
impl std::ops::Deref for Time {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'a> TokenSummaryJson<'a> {
    pub fn new(token: &'a crate::token::Token) -> Self {
        let (kind, binding) = crate::token::kind::classify(&token.claims);
        let claims = &token.claims;
        TokenSummaryJson {
            fingerprint: &token.fingerprint,
            kind,
            binding,
            alg: token.header.alg.as_deref(),
            kid: token.header.kid.as_deref().filter(|k| !k.is_empty()),
            issuer: claims.issuer.as_deref(),
            subject: claims.subject.as_deref(),
            audiences: &claims.audiences,
            issued_at: Time::seconds(claims.issued_at),
            not_before: Time::seconds(claims.not_before),
            expires_at: Time::seconds(claims.expires_at),
            credential_id: claims.jwt_id.as_ref().map(|j| format!("JTI={j}")),
        }
    }
}

/// A batch line that could not be read as a token.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LineErrorJson<'a> {
    /// Line number in the batch (1-based).
    #[schemars(range(min = 1))]
    pub line: usize,
    /// Why the line is not a token (never includes the token).
    pub error: &'a str,
}

impl<'a> DecodeJson<'a> {
    pub fn new(report: &'a DecodeReport, line: Option<usize>) -> Self {
        let token = &report.token;
        let claims = &token.claims;
        let k8s = claims.kubernetes.as_ref();
        DecodeJson {
            line,
            kind: report.kind,
            binding: report.binding,
            input_shape: report.shape,
            fingerprint: &token.fingerprint,
            header: &token.header,
            claims: &token.raw_claims,
            issuer: claims.issuer.as_deref(),
            subject: claims.subject.as_deref(),
            audiences: &claims.audiences,
            namespace: claims.namespace(),
            service_account: claims.service_account(),
            pod: k8s.and_then(|k| k.pod.clone()),
            node: k8s.and_then(|k| k.node.clone()),
            secret: claims.secret(),
            issued_at: Time::seconds(claims.issued_at),
            not_before: Time::seconds(claims.not_before),
            expires_at: Time::seconds(claims.expires_at),
            warn_after: Time::seconds(k8s.and_then(|k| k.warn_after)),
            lifetime_seconds: report.lifetime_seconds,
            expires_in_seconds: report.expires_in_seconds,
            credential_id: claims.jwt_id.as_ref().map(|j| format!("JTI={j}")),
            signature: SignatureJson {
                present: token.signature_len > 0,
                bytes: token.signature_len,
            },
            evaluated_at: Time::new(report.time.at),
            leeway_seconds: report.time.leeway.num_seconds(),
            verdict: report.time.verdict(),
            findings: &report.findings,
            csi_audience: report.context.csi_audience.as_deref(),
            authentication_config: report.authn.as_ref(),
        }
    }
}

/// The bytes serde_json wrote, with every character [`is_dangerous`] names
/// that serde_json leaves raw (DEL, C1 controls, bidi and zero-width
/// characters, line separators) written as `\uXXXX`. They can only occur
/// inside strings (JSON's own syntax is ASCII and its layout only space, tab
/// and newline), so the replacement is always an escape inside a string literal.
fn escaped(doc: &[u8]) -> Cow<'_, [u8]> {
    // serde_json writes UTF-8; raw dangerous characters are never ASCII but DEL.
    // (`is_ascii` checks a word at a time; a byte loop with an early exit does not.)
    if doc.is_ascii() && memchr::memchr(0x7f, doc).is_none() {
        return Cow::Borrowed(doc);
    }
    // ASCII controls: serde_json escaped those in strings; the rest is layout.
    let raw = |c: char| c >= '\u{7f}' && is_dangerous(c);
    let Some(text) = std::str::from_utf8(doc).ok().filter(|t| t.chars().any(raw)) else {
        return Cow::Borrowed(doc);
    };
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw(c) {
            // Every such character is in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out.into_bytes())
}

pub fn write_line(out: &mut dyn std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    // Serialize into a buffer, then one write: serde_json writes in many small
    // pieces, each a dynamic call through `dyn Write` otherwise (batches write
    // one line per token).
    thread_local! {
        static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    LINE.with_borrow_mut(|line| {
        line.clear();
        serde_json::to_writer(&mut *line, value)?;
        line.push(b'\n');
        let written = out.write_all(&escaped(line));
        // Reused from line to line; a rare huge line does not stay allocated.
        line.shrink_to(64 * 1024);
        written
    })
}

/// Writes one value as pretty JSON, streamed: a report of many findings is
/// never held in memory a second time as its text.
pub fn write_pretty(out: &mut dyn std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    serde_json::to_writer_pretty(Escaping(&mut out), value)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Escapes what [`escaped`] names in each piece serde_json writes: it cuts
/// a string's text only at the (ASCII) characters it escapes itself, so every
/// piece is whole characters.
struct Escaping<W>(W);

impl<W: std::io::Write> std::io::Write for Escaping<W> {
    fn write(&mut self, piece: &[u8]) -> std::io::Result<usize> {
        self.0.write_all(&escaped(piece))?;
        Ok(piece.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_c1_bidi_and_separators_are_escaped_layout_is_not() {
        let value = serde_json::json!({"sub": "a\u{9b}b\u{202e}c\u{2066}d\u{61c}e\u{2028}f\u{7f}"});
        let mut out = Vec::new();
        write_pretty(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "{\n  \"sub\": \"a\\u009bb\\u202ec\\u2066d\\u061ce\\u2028f\\u007f\"\n}\n"
        );
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}
