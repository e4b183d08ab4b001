//! kube-apiserver's authenticators' messages: what lands after `err=` in
//! `"Unable to authenticate the request" err="[…]"` and in a TokenReview's
//! `status.error` (`utilerrors.NewAggregate` of every authenticator's answer),
//! and what the checkers that validate a token themselves print in the same
//! place. `diagnosis::reasons` reads an aggregate by these rows; `explain`
//! lists them per cause.
//!
//! Sources: k8s.io/kubernetes pkg/serviceaccount (jwt.go, claims.go,
//! legacy.go) 1.10–1.36, go-jose v2–v4 (jwt/validation.go), k8s.io/apiserver
//! (the union and loopback authenticators, the OIDC authenticator's oidc.go
//! with go-oidc's verify.go, the x509 authenticator), dgrijalva/jwt-go before
//! 1.6, Vault's Kubernetes auth method.

use strum::{IntoStaticStr, VariantArray};

use super::cause::Cause;

/// Which known message a reason is. Stable kebab-case names (JSON `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum ReasonKind {
    /// `invalid bearer token`: the loopback authenticator's answer to every other
    /// token; alone, it means no authenticator recognised the token at all.
    InvalidBearerToken,
    /// Past `exp` + leeway.
    Expired,
    /// Before `nbf` - leeway.
    #[strum(serialize = "not-yet-valid")]
    NotValidYet,
    /// `iat` after now + leeway (token without `nbf`).
    IssuedInFuture,
    /// 1.23–1.26 wording of "issued in the future".
    UnexpectedValidationError,
    /// ≤1.22: any time failure other than expiry (nbf or iat in the future).
    CouldNotBeValidated,
    /// `service account token claims could not be validated: <go-jose error>`.
    ClaimsNotValidated,
    /// 1.31+: the header `kid` names no verification key.
    NoKeysFound,
    /// No key verifies the signature.
    CryptographicPrimitive,
    /// Another go-jose error (e.g. a non-numeric `exp`).
    JoseError,
    /// 1.31+: the verified `iss` is not an accepted issuer.
    IssuerInvalid,
    /// `token audiences [..] is invalid for the target audiences [..]`.
    AudienceInvalid,
    /// `unable to match the audience` (authentication filter, after success).
    AudienceNotMatched,
    /// `serviceaccounts "NAME" not found`.
    ServiceAccountNotFound,
    /// `service account UID (LIVE) does not match claim (CLAIM)`.
    ServiceAccountUidMismatch,
    /// `service account NS/NAME has been deleted`.
    ServiceAccountDeleted,
    /// `service account token has been invalidated` (1.23+: a bound pod,
    /// Secret or node gone).
    TokenInvalidated,
    /// `Token has been invalidated` (a legacy token's Secret gone; before
    /// 1.23 any bound object gone).
    TokenInvalidatedOldWording,
    /// `pod UID (LIVE) does not match service account pod ref claim (CLAIM)`.
    PodUidMismatch,
    /// `secret UID (LIVE) does not match service account secret ref claim (CLAIM)`.
    SecretUidMismatch,
    /// `node UID (LIVE) does not match service account node ref claim (CLAIM)`.
    NodeUidMismatch,
    /// A node-bound token on a 1.29–1.31 server with validation turned off.
    NodeBindingValidationDisabled,
    /// Legacy: the Secret's `data.token` was regenerated.
    LegacyTokenMismatch,
    /// Legacy: the cleaner labelled the Secret `kubernetes.io/legacy-token-invalid-since`.
    LegacyTokenMarkedInvalid,
    /// Legacy: a required claim is missing or `sub` is inconsistent.
    LegacyClaimInvalid,
    /// A client certificate that failed its validity check (the x509
    /// authenticator), without saying which end: expired, or not yet valid
    /// on the server's clock.
    ClientCertificateInvalid,
    /// A client certificate past its notAfter on the server's clock.
    ClientCertificateExpired,
    /// A client certificate before its notBefore on the server's clock.
    ClientCertificateNotYetValid,
    /// A client certificate not signed by a CA in `--client-ca-file`.
    ClientCertificateUntrusted,
    /// A front proxy's client certificate whose CN is not among the
    /// request-header authenticator's allowed names.
    RequestHeaderNotAllowed,
    /// Before go-jose (≤1.5, dgrijalva/jwt-go): no key verifies the signature.
    RsaVerification,
    /// A checker's own check of the token's claims (Vault: `claim "iss" is
    /// invalid`, `claim "aud" is invalid`).
    CheckerClaimInvalid,
    /// An OIDC (JWT) authenticator that has not loaded its issuer's discovery
    /// document and keys yet (`oidc: authenticator not initialized`).
    JwtAuthenticatorNotInitialized,
    /// An OIDC (JWT) authenticator that could not fetch its issuer's keys.
    JwtKeysUnreachable,
    /// An OIDC (JWT) authenticator's own rule: a required claim, a CEL claim or
    /// user validation rule, a claim mapping, `email_verified`.
    JwtAuthenticatorRule,
    /// Another message of an OIDC (JWT) authenticator (`oidc: …`).
    JwtAuthenticatorOther,
    /// A message this parser does not know.
    Unrecognised,
}

