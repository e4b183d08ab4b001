//! Pure: what a token is and what is wrong with it at instant `now`.
//! `analyse` never reads the clock, the environment or the terminal.

use chrono::{DateTime, TimeDelta, Utc};

use crate::findings::{self, Code, Finding, Severity};
use crate::input::{Shape, ShapedToken};
use crate::timefmt::{human_seconds, relative, rfc3339};
use crate::token::{self, Binding, Token, TokenKind};
use crate::window::{self, TimeClaims, Verdict, at_seconds, ceil_seconds, floor_seconds};

/// The issuer every legacy Secret token carries. Source: pkg/serviceaccount/legacy.go.
pub const LEGACY_ISSUER: &str = "kubernetes/serviceaccount";

/// Tokens expiring within this (or 20 % of their lifetime, if shorter) get `expires-soon`.
pub const EXPIRES_SOON: TimeDelta = TimeDelta::minutes(10);

/// Lifetime the kubelet requests for projected tokens; kube-apiserver extends such
/// tokens to a year and sets `warnafter = iat + 3607`. Source: claims.go, token.go.
pub const KUBELET_TOKEN_SECONDS: i64 = 3607;

/// What `decode` found out about one token.
#[derive(Debug, Clone)]
pub struct DecodeReport {
    pub token: Token,
    pub shape: Shape,
    pub kind: TokenKind,
    pub binding: Binding,
    /// The instant every time-based finding was evaluated at.
    pub evaluated_at: DateTime<Utc>,
    pub leeway: TimeDelta,
    /// `exp - iat`, when both are present.
    pub lifetime_seconds: Option<i64>,
    /// `exp - now` (negative once expired), when `exp` is present.
    pub expires_in_seconds: Option<i64>,
    /// What kube-apiserver would do at `evaluated_at` on a clock equal to ours.
    /// `None` for legacy tokens, which are never time-checked.
    pub verdict: Option<Verdict>,
    /// Most severe first.
    pub findings: Vec<Finding>,
}

impl DecodeReport {
    /// The worst finding's severity.
    pub fn worst(&self) -> Option<Severity> {
        findings::worst(&self.findings)
    }
}

/// Analyses a parsed token at `now` with kube-apiserver's `leeway`.
pub fn analyse(
    token: Token,
    input: &ShapedToken,
    now: DateTime<Utc>,
    leeway: TimeDelta,
) -> DecodeReport {
    let (kind, binding) = token::kind::classify(&token.claims);
    let claims = &token.claims;
    let lifetime_seconds = claims.expires_at.zip(claims.issued_at).map(|(e, i)| e - i);
    let expires_in_seconds = claims
        .expires_at
        .map(|exp| floor_seconds(at_seconds(exp) - now));
    let mut findings = Vec::new();
    let is_kube = kind != TokenKind::NotKubernetes;

    if input.extra_space_after_bearer {
        findings.push(Finding::error(
            Code::BearerExtraSpace,
            "the Authorization header has more than one space after \"Bearer\": kube-apiserver reads that as no token at all, so the request runs as system:anonymous (403, or 401 when anonymous auth is off)",
        ));
    }
    check_signing(&token, is_kube, &mut findings);
    if token.padded {
        findings.push(Finding::new_kube(
            is_kube,
            Code::PaddedBase64,
            "a segment carries '=' padding: kube-apiserver decodes unpadded base64url only, so it does not recognise the token (401, \"invalid bearer token\")",
        ));
    }
    if claims.fractional_times {
        findings.push(Finding::info(
            Code::FractionalTimes,
            "a time claim has a fraction of a second; kube-apiserver truncates it, as shown here",
        ));
    }
    let verdict = match kind {
        TokenKind::LegacySecret => {
            check_legacy(&token, &mut findings);
            None
        }
        _ => {
            if kind == TokenKind::NotKubernetes {
                findings.push(Finding::info(
                    Code::UnknownKind,
                    "not a Kubernetes ServiceAccount token (no kubernetes.io claims); decoded anyway, with the time rules kube-apiserver applies to its own tokens",
                ));
            } else {
                check_bound(&token, now, &mut findings);
            }
            Some(check_time(
                &token,
                lifetime_seconds,
                now,
                leeway,
                &mut findings,
            ))
        }
    };
    findings::sort(&mut findings);
    DecodeReport {
        shape: input.shape,
        kind,
        binding,
        evaluated_at: now,
        leeway,
        lifetime_seconds,
        expires_in_seconds,
        verdict,
        findings,
        token,
    }
}

