//! The typed evidence the rules read: one [`Case`] per request and answer,
//! whoever saw it. `probe` fills it from the HTTP answers it got, `classify`
//! from text someone pasted, `doctor` from everything it measured; the rules in
//! `rules/` never see raw text, so the three reach the same cause through the
//! same code.

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use strum::{IntoStaticStr, VariantArray};

use super::classification::Classification;
use super::support::Support;
use crate::secret::SecretToken;
use crate::token::{Binding, Token, TokenKind};
use crate::vocabulary::cause::Cause;
use crate::vocabulary::clouds::Cloud;
use crate::vocabulary::wordings::{JwtRejection, NodeAudienceRefusal};
use crate::wire::string_codes;

mod reason;
pub use reason::{AuthReason, Authenticator, ReasonValues, specific};

/// Everything known about one request and what came of it.
#[derive(Debug, Clone, Default)]
pub struct Case<'a> {
    pub answer: Answer,
    pub request: Option<RequestInfo>,
    /// The server asked (probe, doctor), as shown.
    pub server: Option<String>,
    pub witness: Witness,
    /// The authenticator's own reasons for a rejection, and who reported them.
    pub reasons: Vec<AuthReason>,
    pub reasons_from: Option<ReasonSource>,
    /// How the reasons were put with the answer.
    pub joined: Join,
    /// The token the request carried (or the one given to compare with).
    pub token: Option<&'a Token>,
    /// Whether `token` is known to be the one the request carried.
    pub token_sent: TokenSent,
    /// The validating server's clock at the moment of the request.
    pub clock: Option<ServerClock>,
    /// What the evidence shows about the `Authorization` header.
    pub bearer: Option<BearerSeen>,
    /// The objects the token is bound to, as read from the API.
    pub bindings: Vec<BindingCheck>,
    /// The server's published keys checked against the token.
    pub keys: Option<KeyCheck>,
    /// A TokenReview asked about the same token.
    pub review: Option<ReviewSeen>,
    pub audit: AuditFacts,
    /// What the same request got without the token.
    pub anonymous: Vec<AnonymousAnswer>,
    /// Other servers (or replicas) asked with the same token.
    pub peers: Vec<Peer>,
    /// The authenticated user, when the evidence names one.
    pub user: Option<String>,
    /// Accepted now, but something will make it fail (doctor's warnings).
    pub degraded: Vec<Degradation>,
    /// A JWT authenticator of `--authentication-config` rejected the token
    /// (its reason in a log line or a TokenReview's answer).
    pub jwt_rejection: Option<JwtRejectionSeen>,
    /// NodeRestriction refused the kubelet a token for an audience (image
    /// pulls with ServiceAccount tokens, CSI drivers).
    pub node_audience: Option<NodeAudienceRefusal>,
    /// What refused the request, read from the answer's message: an
    /// authorizer (with the 403's parts), an admission plugin, quota.
    pub refusal: Option<Denial>,
    /// The server's own onward call (to an admission webhook, to a kubelet)
    /// failed, as the answer's message states it: that failure (its cause
    /// `unknown` when the message names the call but not how it failed).
    pub onward: Option<TransportFailure>,
    pub not_found: Option<NotFound>,
    /// The kube-apiserver leeway (60 s).
    pub leeway: TimeDelta,
    /// Facts noticed while reading the evidence, shown with the diagnosis.
    pub notes: Vec<Support>,
    /// Objects a server logged as missing next to this answer (`secrets "x"
    /// not found` in a controller's or the API server's log): clues to which
    /// bound object a rejected token lost.
    pub missing: Vec<(BindingKind, String)>,
}

