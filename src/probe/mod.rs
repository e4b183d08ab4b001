//! `probe`: ask API servers, over verified TLS, who they think the token is.
//! Only [`observe`] does I/O (concurrently per server, through [`crate::http`]);
//! [`evidence`] and [`analyse`] turn what it recorded into a [`Diagnosis`].
//!
//! Requests per server, in order: a token-less `GET /version` (the preflight that
//! proves the TLS handshake, and a first `Date`), then with the token
//! SelfSubjectReview (v1, falling back to v1beta1 and v1alpha1 on 404), the
//! SelfSubjectAccessReview if asked, the `--path` GET if asked, and with
//! `--anonymous` the same again without the token. `--anonymous` with no token
//! at all sends only the token-less pass: what an anonymous request gets.
//!
//! Side requests: [`review`] (TokenReview with the operator's kubeconfig
//! credentials), [`keys`] (the server's JWKS and issuer through `verify`),
//! [`bindings`] (ServiceAccount, pod, Secret and Node read from the API),
//! [`endpoints`] (every control-plane replica of the `kubernetes` Service).

pub mod analyse;
pub mod bindings;
pub mod endpoints;
pub mod evidence;
pub mod keys;
pub mod observe;
pub mod offset;
pub mod review;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use strum::{IntoStaticStr, VariantArray};

use crate::diagnosis::{Classification, Diagnosis};
use crate::http::{Exchange, Method, TlsReason, TransportError};
use crate::wire::string_codes;

pub use analyse::{Context, analyse};

/// What a request was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum RequestKind {
    /// Token-less `GET /version`: reachability, TLS, a first `Date`.
    Version,
    /// `POST …/selfsubjectreviews`: who am I.
    SelfSubjectReview,
    /// `POST …/selfsubjectaccessreviews`: can I.
    SelfSubjectAccessReview,
    /// `--path`: a plain GET.
    Get,
    /// `POST …/tokenreviews` with the operator's credentials.
    TokenReview,
    /// `POST …/tokenreviews` with `spec.audiences` (`--audience`): what a
    /// third-party checker asking for those audiences sees.
    AudienceReview,
    /// `GET /openid/v1/jwks`.
    Jwks,
    /// `GET /.well-known/openid-configuration`.
    Discovery,
    /// `GET` of a ServiceAccount, pod or Secret the token is bound to.
    ReadObject,
    /// `GET` of the `kubernetes` Service's EndpointSlices or Endpoints.
    Endpoints,
}

string_codes!(RequestKind);

impl RequestKind {
    /// The requests that decide a server's classification: the ones about the
    /// token under test (the others are side requests that explain it).
    pub fn decides(self) -> bool {
        matches!(
            self,
            RequestKind::SelfSubjectReview
                | RequestKind::SelfSubjectAccessReview
                | RequestKind::Get
        )
    }
}

/// The SelfSubjectAccessReview to ask (`--verb --resource …`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessQuery {
    pub verb: String,
    pub resource: String,
    pub subresource: Option<String>,
    /// API group; empty for the core group.
    pub group: String,
    /// `None` for a cluster-scoped check.
    pub namespace: Option<String>,
    pub name: Option<String>,
}

/// A Kubernetes `Status` body (kind `Status`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatusBody {
    pub reason: Option<String>,
    pub message: Option<String>,
    /// The 403's parts the message names, read once.
    pub forbidden: Option<crate::diagnosis::forbidden::Forbidden>,
    pub details: Option<Value>,
}

/// An HTTP answer, with its body read: the exchange (its body dropped once
/// read) and what the diagnosis reads in the body.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub exchange: Exchange,
    /// Parsed when the body is a Kubernetes `Status`.
    pub status_body: Option<StatusBody>,
    /// The body as JSON when it is JSON (reviews), else `None`.
    pub json: Option<Value>,
}

/// One request and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestObservation {
    pub kind: RequestKind,
    pub method: Method,
    pub path: String,
    /// No token was sent.
    pub anonymous: bool,
    /// Sent with the operator's kubeconfig credentials, not the token under test.
    pub operator: bool,
    /// For reviews: the API version asked (`authentication.k8s.io/v1`…).
    pub api_version: Option<String>,
    pub result: Result<Answer, TransportError>,
}