/// The era of the OIDC authenticator's own wordings: it answers for tokens
/// of its issuer, and beside a ServiceAccount token's own reasons it is noise.
pub const OIDC_ERA: &str = "OIDC authenticator (go-oidc)";

/// How a message is told from its text. Each carries the message as
/// `explain` lists it (values as UPPERCASE placeholders; empty: not listed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matcher {
    /// The whole message.
    Literal(&'static str),
    /// A known opening; the message runs to the next boundary.
    Prefix(&'static str),
    /// A uid mismatch, `<open>LIVE<mid>CLAIM)`, given in that shape.
    Uid(&'static str),
    /// A message with values in it, read by the shape's reader.
    Shaped(Shape, &'static str),
}

/// The messages whose values a reader takes out (`diagnosis::reasons`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// go-jose's `<module>/jwt: validation f…, <claim's words>` as the row
    /// words it, whichever module path and spelling ([`JOSE_OPEN`]).
    JoseTime,
    /// One value where the row's text has its placeholder (`token issuer
    /// "ISSUER" is invalid`, `serviceaccounts "NAME" not found`).
    Value(Value),
    /// `token audiences ["AUD"] is invalid for the target audiences
    /// ["API_AUD"]`, two Go `%q` lists where the row has them.
    AudienceInvalid,
    /// A JWT authenticator's own rule (the rows of `wordings::WORDINGS`).
    JwtRule,
    /// A `NAMESPACE/NAME` where the row's text has it (`service account
    /// NAMESPACE/NAME has been deleted`).
    NamespacedName,
    /// The 1.29+ legacy cleaner's text.
    LegacyMarkedInvalid,
    /// `<one of LEGACY_CLAIMS> claim is missing` (or `is invalid`).
    LegacyClaim,
    /// Go crypto/x509's `…: current time NOW is after NOT_AFTER` (or `is
    /// before NOT_BEFORE`), the words between the times as the row has them.
    CertificateWindow,
}

/// go-jose's words before a claim's failure (`<module>/jwt: validation
/// failed, `), with either spelling its releases print (`validation field, `
/// for iat in v2).
pub const JOSE_OPEN: &str = "/jwt: validation ";
/// The spellings after [`JOSE_OPEN`].
pub const JOSE_SPELLINGS: &[&str] = &["failed, ", "field, "];

/// The value a [`Shape::Value`] message carries, and its placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    Issuer,
    Name,
}

impl Value {
    /// Where the value stands in the row's text.
    pub fn placeholder(self) -> &'static str {
        match self {
            Value::Issuer => "ISSUER",
            Value::Name => "NAME",
        }
    }
}

/// One message an authenticator prints, and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    pub kind: ReasonKind,
    pub cause: Cause,
    /// The versions that print it.
    pub era: &'static str,
    pub matcher: Matcher,
    /// Where the words come from.
    pub source: &'static str,
}

const fn m(
    kind: ReasonKind,
    cause: Cause,
    era: &'static str,
    matcher: Matcher,
    source: &'static str,
) -> Message {
    Message {
        kind,
        cause,
        era,
        matcher,
        source,
    }
}

