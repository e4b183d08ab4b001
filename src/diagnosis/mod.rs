//! The shared vocabulary of diagnoses: what class of answer a request got, the
//! candidate causes, how sure we are, and the evidence. `probe`, `classify` and
//! `doctor` all produce a [`Diagnosis`]; their JSON uses these names verbatim.

pub mod forbidden;
pub mod reasons;

use serde::Serialize;

/// What kind of answer a request got (or could not get).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Classification {
    /// 2xx: authenticated and authorised.
    #[serde(rename = "ok")]
    Ok,
    /// 404: authenticated *and* authorised; the object is missing.
    #[serde(rename = "404-not-found")]
    NotFound,
    /// 403: the token was accepted (or none was sent), RBAC said no.
    #[serde(rename = "403-forbidden")]
    Forbidden,
    /// 401: the token itself was rejected (or none was sent and anonymous is off).
    #[serde(rename = "401-invalid-token")]
    Unauthorized,
    /// Another HTTP status (429, 5xx…): not an authentication answer.
    #[serde(rename = "other-status")]
    OtherStatus,
    /// The TLS handshake failed; no token was sent.
    #[serde(rename = "tls-error")]
    TlsError,
    /// DNS, connection refused, timeout: no answer at all.
    #[serde(rename = "network-error")]
    NetworkError,
    /// Replicas of one API server disagree (one accepts the token, another
    /// rejects it): the answer depends on which replica a request reaches.
    #[serde(rename = "replica-dependent")]
    ReplicaDependent,
}

impl Classification {
    /// Every classification, in a stable order (best to worst transport).
    pub const ALL: [Classification; 8] = [
        Classification::Ok,
        Classification::NotFound,
        Classification::Forbidden,
        Classification::Unauthorized,
        Classification::OtherStatus,
        Classification::TlsError,
        Classification::NetworkError,
        Classification::ReplicaDependent,
    ];

    /// The classifications one request (or one logged event) can have: all but
    /// `replica-dependent`, which describes a whole `probe --all-endpoints` run.
    pub const PER_REQUEST: [Classification; 7] = [
        Classification::Ok,
        Classification::NotFound,
        Classification::Forbidden,
        Classification::Unauthorized,
        Classification::OtherStatus,
        Classification::TlsError,
        Classification::NetworkError,
    ];

    /// Stable name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::Ok => "ok",
            Classification::NotFound => "404-not-found",
            Classification::Forbidden => "403-forbidden",
            Classification::Unauthorized => "401-invalid-token",
            Classification::OtherStatus => "other-status",
            Classification::TlsError => "tls-error",
            Classification::NetworkError => "network-error",
            Classification::ReplicaDependent => "replica-dependent",
        }
    }

    /// From an HTTP status code.
    pub fn from_status(status: u16) -> Self {
        match status {
            200..=299 => Classification::Ok,
            401 => Classification::Unauthorized,
            403 => Classification::Forbidden,
            404 => Classification::NotFound,
            _ => Classification::OtherStatus,
        }
    }

    /// Whether authentication succeeded (2xx, 403 for a non-anonymous user, 404).
    pub fn authenticated(self) -> bool {
        matches!(
            self,
            Classification::Ok | Classification::NotFound | Classification::Forbidden
        )
    }
}