impl Case<'_> {
    pub fn classification(&self) -> Classification {
        self.answer.classification()
    }

    pub fn token_kind(&self) -> Option<(TokenKind, Binding)> {
        self.token.map(|t| crate::token::kind::classify(&t.claims))
    }

    /// The namespace the token names (else the request's, else the
    /// ServiceAccount user's).
    pub fn namespace(&self) -> Option<&str> {
        self.token
            .and_then(|t| t.claims.namespace())
            .or_else(|| self.request.as_ref()?.namespace.as_deref())
            .or_else(|| Some(service_account_of(self.user.as_deref()?)?.0))
            .or_else(|| {
                self.reasons
                    .iter()
                    .find_map(|r| r.values.namespace.as_deref())
            })
    }

    /// The ServiceAccount name the token, the 403's user or the server's
    /// reasons (`serviceaccounts "NAME" not found`) name.
    pub fn service_account(&self) -> Option<String> {
        self.token
            .and_then(|t| t.claims.service_account())
            .and_then(|s| s.name)
            .or_else(|| Some(service_account_of(self.user.as_deref()?)?.1.to_owned()))
            .or_else(|| self.reasons.iter().find_map(|r| r.values.name.clone()))
    }

    /// The one authenticator whose reasons the server gave for rejecting the
    /// token (the union's generic answer aside); `None` when none, or several
    /// disagree.
    pub fn rejected_by(&self) -> Option<Authenticator> {
        let mut by = specific(&self.reasons)
            .into_iter()
            .map(|r| r.authenticator)
            .filter(|a| *a != Authenticator::Any);
        let first = by.next()?;
        by.all(|a| a == first).then_some(first)
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.notes
            .push(Support::new(super::support::SupportKind::Context, text));
    }

    /// The 403's parts, when an authorizer refused.
    pub fn forbidden(&self) -> Option<&Forbidden> {
        match &self.refusal {
            Some(Denial::Authorizer { forbidden, .. }) => Some(forbidden),
            _ => None,
        }
    }
}

/// What a 404's message says is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotFound {
    /// `the server could not find the requested resource`: the server does
    /// not serve the API (group, version or endpoint), no object is named.
    Api,
    /// `pods "x" not found`: a Status naming the object.
    Object,
}

/// The parts of a 403 message: who, the request refused, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forbidden {
    pub user: String,
    /// The request as the message names it; its verb is always known.
    pub request: RequestInfo,
    /// The authorizer's reason after the core (e.g. `RBAC: role … not found`).
    pub reason: Option<String>,
    /// The kubelet refused (its own authorizer's wording), not kube-apiserver.
    pub kubelet: bool,
}

/// The username of anonymous requests: no token (or an empty one) reached the server.
pub const ANONYMOUS: &str = "system:anonymous";

/// `(namespace, name)` when `user` is a ServiceAccount's.
pub fn service_account_of(user: &str) -> Option<(&str, &str)> {
    user.strip_prefix("system:serviceaccount:")?.split_once(':')
}

/// What refused the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denial {
    /// An authorizer: `User "U" cannot VERB …`, and who, as far as the reason tells.
    Authorizer {
        forbidden: Forbidden,
        by: Authorizer,
    },
    /// The ServiceAccount admission plugin: the pod's ServiceAccount (or its
    /// token Secret) does not exist yet.
    ServiceAccount {
        namespace: Option<String>,
        name: Option<String>,
        /// The token Secret is missing, not the ServiceAccount.
        no_token: bool,
        message: String,
    },
    /// Pod Security admission.
    PodSecurity { policy: String, message: String },
    /// The NodeRestriction admission plugin refused a kubelet.
    NodeRestriction { message: String },
    /// A validating or mutating admission webhook.
    Webhook { webhook: String, message: String },
    /// ResourceQuota admission.
    Quota { message: String },
    /// Some other admission plugin (`… is forbidden: <its text>`).
    Other { message: String },
}

/// Which authorizer refused, from the reason after the 403's core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authorizer {
    /// No reason: RBAC's deny carries none (and other authorizers' look the same).
    Unnamed,
    /// RBAC's own reason (`RBAC: role.rbac.authorization.k8s.io "x" not found`,
    /// 1.5's `rules not allow`, OpenShift's RBAC).
    Rbac(String),
    /// RBAC's reason that a binding names a role that is not there
    /// (`RBAC: role.rbac.authorization.k8s.io "x" not found`).
    RoleMissing(String),
    /// The Node authorizer (`no relationship found between node …`, `no path found to object`).
    Node(String),
    /// Another authorizer that had no opinion before RBAC refused (GKE's
    /// `Unknown user "…"`): a grant is what allows the request.
    NoOpinion(String),
    /// Another reason: another authorizer's (a managed cluster's policy, a
    /// webhook, ABAC), which denied the request or had no opinion on it.
    Other(String),
}

