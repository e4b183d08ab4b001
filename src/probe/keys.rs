//! Pure: a server's own keys and issuer (`/openid/v1/jwks`,
//! `/.well-known/openid-configuration`), run through [`crate::verify`] to explain
//! a 401: `key-mismatch` (the token's kid is not among the keys this server
//! publishes: rotated, or a token of another cluster), `signature-invalid`,
//! `issuer-mismatch`, `audience-mismatch`.
//!
//! Caveats that cap the confidence: the discovery document shows only the
//! *first* `--service-account-issuer` although all are accepted, and the API
//! audiences default to the issuers unless `--api-audiences` is set, so issuer
//! and audience findings are `medium`. A kid absent from the JWKS the server
//! itself serves is `high` (external signers may hide keys from discovery, which
//! the evidence says).

use chrono::{DateTime, TimeDelta, Utc};

use crate::diagnosis::{Cause, CauseCandidate, Confidence};
use crate::token::Token;
use crate::verify::keys::{self, KeySet};
use crate::verify::{self, CheckName, Expectations};

/// What a server published, and what the checks concluded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeysFinding {
    /// Kids of the JWKS, if it was read.
    pub kids: Option<Vec<String>>,
    /// The discovery document's issuer, if it was read.
    pub issuer: Option<String>,
    pub candidates: Vec<CauseCandidate>,
    pub ruled_out: Vec<Cause>,
}

fn cand(cause: Cause, confidence: Confidence, evidence: String, step: &str) -> CauseCandidate {
    CauseCandidate {
        cause,
        confidence,
        evidence: vec![evidence],
        next_steps: vec![step.to_owned()],
    }
}

/// Parses what was read and, if `rejected`, checks the token against it.
pub fn analyse(
    jwks: Option<&[u8]>,
    discovery: Option<&[u8]>,
    raw: Option<&str>,
    token: &Token,
    rejected: bool,
    now: DateTime<Utc>,
    leeway: TimeDelta,
) -> KeysFinding {
    let set: Option<KeySet> = jwks.and_then(|b| keys::parse_jwks(b).ok());
    let issuer = discovery
        .and_then(|b| keys::parse_openid_configuration(b).ok())
        .and_then(|d| d.issuer);
    let mut finding = KeysFinding {
        kids: set
            .as_ref()
            .map(|s| s.kids().into_iter().map(str::to_owned).collect()),
        issuer: issuer.clone(),
        ..KeysFinding::default()
    };
    let (Some(set), Some(raw), true) = (set.as_ref(), raw, rejected) else {
        return finding;
    };
    // The discovery issuer is the first issuer; API audiences default to the issuers.
    let expect = Expectations {
        issuers: issuer.iter().cloned().collect(),
        audiences: issuer.iter().cloned().collect(),
    };
    let report = verify::verify(raw, token, set, &expect, now, leeway);
    let kid = report
        .token_kid
        .clone()
        .unwrap_or_else(|| "(none)".to_owned());
    let kids = set.kids().join(", ");
    let key = report.check(CheckName::Key);
    let signature = report.check(CheckName::Signature);
    match (key.ok, signature.ok) {
        (Some(false), _) => finding.candidates.push(cand(
            Cause::KeyMismatch,
            Confidence::High,
            format!(
                "the token's kid {kid} is not among the keys this server publishes at /openid/v1/jwks ({kids}): its signing key was rotated away, or the token is from another cluster (1.31+ logs \"invalid signature, no keys found\"; external signers may keep keys out of discovery)"
            ),
            "get a token from this cluster (kubectl create token NAME -n NAMESPACE); after a key rotation, keep the old public key in --service-account-key-file until old tokens expire",
        )),
        (_, Some(false)) => finding.candidates.push(cand(
            Cause::SignatureInvalid,
            Confidence::High,
            format!("no published key verifies the token's signature ({}): tampered, or signed by a key with a reused kid", signature.detail),
            "compare the token with a fresh one: kubectl create token NAME -n NAMESPACE | kubectl satoken verify --jwks-url ...",
        )),
        (Some(true), Some(true)) => finding
            .ruled_out
            .extend([Cause::KeyMismatch, Cause::SignatureInvalid]),
        _ => {}
    }
    let iss = report.check(CheckName::Issuer);
    match iss.ok {
        Some(false) => finding.candidates.push(cand(
            Cause::IssuerMismatch,
            Confidence::Medium,
            format!(
                "the token's issuer {} is not the issuer this server announces ({}); only the first --service-account-issuer is shown, so check the flag's other values",
                token.claims.issuer.as_deref().unwrap_or("(none)"),
                issuer.as_deref().unwrap_or("-")
            ),
            "kubectl get --raw /.well-known/openid-configuration; on the control plane: grep service-account-issuer /etc/kubernetes/manifests/kube-apiserver.yaml",
        )),
        Some(true) => finding.ruled_out.push(Cause::IssuerMismatch),
        None => {}
    }
    let aud = report.check(CheckName::Audience);
    if aud.ok == Some(false) {
        finding.candidates.push(cand(
            Cause::AudienceMismatch,
            Confidence::Medium,
            format!(
                "the token's audiences [{}] do not include this server's issuer {}, which is its API audience unless --api-audiences says otherwise: a token requested for another audience (kubectl create token --audience, a projected volume's audience)",
                token.claims.audiences.join(", "),
                issuer.as_deref().unwrap_or("-")
            ),
            "request the token without --audience (or with the API server's audience) for calls to the API server",
        ));
    }
    finding
}
