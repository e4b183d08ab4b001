//! Unit tests of `crate::diagnosis::reasons`.

use super::*;
use crate::diagnosis::Cause;

fn only_specific(text: &str) -> AuthReason {
    let reasons = parse_auth_error(text);
    let specific = specific(&reasons);
    assert_eq!(specific.len(), 1, "{text}: {reasons:?}");
    specific[0].clone()
}

/// Every whole message and uid-mismatch shape of the table reads back as its
/// own kind, cause and era, in full, with its values; docs/causes.md (checked
/// by `docs::causes_md_is_the_registry`) holds each wording's cause and era.
#[test]
fn every_fixed_wording_reads_as_its_own_pattern() {
    for p in MESSAGES {
        let text = match p.matcher {
            Matcher::Literal(_) if p.kind == K::InvalidBearerToken => continue,
            Matcher::Literal(text) => text.to_owned(),
            Matcher::Uid(shape) => shape.replace("LIVE", "new-uid").replace("CLAIM", "old-uid"),
            _ => continue,
        };
        // The message itself may contain ", ": it must stay one reason.
        let r = only_specific(&format!("[invalid bearer token, {text}]"));
        assert_eq!((r.kind, r.cause, r.era), (p.kind, p.cause, p.era), "{text}");
        assert_eq!(r.message, text);
        if let Matcher::Uid(_) = p.matcher {
            let uids = (r.values.live_uid.as_deref(), r.values.claim_uid.as_deref());
            assert_eq!(uids, (Some("new-uid"), Some("old-uid")), "{text}");
        }
    }
}

/// The 1.23+ wording; `serviceaccounts "x" not found` and the `ServiceAccount`
/// wording are read in the classify snapshots of apiserver-1.33-mixed.log and
/// apiserver-1.20-klog.log.
#[test]
fn deleted_service_account_in_the_current_wording() {
    let r = only_specific(
        "[invalid bearer token, service account debug-lab/reporter has been deleted]",
    );
    assert_eq!((r.kind, r.era), (K::ServiceAccountDeleted, "1.23+"));
    assert_eq!(r.values.namespace.as_deref(), Some("debug-lab"));
    assert_eq!(r.values.name.as_deref(), Some("reporter"));
}

#[test]
fn audiences_and_several_reasons() {
    let r = only_specific(
        r#"[invalid bearer token, token audiences ["vault" "api"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]]"#,
    );
    assert_eq!(r.cause, Cause::AudienceMismatch);
    assert_eq!(r.values.token_audiences, ["vault", "api"]);
    assert_eq!(
        r.values.target_audiences,
        ["https://kubernetes.default.svc.cluster.local"]
    );
    // Legacy and bound authenticators both claimed the token.
    let reasons = parse_auth_error(
        "[invalid bearer token, namespace claim is missing, service account token has expired]",
    );
    assert_eq!(
        reasons.iter().map(|r| r.kind).collect::<Vec<_>>(),
        [K::InvalidBearerToken, K::LegacyClaimInvalid, K::Expired]
    );
}

#[test]
fn generic_alone_and_unknown_text_are_kept() {
    assert!(only_specific("invalid bearer token").is_generic());
    let reasons = parse_auth_error(
        "[invalid bearer token, oidc: verify token: oidc: token is expired, service account token has expired]",
    );
    assert_eq!(reasons.len(), 3);
    assert_eq!(
        (reasons[1].kind, reasons[1].cause, reasons[1].era),
        (K::Expired, Cause::Expired, OIDC_ERA)
    );
    assert_eq!(
        reasons[1].message,
        "oidc: verify token: oidc: token is expired"
    );
    // go-jose's own time errors are time causes (their wordings are whole
    // messages of the table); another go-jose error is one of the token's shape.
    for text in [
        "[invalid bearer token, go-jose/go-jose/jwt: expected number value to unmarshal NumericDate]",
        "square/go-jose: compact JWS format must have three parts",
    ] {
        let r = only_specific(text);
        assert_eq!(
            (r.kind, r.cause),
            (K::JoseError, Cause::TokenMalformed),
            "{text}"
        );
    }
    // go-jose's checks of the claims its caller expects: that caller's
    // settings (a checker's issuer or audience), no cluster's cause.
    for text in [
        "[invalid bearer token, go-jose/go-jose/jwt: validation failed, invalid issuer claim (iss)]",
        "square/go-jose/jwt: validation failed, invalid audience claim (aud)",
    ] {
        let r = only_specific(text);
        assert_eq!((r.kind, r.cause), (K::JoseError, Cause::Unknown), "{text}");
    }
    let r = only_specific(
        "service account token claims could not be validated: square/go-jose/jwt: validation failed, invalid audience claim (aud)",
    );
    assert_eq!(r.kind, K::ClaimsNotValidated);
    assert!(
        r.values
            .detail
            .as_deref()
            .unwrap()
            .starts_with("square/go-jose/jwt")
    );
    // A literal that is only the start of a longer message is not that message.
    let reasons = parse_auth_error("Token has expired.. really");
    assert_eq!(reasons.len(), 1);
}

