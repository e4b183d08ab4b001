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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::SecretToken;

    const NOW: i64 = 1_767_225_600;
    const RSA_KID: &str = "mbTcd_bTq-VEyLxWg1fU5YSdvr3TZTXIJULVYeBr_HU";
    const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

    fn testdata(path: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("testdata")
                .join(path),
        )
        .unwrap()
    }

    /// A token signed at test time with testdata/keys/rsa.key.pem.
    fn signed(aud: &str, iss: &str) -> (String, Token) {
        let key = jsonwebtoken::EncodingKey::from_rsa_pem(&testdata("keys/rsa.key.pem")).unwrap();
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
        header.typ = None;
        header.kid = Some(RSA_KID.to_owned());
        let claims = serde_json::json!({"aud": [aud], "iss": iss, "exp": NOW + 3600, "iat": NOW - 60, "nbf": NOW - 60,
            "sub": "system:serviceaccount:shop:web",
            "kubernetes.io": {"namespace": "shop", "serviceaccount": {"name": "web", "uid": "u"}}});
        let raw = jsonwebtoken::encode(&header, &claims, &key).unwrap();
        let token = crate::token::parse(&SecretToken::new(raw.clone())).unwrap();
        (raw, token)
    }

    fn discovery() -> Vec<u8> {
        serde_json::json!({"issuer": ISSUER, "jwks_uri": "https://x/openid/v1/jwks"})
            .to_string()
            .into_bytes()
    }

    fn run(jwks: &[u8], raw: &str, token: &Token) -> KeysFinding {
        let now = DateTime::from_timestamp(NOW, 0).unwrap();
        analyse(
            Some(jwks),
            Some(&discovery()),
            Some(raw),
            token,
            true,
            now,
            TimeDelta::seconds(60),
        )
    }

    #[test]
    fn kid_served_rules_key_and_issuer_out() {
        let (raw, token) = signed(ISSUER, ISSUER);
        let f = run(&testdata("jwks.json"), &raw, &token);
        assert!(f.candidates.is_empty(), "{:?}", f.candidates);
        assert!(f.ruled_out.contains(&Cause::KeyMismatch));
        assert!(f.ruled_out.contains(&Cause::IssuerMismatch));
        assert_eq!(f.kids.as_ref().map(Vec::len), Some(3));
        assert_eq!(f.issuer.as_deref(), Some(ISSUER));
    }

    #[test]
    fn rotated_kid_wrong_issuer_and_audience() {
        let (raw, token) = signed("vault", "https://other.example");
        let mut set: serde_json::Value = serde_json::from_slice(&testdata("jwks.json")).unwrap();
        set["keys"]
            .as_array_mut()
            .unwrap()
            .retain(|k| k["kid"] != RSA_KID);
        let f = run(set.to_string().as_bytes(), &raw, &token);
        let found: Vec<(Cause, Confidence)> = f
            .candidates
            .iter()
            .map(|c| (c.cause, c.confidence))
            .collect();
        assert_eq!(
            found,
            [
                (Cause::KeyMismatch, Confidence::High),
                (Cause::IssuerMismatch, Confidence::Medium),
                (Cause::AudienceMismatch, Confidence::Medium),
            ]
        );
        assert!(f.candidates[0].evidence[0].contains(RSA_KID));
        // Nothing is concluded for a token the server accepted, or without the JWKS.
        let now = DateTime::from_timestamp(NOW, 0).unwrap();
        let leeway = TimeDelta::seconds(60);
        let accepted = analyse(
            Some(set.to_string().as_bytes()),
            None,
            Some(&raw),
            &token,
            false,
            now,
            leeway,
        );
        assert!(accepted.candidates.is_empty());
        let unread = analyse(None, None, Some(&raw), &token, true, now, leeway);
        assert!(unread.candidates.is_empty() && unread.kids.is_none());
    }
}