/// A refusal of the token by a service that judges it itself, with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceVerdict {
    pub cause: Cause,
    /// Who refused (`AWS STS`, `Microsoft Entra ID`, `Vault`).
    pub service: &'static str,
    /// The cloud whose service refused, when one did.
    pub cloud: Option<Cloud>,
    /// The causes a refusal that names none leaves (its row's, in
    /// `vocabulary::clouds::UNDECIDED`).
    pub alternatives: &'static [Cause],
    /// Its words, from the reason on.
    pub detail: String,
}

/// What the request got: an HTTP answer, an authenticator's account, or none.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Answer {
    Http(HttpAnswer),
    /// A SelfSubjectAccessReview that was answered: authorisation's verdict.
    Access(AccessVerdict),
    /// The authenticator's own account of a rejected token (a server log line,
    /// a TokenReview): the request got a 401 for the reasons in [`Case::reasons`].
    Rejected,
    /// The token was accepted, and nothing else was asked: a TokenReview that
    /// authenticated it, or a "who am I" the server refused to answer in a
    /// way that names the user. The text says how it is known.
    Authenticated(String),
    /// No HTTP answer: TLS, DNS, refused, timeout.
    Transport(TransportFailure),
    /// A token checker (Vault, kube-rbac-proxy, a mesh, a webhook authenticator)
    /// could not complete its own TokenReview: the token under review was
    /// never judged.
    CheckerFailed(CheckerFailure),
    /// No request's answer: a program logged that a part of its own setup
    /// failed (an authenticator that cannot start, a refused credential
    /// provider configuration, a client's credential source).
    ServerFailed(ServerFailure),
    /// Nothing was answered (no request got anywhere).
    #[default]
    Nothing,
}

impl Answer {
    pub fn classification(&self) -> Classification {
        match self {
            Answer::Http(h) if !h.from_kubernetes() => Classification::NotKubernetes,
            // A service that judged the token itself answered with its own
            // status, when the text shows one.
            Answer::Http(h) if h.verdict.is_some() && h.relay_status.is_none() => {
                Classification::OtherStatus
            }
            Answer::Http(h) => h
                .code()
                .map_or(Classification::OtherStatus, Classification::from_status),
            Answer::Access(a) if a.allowed => Classification::Ok,
            Answer::Access(_) => Classification::Forbidden,
            Answer::Rejected => Classification::Unauthorized,
            Answer::Authenticated(_) => Classification::Ok,
            Answer::Transport(t) if t.cause.is_tls() => Classification::TlsError,
            Answer::Transport(_) => Classification::NetworkError,
            Answer::CheckerFailed(_) => Classification::CheckerFailure,
            Answer::ServerFailed(_) => Classification::ServerConfig,
            Answer::Nothing => Classification::NetworkError,
        }
    }

    pub fn http(&self) -> Option<&HttpAnswer> {
        match self {
            Answer::Http(h) => Some(h),
            _ => None,
        }
    }

    pub fn code(&self) -> Option<u16> {
        match self {
            Answer::Http(h) => h.code(),
            Answer::Access(_) => Some(201),
            Answer::Rejected => Some(401),
            _ => None,
        }
    }
}

/// An HTTP answer, as far as the evidence shows it: any part may be missing
/// (a client prints only the reason, a body has no code).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HttpAnswer {
    /// The answering server's status code.
    pub status: Option<u16>,
    /// `reason` of a Kubernetes Status body (`Forbidden`, `NotFound`…), or
    /// the reason phrase.
    pub reason: Option<String>,
    /// `message` of a Status body, or the client's rendering of it.
    pub message: Option<String>,
    /// The message's 403 parts, when its reader parsed them.
    pub forbidden: Option<Box<Forbidden>>,
    /// The `Location` header of a redirect.
    pub location: Option<String>,
    /// How the answer was told from kube-apiserver's own.
    pub origin: AnswerOrigin,
    /// The request as shown (`POST selfsubjectreviews (authentication.k8s.io/v1)`).
    pub request_line: Option<String>,
    /// Who relayed or wrapped the answer (Vault's `Code: 500. Errors:`, the
    /// Dashboard's `Dashboard reported … (500):`), with the status it gave
    /// its own caller: that status counts only when kube-apiserver's is not
    /// in the evidence.
    pub relay: Option<String>,
    pub relay_status: Option<u16>,
    /// A service that judged the token itself said why it refused it.
    pub verdict: Option<ServiceVerdict>,
    /// How strongly the text that showed it speaks for the answer (for
    /// assembling one answer from several views): the client's own error
    /// line (3) over a status line (2) over a body or a verbose log's
    /// request line (1).
    pub weight: u8,
}