const UNION: &str = "k8s.io/apiserver pkg/authentication/request/union/union.go, pkg/authentication/authenticatorfactory/loopback.go";
const CLAIMS_GO: &str = "k8s.io/kubernetes pkg/serviceaccount/claims.go (1.10-1.36)";
const JWT_GO: &str = "k8s.io/kubernetes pkg/serviceaccount/jwt.go (1.10-1.36)";
const LEGACY_GO: &str = "k8s.io/kubernetes pkg/serviceaccount/legacy.go (1.10-1.36)";
const GO_JOSE: &str = "go-jose jwt/validation.go (square/go-jose v2; go-jose/go-jose v3, v4): ErrExpired, ErrNotValidYet, ErrIssuedInTheFuture";
const GO_JOSE_EXPECTED: &str = "go-jose jwt/errors.go (square/go-jose v2; go-jose/go-jose v3, v4): ErrInvalidIssuer, ErrInvalidSubject, ErrInvalidAudience, ErrInvalidID";
const OIDC: &str = "k8s.io/apiserver plugin/pkg/authenticator/token/oidc/oidc.go; coreos/go-oidc verify.go (v2, v3)";
const OIDC_V1: &str = "coreos/go-oidc v1 oidc/verification.go, jose/claims.go (kubernetes' OIDC authenticator before 1.10)";
const X509: &str =
    "k8s.io/apiserver pkg/authentication/request/x509/x509.go; Go src/crypto/x509/verify.go";
const X509_REQUEST_HEADER: &str = "k8s.io/apiserver pkg/authentication/request/x509/x509.go (verifier.verifySubject: \"x509: subject with cn=%s is not in the allowed list\")";
const JWT_GO_OLD: &str = "dgrijalva/jwt-go rsa.go, ecdsa.go (kubernetes 1.5 and before)";
const VAULT_LOGIN: &str = "hashicorp/vault-plugin-auth-kubernetes path_login.go";

use Matcher::{Literal as L, Prefix as P, Shaped as S, Uid as U};
use ReasonKind as K;