impl Finding {
    /// An error for Kubernetes tokens, a warning for foreign ones (other validators
    /// may be laxer).
    fn new_kube(is_kube: bool, code: Code, message: &str) -> Finding {
        if is_kube {
            Finding::error(code, message)
        } else {
            Finding::warning(code, message)
        }
    }
}

fn check_signing(token: &Token, is_kube: bool, findings: &mut Vec<Finding>) {
    match token.header.alg.as_deref() {
        None => findings.push(Finding::error(
            Code::AlgNone,
            "the header has no \"alg\": no verifier accepts an unsigned token",
        )),
        Some(alg) if alg.eq_ignore_ascii_case("none") => findings.push(Finding::error(
            Code::AlgNone,
            "\"alg\" is \"none\": the token is unsigned and kube-apiserver rejects it (401)",
        )),
        Some(alg) if alg.starts_with("HS") => findings.push(Finding::new_kube(
            is_kube,
            Code::HmacAlgorithm,
            &format!(
                "\"alg\" is {alg}, an HMAC (shared-secret) algorithm: ServiceAccount tokens are always signed with RS256 or ES256/384/512, so kube-apiserver cannot verify this one"
            ),
        )),
        Some("RS256" | "ES256" | "ES384" | "ES512") => {}
        Some(alg) if is_kube => findings.push(Finding::warning(
            Code::UnusualAlgorithm,
            format!(
                "\"alg\" is {alg}: kube-apiserver signs with RS256 (RSA keys) or ES256/ES384/ES512 (EC keys) unless an external signer chose otherwise"
            ),
        )),
        Some(_) => {}
    }
    if token.signature_len == 0
        && !token
            .header
            .alg
            .as_deref()
            .is_some_and(|a| a.eq_ignore_ascii_case("none"))
    {
        findings.push(Finding::error(
            Code::Unsigned,
            "the signature segment is empty: the token is unsigned and will be rejected (401)",
        ));
    }
    if is_kube && token.header.kid.as_deref().unwrap_or("").is_empty() {
        findings.push(Finding::info(
            Code::NoKeyId,
            "no \"kid\" in the header (tokens from servers before 1.16): kube-apiserver tries every key it has",
        ));
    }
}

fn check_legacy(token: &Token, findings: &mut Vec<Finding>) {
    let claims = &token.claims;
    let secret = claims
        .secret()
        .and_then(|s| s.name)
        .unwrap_or_else(|| "?".to_owned());
    let namespace = claims.namespace().unwrap_or("?");
    findings.push(Finding::warning(
        Code::LegacyToken,
        format!(
            "legacy Secret-based token (Secret {namespace}/{secret}): it lives as long as the Secret. Kubernetes 1.24+ no longer creates these automatically, and 1.29+ labels unused auto-generated ones kubernetes.io/legacy-token-invalid-since and later deletes them; use a projected or `kubectl create token` token instead"
        ),
    ));
    findings.push(Finding::warning(
        Code::NoExpiry,
        if claims.expires_at.is_some() {
            "never expires: the legacy validator ignores time claims, so its exp is not enforced"
        } else {
            "never expires: anyone who copies it keeps access until the Secret is deleted"
        },
    ));
    if claims.issuer.as_deref() != Some(LEGACY_ISSUER) {
        findings.push(Finding::error(
            Code::LegacyIssuer,
            format!(
                "legacy claims but issuer {:?}: only tokens with issuer \"{LEGACY_ISSUER}\" reach the legacy validator (401, \"invalid bearer token\")",
                claims.issuer.as_deref().unwrap_or("")
            ),
        ));
    }
    // The legacy validator's own checks and wording (pkg/serviceaccount/legacy.go).
    let legacy = claims.legacy.as_ref();
    let missing: Vec<&str> = [
        (claims.subject.is_none(), "sub claim is missing"),
        (claims.namespace().is_none(), "namespace claim is missing"),
        (
            legacy.is_none_or(|l| l.secret_name.is_none()),
            "secretName claim is missing",
        ),
        (
            legacy.is_none_or(|l| l.service_account_name.is_none()),
            "serviceAccountName claim is missing",
        ),
        (
            legacy.is_none_or(|l| l.service_account_uid.is_none()),
            "serviceAccountUID claim is missing",
        ),
    ]
    .into_iter()
    .filter_map(|(missing, text)| missing.then_some(text))
    .collect();
    if let Some(first) = missing.first() {
        findings.push(Finding::error(
            Code::LegacyClaimsMissing,
            format!(
                "the legacy validator rejects it: \"{first}\"{}",
                if missing.len() > 1 {
                    format!(" (and {} more)", missing.len() - 1)
                } else {
                    String::new()
                }
            ),
        ));
    }
    check_subject(
        token,
        Severity::Error,
        "\"sub claim is invalid\" (401)",
        findings,
    );
}