impl HttpAnswer {
    pub fn with_status(status: u16, weight: u8) -> Self {
        HttpAnswer {
            status: Some(status),
            weight,
            ..HttpAnswer::default()
        }
    }

    /// A relay's answer (a token checker, a proxy in front of the API server),
    /// with the relay's own status when the evidence shows it.
    pub fn relayed(relay: &str, relay_status: Option<u16>, weight: u8) -> Self {
        HttpAnswer {
            relay: Some(relay.to_owned()),
            relay_status,
            weight,
            ..HttpAnswer::default()
        }
    }

    /// kube-apiserver's code, stated or implied by the Status reason (not a
    /// relay's).
    pub fn own_code(&self) -> Option<u16> {
        self.status.or_else(|| {
            self.reason
                .as_deref()
                .and_then(crate::vocabulary::apimachinery::code_of)
        })
    }

    /// The code the answer stands for: the server's, else the relay's, else
    /// the one the Status reason implies.
    pub fn code(&self) -> Option<u16> {
        self.status
            .or(self.relay_status)
            .or_else(|| self.own_code())
    }

    /// The relay whose own status stands for the answer, when
    /// kube-apiserver's is not in the evidence.
    pub fn relay_only(&self) -> Option<&str> {
        self.relay.as_deref().filter(|_| self.own_code().is_none())
    }

    /// Whether the answer is kube-apiserver's (or may be: not known otherwise).
    pub fn from_kubernetes(&self) -> bool {
        !matches!(self.origin, AnswerOrigin::Other(_))
    }

    /// Takes in another view of the same answer: the stronger view's values
    /// first, the other's where it has none.
    pub fn absorb(&mut self, other: HttpAnswer) {
        let (mut base, extra) = if other.weight > self.weight {
            (other, std::mem::take(self))
        } else {
            (std::mem::take(self), other)
        };
        base.status = base.status.or(extra.status);
        base.reason = base.reason.or(extra.reason);
        (base.message, base.forbidden) = match (base.message, extra.message) {
            // A message that names more wins over a bare reason word.
            (Some(a), Some(b)) if a.len() < b.len() && b.contains(&a) => (Some(b), extra.forbidden),
            (Some(a), _) => (Some(a), base.forbidden),
            (None, b) => (b, extra.forbidden),
        };
        if base.from_kubernetes() {
            base.origin = extra.origin;
        }
        base.location = base.location.or(extra.location);
        base.request_line = base.request_line.or(extra.request_line);
        base.relay = base.relay.or(extra.relay);
        base.relay_status = base.relay_status.or(extra.relay_status);
        base.verdict = match (base.verdict, extra.verdict) {
            // The words that name a cause over the service's bare answer.
            (Some(a), Some(b)) if a.cause == Cause::Unknown => Some(b),
            (a, b) => a.or(b),
        };
        // A service that judged the token itself answered with the status
        // shown beside its refusal; kube-apiserver was never asked.
        if base.verdict.is_some() && base.relay_status.is_none() {
            base.relay_status = base.status.take();
        }
        *self = base;
    }
}

/// Who reports the answer a case is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Witness {
    /// A client's output pasted as evidence: its rendering of the answer,
    /// and its own words about its connection.
    #[default]
    Client,
    /// The server's own record: its log line, an audit event, a TokenReview.
    Server,
    /// satoken's own requests (probe, doctor).
    Probe,
}

/// Whether an answer came from kube-apiserver.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AnswerOrigin {
    /// A Kubernetes Status body, or a review/object of the expected shape.
    Kubernetes,
    /// Nothing says either way (a client printed only the status).
    #[default]
    Unknown,
    /// Something else answered; the text says what gave it away.
    Other(String),
}

/// A SelfSubjectAccessReview's answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessVerdict {
    pub allowed: bool,
    /// `status.reason`.
    pub reason: Option<String>,
    /// `status.evaluationError`.
    pub evaluation_error: Option<String>,
}

