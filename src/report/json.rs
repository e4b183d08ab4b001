//! The JSON wire types: the documented, stable schema (docs/output.md). Domain
//! reports stay separate from these so the schema changes only deliberately.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::decode::DecodeReport;
use crate::findings::Finding;
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

/// A token identified without being shown: the same shape wherever a report
/// names the token it judged (`classify`, `verify`, `probe`).
#[derive(Debug, Serialize)]
pub struct TokenSummaryJson<'a> {
    /// First 8 hex digits of SHA-256 of the token.
    pub fingerprint: &'a str,
    pub kind: &'static str,
    pub binding: &'static str,
    pub alg: Option<&'a str>,
    pub kid: Option<&'a str>,
    pub issuer: Option<&'a str>,
    pub subject: Option<&'a str>,
    pub audiences: &'a [String],
    pub issued_at: Option<String>,
    pub not_before: Option<String>,
    pub expires_at: Option<String>,
    /// `JTI=<jti>`, as kube-apiserver writes it into user extra and audit events.
    pub credential_id: Option<String>,
}

impl<'a> TokenSummaryJson<'a> {
    pub fn new(token: &'a crate::token::Token) -> Self {
        let (kind, binding) = crate::token::kind::classify(&token.claims);
        let claims = &token.claims;
        let time = |s: Option<i64>| s.map(|s| rfc3339(at_seconds(s)));
        TokenSummaryJson {
            fingerprint: &token.fingerprint,
            kind: kind.as_str(),
            binding: binding.as_str(),
            alg: token.header.alg.as_deref(),
            kid: token.header.kid.as_deref().filter(|k| !k.is_empty()),
            issuer: claims.issuer.as_deref(),
            subject: claims.subject.as_deref(),
            audiences: &claims.audiences,
            issued_at: time(claims.issued_at),
            not_before: time(claims.not_before),
            expires_at: time(claims.expires_at),
            credential_id: claims.jwt_id.as_ref().map(|j| format!("JTI={j}")),
        }
    }
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
        let written = out.write_all(line);
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
    out.write_all(&doc)
}