fn check_bound(token: &Token, now: DateTime<Utc>, findings: &mut Vec<Finding>) {
    let claims = &token.claims;
    let Some(k8s) = claims.kubernetes.as_ref() else {
        return;
    };
    // Bound tokens build the identity from kubernetes.io; `sub` is not re-checked.
    check_subject(
        token,
        Severity::Warning,
        "kube-apiserver builds the identity from kubernetes.io, so this does not reject it, but no real token looks like this",
        findings,
    );
    if claims.expires_at.is_none() {
        findings.push(Finding::warning(
            Code::NoExpiry,
            "no exp: kube-apiserver always sets one on TokenRequest tokens, so this token was not issued by it as-is",
        ));
    }
    if claims.audiences.is_empty() {
        findings.push(Finding::info(
            Code::NoAudience,
            "no aud: kube-apiserver treats it as carrying the API audiences and audits it as authentication.k8s.io/legacy-token",
        ));
    }
    if let Some(warn_after) = k8s.warn_after {
        let lifetime = claims
            .expires_at
            .zip(claims.issued_at)
            .map(|(e, i)| human_seconds(e - i))
            .unwrap_or_else(|| "?".to_owned());
        let warn_at = at_seconds(warn_after);
        findings.push(Finding::info(
            Code::ExtendedExpiry,
            format!(
                "extended expiry: the kubelet asked for {KUBELET_TOKEN_SECONDS}s but kube-apiserver (--service-account-extend-token-expiration) made it valid for {lifetime}; it counts as stale after warnafter {} ({})",
                rfc3339(warn_at),
                relative(warn_at, now)
            ),
        ));
        if now > warn_at {
            findings.push(Finding::warning(
                Code::StaleToken,
                format!(
                    "past warnafter by {}: still accepted, but every request is audited as authentication.k8s.io/stale-token. The kubelet refreshes the mounted file after ~48m, so a client still sending this token does not re-read the file (client-go re-reads it every minute)",
                    human_seconds((now - warn_at).num_seconds())
                ),
            ));
        }
    }
    if !k8s.unknown_keys.is_empty() {
        findings.push(Finding::info(
            Code::NewerTokenFormat,
            format!(
                "unknown kubernetes.io claims {:?}: a token type newer than this tool knows; decoded what it could",
                k8s.unknown_keys
            ),
        ));
    }
}

fn check_subject(
    token: &Token,
    severity: Severity,
    consequence: &str,
    findings: &mut Vec<Finding>,
) {
    let claims = &token.claims;
    let (Some(expected), Some(actual)) = (claims.expected_subject(), claims.subject.as_deref())
    else {
        return;
    };
    if expected != actual {
        let message = format!("sub is {actual:?} but its claims name {expected:?}: {consequence}");
        findings.push(match severity {
            Severity::Error => Finding::error(Code::SubjectMismatch, message),
            _ => Finding::warning(Code::SubjectMismatch, message),
        });
    }
}