/// How a rejection's reasons were put with its answer, when they were read
/// apart (a log's reason line, an audit event's 401): the policy weighs it.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, IntoStaticStr, VariantArray,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Join {
    /// Read together, or nothing was joined.
    #[default]
    None,
    /// Both name the same request (its audit ID).
    Exact,
    /// By time: another request's reasons may have been taken.
    Guess,
}

string_codes!(Join);

/// Who reported a rejection's reasons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReasonSource {
    /// kube-apiserver's log (`"Unable to authenticate the request" err=…`).
    ApiserverLog,
    /// A TokenReview's `status.error`, asked of this server (probe) or pasted.
    TokenReview,
    /// Another program passing the aggregate on (Vault, a mesh, a proxy).
    Forwarded(String),
}

/// Whether the token in the case is the one the request carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TokenSent {
    /// The request was made with it (probe, doctor, a transcript's header).
    Yes,
    /// Given by the user to compare; the evidence does not show it was sent.
    #[default]
    Assumed,
    /// No token was sent on purpose (`probe --anonymous` with no token): the
    /// answer is what an anonymous request gets.
    No,
}

/// An instant seen in evidence (a log line's stamp, a `Date` header), or the
/// validating server's clock at the request measured as an interval, and
/// whose reading it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerClock {
    pub low: DateTime<Utc>,
    pub high: DateTime<Utc>,
    pub source: ClockSource,
    /// For a measured clock: the server's offset from this machine, estimate
    /// and uncertainty in seconds.
    pub offset: Option<(f64, f64)>,
}

impl ServerClock {
    pub fn at(at: DateTime<Utc>, source: ClockSource) -> Self {
        ServerClock {
            low: at,
            high: at,
            source,
            offset: None,
        }
    }

    pub fn estimate(&self) -> DateTime<Utc> {
        self.low + (self.high - self.low) / 2
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum ClockSource {
    /// The server's `Date` headers around the request, corrected for the round
    /// trip (probe): the server's clock within a measured uncertainty.
    Measured,
    /// One `Date` header in a transcript: the API server's clock, to the second.
    DateHeader,
    /// A log line's own timestamp (the logging process's clock).
    LogTimestamp,
    /// A klog header, which has no year: the year closest before `now`.
    LogTimestampYearInferred,
    /// An audit event's `stageTimestamp` (the API server's clock).
    AuditTimestamp,
    /// This machine's clock, because the server sent no `Date`.
    LocalClock,
    /// This machine's clock, because the server's `Date` is not an HTTP date.
    LocalClockBadDate,
    AtFlag,
    /// Nothing in the evidence: the run's `now`.
    Now,
}

string_codes!(ClockSource);

impl ClockSource {
    /// Whether the reading is the validating API server's own clock.
    pub fn is_server_clock(self) -> bool {
        matches!(
            self,
            ClockSource::Measured
                | ClockSource::DateHeader
                | ClockSource::LogTimestamp
                | ClockSource::LogTimestampYearInferred
                | ClockSource::AuditTimestamp
        )
    }
}

/// The request, as far as the evidence shows it.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct RequestInfo {
    /// Kubernetes verb (`list`, `get`…) or, when only the method is known, the method.
    pub verb: Option<String>,
    /// Resource (`pods`).
    pub resource: Option<String>,
    /// Subresource (`log`, `exec`…).
    pub subresource: Option<String>,
    /// API group; `""` is the core group.
    pub api_group: Option<String>,
    /// Namespace; null at the cluster scope or when unknown.
    pub namespace: Option<String>,
    /// Object name.
    pub name: Option<String>,
    /// Non-resource path, or the URL path when the rest is unknown.
    pub path: Option<String>,
}

impl RequestInfo {
    pub fn is_empty(&self) -> bool {
        *self == RequestInfo::default()
    }

    /// `resource[.group][/subresource]`, as `kubectl create role --resource` takes it.
    pub fn qualified_resource(&self, with_subresource: bool) -> String {
        let mut qualified = self.resource.clone().unwrap_or_default();
        if let Some(group) = self.api_group.as_deref().filter(|g| !g.is_empty()) {
            qualified = format!("{qualified}.{group}");
        }
        if with_subresource && let Some(sub) = &self.subresource {
            qualified = format!("{qualified}/{sub}");
        }
        qualified
    }

