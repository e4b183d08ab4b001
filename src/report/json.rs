//! The JSON wire types: the documented, stable schema (docs/output.md). Domain
//! reports stay separate from these so the schema changes only deliberately.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::decode::DecodeReport;
use crate::findings::Finding;
use crate::report::sanitize::is_dangerous;
use crate::timefmt::rfc3339;
use crate::token::ObjectRef;
use crate::window::at_seconds;

/// `decode -o json`, one per token (a JSON Lines stream for batches).
#[derive(Debug, Serialize)]
pub struct DecodeJson<'a> {
    /// Line number in a batch; absent for a single token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub kind: &'static str,
    pub binding: &'static str,
    pub input_shape: &'static str,
    /// First 8 hex digits of SHA-256 of the token.
    pub fingerprint: &'a str,
    pub header: HeaderJson<'a>,
    /// The payload as decoded.
    pub claims: &'a Map<String, Value>,
    pub issuer: Option<&'a str>,
    pub subject: Option<&'a str>,
    pub audiences: &'a [String],
    pub namespace: Option<&'a str>,
    pub service_account: Option<RefJson>,
    pub pod: Option<RefJson>,
    pub node: Option<RefJson>,
    pub secret: Option<RefJson>,
    pub issued_at: Option<String>,
    pub not_before: Option<String>,
    pub expires_at: Option<String>,
    pub warn_after: Option<String>,
    pub lifetime_seconds: Option<i64>,
    pub expires_in_seconds: Option<i64>,
    /// `JTI=<jti>`, as kube-apiserver writes it into user extra and audit events.
    pub credential_id: Option<String>,
    pub signature: SignatureJson,
    pub evaluated_at: String,
    pub leeway_seconds: i64,
    /// accept | reject-… at `evaluated_at` on this clock; null for legacy tokens.
    pub verdict: Option<&'static str>,
    pub findings: &'a [Finding],
}

/// JOSE header fields.
#[derive(Debug, Serialize)]
pub struct HeaderJson<'a> {
    pub alg: Option<&'a str>,
    pub kid: Option<&'a str>,
    pub typ: Option<&'a str>,
}

/// `{name, uid}` of a bound object.
#[derive(Debug, Serialize)]
pub struct RefJson {
    pub name: Option<String>,
    pub uid: Option<String>,
}

impl From<ObjectRef> for RefJson {
    fn from(r: ObjectRef) -> Self {
        RefJson {
            name: r.name,
            uid: r.uid,
        }
    }
}

/// The signature is described, never shown.
#[derive(Debug, Serialize)]
pub struct SignatureJson {
    pub present: bool,
    pub bytes: usize,
}

/// A batch line that could not be read as a token.
#[derive(Debug, Serialize)]
pub struct LineErrorJson<'a> {
    pub line: usize,
    pub error: &'a str,
}

impl<'a> DecodeJson<'a> {
    /// The wire form of a report.
    pub fn new(report: &'a DecodeReport, line: Option<usize>) -> Self {
        let token = &report.token;
        let claims = &token.claims;
        let k8s = claims.kubernetes.as_ref();
        let time = |s: Option<i64>| s.map(|s| rfc3339(at_seconds(s)));
        DecodeJson {
            line,
            kind: report.kind.as_str(),
            binding: report.binding.as_str(),
            input_shape: report.shape.as_str(),
            fingerprint: &token.fingerprint,
            header: HeaderJson {
                alg: token.header.alg.as_deref(),
                kid: token.header.kid.as_deref(),
                typ: token.header.typ.as_deref(),
            },
            claims: &token.raw_claims,
            issuer: claims.issuer.as_deref(),
            subject: claims.subject.as_deref(),
            audiences: &claims.audiences,
            namespace: claims.namespace(),
            service_account: claims.service_account().map(Into::into),
            pod: k8s.and_then(|k| k.pod.clone()).map(Into::into),
            node: k8s.and_then(|k| k.node.clone()).map(Into::into),
            secret: claims.secret().map(Into::into),
            issued_at: time(claims.issued_at),
            not_before: time(claims.not_before),
            expires_at: time(claims.expires_at),
            warn_after: time(k8s.and_then(|k| k.warn_after)),
            lifetime_seconds: report.lifetime_seconds,
            expires_in_seconds: report.expires_in_seconds,
            credential_id: claims.jwt_id.as_ref().map(|j| format!("JTI={j}")),
            signature: SignatureJson {
                present: token.signature_len > 0,
                bytes: token.signature_len,
            },
            evaluated_at: rfc3339(report.evaluated_at),
            leeway_seconds: report.leeway.num_seconds(),
            verdict: report.verdict.map(|v| v.as_str()),
            findings: &report.findings,
        }
    }
}

/// `json` with every character [`is_dangerous`] names that serde_json leaves raw
/// (DEL, C1 controls, bidi and zero-width characters, line separators) written
/// as `\uXXXX`. They can only occur inside strings (JSON's own syntax is ASCII
/// and its layout only space, tab and newline), so the replacement is always
/// an escape inside a string literal.
pub fn escape_raw(json: &str) -> std::borrow::Cow<'_, str> {
    // ASCII controls: serde_json escaped those in strings; the rest is layout.
    let raw = |c: char| c >= '\u{7f}' && is_dangerous(c);
    if !json.chars().any(raw) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if raw(c) {
            // Every such character is in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The bytes serde_json wrote, escaped by [`escape_raw`].
fn escaped(doc: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    // serde_json writes UTF-8; raw dangerous characters are never ASCII but DEL.
    if !doc.iter().any(|&b| b >= 0x7f) {
        return std::borrow::Cow::Borrowed(doc);
    }
    match std::str::from_utf8(doc).map(escape_raw) {
        Ok(std::borrow::Cow::Owned(text)) => std::borrow::Cow::Owned(text.into_bytes()),
        _ => std::borrow::Cow::Borrowed(doc),
    }
}

/// Writes one value as a line of JSON.
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

/// Writes one value as pretty JSON.
pub fn write_pretty(out: &mut dyn std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    let mut doc = Vec::with_capacity(8192);
    serde_json::to_writer_pretty(&mut doc, value)?;
    doc.push(b'\n');
    out.write_all(&escaped(&doc))
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
