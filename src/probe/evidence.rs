//! Pure: one server's observation turned into the typed evidence the diagnosis
//! rules read ([`Case`]): which request decides the server's answer, whether
//! that answer is kube-apiserver's at all, who the server says the token is,
//! the server's clock at that moment, and what the side requests (TokenReview,
//! JWKS, the bound objects, the same request without the token) add.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use super::bindings::BindingCheck;
use super::offset::{self, DateSample, OffsetInterval};
use super::review::{self, ReviewOutcome};
use super::{
    AccessQuery, Answer, RequestKind, RequestObservation, ServerObservation, TlsStatus, UserInfo,
};
use crate::diagnosis::Classification;
use crate::diagnosis::extract::json::strings;
use crate::diagnosis::extract::transport;
use crate::diagnosis::facts::{
    self, AccessVerdict, AnonymousAnswer, AnswerOrigin, Case, ClockSource, HttpAnswer, KeyCheck,
    Peer, ReasonSource, RequestInfo, ReviewSeen, ServerClock, TokenSent, TransportFailure,
};
use crate::diagnosis::forbidden::Forbidden;
use crate::http::TransportError;
use crate::token::Token;

/// What one server's requests establish before any rule runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerFacts {
    /// None over plain HTTP: nothing to have verified.
    pub tls: Option<TlsStatus>,
    pub user: Option<UserInfo>,
    /// Which SelfSubjectReview version answered.
    pub review_version: Option<String>,
    /// The latest `Date` the server sent.
    pub server_time: Option<DateTime<Utc>>,
    pub offset: Option<OffsetInterval>,
    pub token_review: Option<ReviewOutcome>,
    /// `--audience`: the TokenReview with those audiences.
    pub audience_review: Option<ReviewOutcome>,
}

pub fn facts(observation: &ServerObservation) -> ServerFacts {
    let answers: Vec<&Answer> = observation
        .requests
        .iter()
        .filter_map(|r| r.result.as_ref().ok())
        .collect();
    let samples: Vec<DateSample> = answers
        .iter()
        .filter_map(|a| DateSample::of(&a.exchange))
        .collect();
    let review = observation.requests.iter().find(|r| {
        r.kind == RequestKind::SelfSubjectReview
            && r.anonymous != observation.token_sent
            && r.result
                .as_ref()
                .is_ok_and(|a| (200..300).contains(&a.exchange.status))
    });
    let review_of = |kind| {
        observation
            .requests
            .iter()
            .find(|r| r.kind == kind)
            .and_then(|r| r.result.as_ref().ok())
            .map(|a| review::parse(a.exchange.status, a.json.as_ref()))
    };
    ServerFacts {
        audience_review: review_of(RequestKind::AudienceReview),
        tls: tls_status(observation),
        user: review
            .and_then(|r| r.result.as_ref().ok())
            .and_then(|a| user_info(a.json.as_ref()?))
            .or_else(|| forbidden_user(observation)),
        review_version: review.and_then(|r| r.api_version.clone()),
        server_time: answers.iter().filter_map(|a| a.exchange.date).max(),
        offset: offset::estimate(&samples),
        token_review: review_of(RequestKind::TokenReview),
    }
}

/// The request whose answer is the server's answer about the token: a
/// transport failure first, else the worst answer among the requests that
/// carried the token (with no token, the anonymous ones), the later of equals
/// (a superseded SelfSubjectReview version does not count).
pub fn decisive(observation: &ServerObservation) -> Option<&RequestObservation> {
    if let Some(first) = observation.requests.first()
        && first.result.is_err()
    {
        return Some(first);
    }
    let with_token: Vec<&RequestObservation> = observation
        .requests
        .iter()
        .filter(|r| r.anonymous != observation.token_sent && !r.operator && r.kind.decides())
        .collect();
    if let Some(failed) = with_token.iter().find(|r| r.result.is_err()) {
        return Some(failed);
    }
    let last_review = with_token
        .iter()
        .rposition(|r| r.kind == RequestKind::SelfSubjectReview);
    // Among equals the later request, the more specific question, decides
    // (max_by_key keeps the last of equals).
    with_token
        .iter()
        .enumerate()
        .filter(|&(i, r)| r.kind != RequestKind::SelfSubjectReview || Some(i) == last_review)
        .max_by_key(|(_, r)| {
            answer_of(r, observation.access.as_ref())
                .classification()
                .severity()
        })
        .map(|(_, r)| *r)
}