    /// A SubjectAccessReview: a checker asking kube-apiserver to authorize
    /// for it (delegated authorization), not a TokenReview.
    pub fn is_subject_access_review(&self) -> bool {
        self.resource.as_deref() == Some("subjectaccessreviews")
    }

    /// What was asked, in words: `list pods in namespace "shop"`,
    /// `get nodes at the cluster scope`, `get path /healthz`.
    pub fn describe(&self) -> String {
        let verb = self.verb.as_deref().unwrap_or("?");
        format!("{verb} {}", self.target())
    }

    /// What was asked for, without the verb: `pods in namespace "shop"`.
    pub fn target(&self) -> String {
        if let Some(path) = &self.path {
            return format!("path {path}");
        }
        let mut what = self.qualified_resource(true);
        if let Some(name) = &self.name {
            what = format!("{what} {name:?}");
        }
        match &self.namespace {
            Some(ns) => format!("{what} in namespace {ns:?}"),
            None => format!("{what} at the cluster scope"),
        }
    }
}

/// What the evidence shows about the `Authorization` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BearerSeen {
    /// The request's own lines show no `Authorization` header (`curl -v`,
    /// the command line): it carried none.
    Absent,
    /// A client's debug trace shows no `Authorization` header: proves
    /// nothing, as credentials may be added below the layer that traces.
    NotInTrace,
    /// `Authorization: Bearer` with nothing (or only spaces) after it.
    Empty,
    /// A token was sent; kept secret.
    Token(SecretToken),
    /// The client does not send credentials on such a request (a kubelet's
    /// HTTP probe): the text says why.
    NoneExpected(String),
}

/// Audit-specific facts (annotations and user extra).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFacts {
    /// `authentication.k8s.io/stale-token`: `subject: …, seconds after warning threshold: N`.
    pub stale_token: Option<String>,
    /// `authentication.k8s.io/legacy-token`: a token without audiences (value: the subject).
    pub legacy_token: Option<String>,
    /// `authentication.k8s.io/legacy-token-invalidated`: `<secret>/<namespace>`.
    pub legacy_token_invalidated: Option<String>,
    /// `JTI=<jti>` from `user.extra["authentication.kubernetes.io/credential-id"]`.
    pub credential_id: Option<String>,
    /// The credential id came from an `authentication.k8s.io/credential-id`
    /// annotation, which kube-apiserver does not write.
    pub credential_id_from_annotation: bool,
    /// `authorization.k8s.io/decision` and `…/reason`.
    pub authorization: Option<String>,
    /// The Secret of a legacy token: `authentication.k8s.io/legacy-token-autogenerated-secret`
    /// or `…/legacy-token-manual-secret` (1.29+).
    pub legacy_secret: Option<String>,
    /// What the audit log itself shows about the objects a failing client's
    /// token was bound to (the fleet view reads deletions and uid changes
    /// from the log's own events).
    pub objects: Vec<ObjectSeen>,
}

impl AuditFacts {
    /// The Secret named by `legacy-token-invalidated` (`<secret>/<namespace>`).
    pub fn invalidated_secret(&self) -> Option<&str> {
        let (secret, _) = self.legacy_token_invalidated.as_deref()?.split_once('/')?;
        Some(secret)
    }
}

/// An object a client's token was bound to, as the audit log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectSeen {
    /// The object, with the uid the client's accepted requests carried.
    pub target: BindingTarget,
    pub change: ObjectChange,
    /// When the client's last accepted request was (RFC 3339).
    pub last_accepted: String,
    /// The failures are tied to the client only by their source IP and user
    /// agent, and other identities were accepted from there too.
    pub guessed: bool,
}

/// What the audit log shows happened to an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectChange {
    /// A `delete` that succeeded, at this instant (RFC 3339).
    Deleted { at: String },
    /// Requests under a new uid began at this instant (RFC 3339).
    Recreated { new_uid: String, at: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum BindingKind {
    // As kubectl names it.
    #[strum(serialize = "serviceaccount")]
    ServiceAccount,
    Pod,
    Secret,
    Node,
}

string_codes!(BindingKind);

impl BindingKind {
    /// Nodes are cluster-scoped.
    pub fn namespaced(self) -> bool {
        self != BindingKind::Node
    }
}

/// An object the token names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BindingTarget {
    /// Which kind of object.
    pub kind: BindingKind,
    /// Its namespace (the token's; unused for a node).
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The uid the token's claim names (legacy Secrets carry none).
    pub claim_uid: Option<String>,
    /// A legacy Secret token (deletion without leeway; the invalid-since label).
    #[serde(skip)]
    pub legacy: bool,
}

