//! What kind of answer a request got (or could not get): the first thing every
//! diagnosis states, before any cause.

use strum::{EnumMessage, IntoStaticStr, VariantArray};

use crate::wire::string_codes;

/// What kind of answer a request got.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    IntoStaticStr,
    VariantArray,
    EnumMessage,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Classification {
    /// 2xx: authenticated and authorised.
    Ok,
    /// 404: authenticated *and* authorised; the object is missing.
    #[strum(serialize = "404-not-found")]
    NotFound,
    /// 403: the token was accepted (or none was sent), and authorisation or
    /// admission said no.
    #[strum(serialize = "403-forbidden")]
    Forbidden,
    /// 401: the token itself was rejected (or none was sent and anonymous is off).
    #[strum(serialize = "401-invalid-token")]
    Unauthorized,
    /// Another HTTP status (429, 5xx…): not an authentication answer.
    OtherStatus,
    /// Something other than kube-apiserver answered (a proxy's login page, a
    /// WAF, a web server): its status says nothing about the token.
    NotKubernetes,
    /// The TLS handshake failed; no token was sent.
    TlsError,
    /// DNS, connection refused, timeout: no answer at all.
    NetworkError,
    /// A token checker (Vault, kube-rbac-proxy, a service mesh, a webhook
    /// authenticator) could not complete its own TokenReview: its credentials
    /// were refused or it could not reach the API server. The token under
    /// review was never judged.
    CheckerFailure,
    /// No request's answer: a server logged that a part of its own setup
    /// failed (an authenticator that cannot reach its issuer, a credential
    /// provider the kubelet refused). Every request that part should serve
    /// fails until it is fixed.
    ServerConfig,
    /// Replicas of one API server disagree (one accepts the token, another
    /// rejects it): the answer depends on which replica a request reaches.
    ReplicaDependent,
}

string_codes!(Classification);

impl Classification {
    /// The classifications one request (or one logged event) can have: all but
    /// `replica-dependent`, which describes a whole `probe --all-endpoints` run.
    pub fn per_request() -> impl Iterator<Item = Classification> {
        Classification::VARIANTS
            .iter()
            .copied()
            .filter(|c| *c != Classification::ReplicaDependent)
    }

    /// From a kube-apiserver HTTP status code.
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

    /// Whether this is a problem worth exit code 1 or 3 (anything but ok and 404).
    pub fn is_problem(self) -> bool {
        !matches!(self, Classification::Ok | Classification::NotFound)
    }

    /// No answer from kube-apiserver at all (exit 3): TLS or network failed,
    /// or something else answered in its place.
    pub fn is_unanswered(self) -> bool {
        matches!(
            self,
            Classification::TlsError | Classification::NetworkError | Classification::NotKubernetes
        )
    }

    /// Worst first: the classification a run's overall diagnosis explains.
    pub fn severity(self) -> u8 {
        match self {
            Classification::ReplicaDependent => 9,
            Classification::Unauthorized => 8,
            Classification::Forbidden
            | Classification::CheckerFailure
            | Classification::ServerConfig => 7,
            Classification::NotKubernetes => 6,
            Classification::TlsError => 5,
            Classification::NetworkError => 4,
            Classification::OtherStatus => 3,
            Classification::NotFound => 2,
            Classification::Ok => 1,
        }
    }
}
