//! Pure: what a token is and what is wrong with it at instant `now`.
//! `analyse` never reads the clock, the environment or the terminal.

use chrono::{DateTime, TimeDelta, Utc};

use crate::authconfig::AuthnConfigReport;
use crate::findings::{self, Code, Finding, Severity};
use crate::input::{InputContext, Shape, ShapedToken};
use crate::timefmt::{human_seconds, relative, rfc3339};
use crate::token::{self, Binding, KUBELET_TOKEN_SECONDS, Token, TokenKind};
use crate::window::check::{TimeCheck, without_grace};
use crate::window::{at_seconds, floor_seconds};

/// The issuer every legacy Secret token carries. Source: pkg/serviceaccount/legacy.go.
pub const LEGACY_ISSUER: &str = "kubernetes/serviceaccount";

pub(crate) const PADDED: &str = "a segment carries '=' padding: kube-apiserver decodes unpadded base64url only, so it does not recognise the token (401, \"invalid bearer token\")";

/// The cleaner's default period (`--legacy-service-account-token-clean-up-period`,
/// kube-controller-manager): unused this long, a legacy token is labelled
/// invalid; invalid this long, its Secret is deleted.
/// Source: pkg/controller/serviceaccount/legacy_serviceaccount_token_cleaner.go.
const LEGACY_CLEANUP_DAYS: i64 = 365;