fn check_time(
    token: &Token,
    lifetime_seconds: Option<i64>,
    now: DateTime<Utc>,
    leeway: TimeDelta,
    findings: &mut Vec<Finding>,
) -> Verdict {
    let claims = &token.claims;
    let times = TimeClaims::from(claims);
    let judgement = window::judge(times, now, leeway);
    let leeway_s = leeway.num_seconds();
    let when = |secs: i64| {
        let at = at_seconds(secs);
        format!("{} ({})", rfc3339(at), relative(at, now))
    };
    match judgement.verdict {
        Verdict::RejectNotYetValid => findings.push(Finding::error(
            Code::NotYetValid,
            format!(
                "not valid yet: nbf is {}, more than the {leeway_s}s leeway ahead of this clock; kube-apiserver rejects it (\"{}\") for {}s more. The clock that issued it is ahead of this one",
                when(claims.not_before.unwrap_or_default()),
                Verdict::RejectNotYetValid.server_message().unwrap_or_default(),
                judgement.accepted_in.map(ceil_seconds).unwrap_or_default()
            ),
        )),
        Verdict::RejectExpired => findings.push(Finding::error(
            Code::Expired,
            format!(
                "expired: exp was {}, beyond the {leeway_s}s leeway; kube-apiserver rejects it (\"{}\")",
                when(claims.expires_at.unwrap_or_default()),
                Verdict::RejectExpired.server_message().unwrap_or_default()
            ),
        )),
        Verdict::RejectIssuedInFuture => findings.push(Finding::error(
            Code::IssuedInFuture,
            format!(
                "issued in the future: iat is {}, more than the {leeway_s}s leeway ahead; kube-apiserver rejects it (\"{}\") for {}s more",
                when(claims.issued_at.unwrap_or_default()),
                Verdict::RejectIssuedInFuture.server_message().unwrap_or_default(),
                judgement.accepted_in.map(ceil_seconds).unwrap_or_default()
            ),
        )),
        Verdict::Accept => {
            let within = |secs: Option<i64>| secs.map(at_seconds).filter(|t| *t > now);
            if let Some(nbf) = within(claims.not_before) {
                findings.push(Finding::warning(
                    Code::NotYetValid,
                    format!(
                        "nbf is {}s ahead of this clock: accepted only thanks to the {leeway_s}s leeway; the issuing clock runs ahead",
                        ceil_seconds(nbf - now)
                    ),
                ));
            } else if let Some(iat) = within(claims.issued_at) {
                findings.push(Finding::warning(
                    Code::IssuedInFuture,
                    format!(
                        "iat is {}s ahead of this clock: accepted only thanks to the {leeway_s}s leeway; the issuing clock runs ahead",
                        ceil_seconds(iat - now)
                    ),
                ));
            }
            if let Some(exp) = claims.expires_at.map(at_seconds) {
                let left = exp - now;
                if left <= TimeDelta::zero() {
                    findings.push(Finding::warning(
                        Code::Expired,
                        format!(
                            "exp passed {}s ago: still accepted for {}s thanks to the {leeway_s}s leeway",
                            ceil_seconds(-left),
                            judgement.remaining.map(floor_seconds).unwrap_or_default()
                        ),
                    ));
                } else {
                    let soon = lifetime_seconds
                        .filter(|l| *l > 0)
                        .map(|l| TimeDelta::seconds(l / 5).min(EXPIRES_SOON))
                        .unwrap_or(EXPIRES_SOON);
                    if left <= soon {
                        findings.push(Finding::warning(
                            Code::ExpiresSoon,
                            format!(
                                "expires {}: a client that does not refresh its token gets 401 after that",
                                relative(exp, now)
                            ),
                        ));
                    }
                }
            }
        }
    }
    judgement.verdict
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::SecretToken;
    use base64::Engine as _;
    use serde_json::{Value, json};

    const NOW: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

    fn report(header: Value, claims: Value, now_offset: i64) -> DecodeReport {
        let b64 =
            |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
        let text = format!("{}.{}.c2lnbmF0dXJl", b64(&header), b64(&claims));
        let input = crate::input::shape::detect_line(&text);
        let token = crate::token::parse(&SecretToken::new(text)).unwrap();
        analyse(
            token,
            &input,
            at_seconds(NOW + now_offset),
            TimeDelta::seconds(60),
        )
    }

    fn projected(iat: i64, exp: i64) -> Value {
        json!({
            "aud": ["https://kubernetes.default.svc"], "exp": exp, "iat": iat, "nbf": iat,
            "iss": "https://kubernetes.default.svc", "jti": "0d1e",
            "kubernetes.io": {"namespace": "ns", "pod": {"name": "p", "uid": "pu"},
                "serviceaccount": {"name": "sa", "uid": "su"}},
            "sub": "system:serviceaccount:ns:sa"
        })
    }

    fn codes(r: &DecodeReport) -> Vec<(&'static str, Severity)> {
        r.findings
            .iter()
            .map(|f| (f.code.as_str(), f.severity))
            .collect()
    }

    fn rs256() -> Value {
        json!({"alg": "RS256", "kid": "k"})
    }

    #[test]
    fn fresh_projected_token_is_clean() {
        let r = report(rs256(), projected(NOW - 60, NOW + 3540), 0);
        assert_eq!(r.kind, TokenKind::Projected);
        assert_eq!(r.verdict, Some(Verdict::Accept));
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert_eq!(r.lifetime_seconds, Some(3600));
        assert_eq!(r.expires_in_seconds, Some(3540));
    }

    #[test]
    fn time_findings_at_and_beyond_the_leeway() {
        let r = report(rs256(), projected(NOW + 61, NOW + 3661), 0);
        assert_eq!(codes(&r), [("not-yet-valid", Severity::Error)]);
        let r = report(rs256(), projected(NOW + 60, NOW + 3660), 0);
        assert_eq!(codes(&r), [("not-yet-valid", Severity::Warning)]);
        let r = report(rs256(), projected(NOW - 3661, NOW - 61), 0);
        assert_eq!(codes(&r), [("expired", Severity::Error)]);
        let r = report(rs256(), projected(NOW - 3660, NOW - 60), 0);
        assert_eq!(codes(&r), [("expired", Severity::Warning)]);
        let r = report(rs256(), projected(NOW - 3000, NOW + 300), 0);
        assert_eq!(codes(&r), [("expires-soon", Severity::Warning)]);
    }

    #[test]
    fn extended_token_goes_stale_after_warnafter() {
        let mut claims = projected(NOW - 4000, NOW - 4000 + 31_536_000);
        claims["kubernetes.io"]["warnafter"] = json!(NOW - 4000 + 3607);
        let r = report(rs256(), claims, 0);
        assert_eq!(
            codes(&r),
            [
                ("stale-token", Severity::Warning),
                ("extended-expiry", Severity::Info)
            ]
        );
    }

    #[test]
    fn unsigned_and_hmac() {
        let r = report(json!({"alg": "none"}), projected(NOW, NOW + 3600), 0);
        assert!(codes(&r).contains(&("alg-none", Severity::Error)));
        let r = report(
            json!({"alg": "HS256", "kid": "k"}),
            projected(NOW, NOW + 3600),
            0,
        );
        assert!(codes(&r).contains(&("hmac-algorithm", Severity::Error)));
    }

    #[test]
    fn legacy_token_is_never_time_checked() {
        let claims = json!({
            "iss": "kubernetes/serviceaccount", "exp": NOW - 100_000,
            "kubernetes.io/serviceaccount/namespace": "ns",
            "kubernetes.io/serviceaccount/secret.name": "sa-token-x",
            "kubernetes.io/serviceaccount/service-account.name": "sa",
            "kubernetes.io/serviceaccount/service-account.uid": "u",
            "sub": "system:serviceaccount:ns:other"
        });
        let r = report(json!({"alg": "RS256", "kid": ""}), claims, 0);
        assert_eq!(r.verdict, None);
        let c = codes(&r);
        assert!(c.contains(&("subject-mismatch", Severity::Error)), "{c:?}");
        assert!(c.contains(&("legacy-token", Severity::Warning)));
        assert!(!c.iter().any(|(code, _)| *code == "expired"));
    }

    #[test]
    fn foreign_jwt_is_decoded_with_info() {
        let r = report(
            json!({"alg": "RS256"}),
            json!({"iss": "https://accounts.example.com", "exp": NOW + 100_000, "iat": NOW}),
            0,
        );
        assert_eq!(r.kind, TokenKind::NotKubernetes);
        assert_eq!(codes(&r), [("unknown-kind", Severity::Info)]);
    }
}