impl BindingTarget {
    /// The API path that reads it.
    pub fn path(&self) -> String {
        // Each kind's resource is its name in the plural: the name and `s`.
        let (kind, name) = (self.kind.as_str(), &self.name);
        if self.kind.namespaced() {
            format!("/api/v1/namespaces/{}/{kind}s/{name}", self.namespace)
        } else {
            format!("/api/v1/{kind}s/{name}")
        }
    }

    /// `kind namespace/name`, or `node name`.
    pub fn describe(&self) -> String {
        if self.kind.namespaced() {
            format!("{} {}/{}", self.kind.as_str(), self.namespace, self.name)
        } else {
            format!("{} {}", self.kind.as_str(), self.name)
        }
    }
}

/// What a read of a bound object showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum BindingState {
    /// Exists, same uid, not being deleted: not the cause.
    Matches,
    /// 404.
    Missing,
    /// Same name, another uid: deleted and recreated.
    UidDiffers,
    /// `deletionTimestamp` is set.
    Deleting,
    /// A legacy Secret labelled `kubernetes.io/legacy-token-invalid-since`.
    InvalidSince,
    /// The caller may not read it (401/403) or the read failed.
    Unreadable,
}

string_codes!(BindingState);

/// One bound object, read and compared with the token's claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(rename = "BoundObject")]
pub struct BindingCheck {
    #[serde(flatten)]
    pub target: BindingTarget,
    /// The uid of the object that exists now.
    pub live_uid: Option<String>,
    /// `metadata.deletionTimestamp` as the server wrote it.
    pub deletion_timestamp: Option<String>,
    /// The legacy-token-invalid-since label's value.
    pub invalid_since: Option<String>,
    /// What the read showed.
    pub state: BindingState,
    /// HTTP status of the read (null: not sent, or a transport failure).
    #[schemars(range(min = 100, max = 599))]
    pub status: Option<u16>,
    /// Which credentials read it: which server answered, and as whom.
    pub via: String,
}

/// The server's published keys and issuer, checked against the token.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyCheck {
    /// Where the keys came from (`/openid/v1/jwks on https://…`).
    pub from: String,
    pub kids: Vec<String>,
    pub token_kid: Option<String>,
    /// Whether a published key carries the token's kid (None: token has no kid).
    pub kid_found: Option<bool>,
    /// Whether a published key verifies the signature (None: not checked).
    pub signature_ok: Option<bool>,
    /// Why the signature check failed, when it did.
    pub signature_detail: Option<String>,
    /// The issuer the server announces (discovery), when read.
    pub issuer: Option<String>,
    /// Whether the token's `iss` is the announced issuer (None: not read).
    pub issuer_ok: Option<bool>,
    /// Whether the token's `aud` includes the announced issuer (the default API audience).
    pub audience_ok: Option<bool>,
}

/// A TokenReview's answer about the token under test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewSeen {
    /// Accepted, now, as this user (its reasons are not in the case).
    Authenticated { username: String },
    /// Rejected: the case's `reasons` hold its `status.error`.
    Rejected,
    /// The reviewer may not create TokenReviews (or its credentials failed).
    NotAllowed { status: u16, message: String },
}

/// What a request without the token got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnonymousAnswer {
    /// The request as shown (`POST selfsubjectreviews (…)`).
    pub request: String,
    pub status: u16,
    /// The 403's user was `system:anonymous`.
    pub as_anonymous: bool,
}

/// A server asked with the same token (the case's other servers, or a
/// replica).
#[derive(Debug, Clone, PartialEq)]
pub struct Peer {
    pub url: String,
    pub classification: Classification,
    /// Its clock minus this machine's, estimate and uncertainty in seconds.
    pub offset: Option<(f64, f64)>,
    /// The kids it publishes, when read (replicas only).
    pub kids: Option<Vec<String>>,
}