/// Every known message, most specific first where two share an opening.
#[rustfmt::skip]
pub const MESSAGES: &[Message] = &[
    m(K::InvalidBearerToken, Cause::TokenMalformed, "all", L("invalid bearer token"), UNION),
    // claims.go Validate: go-jose ErrNotValidYet / ErrExpired / ErrIssuedInTheFuture.
    m(K::Expired, Cause::Expired, "1.23+", L("service account token has expired"), CLAIMS_GO),
    m(K::Expired, Cause::Expired, "≤1.22", L("Token has expired."), CLAIMS_GO),
    m(K::NotValidYet, Cause::ClockSkew, "1.23+", L("service account token is not valid yet"), CLAIMS_GO),
    m(K::IssuedInFuture, Cause::ClockSkew, "1.27+", L("service account token is issued in the future"), CLAIMS_GO),
    m(K::UnexpectedValidationError, Cause::ClockSkew, "1.23–1.26", L("service account token claims could not be validated due to unexpected validation error"), CLAIMS_GO),
    m(K::ClaimsNotValidated, Cause::Unknown, "1.23+", P("service account token claims could not be validated: "), CLAIMS_GO),
    m(K::CouldNotBeValidated, Cause::ClockSkew, "≤1.22", L("Token could not be validated."), CLAIMS_GO),
    // jwt.go: kid lookup (PR #125177) and the signature loop.
    m(K::NoKeysFound, Cause::KeyMismatch, "1.31+", L("invalid signature, no keys found"), JWT_GO),
    m(K::CryptographicPrimitive, Cause::SignatureInvalid, "1.33+", L("go-jose/go-jose: error in cryptographic primitive"), JWT_GO),
    m(K::CryptographicPrimitive, Cause::SignatureInvalid, "≤1.32", L("square/go-jose: error in cryptographic primitive"), JWT_GO),
    // go-jose's own time checks (v2 `square/go-jose/jwt: `, v3+
    // `go-jose/go-jose/jwt: `; "validation field" is its spelling for iat,
    // "validation failed" for the others and in forks), as checkers that
    // validate with go-jose print them: time causes, read by the claim each
    // names, never a malformed token.
    m(K::Expired, Cause::Expired, "go-jose v2+", S(Shape::JoseTime, "go-jose/go-jose/jwt: validation failed, token is expired (exp)"), GO_JOSE),
    m(K::NotValidYet, Cause::ClockSkew, "go-jose v2+", S(Shape::JoseTime, "go-jose/go-jose/jwt: validation failed, token not valid yet (nbf)"), GO_JOSE),
    m(K::IssuedInFuture, Cause::ClockSkew, "go-jose v2+", S(Shape::JoseTime, "go-jose/go-jose/jwt: validation field, token issued in the future (iat)"), GO_JOSE),
    // go-jose's checks of the claims its caller expects (ErrInvalidIssuer,
    // ErrInvalidSubject, ErrInvalidAudience, ErrInvalidID): the caller's own
    // expectations (a checker's issuer, audience), not kube-apiserver's, so
    // no cause whose steps are the cluster's.
    m(K::JoseError, Cause::Unknown, "go-jose v2+", S(Shape::JoseTime, "go-jose/go-jose/jwt: validation failed, invalid "), GO_JOSE_EXPECTED),
    m(K::JoseError, Cause::TokenMalformed, "1.33+", P("go-jose/go-jose"), JWT_GO),
    m(K::JoseError, Cause::TokenMalformed, "≤1.32", P("square/go-jose"), JWT_GO),
    m(K::IssuerInvalid, Cause::IssuerMismatch, "1.31+", S(Shape::Value(Value::Issuer), "token issuer \"ISSUER\" is invalid"), JWT_GO),
    m(K::AudienceInvalid, Cause::AudienceMismatch, "1.13+", S(Shape::AudienceInvalid, "token audiences [\"AUD\"] is invalid for the target audiences [\"API_AUD\"]"), JWT_GO),
    m(K::AudienceNotMatched, Cause::AudienceMismatch, "all", P("unable to match the audience"), "k8s.io/apiserver pkg/endpoints/filters/authentication.go (WithAuthentication; some releases capitalise Unable)"),
    // The OIDC authenticator judging a token of its issuer: only tokens
    // whose iss is its issuer reach it.
    m(K::JwtAuthenticatorNotInitialized, Cause::JwtIssuerUnreachable, OIDC_ERA, L("oidc: authenticator not initialized"), OIDC),
    m(K::JwtKeysUnreachable, Cause::JwtIssuerUnreachable, OIDC_ERA, P("oidc: verify token: failed to verify signature: fetching keys"), OIDC),
    m(K::NoKeysFound, Cause::KeyMismatch, OIDC_ERA, P("oidc: verify token: failed to verify signature: no keys match"), OIDC),
    m(K::CryptographicPrimitive, Cause::SignatureInvalid, OIDC_ERA, P("oidc: verify token: failed to verify signature"), OIDC),
    m(K::Expired, Cause::Expired, OIDC_ERA, P("oidc: verify token: oidc: token is expired"), OIDC),
    m(K::NotValidYet, Cause::ClockSkew, OIDC_ERA, P("oidc: verify token: oidc: current time "), OIDC),
    m(K::IssuerInvalid, Cause::IssuerMismatch, OIDC_ERA, P("oidc: verify token: oidc: id token issued by a different provider"), OIDC),
    m(K::JoseError, Cause::TokenMalformed, OIDC_ERA, P("oidc: verify token: oidc: malformed jwt"), OIDC),
    m(K::AudienceNotMatched, Cause::AudienceMismatch, OIDC_ERA, P("oidc: verify token: oidc: expected audience"), OIDC),
    // go-oidc v1, the OIDC authenticator's before 1.10 (no `verify token: `).
    m(K::Expired, Cause::Expired, OIDC_ERA, P("oidc: JWT claims invalid: token is expired"), OIDC_V1),
    m(K::IssuerInvalid, Cause::IssuerMismatch, OIDC_ERA, P("oidc: JWT claims invalid: invalid claim value: 'iss'"), OIDC_V1),
    m(K::AudienceNotMatched, Cause::AudienceMismatch, OIDC_ERA, P("oidc: JWT claims invalid: invalid claim value: 'aud'"), OIDC_V1),
    m(K::AudienceNotMatched, Cause::AudienceMismatch, OIDC_ERA, P("oidc: JWT claims invalid: invalid claims, 'aud' claim and 'client_id' do not match"), OIDC_V1),
    m(K::AudienceNotMatched, Cause::AudienceMismatch, OIDC_ERA, P("oidc: JWT claims invalid: invalid claims, cannot find 'client_id' in 'aud' claim"), OIDC_V1),
    m(K::NoKeysFound, Cause::KeyMismatch, OIDC_ERA, P("oidc: unable to verify JWT signature: no matching keys"), OIDC_V1),
    m(K::JwtAuthenticatorRule, Cause::JwtAuthenticatorRejected, OIDC_ERA, S(Shape::JwtRule, ""), OIDC),
    m(K::JwtAuthenticatorOther, Cause::JwtAuthenticatorRejected, OIDC_ERA, P("oidc: "), OIDC),
    // ServiceAccount lookups.
    m(K::ServiceAccountNotFound, Cause::ServiceAccountDeleted, "all", S(Shape::Value(Value::Name), "serviceaccounts \"NAME\" not found"), CLAIMS_GO),
    m(K::ServiceAccountUidMismatch, Cause::ServiceAccountRecreated, "1.23+", U("service account UID (LIVE) does not match claim (CLAIM)"), CLAIMS_GO),
    m(K::ServiceAccountUidMismatch, Cause::ServiceAccountRecreated, "≤1.22, and every version for legacy tokens", U("ServiceAccount UID (LIVE) does not match claim (CLAIM)"), LEGACY_GO),
    m(K::ServiceAccountDeleted, Cause::ServiceAccountDeleted, "1.23+", S(Shape::NamespacedName, "service account NAMESPACE/NAME has been deleted"), CLAIMS_GO),
    m(K::ServiceAccountDeleted, Cause::ServiceAccountDeleted, "≤1.22, and every version for legacy tokens", S(Shape::NamespacedName, "ServiceAccount NAMESPACE/NAME has been deleted"), LEGACY_GO),
    // Bound objects.
    m(K::TokenInvalidated, Cause::PodDeleted, "1.23+", L("service account token has been invalidated"), CLAIMS_GO),
    m(K::TokenInvalidatedOldWording, Cause::SecretDeleted, "≤1.22 for bound tokens, every version for legacy ones", L("Token has been invalidated"), LEGACY_GO),
    m(K::PodUidMismatch, Cause::PodDeleted, "1.23+", U("pod UID (LIVE) does not match service account pod ref claim (CLAIM)"), CLAIMS_GO),
    m(K::PodUidMismatch, Cause::PodDeleted, "≤1.22", U("Pod UID (LIVE) does not match claim (CLAIM)"), CLAIMS_GO),
    m(K::SecretUidMismatch, Cause::SecretDeleted, "1.23+", U("secret UID (LIVE) does not match service account secret ref claim (CLAIM)"), CLAIMS_GO),
    m(K::SecretUidMismatch, Cause::SecretDeleted, "≤1.22", U("Secret UID (LIVE) does not match claim (CLAIM)"), CLAIMS_GO),
    m(K::NodeUidMismatch, Cause::NodeRecreated, "1.29+", U("node UID (LIVE) does not match service account node ref claim (CLAIM)"), CLAIMS_GO),
    m(K::NodeBindingValidationDisabled, Cause::Unknown, "1.29–1.31", L("token is bound to a Node object but the ServiceAccountTokenNodeBindingValidation feature gate is disabled"), CLAIMS_GO),
    m(K::LegacyTokenMismatch, Cause::LegacyTokenInvalidated, "all", L("Token does not match server's copy"), LEGACY_GO),
    m(K::LegacyTokenMarkedInvalid, Cause::LegacyTokenInvalidated, "1.29+", S(Shape::LegacyMarkedInvalid, "the token in secret NAMESPACE/SECRET for service account NAMESPACE/NAME has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token"), LEGACY_GO),
    m(K::LegacyClaimInvalid, Cause::TokenMalformed, "all", S(Shape::LegacyClaim, "CLAIM claim is missing (or: CLAIM claim is invalid)"), LEGACY_GO),
    // The x509 client-certificate authenticator: Go's crypto/x509 verify
    // errors. Go says which end with the times: `: current time X is after Y`.
    m(K::ClientCertificateExpired, Cause::ClientCertificateExpired, "all", S(Shape::CertificateWindow, "x509: certificate has expired or is not yet valid: current time NOW is after NOT_AFTER"), X509),
    m(K::ClientCertificateNotYetValid, Cause::ClockSkew, "all", S(Shape::CertificateWindow, "x509: certificate has expired or is not yet valid: current time NOW is before NOT_BEFORE"), X509),
    m(K::ClientCertificateInvalid, Cause::ClientCertificateExpired, "all", P("x509: certificate has expired or is not yet valid"), X509),
    m(K::ClientCertificateUntrusted, Cause::ClientCertificateUntrusted, "all", P("x509: certificate signed by unknown authority"), X509),
    // The request-header authenticator of an aggregated API server (and of
    // kube-apiserver behind a front proxy): the proxy's client certificate
    // is signed by the right CA but its CN is not in
    // --requestheader-allowed-names, so the user it forwards is not taken.
    m(K::RequestHeaderNotAllowed, Cause::ClientCertificateUntrusted, "1.7+", P("x509: subject with cn="), X509_REQUEST_HEADER),
    // dgrijalva/jwt-go, before go-jose.
    m(K::RsaVerification, Cause::SignatureInvalid, "≤1.5", L("crypto/rsa: verification error"), JWT_GO_OLD),
    m(K::RsaVerification, Cause::SignatureInvalid, "≤1.5", L("crypto/ecdsa: verification error"), JWT_GO_OLD),
    // Vault's Kubernetes auth method checks iss and aud itself.
    m(K::CheckerClaimInvalid, Cause::IssuerMismatch, "Vault", L("claim \"iss\" is invalid"), VAULT_LOGIN),
    m(K::CheckerClaimInvalid, Cause::AudienceMismatch, "Vault", L("claim \"aud\" is invalid"), VAULT_LOGIN),
];