/// Everything else a case needs besides the observation.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// The bound objects, read once for the whole run.
    pub bindings: Vec<BindingCheck>,
    /// The other servers asked with the same token.
    pub peers: Vec<Peer>,
    /// The token checked against this server's published keys.
    pub keys: Option<KeyCheck>,
    /// Accepted, but at risk (doctor's warnings).
    pub degraded: Vec<facts::Degradation>,
}

pub fn case<'t>(
    observation: &ServerObservation,
    facts: &ServerFacts,
    token: Option<&'t Token>,
    leeway: TimeDelta,
    extras: Extras,
) -> Case<'t> {
    let decisive = decisive(observation);
    let answer = decisive.map_or(facts::Answer::Nothing, |r| {
        answer_of(r, observation.access.as_ref())
    });
    let user = facts.user.as_ref().map(|u| u.username.clone());
    let request = observation
        .access
        .as_ref()
        .filter(|_| matches!(answer, facts::Answer::Access(_)))
        .map(request_of);
    let clock = decisive
        .and_then(|r| r.result.as_ref().ok())
        .map(|a| server_clock(a, facts.offset));
    let review = facts.token_review.clone().map(|r| match r {
        ReviewOutcome::Rejected { .. } => ReviewSeen::Rejected,
        ReviewOutcome::Authenticated { username, .. } => ReviewSeen::Authenticated { username },
        ReviewOutcome::NotAllowed { status, message } => ReviewSeen::NotAllowed { status, message },
    });
    let (reasons, reasons_from) = match &facts.token_review {
        Some(ReviewOutcome::Rejected { reasons, .. }) => {
            (reasons.clone(), Some(ReasonSource::TokenReview))
        }
        _ => (Vec::new(), None),
    };
    let mut case = Case {
        answer,
        request,
        server: Some(observation.url.clone()),
        witness: facts::Witness::Probe,
        reasons,
        reasons_from,
        token,
        token_sent: if observation.token_sent {
            TokenSent::Yes
        } else {
            TokenSent::No
        },
        clock,
        bindings: extras.bindings,
        keys: extras.keys,
        review,
        anonymous: anonymous_answers(observation),
        peers: extras.peers,
        user,
        degraded: extras.degraded,
        leeway,
        // What only a pasted text shows (a bearer trace, audit annotations,
        // refusal words) is read from the answer below, or not there.
        ..Case::default()
    };
    crate::diagnosis::extract::read_answer(
        &mut case,
        &format!("TokenReview on {}", observation.url),
    );
    case
}

fn answer_of(request: &RequestObservation, access: Option<&AccessQuery>) -> facts::Answer {
    let answer = match &request.result {
        Ok(a) => a,
        Err(error) => {
            return facts::Answer::Transport(TransportFailure {
                cause: transport::cause_of_error(error),
                detail: error.to_string(),
                also: Vec::new(),
                endpoint: None,
            });
        }
    };
    let ok = (200..300).contains(&answer.exchange.status);
    if ok && request.kind == RequestKind::SelfSubjectAccessReview && access.is_some() {
        let status = answer.json.as_ref().and_then(|j| j.get("status"));
        if let Some(allowed) = status.and_then(|s| s.get("allowed")?.as_bool()) {
            let text = |key: &str| {
                status
                    .and_then(|s| s.get(key)?.as_str())
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
            };
            return facts::Answer::Access(AccessVerdict {
                allowed,
                reason: text("reason"),
                evaluation_error: text("evaluationError"),
            });
        }
    }
    let body = answer.status_body.as_ref();
    let forbidden = body.and_then(|b| b.forbidden.as_ref());
    // "Who am I" refused, but past authentication: the token was accepted.
    let accepted = match (answer.exchange.status, forbidden) {
        _ if request.kind != RequestKind::SelfSubjectReview || body.is_none() => None,
        (404, _) => Some(format!(
            "{}: 404: no SelfSubjectReview API (v1, v1beta1 and v1alpha1 all 404: a server before 1.27, or the API is off); a 404 comes after authentication and authorisation, so the token was accepted",
            describe_request(request)
        )),
        (403, Some(f)) if !f.is_anonymous() => Some(format!(
            "{}: 403 names the user {}: the token was accepted; only SelfSubjectReview is not allowed to it (granted to all authenticated users from 1.27, kubernetes/kubernetes#116274, unless the cluster trimmed system:basic-user)",
            describe_request(request),
            f.user
        )),
        _ => None,
    };
    if let Some(why) = accepted {
        return facts::Answer::Authenticated(why);
    }
    facts::Answer::Http(HttpAnswer {
        status: Some(answer.exchange.status),
        reason: body.and_then(|b| b.reason.clone()),
        message: body.and_then(|b| b.message.clone()),
        forbidden: forbidden.cloned().map(Box::new),
        location: answer.exchange.location.clone(),
        origin: origin(request, answer),
        request_line: Some(describe_request(request)),
        ..HttpAnswer::default()
    })
}

