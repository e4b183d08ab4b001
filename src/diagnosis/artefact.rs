//! The typed artefacts extraction finds in text (`extract/`), each marked with
//! where it came from: the answer a client got, an authenticator's account of
//! a rejection, a checker passing a TokenReview on or failing its own, or a
//! server's log line that is a clue and never an answer.
//!
//! `classify` groups artefacts into answers (one diagnosis each); the rules
//! never see artefacts, only the [`super::Case`] built from one answer.

use chrono::{DateTime, Utc};
use strum::{IntoStaticStr, VariantArray};

use super::facts::{
    BearerSeen, BindingKind, Case, CheckerFailure, HttpAnswer, RequestInfo, ServerClock,
    ServerFailure, TransportFailure,
};
use super::reasons::AuthReason;

/// Who said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    /// What a client got back for its request: a status, a Status body, the
    /// client's rendering of either, a transport failure.
    Answer,
    /// An authenticator's own account of a rejection (kube-apiserver's,
    /// the kubelet's or a proxy's "Unable to authenticate the request", a
    /// TokenReview's `status.error`): the 401 the client got, in the server's
    /// words.
    Authenticator,
    /// A checker (Vault, istiod, kube-rbac-proxy…) passing kube-apiserver's
    /// TokenReview verdict on to its own caller.
    Forwarded,
    /// A server's log line that is not an answer to anyone (a missing object,
    /// a TLS handshake a client aborted, an authorizer's trace): a clue only.
    ServerLog,
}

/// The kinds of evidence `classify` reads (`--type`), by where the text
/// comes from.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, IntoStaticStr, VariantArray,
)]
#[strum(serialize_all = "kebab-case")]
pub enum SourceType {
    /// An HTTP status line or code, with or without headers and a Status body.
    #[default]
    Status,
    /// A `curl -v` transcript.
    Curl,
    /// kubectl's error output (also with `-v=6`+ request logs).
    Kubectl,
    /// A client's error: client-go, fabric8, Python, JavaScript, C#, Java and
    /// other clients, controllers' logs and events.
    ClientError,
    /// An authenticator's log line (“Unable to authenticate the request”:
    /// kube-apiserver, the kubelet, a proxy), its reasons alone, or a
    /// TokenReview response, which carries the same text.
    ApiserverLog,
    /// Kubernetes audit events (audit.k8s.io/v1 Event), JSON or JSON lines,
    /// or their annotations alone.
    Audit,
    /// A token checker's log or answer (Vault, istiod, kube-rbac-proxy,
    /// Linkerd): a relayed TokenReview verdict, or its own failure.
    Checker,
}

crate::wire::string_codes!(SourceType);

impl SourceType {
    /// What a user would call it, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            SourceType::Status => "HTTP status",
            SourceType::Curl => "curl -v transcript",
            SourceType::Kubectl => "kubectl error",
            SourceType::ClientError => "client library error",
            SourceType::ApiserverLog => "authentication log line or TokenReview",
            SourceType::Audit => "audit event",
            SourceType::Checker => "token checker's log or answer",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Artefact {
    pub at: Place,
    pub kind: Kind,
}

/// Where an artefact was found, and who said it.
#[derive(Debug, Clone)]
pub struct Place {
    /// 1-based line of the input where it starts.
    pub line: usize,
    /// The (unwrapped) line it was found in, trimmed and cut for display.
    pub excerpt: String,
    /// The line's own timestamp, when it has one.
    pub stamp: Option<ServerClock>,
    pub provenance: Provenance,
    /// The evidence type it counts as.
    pub source: SourceType,
    /// The concrete format (`kubectl`, `curl -v`, `structured`, `vault`…).
    pub format: &'static str,
}

#[derive(Debug, Clone)]
pub enum Kind {
    /// An HTTP answer: a status line, a Status body, a client's error text.
    /// Any part may be missing (a client prints only the reason, a body has
    /// no code).
    Http(HttpAnswer),
    /// kube-apiserver's authentication error aggregate (or one of its
    /// messages alone): the reasons a token was rejected, and the program
    /// that passed them on (`None`: the authenticator itself).
    Reasons {
        reasons: Vec<AuthReason>,
        from: Option<String>,
    },
    Review(Review),
    /// An audit event: a whole answer with its own request, user and facts.
    Audit(Box<Case<'static>>),
    /// No answer: TLS, DNS, refused, timeout (and the other causes its
    /// words fit as well).
    Transport(TransportFailure),
    /// A checker could not complete its own TokenReview.
    CheckerFailure(CheckerFailure),
    /// A server logged that a part of its own setup failed (the OIDC
    /// authenticator cannot fetch its issuer's discovery document, the
    /// kubelet refused its credential provider configuration): no request's
    /// answer, but every request that part serves fails until it is fixed.
    ServerFailure(ServerFailure),
    Request(RequestInfo),
    /// What the request carried as `Authorization`.
    Bearer(BearerSeen),
    /// The server's `Date` header: its clock.
    Date(DateTime<Utc>),
    /// An object a server logged as missing (`secrets "x" not found`).
    Missing {
        kind: BindingKind,
        name: String,
    },
    /// A fact worth showing with the answer.
    Note(String),
    /// A new request starts here (a shell prompt, a command line, a curl
    /// request line): answers never merge across it.
    Boundary,
}

impl Kind {
    /// Whether this artefact is (part of) an answer, rather than context for one.
    pub fn is_answer(&self) -> bool {
        matches!(
            self,
            Kind::Http(_)
                | Kind::Reasons { .. }
                | Kind::Review(_)
                | Kind::Audit(_)
                | Kind::Transport(_)
                | Kind::CheckerFailure(_)
                | Kind::ServerFailure(_)
        )
    }
}

/// A TokenReview's verdict: whether it authenticated the token, as whom, for
/// which audiences, and how the text shows it (an authenticator's answer, or
/// a later stage of the request that only an accepted token reaches).
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub authenticated: bool,
    pub user: Option<String>,
    pub audiences: Vec<String>,
    pub shown_by: &'static str,
}

/// How a TokenReview answer shows the token was accepted.
pub const REVIEWED: &str = "TokenReview: status.authenticated is true";

pub use super::facts::ServiceVerdict;