/// Why an accepted token is at risk (what `doctor` warns about).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Degradation {
    /// Past the kubelet's refresh by this long: the client holds a token the
    /// kubelet already replaced.
    Stale { overdue: TimeDelta },
    /// A clock is off by this much, more than the leeway: tokens minted
    /// elsewhere will look not-yet-valid here, or this server's elsewhere.
    ClockOff { clock: OffClock, by: TimeDelta },
    /// The token expires in this long and nothing will replace it in time.
    ExpiresSoon { left: TimeDelta },
}

/// Which clock [`Degradation::ClockOff`] measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffClock {
    /// This pod's, against the token's own times.
    Pod,
    /// The API server's, against this pod's.
    ApiServer,
}

/// A JWT authenticator's rejection, and how it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtRejectionSeen {
    /// The authenticator's `issuer.url`.
    pub issuer: Option<String>,
    pub rejection: JwtRejection,
    /// Where it comes from ("kube-apiserver said", "TokenReview on URL").
    pub from: String,
}

/// Why a token checker could not complete its own review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckerFailure {
    pub call: CheckerCall,
    /// The checker, when the evidence names it (`Vault`, `kube-rbac-proxy`…).
    pub checker: Option<&'static str>,
    pub detail: String,
    /// Whether the text says so outright (`false`: the wording also fits
    /// another reading, e.g. Vault reviewing with the caller's own token).
    pub certain: bool,
}

/// How a checker's own call (its TokenReview, its identity service) failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckerCall {
    /// kube-apiserver refused it: the checker's credentials (401), or its
    /// permission to create tokenreviews (403).
    Refused,
    /// No answer: a transport failure, with the cause its words name (TLS,
    /// DNS, refused, timeout), when they name one.
    Unanswered(Option<Cause>),
    /// The server does not serve the API the checker asked (a 404 on
    /// tokenreviews: an API version it no longer serves).
    NotServed,
    /// The server answered with a failure of its own (a 5xx).
    ServerError,
}

/// A part of a server's own setup that failed, as the server logged it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFailure {
    /// What it means (`jwt-issuer-unreachable`, `credential-provider-config-invalid`).
    pub cause: Cause,
    /// Who logged it (`kube-apiserver`, `kubelet`).
    pub component: &'static str,
    /// What it said, from the error on.
    pub detail: String,
    /// Why the words leave the failure's meaning in doubt, when they do (a
    /// credential plugin's exit code, one member of a credential chain).
    pub doubt: Option<&'static str>,
}

/// A failure before any HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportFailure {
    /// The transport cause (one of the TLS, DNS, connection or timeout causes,
    /// or `unknown`).
    pub cause: Cause,
    pub detail: String,
    /// Other causes the wording fits as well (`x509: certificate has expired
    /// or is not yet valid` without the times: an expired certificate, or a
    /// clock off), most likely first.
    pub also: Vec<Cause>,
    /// The cloud's credential endpoint the connection was to (the instance
    /// metadata service, the EKS Pod Identity Agent), when its address shows:
    /// a cloud SDK's call, not one to the API server.
    pub endpoint: Option<&'static crate::vocabulary::clouds::CredentialEndpoint>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 403's parts a reader parsed stay with the message they came from
    /// when two views of one answer merge: a longer message that wins comes
    /// without them (the case reads it afresh).
    #[test]
    fn parsed_parts_stay_with_their_message() {
        let parts = Forbidden {
            user: "u".to_owned(),
            ..Forbidden::default()
        };
        let view = |message: &str, forbidden: Option<Forbidden>| HttpAnswer {
            message: Some(message.to_owned()),
            forbidden: forbidden.map(Box::new),
            weight: 1,
            ..HttpAnswer::default()
        };
        let short = view("x", Some(parts.clone()));
        for (a, b) in [
            (short.clone(), view("a x b", None)),
            (view("a x b", None), short.clone()),
        ] {
            let mut merged = a;
            merged.absorb(b);
            assert_eq!(merged.message.as_deref(), Some("a x b"));
            assert_eq!(merged.forbidden, None);
        }
        let mut merged = short;
        merged.absorb(view("y", None));
        assert_eq!(merged.forbidden, Some(Box::new(parts)));
    }
}