/// Why: a cause, with a stable kebab-case code. Documented in docs/output.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// Nothing wrong.
    None,
    /// Not yet valid / issued in the future on the validating server's clock.
    ClockSkew,
    /// Past `exp` + leeway.
    Expired,
    /// `kid` unknown to the server: key rotated, or a token from another cluster.
    KeyMismatch,
    /// No key verifies the signature (tampered, or signed by a foreign key).
    SignatureInvalid,
    /// `iss` not among the server's `--service-account-issuer` values.
    IssuerMismatch,
    /// No `aud` in the server's API audiences.
    AudienceMismatch,
    /// Not a JWT the server recognises at all ("invalid bearer token").
    TokenMalformed,
    /// The ServiceAccount no longer exists.
    ServiceAccountDeleted,
    /// Same name, new uid: deleted (e.g. garbage-collected) and recreated.
    ServiceAccountRecreated,
    /// The pod the token is bound to is gone (or recreated with a new uid).
    PodDeleted,
    /// The Secret the token is bound to (or a legacy token's Secret) is gone.
    SecretDeleted,
    /// The node a node-bound token names is gone.
    NodeDeleted,
    /// A legacy token labelled `kubernetes.io/legacy-token-invalid-since`, or
    /// no longer matching the Secret's copy.
    LegacyTokenInvalidated,
    /// Past `warnafter`: accepted but stale; a client holding an old token.
    StaleToken,
    /// No token reached the server (anonymous).
    TokenNotSent,
    /// Authenticated; RBAC grants nothing for this request.
    RbacDenied,
    /// Authenticated; a binding references a Role/ClusterRole that does not exist.
    RbacRoleMissing,
    /// Authenticated and authorised; the object does not exist.
    ObjectNotFound,
    /// TLS: the server's certificate is not signed by the trusted CA.
    TlsUntrustedCa,
    /// TLS: the certificate does not name the host connected to.
    TlsNameMismatch,
    /// TLS: the certificate is expired or not yet valid.
    TlsCertificateExpired,
    /// TLS: another handshake failure.
    TlsOther,
    /// DNS lookup failed.
    DnsFailure,
    /// Nothing listens there.
    ConnectionRefused,
    /// No answer within the timeout.
    Timeout,
    /// The evidence does not say.
    Unknown,
    /// The server answered with a redirect (3xx), which is not followed with a token.
    Redirected,
}

impl Cause {
    /// Every cause (a unit test's exhaustive match keeps this list complete).
    pub const ALL: [Cause; 28] = [
        Cause::None,
        Cause::ClockSkew,
        Cause::Expired,
        Cause::KeyMismatch,
        Cause::SignatureInvalid,
        Cause::IssuerMismatch,
        Cause::AudienceMismatch,
        Cause::TokenMalformed,
        Cause::ServiceAccountDeleted,
        Cause::ServiceAccountRecreated,
        Cause::PodDeleted,
        Cause::SecretDeleted,
        Cause::NodeDeleted,
        Cause::LegacyTokenInvalidated,
        Cause::StaleToken,
        Cause::TokenNotSent,
        Cause::RbacDenied,
        Cause::RbacRoleMissing,
        Cause::ObjectNotFound,
        Cause::TlsUntrustedCa,
        Cause::TlsNameMismatch,
        Cause::TlsCertificateExpired,
        Cause::TlsOther,
        Cause::DnsFailure,
        Cause::ConnectionRefused,
        Cause::Timeout,
        Cause::Unknown,
        Cause::Redirected,
    ];

    /// Stable kebab-case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::None => "none",
            Cause::ClockSkew => "clock-skew",
            Cause::Expired => "expired",
            Cause::KeyMismatch => "key-mismatch",
            Cause::SignatureInvalid => "signature-invalid",
            Cause::IssuerMismatch => "issuer-mismatch",
            Cause::AudienceMismatch => "audience-mismatch",
            Cause::TokenMalformed => "token-malformed",
            Cause::ServiceAccountDeleted => "service-account-deleted",
            Cause::ServiceAccountRecreated => "service-account-recreated",
            Cause::PodDeleted => "pod-deleted",
            Cause::SecretDeleted => "secret-deleted",
            Cause::NodeDeleted => "node-deleted",
            Cause::LegacyTokenInvalidated => "legacy-token-invalidated",
            Cause::StaleToken => "stale-token",
            Cause::TokenNotSent => "token-not-sent",
            Cause::RbacDenied => "rbac-denied",
            Cause::RbacRoleMissing => "rbac-role-missing",
            Cause::ObjectNotFound => "object-not-found",
            Cause::TlsUntrustedCa => "tls-untrusted-ca",
            Cause::TlsNameMismatch => "tls-name-mismatch",
            Cause::TlsCertificateExpired => "tls-certificate-expired",
            Cause::TlsOther => "tls-other",
            Cause::DnsFailure => "dns-failure",
            Cause::ConnectionRefused => "connection-refused",
            Cause::Timeout => "timeout",
            Cause::Unknown => "unknown",
            Cause::Redirected => "redirected",
        }
    }
}