impl Message {
    /// The message as `explain` lists it (values as UPPERCASE placeholders;
    /// empty: not listed).
    pub fn text(&self) -> &'static str {
        match self.matcher {
            Matcher::Literal(t) | Matcher::Prefix(t) | Matcher::Uid(t) | Matcher::Shaped(_, t) => t,
        }
    }
}

/// The messages `explain` lists, in matching order: a JWT authenticator's
/// rules are listed with their placeholders by `wordings::WORDINGS`, the
/// catch-all `oidc: ` is no wording, and a row without text has none.
pub fn listed() -> impl Iterator<Item = &'static Message> {
    MESSAGES.iter().filter(|m| {
        !matches!(
            m.kind,
            ReasonKind::JwtAuthenticatorRule | ReasonKind::JwtAuthenticatorOther
        ) && !m.text().is_empty()
    })
}

/// The claims legacy.go checks (`<claim> claim is missing`, `sub claim is
/// invalid`).
pub const LEGACY_CLAIMS: [&str; 5] = [
    "sub",
    "namespace",
    "secretName",
    "serviceAccountName",
    "serviceAccountUID",
];

/// The lines of k8s.io/apiserver pkg/endpoints/filters/authentication.go
/// that log "Unable to authenticate the request", and the kube-apiserver
/// versions whose klog header names them.
pub const LOGGED_FROM: &[(u32, &str)] = &[
    (63, "1.21–1.26"),
    (70, "1.27–1.28"),
    (73, "1.29–1.31"),
    (74, "1.32"),
    (75, "1.33–1.36"),
];