/// Whether the answer is kube-apiserver's: its errors are always a `Status`,
/// its reviews always carry their `status`.
fn origin(request: &RequestObservation, answer: &Answer) -> AnswerOrigin {
    let e = &answer.exchange;
    // A body too large to read may well have been a Status: the status
    // line alone does not tell whose answer it is.
    if e.body_over_limit {
        return AnswerOrigin::Unknown;
    }
    let other = |what: String, verdict: &str| {
        let mut headers = Vec::new();
        if let Some(t) = &e.content_type {
            headers.push(format!("Content-Type {t}"));
        }
        if let Some(w) = &e.www_authenticate {
            headers.push(format!("WWW-Authenticate {w}"));
        }
        if headers.is_empty() {
            headers.push("no Kubernetes body".to_owned());
        }
        let headers = headers.join(", ");
        AnswerOrigin::Other(format!("HTTP {} {what} ({headers}): {verdict}", e.status))
    };
    let ok = (200..300).contains(&e.status);
    if answer.status_body.is_some() {
        return if ok {
            AnswerOrigin::Other(format!(
                "a Status error body inside an HTTP {} answer: kube-apiserver never does that",
                e.status
            ))
        } else {
            AnswerOrigin::Kubernetes
        };
    }
    // A review's answer always carries its result: the review's kind, the
    // field and its JSON type.
    type Check = (&'static str, &'static str, fn(&Value) -> bool);
    let review: Option<Check> = match request.kind {
        RequestKind::SelfSubjectReview => Some((
            "SelfSubjectReview",
            "/status/userInfo/username",
            Value::is_string,
        )),
        RequestKind::SelfSubjectAccessReview => Some((
            "SelfSubjectAccessReview",
            "/status/allowed",
            Value::is_boolean,
        )),
        _ => None,
    };
    let html = e
        .content_type
        .as_deref()
        .is_some_and(|t| t.to_ascii_lowercase().contains("text/html"));
    if let Some((kind, pointer, is)) = review.filter(|_| ok) {
        let json = answer.json.as_ref();
        if json.and_then(|j| j.pointer(pointer)).is_some_and(is) {
            return AnswerOrigin::Kubernetes;
        }
        let field = pointer[1..].replace('/', ".");
        return other(
            format!("to a {kind} without {field}"),
            "not kube-apiserver's answer",
        );
    }
    match e.status {
        // kube-apiserver answers every authentication and authorisation
        // failure with a Status (k8s.io/apiserver responsewriters).
        401 | 403 => other(
            "without a Kubernetes Status body".to_owned(),
            "a proxy or another service answered, not kube-apiserver",
        ),
        _ if html => other(
            "with an HTML page".to_owned(),
            "kube-apiserver does not serve HTML",
        ),
        _ => AnswerOrigin::Unknown,
    }
}

fn request_of(query: &AccessQuery) -> RequestInfo {
    RequestInfo {
        verb: Some(query.verb.clone()),
        resource: Some(query.resource.clone()),
        subresource: query.subresource.clone(),
        api_group: Some(query.group.clone()),
        namespace: query.namespace.clone(),
        name: query.name.clone(),
        path: None,
    }
}