/// Everything one server said.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerObservation {
    /// As shown (no trailing `/`).
    pub url: String,
    /// Certificates were verified (false with `--insecure-skip-tls-verify`).
    pub verifies_tls: bool,
    pub requests: Vec<RequestObservation>,
    /// The access review asked, if any (to name what was denied).
    pub access: Option<AccessQuery>,
    /// The name the certificate was verified against when it is not the URL's
    /// host (kubeconfig `tls-server-name`, or a replica's original server).
    pub verify_name: Option<String>,
    /// The token under test was sent; false for `--anonymous` with no token,
    /// where every request is anonymous and the anonymous answers decide.
    pub token_sent: bool,
}

/// `status.userInfo` of the SelfSubjectReview.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[schemars(rename = "User")]
pub struct UserInfo {
    /// Authenticated user name.
    pub username: String,
    /// User uid.
    pub uid: Option<String>,
    /// Groups.
    pub groups: Vec<String>,
    /// `extra`, passed through from the server (or null).
    pub extra: Option<Value>,
}

/// TLS result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "Tls")]
pub struct TlsStatus {
    /// Whether the server's certificate was verified.
    pub verified: bool,
    /// Why the handshake failed, or null.
    pub reason: Option<TlsReason>,
    /// The handshake error, or null.
    pub error: Option<String>,
}

/// One server's classification and the causes it allows.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerReport {
    pub observation: ServerObservation,
    pub facts: evidence::ServerFacts,
    pub classification: Classification,
    /// `--audience`: the TokenReview with those audiences, and its answer.
    pub audience_review: Option<review::AudienceReview>,
    /// The kids this server publishes, when its JWKS was readable.
    pub jwks_kids: Option<Vec<String>>,
    /// The issuer its discovery document announces, when readable.
    pub issuer: Option<String>,
    pub diagnosis: Diagnosis,
}

/// The kubeconfig in use (never its credentials).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "Kubeconfig")]
pub struct KubeconfigInfo {
    /// The kubeconfig files read.
    pub files: Vec<String>,
    /// The context used.
    pub context: String,
    /// The cluster of that context.
    pub cluster: String,
    /// The user of that context.
    pub user: Option<String>,
    /// The context's namespace.
    pub namespace: Option<String>,
    /// Which operator credentials were sent: token | token-file |
    /// client-certificate; null otherwise.
    pub credentials: Option<&'static str>,
    /// The token under test is this user's own token: none was given outside
    /// a pod, so probe tested what kubectl sends.
    pub own_token: bool,
    /// The cluster's proxy-url (credentials removed) that every connection was
    /// tunnelled through (HTTP CONNECT), or null.
    pub proxy: Option<String>,
}

/// How the `--all-endpoints` replicas were found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EndpointDiscovery {
    /// The server asked.
    pub via: String,
    pub requests: Vec<RequestObservation>,
    /// `endpointslices` or `endpoints`; `None` when neither was readable.
    pub source: Option<&'static str>,
    pub replicas: Vec<endpoints::Replica>,
    /// Addresses listed past [`endpoints::MAX_REPLICAS`], not probed.
    pub omitted: usize,
    /// Why no replicas (then the original server is probed alone).
    pub error: Option<String>,
}

/// The whole probe.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeReport {
    pub servers: Vec<ServerReport>,
    /// `--all-endpoints`: how the replicas were found.
    pub endpoints: Option<EndpointDiscovery>,
    /// Where the kubeconfig settings came from, when one was used.
    pub kubeconfig: Option<KubeconfigInfo>,
    /// The token's bindings, as read from the API (empty when not read).
    pub bindings: Vec<bindings::BindingCheck>,
    pub diagnosis: Diagnosis,
    /// The run's reference instant.
    pub evaluated_at: DateTime<Utc>,
    pub leeway_seconds: i64,
    /// The token under test was sent; false for `--anonymous` with no token.
    pub token_sent: bool,
}

/// The exit code: 0 authenticated (ok, or 404), 1 for a problem diagnosed, 3
/// when a server could not be reached or TLS failed; worst of all servers.
pub fn outcome(report: &ProbeReport) -> crate::exit::Outcome {
    use crate::exit::Outcome;
    report
        .servers
        .iter()
        .map(|s| Outcome::of(s.classification))
        .chain(
            (report.diagnosis.classification == Classification::ReplicaDependent)
                .then_some(Outcome::Problem),
        )
        .max()
        .unwrap_or(Outcome::Unreachable)
}