/// The openings of the messages that stand for an aggregate alone in a
/// line (a client or a log that printed one message without the `[…]`).
#[rustfmt::skip]
pub const STAND_ALONE: &[&str] = &[
    "service account token has expired",
    "service account token is not valid yet",
    "service account token is issued in the future",
    "service account token has been invalidated",
    "service account token claims could not be validated",
    "Token has expired.",
    "Token could not be validated.",
    "Token has been invalidated",
    "Token does not match server's copy",
    "go-jose/go-jose: error in cryptographic primitive",
    "square/go-jose: error in cryptographic primitive",
    "invalid signature, no keys found",
    "service account UID (",
    "ServiceAccount UID (",
    "pod UID (",
    "Pod UID (",
    "secret UID (",
    "Secret UID (",
    "node UID (",
    "token audiences [",
    "token issuer \"",
    "crypto/rsa: verification error",
    "crypto/ecdsa: verification error",
    "x509: subject with cn=",
];

/// The x509 authenticator's wrapper around Go's verify error (`verifying
/// certificate SN=…, SKID=…, AKID=… failed: x509: …`, k8s.io/apiserver
/// pkg/authentication/request/x509/x509.go, in 1.21+ logs): the error is
/// read as if alone.
pub const X509_WRAPPER: (&str, &str) = ("verifying certificate SN=", " failed: ");

#[cfg(test)]
mod tests {
    use super::*;

    /// Each stand-alone opening is the start of a row's message: no wording
    /// lives only here.
    #[test]
    fn every_stand_alone_opening_is_a_message() {
        for open in STAND_ALONE {
            let known = MESSAGES.iter().any(|row| match row.matcher {
                Matcher::Literal(t)
                | Matcher::Prefix(t)
                | Matcher::Uid(t)
                | Matcher::Shaped(_, t) => {
                    t.starts_with(open) || open.starts_with(t.trim_end_matches([':', ' ']))
                }
            });
            assert!(known, "{open}");
        }
    }
}