/// The server's clock when it answered: from the `Date` headers and the round
/// trip, else this machine's clock.
fn server_clock(answer: &Answer, offset: Option<OffsetInterval>) -> ServerClock {
    let e = &answer.exchange;
    let mid = e.sent_at + (e.received_at - e.sent_at) / 2;
    match offset {
        Some(o) => ServerClock {
            low: mid + o.low,
            high: mid + o.high,
            source: ClockSource::Measured,
            offset: Some((o.estimate_seconds(), o.uncertainty_seconds())),
        },
        // A `Date` header that is not an HTTP date is not a missing one.
        None if e.date.is_none() && e.date_header.is_some() => {
            ServerClock::at(mid, ClockSource::LocalClockBadDate)
        }
        None => ServerClock::at(mid, ClockSource::LocalClock),
    }
}

/// What the requests without the token got (`--anonymous`), to contrast
/// with the token's answers (none when no token was sent: they are the answer).
fn anonymous_answers(observation: &ServerObservation) -> Vec<AnonymousAnswer> {
    observation
        .requests
        .iter()
        .filter(|r| observation.token_sent && r.anonymous && r.kind.decides())
        .filter_map(|r| {
            let answer = r.result.as_ref().ok()?;
            // Superseded review versions say nothing new.
            if r.kind == RequestKind::SelfSubjectReview && answer.exchange.status == 404 {
                return None;
            }
            let forbidden = answer
                .status_body
                .as_ref()
                .and_then(|b| b.forbidden.as_ref());
            Some(AnonymousAnswer {
                request: describe_request(r),
                status: answer.exchange.status,
                as_anonymous: forbidden.is_some_and(Forbidden::is_anonymous),
            })
        })
        .collect()
}

/// `GET /api/v1/…`, or `POST selfsubjectreviews (authentication.k8s.io/v1)`.
pub fn describe_request(request: &RequestObservation) -> String {
    match &request.api_version {
        Some(version) => format!(
            "{} {} ({version})",
            request.method,
            request.path.rsplit('/').next().unwrap_or(&request.path)
        ),
        None => format!("{} {}", request.method, request.path),
    }
}

fn tls_status(observation: &ServerObservation) -> Option<TlsStatus> {
    if observation.url.starts_with("http://") {
        return None;
    }
    let first = observation.requests.first().map(|r| &r.result);
    let (reason, error) = match first {
        Some(Err(TransportError::Tls { reason, detail })) => (Some(*reason), Some(detail.clone())),
        _ => (None, None),
    };
    Some(TlsStatus {
        verified: matches!(first, Some(Ok(_))) && observation.verifies_tls,
        reason,
        error,
    })
}

/// The user a 403 to the token names (`User "…" cannot …`) when no review
/// said who it is: past authentication, RBAC's message names the user.
fn forbidden_user(observation: &ServerObservation) -> Option<UserInfo> {
    observation
        .requests
        .iter()
        .filter(|r| r.anonymous != observation.token_sent && !r.operator)
        .filter_map(|r| r.result.as_ref().ok())
        .filter(|a| a.exchange.status == 403)
        .filter_map(|a| a.status_body.as_ref()?.forbidden.clone())
        .find(|f| !f.is_anonymous())
        .map(|f| UserInfo {
            username: f.user,
            ..UserInfo::default()
        })
}

/// `status.userInfo` of a SelfSubjectReview response.
fn user_info(body: &Value) -> Option<UserInfo> {
    let info = body.get("status")?.get("userInfo")?;
    Some(UserInfo {
        username: info.get("username")?.as_str()?.to_owned(),
        uid: info.get("uid").and_then(Value::as_str).map(str::to_owned),
        groups: strings(info.get("groups")),
        extra: info.get("extra").cloned(),
    })
}

/// The class of a server's answer, without running the rules.
pub fn classification(observation: &ServerObservation) -> Classification {
    decisive(observation).map_or(Classification::NetworkError, |r| {
        answer_of(r, observation.access.as_ref()).classification()
    })
}