/// What `decode` found out about one token.
#[derive(Debug, Clone)]
pub struct DecodeReport {
    pub token: Token,
    pub shape: Shape,
    pub kind: TokenKind,
    pub binding: Binding,
    /// `exp - iat`, when both are present.
    pub lifetime_seconds: Option<i64>,
    /// `exp - now` (negative once expired), when `exp` is present.
    pub expires_in_seconds: Option<i64>,
    /// The time claims at the instant every time-based finding was evaluated
    /// at, on a clock equal to ours.
    pub time: TimeCheck,
    /// Most severe first.
    pub findings: Vec<Finding>,
    /// What the input document said about the token (CSI audience, requested
    /// lifetime, Secret labels, image).
    pub context: InputContext,
    /// `--authentication-config`: what its JWT authenticators make of the token.
    pub authn: Option<AuthnConfigReport>,
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
    let lifetime_seconds = claims.lifetime();
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
        findings.push(Finding::new_kube(is_kube, Code::PaddedBase64, PADDED));
    }
    if claims.fractional_times {
        findings.push(Finding::info(
            Code::FractionalTimes,
            "a time claim has a fraction of a second; kube-apiserver truncates it, as shown here",
        ));
    }
    match kind {
        TokenKind::LegacySecret => check_legacy(&token, &mut findings),
        TokenKind::NotKubernetes => findings.push(Finding::info(
            Code::UnknownKind,
            "not a Kubernetes ServiceAccount token (no kubernetes.io claims); decoded anyway, with the time rules kube-apiserver applies to its own tokens",
        )),
        _ => check_bound(&token, now, &mut findings),
    }
    let time = TimeCheck::new(claims, kind, now, leeway);
    findings.extend(time.to_findings());
    if let Some(kid) = token.header.kid.as_deref().filter(|_| is_kube) {
        findings.extend(foreign_kid(kid));
    }
    check_lifetime(&token, &input.context, kind, binding, &mut findings);
    check_context(&token, input, now, &mut findings);
    findings::sort(&mut findings);
    DecodeReport {
        context: input.context.clone(),
        authn: None,
        shape: input.shape,
        kind,
        binding,
        lifetime_seconds,
        expires_in_seconds,
        time,
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
    let alg = token.header.alg.as_deref();
    let alg_none = alg.is_some_and(|a| a.eq_ignore_ascii_case("none"));
    match alg {
        None => findings.push(Finding::error(
            Code::AlgNone,
            "the header has no \"alg\": no verifier accepts an unsigned token",
        )),
        Some(_) if alg_none => findings.push(Finding::error(
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
    if token.signature_len == 0 && !alg_none {
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

/// A kid that is not a Kubernetes key id: an external signer's (or another
/// issuer's) key, with what that means for verification and refresh.
pub(crate) fn foreign_kid(kid: &str) -> Option<Finding> {
    let meaning = token::kind::FOREIGN_KID_MEANING;
    let message = format!("kid {kid:?} is not a Kubernetes key id: {meaning}");
    (!kid.is_empty() && !token::kind::is_kubernetes_key_id(kid))
        .then(|| Finding::info(Code::KidNotKubernetes, message))
}

/// Requested against issued lifetime: a TokenRequest's `spec.expirationSeconds`,
/// or the kubelet's 3607 s for its own `kube-api-access` token (pod-bound, API
/// audience). Source: pkg/registry/core/serviceaccount/storage/token.go (the
/// cap comes before the extension, so a cap under 3607 s also ends the grace).
fn check_lifetime(
    token: &Token,
    context: &InputContext,
    kind: TokenKind,
    binding: Binding,
    findings: &mut Vec<Finding>,
) {
    let claims = &token.claims;
    let Some(lifetime) = claims.lifetime() else {
        return;
    };
    let shortened = |requested: i64, who: &str| {
        let warning = crate::vocabulary::wordings::LifetimeShortened {
            requested_seconds: requested.unsigned_abs(),
            issued_seconds: lifetime.unsigned_abs(),
        };
        Finding::warning(
            Code::LifetimeShortened,
            format!(
                "{who} {requested}s ({}) but the token lasts {lifetime}s ({}): kube-apiserver caps lifetimes at --service-account-max-token-expiration (managed clusters set their own cap) and says so in a warning: \"{}\" ({})",
                human_seconds(requested),
                human_seconds(lifetime),
                warning.text(),
                crate::vocabulary::wordings::LIFETIME_SHORTENED.versions
            ),
        )
    };
    if let Some(requested) = context.requested_seconds {
        if lifetime < requested && !claims.extended() {
            findings.push(shortened(requested, "the TokenRequest asked for"));
        }
        return;
    }
    if token
        .kubelet_lifetime_without_grace(kind, binding)
        .is_none()
    {
        return;
    }
    if lifetime < KUBELET_TOKEN_SECONDS {
        findings.push(shortened(KUBELET_TOKEN_SECONDS, "the kubelet asks for"));
    }
    findings.push(Finding::info(
        Code::NoExtendedExpiry,
        without_grace(lifetime),
    ));
}

/// What the wrapping document adds: a legacy Secret's tracking labels, a CSI
/// token's audience, an image pull's credential provider.
fn check_context(
    token: &Token,
    input: &ShapedToken,
    now: DateTime<Utc>,
    findings: &mut Vec<Finding>,
) {
    let ctx = &input.context;
    let day = |d: &str| chrono::NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d").ok();
    if let Some(since) = ctx.legacy_invalid_since.as_deref() {
        let delete = day(since).map(|d| d + chrono::Days::new(LEGACY_CLEANUP_DAYS as u64));
        findings.push(Finding::error(
            Code::LegacyTokenInvalidSince,
            format!(
                "invalid since {since} (label {}): kube-apiserver rejects it (\"… has been marked invalid …\"), and the cleaner deletes the Secret {} (default 365-day --legacy-service-account-token-clean-up-period). Removing the label allows it again for now; move the client to a TokenRequest token",
                crate::input::shape::INVALID_SINCE_LABEL,
                match delete {
                    Some(d) => {
                        let at = d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
                        format!("after {d} ({})", relative(at, now))
                    }
                    None => "one clean-up period later".to_owned(),
                }
            ),
        ));
    }
    if let Some(used) = ctx.legacy_last_used.as_deref() {
        let unused_days = day(used).map(|d| (now.date_naive() - d).num_days());
        let text = format!(
            "last used {used} (label {}, updated at most once a day)",
            crate::input::shape::LAST_USED_LABEL
        );
        findings.push(match unused_days {
            Some(days) if days >= LEGACY_CLEANUP_DAYS && ctx.legacy_invalid_since.is_none() => {
                Finding::warning(
                    Code::LegacyTokenLastUsed,
                    format!(
                        "{text}: unused for {days} days, so the cleaner (1.30+) labels an auto-generated token invalid once the clean-up period (default 365 days) has passed"
                    ),
                )
            }
            _ => Finding::info(Code::LegacyTokenLastUsed, text),
        });
    } else if input.shape == Shape::Secret && ctx.legacy_invalid_since.is_none() {
        findings.push(Finding::info(
            Code::LegacyTokenLastUsed,
            format!(
                "no {} label: not used since tracking began (1.26+), or the Secret was read before its first use",
                crate::input::shape::LAST_USED_LABEL
            ),
        ));
    }
    if let Some(audience) = ctx.csi_audience.as_deref() {
        let place = match ctx.csi_field {
            Some("secrets") => {
                "in the NodePublishVolume secrets field (CSIDriver serviceAccountTokenInSecrets, KEP-5538, beta 1.35), kept out of logs"
            }
            Some("volume_context") => {
                "in the NodePublishVolume volume context, which drivers and sidecars may log; serviceAccountTokenInSecrets (1.35+) moves it to the secrets field"
            }
            _ => "in a csi.storage.k8s.io/serviceAccount.tokens map",
        };
        findings.push(Finding::info(
            Code::CsiToken,
            format!(
                "the kubelet gave this token to a CSI driver for audience {audience:?} {place}{}",
                ctx.csi_expiration
                    .as_deref()
                    .map(|e| format!("; expirationTimestamp {e}"))
                    .unwrap_or_default()
            ),
        ));
        if !token.claims.audiences.iter().any(|a| a == audience) {
            findings.push(Finding::error(
                Code::CsiAudienceMismatch,
                format!(
                    "the map keys it by audience {audience:?} but its aud is [{}]: the driver's service will not accept it",
                    token.claims.audiences.join(", ")
                ),
            ));
        }
    }
    if input.shape == Shape::CredentialProviderRequest {
        findings.push(Finding::info(
            Code::ImagePullToken,
            format!(
                "the kubelet gave this token to its image credential provider{} (KEP-4412: beta 1.34); its aud is the provider's tokenAttributes.serviceAccountTokenAudience, which the registry's trust must accept along with iss and sub. A node may request it only if a pod volume names that audience or RBAC grants the node request-serviceaccounts-token-audience on it",
                ctx.image
                    .as_deref()
                    .map(|i| format!(" for image {i}"))
                    .unwrap_or_default()
            ),
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
            .lifetime()
            .map_or_else(|| "?".to_owned(), human_seconds);
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
        findings.push(Finding::new(severity, Code::SubjectMismatch, message));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::diagnosis::testing::NOW;
    use crate::secret::SecretToken;
    use base64::Engine as _;
    use serde_json::{Value, json};

    /// The report on an unsigned token (the signature is not checked here)
    /// at [`NOW`], its shaped input adjusted by `input` first.
    pub(crate) fn report_with(
        header: &Value,
        claims: &Value,
        input: impl FnOnce(&mut ShapedToken),
    ) -> DecodeReport {
        let b64 =
            |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
        let text = format!("{}.{}.c2lnbmF0dXJl", b64(header), b64(claims));
        let mut shaped = crate::input::shape::detect_line(&text);
        input(&mut shaped);
        let token = crate::token::parse(&SecretToken::new(text)).unwrap();
        analyse(token, &shaped, at_seconds(NOW), TimeDelta::seconds(60))
    }

    fn report(header: Value, claims: Value) -> DecodeReport {
        report_with(&header, &claims, |_| {})
    }

    /// A pod-bound token of a projected volume with its own audience (the
    /// kubelet's own API token has rules of its own, tested apart).
    fn projected(iat: i64, exp: i64) -> Value {
        json!({
            "aud": ["https://vault.example"], "exp": exp, "iat": iat, "nbf": iat,
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
        json!({"alg": "RS256", "kid": KID})
    }

    /// A Kubernetes key id (43 characters of base64url).
    const KID: &str = "JVlzkQ3DJ7rPBaRClvKS2IFvW1ZxBxL8oVxFG4E1b1o";

    fn with_context(claims: Value, context: InputContext, shape: Shape) -> DecodeReport {
        report_with(&rs256(), &claims, |input| {
            input.context = context;
            input.shape = shape;
        })
    }

    /// The report's finding of `code`, which it must have.
    fn finding(r: &DecodeReport, code: Code) -> &Finding {
        let found = r.findings.iter().find(|f| f.code == code);
        found.unwrap_or_else(|| panic!("no {code:?} in {:?}", r.findings))
    }

    /// The claims of a legacy Secret token with subject `sub`.
    fn legacy(sub: &str) -> Value {
        json!({
            "iss": "kubernetes/serviceaccount", "sub": sub,
            "kubernetes.io/serviceaccount/namespace": "ns",
            "kubernetes.io/serviceaccount/secret.name": "sa-token-x",
            "kubernetes.io/serviceaccount/service-account.name": "sa",
            "kubernetes.io/serviceaccount/service-account.uid": "u"
        })
    }

    #[test]
    fn the_kubelets_token_without_its_grace_or_shortened() {
        let mut c = projected(NOW - 60, NOW - 60 + 3607);
        c["aud"] = c["iss"].clone();
        let r = report(rs256(), c.clone());
        assert_eq!(codes(&r), [("no-extended-expiry", Severity::Info)]);
        c["exp"] = json!(NOW - 60 + 3600);
        let r = report(rs256(), c.clone());
        assert_eq!(
            finding(&r, Code::LifetimeShortened).severity,
            Severity::Warning
        );
        let message = &finding(&r, Code::LifetimeShortened).message;
        let wording = "\"requested expiration of 3607 seconds shortened to 3600 seconds\"";
        assert!(message.contains(wording), "{message}");
        // With warnafter the grace is there: neither finding.
        c["exp"] = json!(NOW - 60 + 31_536_000);
        c["kubernetes.io"]["warnafter"] = json!(NOW - 60 + 3607);
        let r = report(rs256(), c);
        assert!(!codes(&r).iter().any(|(c, _)| *c == "no-extended-expiry"));
    }

    #[test]
    fn csi_token_for_another_audience() {
        let csi = InputContext {
            csi_audience: Some("vault".into()),
            csi_field: Some("secrets"),
            ..InputContext::default()
        };
        let r = with_context(projected(NOW - 60, NOW + 3540), csi, Shape::CsiTokens);
        let c = codes(&r);
        assert!(c.contains(&("csi-token", Severity::Info)), "{c:?}");
        assert!(
            c.contains(&("csi-audience-mismatch", Severity::Error)),
            "{c:?}"
        );
    }

    #[test]
    fn fresh_projected_token_is_clean() {
        let r = report(rs256(), projected(NOW - 60, NOW + 3540));
        assert_eq!(r.kind, TokenKind::Projected);
        assert_eq!(r.time.verdict(), Some(crate::window::Verdict::Accept));
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert_eq!(r.lifetime_seconds, Some(3600));
        assert_eq!(r.expires_in_seconds, Some(3540));
    }

    #[test]
    fn time_findings_at_and_beyond_the_leeway() {
        // (iat and nbf, exp, both relative to NOW; the one finding expected)
        for (iat, exp, want) in [
            (61, 3661, ("not-yet-valid", Severity::Error)),
            (60, 3660, ("not-yet-valid", Severity::Warning)),
            (-3661, -61, ("expired", Severity::Error)),
            (-3660, -60, ("expired", Severity::Warning)),
            (-3000, 300, ("expires-soon", Severity::Warning)),
        ] {
            let r = report(rs256(), projected(NOW + iat, NOW + exp));
            assert_eq!(codes(&r), [want], "iat {iat:+}, exp {exp:+}");
        }
    }

    #[test]
    fn legacy_token_is_never_time_checked() {
        let mut claims = legacy("system:serviceaccount:ns:other");
        claims["exp"] = json!(NOW - 100_000);
        let r = report(json!({"alg": "RS256", "kid": ""}), claims);
        assert_eq!(r.time.verdict(), None);
        let c = codes(&r);
        assert!(c.contains(&("subject-mismatch", Severity::Error)), "{c:?}");
        assert!(c.contains(&("legacy-token", Severity::Warning)));
        assert!(!c.iter().any(|(code, _)| *code == "expired"));
    }
}