/// Besides those the classify snapshots read (`authenticator not initialized`,
/// `token is expired`, `expected audience`, `email not verified`).
#[test]
fn every_oidc_authenticator_wording_has_a_kind_and_a_cause() {
    for (message, kind, cause) in [
        (
            "oidc: verify token: failed to verify signature: fetching keys oidc: get keys failed: 503 Service Unavailable",
            K::JwtKeysUnreachable,
            Cause::JwtIssuerUnreachable,
        ),
        (
            "oidc: verify token: failed to verify signature: no keys matches jwk keyid",
            K::NoKeysFound,
            Cause::KeyMismatch,
        ),
        (
            "oidc: verify token: failed to verify signature: failed to verify id token signature",
            K::CryptographicPrimitive,
            Cause::SignatureInvalid,
        ),
        (
            "oidc: verify token: oidc: current time 2026-01-01 00:00:00 +0000 UTC before the nbf (not before) time: 2026-01-01 00:05:00 +0000 UTC",
            K::NotValidYet,
            Cause::ClockSkew,
        ),
        (
            r#"oidc: verify token: oidc: id token issued by a different provider, expected "https://a" got "https://b""#,
            K::IssuerInvalid,
            Cause::IssuerMismatch,
        ),
        (
            "oidc: verify token: oidc: malformed jwt: square/go-jose: compact JWS format must have three parts",
            K::JoseError,
            Cause::TokenMalformed,
        ),
        (
            "oidc: error evaluating claim validation expression: validation expression 'claims.hd == \"example.com\"' failed: hd must be example.com",
            K::JwtAuthenticatorRule,
            Cause::JwtAuthenticatorRejected,
        ),
        (
            "oidc: JWT claims invalid: token is expired",
            K::Expired,
            Cause::Expired,
        ),
        (
            "oidc: JWT claims invalid: invalid claims, 'aud' claim and 'client_id' do not match, aud=UUID1, client_id=spn:UUID2",
            K::AudienceNotMatched,
            Cause::AudienceMismatch,
        ),
        (
            "oidc: JWT claims invalid: invalid claim value: 'iss'.",
            K::IssuerInvalid,
            Cause::IssuerMismatch,
        ),
        (
            "oidc: unable to verify JWT signature: no matching keys",
            K::NoKeysFound,
            Cause::KeyMismatch,
        ),
        (
            "oidc: parse claims: json: cannot unmarshal number into Go value of type string",
            K::JwtAuthenticatorOther,
            Cause::JwtAuthenticatorRejected,
        ),
    ] {
        let r = only_specific(&format!("[invalid bearer token, {message}]"));
        assert_eq!(
            (r.kind, r.cause, r.era),
            (kind, cause, OIDC_ERA),
            "{message}"
        );
        assert_eq!(r.message, message);
    }
}

#[test]
fn a_long_run_of_oidc_messages_is_read_one_by_one() {
    // Each message's end is found by fixed openings: no message structures
    // the next one, however many follow.
    let one = "oidc: email not verified";
    let text = format!("[{}]", vec![one; 20_000].join(", "));
    let reasons = parse_auth_error(&text);
    // 64 messages read, the rest kept whole beyond the parsing bound.
    assert_eq!(reasons.len(), 65);
    assert!(
        reasons[..64]
            .iter()
            .all(|r| r.kind == K::JwtAuthenticatorRule && r.message == one)
    );
    assert_eq!(reasons[64].kind, K::Unrecognised);
}

/// The x509 authenticator wraps Go's verify error in the certificate's
/// identity (x509.go: `verifying certificate %s failed: %w`, whose `SN=…,
/// SKID=…, AKID=…` holds `, `): alone, it reads as the error inside.
#[test]
fn the_x509_authenticators_wrapped_error_is_its_error() {
    for (message, kind, cause) in [
        (
            "verifying certificate SN=5135730658671374549, SKID=, AKID=C6:60:C2:75 failed: x509: certificate has expired or is not yet valid: current time 2026-12-07T10:00:00Z is after 2026-12-01T00:00:00Z",
            K::ClientCertificateExpired,
            Cause::ClientCertificateExpired,
        ),
        (
            "verifying certificate SN=2, SKID=, AKID= failed: x509: certificate has expired or is not yet valid: current time 2026-12-07T10:00:00Z is before 2026-12-08T00:00:00Z",
            K::ClientCertificateNotYetValid,
            Cause::ClockSkew,
        ),
        (
            "verifying certificate SN=2, SKID=AB:CD, AKID=EF:01 failed: x509: certificate signed by unknown authority",
            K::ClientCertificateUntrusted,
            Cause::ClientCertificateUntrusted,
        ),
    ] {
        let r = only_specific(message);
        assert_eq!((r.kind, r.cause), (kind, cause), "{message}");
        assert!(r.message.starts_with("x509: "), "{message}");
    }
}