/// How sure a diagnosis is. `High`: an authoritative source said so (TokenReview
/// `status.error`, an API server log line, a uid read from the API). `Medium`:
/// strong circumstantial evidence (the token is outside its window on that
/// server's clock). `Low`: one of several causes the evidence allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

/// One candidate cause with its confidence and the evidence behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CauseCandidate {
    pub cause: Cause,
    pub confidence: Confidence,
    pub evidence: Vec<String>,
    /// Commands or actions that would confirm or fix this cause.
    pub next_steps: Vec<String>,
}

/// The conclusion: a classification, the most likely cause, and the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub classification: Classification,
    pub cause: Cause,
    pub confidence: Confidence,
    pub evidence: Vec<String>,
    pub next_steps: Vec<String>,
    /// Every cause considered, most likely first (the first is `cause`).
    pub candidates: Vec<CauseCandidate>,
}

impl Diagnosis {
    /// Builds a diagnosis from candidates, most confident first (stable for ties).
    /// With no candidates the cause is `unknown`, with low confidence.
    pub fn from_candidates(
        classification: Classification,
        mut candidates: Vec<CauseCandidate>,
    ) -> Self {
        candidates.sort_by_key(|c| std::cmp::Reverse(c.confidence));
        let (cause, confidence, evidence, next_steps) = match candidates.first() {
            Some(top) => (
                top.cause,
                top.confidence,
                top.evidence.clone(),
                top.next_steps.clone(),
            ),
            None => (Cause::Unknown, Confidence::Low, Vec::new(), Vec::new()),
        };
        Diagnosis {
            classification,
            cause,
            confidence,
            evidence,
            next_steps,
            candidates,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cause_all_is_complete() {
        // A new variant fails to compile here until it is added to `Cause::ALL`.
        for cause in Cause::ALL {
            match cause {
                Cause::None
                | Cause::ClockSkew
                | Cause::Expired
                | Cause::KeyMismatch
                | Cause::SignatureInvalid
                | Cause::IssuerMismatch
                | Cause::AudienceMismatch
                | Cause::TokenMalformed
                | Cause::ServiceAccountDeleted
                | Cause::ServiceAccountRecreated
                | Cause::PodDeleted
                | Cause::SecretDeleted
                | Cause::NodeDeleted
                | Cause::LegacyTokenInvalidated
                | Cause::StaleToken
                | Cause::TokenNotSent
                | Cause::RbacDenied
                | Cause::RbacRoleMissing
                | Cause::ObjectNotFound
                | Cause::TlsUntrustedCa
                | Cause::TlsNameMismatch
                | Cause::TlsCertificateExpired
                | Cause::TlsOther
                | Cause::DnsFailure
                | Cause::ConnectionRefused
                | Cause::Timeout
                | Cause::Unknown
                | Cause::Redirected => {}
            }
        }
        assert_eq!(Cause::ALL.len(), 28);
    }

    #[test]
    fn names_match_serde() {
        for c in Classification::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        for c in [
            Cause::ServiceAccountRecreated,
            Cause::ClockSkew,
            Cause::TlsUntrustedCa,
        ] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
    }

    #[test]
    fn most_confident_candidate_wins() {
        let cand = |cause, confidence| CauseCandidate {
            cause,
            confidence,
            evidence: vec![],
            next_steps: vec![],
        };
        let d = Diagnosis::from_candidates(
            Classification::Unauthorized,
            vec![
                cand(Cause::KeyMismatch, Confidence::Low),
                cand(Cause::ClockSkew, Confidence::Medium),
            ],
        );
        assert_eq!(d.cause, Cause::ClockSkew);
        assert_eq!(d.candidates.len(), 2);
        let d = Diagnosis::from_candidates(Classification::Unauthorized, vec![]);
        assert_eq!(d.cause, Cause::Unknown);
    }
}
