//! Pure: a server's own keys and issuer (`/openid/v1/jwks`,
//! `/.well-known/openid-configuration`), run through [`crate::verify`], reduced
//! to the [`KeyCheck`] the diagnosis rules read (`rules::keys` says what a
//! missing kid, a failed signature, another issuer or audience mean, and how
//! sure that is).

use chrono::{DateTime, TimeDelta, Utc};

use crate::diagnosis::facts::KeyCheck;
use crate::token::Token;
use crate::verify::keys::{self, KeySet};
use crate::verify::{self, CheckName, Expectations, VerifyReport};

/// What a server published, and the check of the token against it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeysFinding {
    /// Kids of the JWKS, if it was read.
    pub kids: Option<Vec<String>>,
    /// The discovery document's issuer, if it was read.
    pub issuer: Option<String>,
    /// The token checked against them (only for a rejected token).
    pub check: Option<KeyCheck>,
}

/// Parses what was read and, if `rejected`, checks the token against it.
pub fn analyse(
    jwks: Option<&[u8]>,
    discovery: Option<&[u8]>,
    raw: Option<&str>,
    token: Option<&Token>,
    rejected: bool,
    now: DateTime<Utc>,
    leeway: TimeDelta,
) -> KeysFinding {
    let set: Option<KeySet> = jwks.and_then(|b| keys::parse_jwks(b).ok());
    let issuer = discovery
        .and_then(|b| keys::parse_openid_configuration(b).ok())
        .and_then(|d| d.issuer);
    let kids: Option<Vec<String>> = set
        .as_ref()
        .map(|s| s.kids().into_iter().map(str::to_owned).collect());
    let check = match (set.as_ref(), raw, token) {
        (Some(set), Some(raw), Some(token)) if rejected => {
            // The discovery issuer is the first issuer; API audiences default to the issuers.
            let expect = Expectations {
                issuers: issuer.iter().cloned().collect(),
                audiences: issuer.iter().cloned().collect(),
            };
            let report = verify::verify(raw, token, set, &expect, now, leeway);
            let kids = kids.clone().unwrap_or_default();
            Some(key_check(&report, kids, issuer.clone()))
        }
        _ => None,
    };
    KeysFinding {
        kids,
        issuer,
        check,
    }
}

/// A verify report against a server's published keys (`/openid/v1/jwks`), as
/// the rules read it.
pub fn key_check(report: &VerifyReport, kids: Vec<String>, issuer: Option<String>) -> KeyCheck {
    let signature = report.check(CheckName::Signature);
    KeyCheck {
        from: "/openid/v1/jwks".to_owned(),
        kids,
        token_kid: report.token_kid.clone(),
        kid_found: report.check(CheckName::Key).ok,
        signature_ok: signature.ok,
        signature_detail: (signature.ok == Some(false)).then(|| signature.detail.clone()),
        issuer,
        issuer_ok: report.check(CheckName::Issuer).ok,
        audience_ok: report.check(CheckName::Audience).ok,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::testing::{NOW, at};
    use crate::secret::SecretToken;

    const LEEWAY: TimeDelta = TimeDelta::seconds(60);
    const RSA_KID: &str = "mbTcd_bTq-VEyLxWg1fU5YSdvr3TZTXIJULVYeBr_HU";
    const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

    fn testdata(path: &str) -> Vec<u8> {
        std::fs::read(format!("{}/testdata/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
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
        let discovery = discovery();
        analyse(
            Some(jwks),
            Some(&discovery),
            Some(raw),
            Some(token),
            true,
            at(0),
            LEEWAY,
        )
    }

    #[test]
    fn kid_served_rules_key_and_issuer_out() {
        let (raw, token) = signed(ISSUER, ISSUER);
        let f = run(&testdata("jwks.json"), &raw, &token);
        let check = f.check.unwrap();
        assert_eq!(check.kid_found, Some(true));
        assert_eq!(check.signature_ok, Some(true));
        assert_eq!(check.issuer_ok, Some(true));
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
        let check = f.check.clone().unwrap();
        assert_eq!(check.kid_found, Some(false));
        assert_eq!(check.issuer_ok, Some(false));
        assert_eq!(check.audience_ok, Some(false));
        assert_eq!(check.token_kid.as_deref(), Some(RSA_KID));
        // Nothing is concluded for a token the server accepted, or without the JWKS.
        let set = set.to_string();
        let accepted = analyse(
            Some(set.as_bytes()),
            None,
            Some(&raw),
            Some(&token),
            false,
            at(0),
            LEEWAY,
        );
        assert!(accepted.check.is_none());
        let unread = analyse(None, None, Some(&raw), Some(&token), true, at(0), LEEWAY);
        assert!(unread.check.is_none() && unread.kids.is_none());
    }
}
