//! Pure: observations plus the decoded token -> a classification per server and
//! one diagnosis, each cause with a confidence and its evidence.
//!
//! Rules (../shared/k8s-token-semantics.md sections 2-5):
//! - 401 never says why. If the token is outside its window on *that server's*
//!   clock (measured from `Date`), the cause is `clock-skew` (not yet valid) or
//!   `expired`, with medium confidence (circumstantial but strong); otherwise the
//!   causes the body cannot tell apart are listed with low confidence, with the
//!   uids to compare and the commands that show the live ones.
//! - 403: the message names user, verb, resource, group, namespace; a user of
//!   `system:anonymous` on a request that carried a token means the token did not
//!   arrive as a bearer token (a present-but-invalid token always yields 401).
//! - 404 (and any answer past authorisation) means authenticated and authorised:
//!   authorisation runs before routing (k8s.io/apiserver handler chain).
//! - Servers that disagree (one 401, another accepts) are the strongest
//!   clock-skew signal.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use super::bindings::{self, BindingCheck, BindingKind, BindingState, BindingTarget};
use super::keys;
use super::offset::{self, DateSample, OffsetInterval};
use super::review::{self, ReviewOutcome};
use super::{
    Answer, EndpointDiscovery, ProbeReport, RequestKind, RequestObservation, ServerObservation,
    ServerReport, TlsStatus, UserInfo,
};
use crate::diagnosis::forbidden::Forbidden;
use crate::diagnosis::reasons;
use crate::diagnosis::{Cause, CauseCandidate, Classification, Confidence, Diagnosis};
use crate::http::{TlsReason, TransportError};
use crate::timefmt::rfc3339;
use crate::token::{Token, TokenKind};
use crate::window::{self, TimeClaims, Verdict, ceil_seconds, floor_seconds};

/// What the deeper probe (issue 6) adds to the analysis.
#[derive(Debug, Clone, Default)]
pub struct Deeper<'a> {
    /// The token text, for the signature checks against a server's JWKS.
    pub raw: Option<&'a str>,
    /// The servers are replicas of one API server (`--all-endpoints`).
    pub replicas: bool,
    pub endpoints: Option<EndpointDiscovery>,
    /// The objects the token is bound to (reads are matched by path).
    pub bindings: Vec<BindingTarget>,
}

/// Analyses every server's observations against the token.
pub fn analyse(
    observations: Vec<ServerObservation>,
    token: &Token,
    evaluated_at: DateTime<Utc>,
    leeway: TimeDelta,
) -> ProbeReport {
    analyse_deeper(observations, token, Deeper::default(), evaluated_at, leeway)
}

/// [`analyse`], with TokenReview, keys, bindings and replicas taken into account.
pub fn analyse_deeper(
    observations: Vec<ServerObservation>,
    token: &Token,
    deeper: Deeper<'_>,
    evaluated_at: DateTime<Utc>,
    leeway: TimeDelta,
) -> ProbeReport {
    let bindings = read_bindings(&observations, &deeper.bindings);
    let (binding_found, binding_ruled_out) = bindings::candidates(&bindings);
    let unreadable: Vec<&BindingCheck> = bindings
        .iter()
        .filter(|b| b.state == BindingState::Unreadable)
        .collect();
    let mut servers: Vec<ServerReport> = observations
        .into_iter()
        .map(|o| {
            let mut report = server_report(o, token, leeway);
            if report.classification == Classification::Unauthorized {
                let mut candidates = report.diagnosis.candidates.clone();
                integrate(&mut candidates, binding_found.clone(), &binding_ruled_out);
                for b in &unreadable {
                    if let Some(c) = candidates.iter_mut().find(|c| {
                        c.confidence == Confidence::Low
                            && binding_causes(b.target.kind).contains(&c.cause)
                    }) {
                        c.evidence.push(format!(
                            "{} {}/{} could not be read ({}): this command settles it",
                            b.target.kind.as_str(),
                            b.target.namespace,
                            b.target.name,
                            b.status
                                .map_or("no answer".to_owned(), |s| format!("HTTP {s}"))
                        ));
                        let prefix = format!(
                            "kubectl get {} {} -n {}",
                            b.target.kind.as_str(),
                            b.target.name,
                            b.target.namespace
                        );
                        if !c.next_steps.iter().any(|s| s.starts_with(&prefix)) {
                            c.next_steps.insert(0, b.target.kubectl());
                        }
                    }
                }
                rebuild(&mut report, candidates);
            }
            // Keys and the TokenReview last, so its cause ends up in front.
            deepen(&mut report, token, &deeper, evaluated_at, leeway);
            report
        })
        .collect();
    note_disagreement(&mut servers);
    let mut diagnosis = overall(&servers);
    if deeper.replicas {
        replica_dependent(&servers, &mut diagnosis);
    }
    ProbeReport {
        servers,
        endpoints: deeper.endpoints,
        kubeconfig: None,
        bindings,
        diagnosis,
        evaluated_at,
        leeway_seconds: leeway.num_seconds(),
    }
}

fn binding_causes(kind: BindingKind) -> &'static [Cause] {
    match kind {
        BindingKind::ServiceAccount => {
            &[Cause::ServiceAccountRecreated, Cause::ServiceAccountDeleted]
        }
        BindingKind::Pod => &[Cause::PodDeleted],
        BindingKind::Secret => &[Cause::SecretDeleted, Cause::LegacyTokenInvalidated],
    }
}

/// Rebuilds a server's diagnosis from new candidates, keeping its
/// server-level evidence (the anonymous contrast).
fn rebuild(report: &mut ServerReport, candidates: Vec<CauseCandidate>) {
    let extra: Vec<String> = report
        .diagnosis
        .evidence
        .iter()
        .filter(|e| e.starts_with("without the token"))
        .cloned()
        .collect();
    report.diagnosis = Diagnosis::from_candidates(report.diagnosis.classification, candidates);
    report.diagnosis.evidence.extend(extra);
}

/// Merges established causes into the guesses: a guess (low) of the same cause
/// is replaced, a stronger one gains the evidence (the new evidence first);
/// guesses the reads ruled out are dropped; once some cause is established
/// (high), the "unknown" summary goes.
fn integrate(
    candidates: &mut Vec<CauseCandidate>,
    found: Vec<CauseCandidate>,
    ruled_out: &[Cause],
) {
    candidates.retain(|c| !(c.confidence == Confidence::Low && ruled_out.contains(&c.cause)));
    for (i, f) in found.into_iter().enumerate() {
        match candidates.iter().position(|c| c.cause == f.cause) {
            Some(at) => {
                let mut existing = candidates.remove(at);
                let mut steps = f.next_steps.clone();
                for s in &existing.next_steps {
                    if !steps.contains(s) {
                        steps.push(s.clone());
                    }
                }
                let mut evidence = f.evidence.clone();
                if existing.confidence > Confidence::Low {
                    evidence.append(&mut existing.evidence);
                }
                candidates.insert(
                    i.min(candidates.len()),
                    CauseCandidate {
                        cause: f.cause,
                        confidence: f.confidence.max(existing.confidence),
                        evidence,
                        next_steps: steps,
                    },
                );
            }
            None => candidates.insert(i.min(candidates.len()), f),
        }
    }
    if candidates.iter().any(|c| c.confidence == Confidence::High) {
        candidates.retain(|c| c.cause != Cause::Unknown || c.confidence != Confidence::Low);
    }
}

/// The first read of each bound object that says something (any server).
fn read_bindings(
    observations: &[ServerObservation],
    targets: &[BindingTarget],
) -> Vec<BindingCheck> {
    targets
        .iter()
        .filter_map(|t| {
            let path = t.path();
            let reads: Vec<(&ServerObservation, &RequestObservation)> = observations
                .iter()
                .flat_map(|o| o.requests.iter().map(move |r| (o, r)))
                .filter(|(_, r)| r.kind == RequestKind::ReadObject && r.path == path)
                .collect();
            let best = reads
                .iter()
                .find(|(_, r)| {
                    matches!(&r.result, Ok(a) if a.status == 404 || (200..300).contains(&a.status))
                })
                .or(reads.first())?;
            let (o, r) = best;
            let who = if r.operator {
                "the kubeconfig credentials"
            } else {
                "the token"
            };
            let via = format!("{} with {who}", o.url);
            let (status, body) = match &r.result {
                Ok(a) => (Some(a.status), a.json.as_ref()),
                Err(_) => (None, None),
            };
            Some(bindings::check(t, status, body, &via))
        })
        .collect()
}

/// TokenReview and keys for one server.
fn deepen(
    report: &mut ServerReport,
    token: &Token,
    deeper: &Deeper<'_>,
    now: DateTime<Utc>,
    leeway: TimeDelta,
) {
    let url = report.observation.url.clone();
    let find = |kind: RequestKind| {
        report
            .observation
            .requests
            .iter()
            .filter(|r| r.kind == kind)
            .filter_map(|r| r.result.as_ref().ok())
            .find(|a| (200..300).contains(&a.status))
            .cloned()
    };
    let review_answer = report
        .observation
        .requests
        .iter()
        .find(|r| r.kind == RequestKind::TokenReview)
        .and_then(|r| r.result.as_ref().ok())
        .cloned();
    let jwks = find(RequestKind::Jwks);
    let discovery = find(RequestKind::Discovery);
    let rejected = report.classification == Classification::Unauthorized;
    let body = |a: &Option<Answer>| {
        a.as_ref()
            .and_then(|a| a.json.as_ref().map(|j| j.to_string().into_bytes()))
    };
    let keys = keys::analyse(
        body(&jwks).as_deref(),
        body(&discovery).as_deref(),
        deeper.raw,
        token,
        rejected,
        now,
        leeway,
    );
    report.jwks_kids = keys.kids.clone();
    report.issuer = keys.issuer.clone();
    let review = review_answer.map(|a| review::parse(a.status, a.json.as_ref()));
    report.token_review = review.clone();
    if !rejected {
        return;
    }
    let mut found = Vec::new();
    if let Some(outcome) = &review {
        found.extend(review_candidates(outcome, &url));
    }
    let mut candidates = report.diagnosis.candidates.clone();
    if let Some(ReviewOutcome::Authenticated { username, .. }) = &review
        && let Some(top) = candidates.first_mut()
    {
        top.evidence.push(format!(
            "yet a TokenReview on the same server accepts the token now (as {username}): the state changed between the two requests (a binding being deleted or restored, a clock step), so repeat the probe"
        ));
    }
    if let Some(ReviewOutcome::NotAllowed { status, message }) = &review
        && let Some(top) = candidates.first_mut()
    {
        top.evidence.push(format!(
            "TokenReview not possible with the kubeconfig credentials (HTTP {status}{}): they need create tokenreviews (e.g. the system:auth-delegator ClusterRole); continuing without it",
            if message.is_empty() { String::new() } else { format!(": {message}") }
        ));
        top.next_steps
            .push("kubectl auth can-i create tokenreviews.authentication.k8s.io".to_owned());
    }
    let mut keys_found = keys.candidates.clone();
    // Before 1.31 an unknown kid fails the signature check: the JWKS says why.
    if found.iter().any(|c| c.cause == Cause::SignatureInvalid)
        && let Some(key) = keys_found
            .iter_mut()
            .find(|c| c.cause == Cause::KeyMismatch)
        && let Some(at) = found
            .iter()
            .position(|c| c.cause == Cause::SignatureInvalid)
    {
        let sig = found.remove(at);
        let mut evidence = sig.evidence;
        evidence.append(&mut key.evidence);
        evidence.push(
            "servers before 1.31 try every key, so an unknown kid reads as a failed signature"
                .to_owned(),
        );
        key.evidence = evidence;
        found.insert(at, key.clone());
        keys_found.retain(|c| c.cause != Cause::KeyMismatch);
    }
    // Keys first, then the TokenReview, so its causes end up in front: it is
    // the authoritative source (TokenReview > API read > clock > guess).
    integrate(&mut candidates, keys_found, &keys.ruled_out);
    integrate(&mut candidates, found, &[]);
    if candidates.iter().any(|c| c.confidence == Confidence::High) {
        candidates.retain(|c| c.cause != Cause::Unknown || c.confidence != Confidence::Low);
    }
    rebuild(report, candidates);
}

/// TokenReview's `status.error`, parsed: the authoritative cause.
fn review_candidates(outcome: &ReviewOutcome, url: &str) -> Vec<CauseCandidate> {
    let ReviewOutcome::Rejected { error, reasons } = outcome else {
        return Vec::new();
    };
    let mut out: Vec<CauseCandidate> = Vec::new();
    for reason in reasons::specific(reasons) {
        let confidence = if reason.cause == Cause::Unknown {
            Confidence::Medium
        } else {
            Confidence::High
        };
        let mut evidence = vec![
            format!(
                "TokenReview on {url} (with the kubeconfig credentials): status.error {error:?}"
            ),
            format!(
                "wording matched: {} ({}, kube-apiserver {})",
                reason.message,
                reason.kind.as_str(),
                reason.era
            ),
        ];
        if let (Some(live), Some(claim)) = (&reason.values.live_uid, &reason.values.claim_uid) {
            evidence.push(format!("live uid {live}, the token's claim {claim}"));
        }
        match out.iter_mut().find(|c| c.cause == reason.cause) {
            Some(c) => c.evidence.extend(evidence.into_iter().skip(1)),
            None => out.push(CauseCandidate {
                cause: reason.cause,
                confidence,
                evidence,
                next_steps: Vec::new(),
            }),
        }
    }
    out
}

/// `--all-endpoints`: replicas that disagree make the answer depend on which
/// replica a request reaches.
fn replica_dependent(servers: &[ServerReport], diagnosis: &mut Diagnosis) {
    let accepted = servers.iter().any(|s| s.classification.authenticated());
    let rejected = servers
        .iter()
        .any(|s| s.classification == Classification::Unauthorized);
    if !(accepted && rejected) {
        return;
    }
    diagnosis.classification = Classification::ReplicaDependent;
    let mut lines = vec![format!(
        "the replicas disagree: {} of {} reject the token, so a request succeeds or fails depending on the replica the Service sends it to",
        servers
            .iter()
            .filter(|s| s.classification == Classification::Unauthorized)
            .count(),
        servers.len()
    )];
    for s in servers {
        lines.push(format!(
            "replica {}: {} ({})",
            s.observation.url,
            s.classification.as_str(),
            offset_text(s.offset)
        ));
    }
    let kid_sets: Vec<&Vec<String>> = servers
        .iter()
        .filter_map(|s| s.jwks_kids.as_ref())
        .collect();
    if kid_sets.windows(2).any(|w| {
        let mut a = w[0].clone();
        let mut b = w[1].clone();
        a.sort();
        b.sort();
        a != b
    }) {
        for s in servers {
            if let Some(kids) = &s.jwks_kids {
                lines.push(format!(
                    "replica {} serves kids [{}]",
                    s.observation.url,
                    kids.join(", ")
                ));
            }
        }
        lines.push(
            "the replicas publish different keys: a key rotation that reached only some of them"
                .to_owned(),
        );
    }
    let mut evidence = lines;
    evidence.append(&mut diagnosis.evidence);
    diagnosis.evidence = evidence.clone();
    if let Some(top) = diagnosis.candidates.first_mut() {
        top.evidence = evidence;
    }
}

/// Worst first: the classification the overall diagnosis explains.
fn rank(c: Classification) -> u8 {
    match c {
        Classification::Unauthorized => 7,
        Classification::Forbidden => 6,
        Classification::TlsError => 5,
        Classification::NetworkError => 4,
        Classification::ReplicaDependent => 8,
        Classification::OtherStatus => 3,
        Classification::NotFound => 2,
        Classification::Ok => 1,
    }
}

fn cand(cause: Cause, confidence: Confidence) -> CauseCandidate {
    CauseCandidate {
        cause,
        confidence,
        evidence: Vec::new(),
        next_steps: Vec::new(),
    }
}

fn server_report(observation: ServerObservation, token: &Token, leeway: TimeDelta) -> ServerReport {
    let answers: Vec<&Answer> = observation
        .requests
        .iter()
        .filter_map(|r| r.result.as_ref().ok())
        .collect();
    let samples: Vec<DateSample> = answers
        .iter()
        .filter_map(|a| {
            Some(DateSample {
                sent_at: a.sent_at,
                received_at: a.received_at,
                date: a.date?,
            })
        })
        .collect();
    let offset = offset::estimate(&samples);
    let server_time = answers.iter().filter_map(|a| a.date).max();
    let tls = tls_status(&observation);
    let review = observation.requests.iter().find(|r| {
        r.kind == RequestKind::SelfSubjectReview
            && !r.anonymous
            && r.result
                .as_ref()
                .is_ok_and(|a| (200..300).contains(&a.status))
    });
    let user = review
        .and_then(|r| r.result.as_ref().ok())
        .and_then(|a| user_info(a.json.as_ref()?));
    let review_version = review.and_then(|r| r.api_version.clone());

    let (classification, decisive) = classify_server(&observation);
    let ctx = Context {
        observation: &observation,
        token,
        leeway,
        offset,
        user: user.as_ref(),
    };
    let candidates = match (&classification, decisive) {
        (_, Decisive::Transport(error)) => transport_candidates(&error),
        (Classification::Ok, _) => vec![ok_candidate(&ctx, review_version.as_deref())],
        (Classification::NotFound, Decisive::Request(r)) => vec![not_found_candidate(r)],
        (Classification::Forbidden, Decisive::Request(r)) => forbidden_candidates(&ctx, r),
        (Classification::Unauthorized, Decisive::Request(r)) => unauthorized_candidates(&ctx, r),
        (_, Decisive::Request(r)) => vec![other_status_candidate(r)],
        (_, Decisive::Nothing) => vec![{
            let mut c = cand(Cause::Unknown, Confidence::Low);
            c.evidence.push("no request was answered".to_owned());
            c
        }],
    };
    let mut diagnosis = Diagnosis::from_candidates(classification, candidates);
    diagnosis.evidence.extend(anonymous_contrast(&observation));
    ServerReport {
        tls,
        classification,
        user,
        review_version,
        server_time,
        offset,
        token_review: None,
        jwks_kids: None,
        issuer: None,
        diagnosis,
        observation,
    }
}

struct Context<'a> {
    observation: &'a ServerObservation,
    token: &'a Token,
    leeway: TimeDelta,
    offset: Option<OffsetInterval>,
    user: Option<&'a UserInfo>,
}

enum Decisive<'a> {
    Transport(TransportError),
    Request(&'a RequestObservation),
    Nothing,
}

/// The server's classification, from the requests that carried the token, and
/// the request that decided it.
fn classify_server(observation: &ServerObservation) -> (Classification, Decisive<'_>) {
    if let Some(first) = observation.requests.first()
        && let Err(error) = &first.result
    {
        return (transport_class(error), Decisive::Transport(error.clone()));
    }
    let with_token: Vec<&RequestObservation> = observation
        .requests
        .iter()
        .filter(|r| !r.anonymous && !r.operator && r.kind.decides())
        .collect();
    if let Some(error) = with_token.iter().find_map(|r| r.result.as_ref().err()) {
        return (transport_class(error), Decisive::Transport(error.clone()));
    }
    let last_review = with_token
        .iter()
        .rposition(|r| r.kind == RequestKind::SelfSubjectReview);
    let mut worst: Option<(Classification, &RequestObservation)> = None;
    for (i, request) in with_token.iter().enumerate() {
        // Earlier review versions that 404ed were superseded by the next one.
        if request.kind == RequestKind::SelfSubjectReview && Some(i) != last_review {
            continue;
        }
        let class = request_class(request);
        if worst.is_none_or(|(w, _)| rank(class) > rank(w)) {
            worst = Some((class, request));
        }
    }
    match worst {
        Some((class, request)) => (class, Decisive::Request(request)),
        None => (Classification::NetworkError, Decisive::Nothing),
    }
}

fn transport_class(error: &TransportError) -> Classification {
    match error {
        TransportError::Tls { .. } => Classification::TlsError,
        _ => Classification::NetworkError,
    }
}

/// One answered request's class; an access review that says "not allowed" is
/// the authorisation answer "no", as a 403 is.
fn request_class(request: &RequestObservation) -> Classification {
    let Ok(answer) = &request.result else {
        return Classification::NetworkError;
    };
    let class = Classification::from_status(answer.status);
    if class == Classification::Ok
        && request.kind == RequestKind::SelfSubjectAccessReview
        && access_allowed(answer) == Some(false)
    {
        return Classification::Forbidden;
    }
    class
}

fn access_allowed(answer: &Answer) -> Option<bool> {
    answer
        .json
        .as_ref()?
        .get("status")?
        .get("allowed")?
        .as_bool()
}

fn tls_status(observation: &ServerObservation) -> TlsStatus {
    match observation.requests.first().map(|r| &r.result) {
        Some(Ok(_)) => TlsStatus {
            verified: observation.verifies_tls,
            reason: None,
            error: None,
        },
        Some(Err(TransportError::Tls { reason, detail })) => TlsStatus {
            verified: false,
            reason: Some(*reason),
            error: Some(detail.clone()),
        },
        _ => TlsStatus {
            verified: false,
            reason: None,
            error: None,
        },
    }
}

/// `status.userInfo` of a SelfSubjectReview response.
fn user_info(body: &Value) -> Option<UserInfo> {
    let info = body.get("status")?.get("userInfo")?;
    Some(UserInfo {
        username: info.get("username")?.as_str()?.to_owned(),
        uid: info.get("uid").and_then(Value::as_str).map(str::to_owned),
        groups: info
            .get("groups")
            .and_then(Value::as_array)
            .map(|g| {
                g.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        extra: info.get("extra").cloned(),
    })
}

/// `GET /api/v1/…`, or `POST selfsubjectreviews (authentication.k8s.io/v1)`.
fn describe_request(request: &RequestObservation) -> String {
    match &request.api_version {
        Some(version) => format!(
            "{} {} ({version})",
            request.method,
            request.path.rsplit('/').next().unwrap_or(&request.path)
        ),
        None => format!("{} {}", request.method, request.path),
    }
}

fn status_text(answer: &Answer) -> String {
    let body = answer.status_body.as_ref();
    let reason = body.and_then(|b| b.reason.as_deref()).unwrap_or("");
    match body.and_then(|b| b.message.as_deref()) {
        Some(message) if message != reason => format!("{} {reason}: {message}", answer.status),
        _ => format!("{} {reason}", answer.status).trim_end().to_owned(),
    }
}

fn ok_candidate(ctx: &Context<'_>, review_version: Option<&str>) -> CauseCandidate {
    let mut c = cand(Cause::None, Confidence::High);
    match (ctx.user, review_version) {
        (Some(user), Some(version)) => c.evidence.push(format!(
            "authenticated as {} (SelfSubjectReview {version} answered)",
            user.username
        )),
        _ => c
            .evidence
            .push("the requests with the token were answered".to_owned()),
    }
    if let Some(query) = &ctx.observation.access {
        c.evidence.push(format!(
            "SelfSubjectAccessReview: allowed to {} {}",
            query.verb,
            query_target(query)
        ));
    }
    c
}

fn query_target(query: &super::AccessQuery) -> String {
    let mut resource = query.resource.clone();
    if !query.group.is_empty() {
        resource = format!("{resource}.{}", query.group);
    }
    if let Some(sub) = &query.subresource {
        resource = format!("{resource}/{sub}");
    }
    if let Some(name) = &query.name {
        resource = format!("{resource} {name:?}");
    }
    match &query.namespace {
        Some(ns) => format!("{resource} in namespace {ns:?}"),
        None => format!("{resource} at the cluster scope"),
    }
}

fn not_found_candidate(request: &RequestObservation) -> CauseCandidate {
    let mut c = cand(Cause::ObjectNotFound, Confidence::High);
    let answer = request.result.as_ref().ok();
    if request.kind == RequestKind::SelfSubjectReview {
        c.evidence.push(
            "no SelfSubjectReview API (v1, v1beta1 and v1alpha1 all 404): a server before 1.26, or the API is disabled"
                .to_owned(),
        );
    } else {
        c.evidence.push(format!(
            "{}: {}",
            describe_request(request),
            answer.map(status_text).unwrap_or_default()
        ));
    }
    c.evidence.push(
        "the token was accepted and the request authorised (authorisation runs before routing, so a 404 is never an authentication failure); the object does not exist"
            .to_owned(),
    );
    c.next_steps
        .push("check the name, namespace and API group in the path; the token is fine".to_owned());
    c
}

fn other_status_candidate(request: &RequestObservation) -> CauseCandidate {
    let Ok(answer) = &request.result else {
        return cand(Cause::Unknown, Confidence::Low);
    };
    if (300..400).contains(&answer.status) {
        let mut c = cand(Cause::Redirected, Confidence::High);
        c.evidence.push(format!(
            "{}: HTTP {} redirect to {}",
            describe_request(request),
            answer.status,
            answer.location.as_deref().unwrap_or("(no Location)")
        ));
        c.evidence.push(
            "redirects are not followed, so the token was not sent to the new location; kube-apiserver itself does not redirect API requests"
                .to_owned(),
        );
        c.next_steps.push(
            "point --server at the API server itself (kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}'), not a proxy or load-balancer login page"
                .to_owned(),
        );
        return c;
    }
    let mut c = cand(Cause::Unknown, Confidence::Medium);
    c.evidence.push(format!(
        "{}: HTTP {}: not an authentication answer",
        describe_request(request),
        status_text(answer)
    ));
    c.next_steps.push(
        "retry later; 429 is API Priority and Fairness throttling, 5xx a server-side failure"
            .to_owned(),
    );
    c
}

fn transport_candidates(error: &TransportError) -> Vec<CauseCandidate> {
    let (cause, confidence, steps): (Cause, Confidence, &[&str]) = match error {
        TransportError::Tls { reason, .. } => match reason {
            TlsReason::UnknownCa => (
                Cause::TlsUntrustedCa,
                Confidence::High,
                &[
                    "pass the cluster's CA with --cacert: in a pod /var/run/secrets/kubernetes.io/serviceaccount/ca.crt; from a laptop: kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d > ca.crt",
                ],
            ),
            TlsReason::NameMismatch => (
                Cause::TlsNameMismatch,
                Confidence::High,
                &[
                    "connect by a name or IP in the certificate; list them: openssl s_client -connect HOST:PORT </dev/null | openssl x509 -noout -ext subjectAltName",
                ],
            ),
            TlsReason::Expired | TlsReason::NotYetValid => (
                Cause::TlsCertificateExpired,
                Confidence::High,
                &[
                    "check the certificate dates (openssl s_client -connect HOST:PORT </dev/null | openssl x509 -noout -dates) and this machine's clock; renew with kubeadm certs renew all on kubeadm clusters",
                ],
            ),
            TlsReason::Other => (Cause::TlsOther, Confidence::Medium, &[]),
        },
        TransportError::Dns(_) => (
            Cause::DnsFailure,
            Confidence::High,
            &[
                "check the host name; inside a pod use $KUBERNETES_SERVICE_HOST or kubernetes.default.svc",
            ],
        ),
        TransportError::Refused(_) => (
            Cause::ConnectionRefused,
            Confidence::High,
            &[
                "check the port and that the API server is running (kube-apiserver listens on 6443 by default; the kubernetes Service on 443)",
            ],
        ),
        TransportError::Timeout(_) => (
            Cause::Timeout,
            Confidence::High,
            &[
                "check network policies and firewalls between here and the server, or raise --timeout",
            ],
        ),
        TransportError::BodyTooLarge { .. } | TransportError::Other(_) => {
            (Cause::Unknown, Confidence::Medium, &[])
        }
    };
    let mut c = cand(cause, confidence);
    c.evidence.push(error.to_string());
    if matches!(error, TransportError::Tls { .. }) {
        c.evidence
            .push("the TLS handshake failed before any request: the token was not sent".to_owned());
    }
    c.next_steps.extend(steps.iter().map(|s| (*s).to_owned()));
    vec![c]
}

fn forbidden_candidates(ctx: &Context<'_>, request: &RequestObservation) -> Vec<CauseCandidate> {
    let Ok(answer) = &request.result else {
        return Vec::new();
    };
    if request.kind == RequestKind::SelfSubjectAccessReview && (200..300).contains(&answer.status) {
        return vec![access_denied_candidate(ctx, answer)];
    }
    let message = answer
        .status_body
        .as_ref()
        .and_then(|b| b.message.as_deref())
        .unwrap_or("");
    let Some(forbidden) = Forbidden::parse(message) else {
        let mut c = cand(Cause::RbacDenied, Confidence::Medium);
        c.evidence.push(format!(
            "{}: {} (message not in kube-apiserver's format)",
            describe_request(request),
            status_text(answer)
        ));
        return vec![c];
    };
    if forbidden.is_anonymous() {
        let mut c = cand(Cause::TokenNotSent, Confidence::Medium);
        c.evidence
            .push(format!("{}: {message}", describe_request(request)));
        c.evidence.push(
            "the request carried the token, yet the server saw system:anonymous: the Authorization header did not arrive as a bearer token (a present but invalid token always gets 401, never anonymous)"
                .to_owned(),
        );
        c.next_steps.push(
            "look for a proxy or ingress between here and the API server that strips Authorization; check the header is exactly `Authorization: Bearer <token>` (one space, non-empty token)"
                .to_owned(),
        );
        return vec![c];
    }
    let role_missing = forbidden
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("RBAC") && r.contains("not found"));
    let mut c = cand(
        if role_missing {
            Cause::RbacRoleMissing
        } else {
            Cause::RbacDenied
        },
        Confidence::High,
    );
    c.evidence
        .push(format!("{}: {message}", describe_request(request)));
    c.evidence.push(format!(
        "the token was accepted (user {}); RBAC allows no {} here",
        forbidden.user, forbidden.verb
    ));
    if role_missing && let Some(reason) = &forbidden.reason {
        c.evidence.push(format!(
            "a binding names a role that does not exist: {reason}"
        ));
    }
    c.next_steps.extend(forbidden.grant_commands());
    c.next_steps.extend(can_i(&forbidden));
    vec![c]
}

fn access_denied_candidate(ctx: &Context<'_>, answer: &Answer) -> CauseCandidate {
    let query = ctx.observation.access.clone().unwrap_or_default();
    let status = answer.json.as_ref().and_then(|j| j.get("status"));
    let text = |key: &str| {
        status
            .and_then(|s| s.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let user = ctx
        .user
        .map(|u| u.username.clone())
        .or_else(|| ctx.token.claims.subject.clone())
        .unwrap_or_default();
    let forbidden = Forbidden {
        user: user.clone(),
        verb: query.verb.clone(),
        resource: Some(query.resource.clone()),
        subresource: query.subresource.clone(),
        api_group: Some(query.group.clone()),
        namespace: query.namespace.clone(),
        name: query.name.clone(),
        path: None,
        reason: text("reason"),
    };
    let mut c = cand(Cause::RbacDenied, Confidence::High);
    c.evidence.push(format!(
        "SelfSubjectAccessReview: {user} may not {} {}{}",
        query.verb,
        query_target(&query),
        text("reason")
            .map(|r| format!(" (reason: {r})"))
            .unwrap_or_default()
    ));
    if let Some(error) = text("evaluationError") {
        c.evidence.push(format!("evaluation error: {error}"));
    }
    c.next_steps.extend(forbidden.grant_commands());
    c.next_steps.extend(can_i(&forbidden));
    c
}

/// `kubectl auth can-i` to re-check after granting.
fn can_i(f: &Forbidden) -> Option<String> {
    let resource = f.resource.as_ref()?;
    let mut target = resource.clone();
    if let Some(group) = f.api_group.as_deref().filter(|g| !g.is_empty()) {
        target = format!("{target}.{group}");
    }
    if let Some(sub) = &f.subresource {
        target = format!("{target}/{sub}");
    }
    if let Some(name) = &f.name {
        target = format!("{target}/{name}");
    }
    let ns = f
        .namespace
        .as_deref()
        .map(|n| format!(" -n {n}"))
        .unwrap_or_default();
    Some(format!(
        "kubectl auth can-i {} {target} --as={}{ns}",
        f.verb, f.user
    ))
}

fn unauthorized_candidates(ctx: &Context<'_>, request: &RequestObservation) -> Vec<CauseCandidate> {
    let Ok(answer) = &request.result else {
        return Vec::new();
    };
    let token = ctx.token;
    let what = format!("{}: {}", describe_request(request), status_text(answer));
    let (kind, _) = crate::token::kind::classify(&token.claims);
    let mut out = Vec::new();
    let mut time_note = None;
    if kind == TokenKind::LegacySecret {
        time_note = Some(
            "legacy Secret tokens are never time-checked (pkg/serviceaccount/legacy.go): time is not the cause"
                .to_owned(),
        );
    } else {
        match time_candidate(ctx, answer) {
            Ok(candidate) => {
                let mut candidate = candidate;
                candidate.evidence.insert(0, what.clone());
                out.push(candidate);
            }
            Err(note) => time_note = Some(note),
        }
    }
    if let Some(note) = time_note {
        let mut c = cand(Cause::Unknown, Confidence::Low);
        c.evidence.push(what);
        c.evidence.push(note);
        c.evidence.push(
            "a 401 body never says why (the reason is only in the API server log and in a TokenReview): the candidates below all fit"
                .to_owned(),
        );
        c.next_steps.push(
            "on the control plane, the log line \"Unable to authenticate the request\" carries the reason the 401 body omits"
                .to_owned(),
        );
        c.next_steps.push(
            "or ask the API server for the reason, as a kubeconfig identity allowed to create tokenreviews: kubectl satoken probe -f TOKEN-FILE --token-review"
                .to_owned(),
        );
        out.push(c);
    }
    out.extend(binding_candidates(token));
    out.extend(key_candidates(token));
    out
}

/// The go-jose window on the server's clock at the moment of the request.
fn time_candidate(ctx: &Context<'_>, answer: &Answer) -> Result<CauseCandidate, String> {
    let claims = TimeClaims::from(&ctx.token.claims);
    let mid = answer.sent_at + (answer.received_at - answer.sent_at) / 2;
    let (low, high, measured) = match ctx.offset {
        Some(o) => (mid + o.low, mid + o.high, true),
        None => (mid, mid, false),
    };
    let estimate = low + (high - low) / 2;
    let leeway = ctx.leeway;
    let at_low = window::judge(claims, low, leeway);
    let at_high = window::judge(claims, high, leeway);
    let at_estimate = window::judge(claims, estimate, leeway);
    let (start, end) = window::window(claims, leeway);
    let clock_text = match ctx.offset {
        Some(o) => format!(
            "this server's clock read about {} when it answered ({:+.1} s ± {:.1} s from this machine, from its Date headers)",
            rfc3339(trim(estimate)),
            o.estimate_seconds(),
            o.uncertainty_seconds()
        ),
        None => format!(
            "{}; judged on this machine's clock ({})",
            answer.date_problem(),
            rfc3339(trim(estimate))
        ),
    };
    let verdicts = [at_low.verdict, at_high.verdict];
    let rejected = verdicts.iter().find(|v| **v != Verdict::Accept).copied();
    let Some(verdict) = rejected else {
        let window_text = format!(
            "[{}, {}]",
            start.map_or("-".to_owned(), rfc3339),
            end.map_or("never".to_owned(), rfc3339)
        );
        return Err(format!(
            "time is not the cause: {clock_text}, inside the token's accepted window {window_text} (leeway {} s)",
            leeway.num_seconds()
        ));
    };
    let certain = measured && verdicts.iter().all(|v| *v == verdict);
    let confidence = if certain {
        Confidence::Medium
    } else {
        Confidence::Low
    };
    let cause = match verdict {
        Verdict::RejectExpired => Cause::Expired,
        _ => Cause::ClockSkew,
    };
    let mut c = cand(cause, confidence);
    c.evidence.push(clock_text);
    let claim = |s: Option<i64>| s.map_or("-".to_owned(), |s| rfc3339(window::at_seconds(s)));
    match verdict {
        Verdict::RejectExpired => {
            c.evidence.push(format!(
                "the token expired at {} (exp); with the {} s leeway that server rejects it since {}, for {} s now: it logs \"service account token has expired\"",
                claim(claims.expires_at),
                leeway.num_seconds(),
                end.map_or("-".to_owned(), rfc3339),
                at_estimate.rejected_for.map_or(0, floor_seconds).max(0)
            ));
            c.next_steps.push(
                "get a fresh token: kubectl create token NAME -n NAMESPACE; in a pod the kubelet rotates the projected token, so make the client re-read the token file (client-go does every minute)"
                    .to_owned(),
            );
        }
        _ => {
            let what = if verdict == Verdict::RejectIssuedInFuture {
                format!("issued at {} (iat, no nbf)", claim(claims.issued_at))
            } else {
                format!("not valid before {} (nbf)", claim(claims.not_before))
            };
            let wait = at_estimate.accepted_in.map(ceil_seconds);
            c.evidence.push(format!(
                "the token is {what}; with the {} s leeway that server accepts it from {}{}: it logs \"{}\"",
                leeway.num_seconds(),
                start.map_or("-".to_owned(), rfc3339),
                wait.map(|w| format!(", in about {w} s")).unwrap_or_default(),
                verdict.server_message().unwrap_or_default()
            ));
            c.evidence.push(
                "the token was minted on a clock ahead of this server's (another API server, or this one before its clock stepped back)"
                    .to_owned(),
            );
            c.next_steps.push(
                "compare the API servers' clocks (each identity Lease is renewed on its own server's clock): kubectl get leases -n kube-system -l apiserver.kubernetes.io/identity=kube-apiserver -o custom-columns=NAME:.metadata.name,RENEWED:.spec.renewTime"
                    .to_owned(),
            );
            c.next_steps.push(format!(
                "fix time sync (chronyc tracking / timedatectl) on the control-plane node behind {}",
                ctx.observation.url
            ));
            if let Some(w) = wait.filter(|w| *w > 0) {
                c.next_steps.push(format!(
                    "or retry in {w} s, when this server's clock catches up"
                ));
            }
        }
    }
    if !certain {
        c.evidence.push(if measured {
            "borderline: inside the measurement uncertainty only one end of the interval rejects the token".to_owned()
        } else {
            "without a Date header the server's clock is unknown".to_owned()
        });
    }
    Ok(c)
}

fn trim(at: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(at.timestamp(), 0).unwrap_or(at)
}

/// The bindings a 401 can come from, each with the uid to compare and the
/// command that prints the live one (pkg/serviceaccount/claims.go, legacy.go).
fn binding_candidates(token: &Token) -> Vec<CauseCandidate> {
    let claims = &token.claims;
    let ns = claims.namespace().unwrap_or("NAMESPACE").to_owned();
    let uid_command = |kind: &str, name: &str| {
        format!("kubectl get {kind} {name} -n {ns} -o jsonpath='{{.metadata.uid}}'")
    };
    let mut out = Vec::new();
    if let Some(sa) = claims.service_account() {
        let name = sa.name.clone().unwrap_or_else(|| "NAME".to_owned());
        let uid = sa
            .uid
            .clone()
            .unwrap_or_else(|| "(none in the token)".to_owned());
        let mut recreated = cand(Cause::ServiceAccountRecreated, Confidence::Low);
        recreated.evidence.push(format!(
            "the token names ServiceAccount {ns}/{name} with uid {uid}; a ServiceAccount deleted and recreated under the same name gets a new uid, and the old tokens fail with \"service account UID (NEW) does not match claim (OLD)\""
        ));
        recreated.next_steps.push(format!(
            "{}   # must print {uid}",
            uid_command("serviceaccount", &name)
        ));
        out.push(recreated);
        let mut deleted = cand(Cause::ServiceAccountDeleted, Confidence::Low);
        deleted.evidence.push(format!(
            "if ServiceAccount {ns}/{name} no longer exists, every token for it is rejected (serviceaccounts \"{name}\" not found)"
        ));
        deleted
            .next_steps
            .push(format!("kubectl get serviceaccount {name} -n {ns}"));
        out.push(deleted);
    }
    let k8s = claims.kubernetes.as_ref();
    if let Some(pod) = k8s.and_then(|k| k.pod.clone()) {
        let name = pod.name.unwrap_or_else(|| "NAME".to_owned());
        let uid = pod.uid.unwrap_or_else(|| "(none in the token)".to_owned());
        let mut c = cand(Cause::PodDeleted, Confidence::Low);
        c.evidence.push(format!(
            "the token is bound to pod {ns}/{name} uid {uid}: it dies with that pod (deleted, or recreated under the same name)"
        ));
        c.next_steps.push(format!(
            "{}   # must print {uid}",
            uid_command("pod", &name)
        ));
        out.push(c);
    }
    if let Some(secret) = claims.secret() {
        let name = secret.name.unwrap_or_else(|| "NAME".to_owned());
        let mut c = cand(Cause::SecretDeleted, Confidence::Low);
        match secret.uid {
            Some(uid) => {
                c.evidence.push(format!(
                    "the token is bound to Secret {ns}/{name} uid {uid}: it dies with that Secret"
                ));
                c.next_steps.push(format!(
                    "{}   # must print {uid}",
                    uid_command("secret", &name)
                ));
            }
            None => {
                c.evidence.push(format!(
                    "the legacy token lives in Secret {ns}/{name}: deleting the Secret invalidates it"
                ));
                c.next_steps
                    .push(format!("kubectl get secret {name} -n {ns}"));
            }
        }
        out.push(c);
        if claims.legacy.is_some() {
            let mut c = cand(Cause::LegacyTokenInvalidated, Confidence::Low);
            c.evidence.push(format!(
                "the legacy token cleaner may have labelled Secret {ns}/{name} kubernetes.io/legacy-token-invalid-since (1.29+)"
            ));
            c.next_steps.push(format!(
                "kubectl get secret {name} -n {ns} -o jsonpath='{{.metadata.labels.kubernetes\\.io/legacy-token-invalid-since}}'"
            ));
            out.push(c);
        }
    }
    if let Some(node) = k8s.filter(|k| k.pod.is_none()).and_then(|k| k.node.clone()) {
        let name = node.name.unwrap_or_else(|| "NAME".to_owned());
        let uid = node.uid.unwrap_or_else(|| "(none in the token)".to_owned());
        let mut c = cand(Cause::NodeDeleted, Confidence::Low);
        c.evidence.push(format!(
            "the token is bound to node {name} uid {uid}: it dies with that Node object"
        ));
        c.next_steps.push(format!(
            "kubectl get node {name} -o jsonpath='{{.metadata.uid}}'   # must print {uid}"
        ));
        out.push(c);
    }
    out
}

/// Key, issuer and audience: a token from another cluster or a rotated key.
fn key_candidates(token: &Token) -> Vec<CauseCandidate> {
    let claims = &token.claims;
    let mut key = cand(Cause::KeyMismatch, Confidence::Low);
    key.evidence.push(format!(
        "the token was signed with key id {}; if the server no longer has that key (rotated, or another cluster) it is rejected",
        token.header.kid.as_deref().filter(|k| !k.is_empty()).unwrap_or("(none)")
    ));
    key.next_steps
        .push("kubectl get --raw /openid/v1/jwks   # the kid must be listed".to_owned());
    let mut issuer = cand(Cause::IssuerMismatch, Confidence::Low);
    issuer.evidence.push(format!(
        "the token's issuer is {}; it must be one of the server's --service-account-issuer values",
        claims.issuer.as_deref().unwrap_or("(none)")
    ));
    issuer.next_steps.push(
        "kubectl get --raw /.well-known/openid-configuration   # shows the first issuer".to_owned(),
    );
    let mut audience = cand(Cause::AudienceMismatch, Confidence::Low);
    audience.evidence.push(format!(
        "the token's audiences are [{}]; at least one must be among the server's API audiences",
        claims.audiences.join(", ")
    ));
    audience.next_steps.push(
        "kubectl create token default --duration 10m | kubectl satoken decode   # a fresh token's aud is what the server expects"
            .to_owned(),
    );
    vec![key, issuer, audience]
}

/// What the requests without the token got (`--anonymous`).
fn anonymous_contrast(observation: &ServerObservation) -> Vec<String> {
    observation
        .requests
        .iter()
        .filter(|r| r.anonymous && r.kind.decides())
        .filter_map(|r| {
            let answer = r.result.as_ref().ok()?;
            // Superseded review versions say nothing new.
            if r.kind == RequestKind::SelfSubjectReview && answer.status == 404 {
                return None;
            }
            let message = answer
                .status_body
                .as_ref()
                .and_then(|b| b.message.as_deref())
                .unwrap_or("");
            let meaning = match answer.status {
                401 => "anonymous authentication is off on this server".to_owned(),
                403 => match Forbidden::parse(message) {
                    Some(f) if f.is_anonymous() => {
                        "as system:anonymous: anonymous authentication is on, and only the token identifies you".to_owned()
                    }
                    _ => "forbidden".to_owned(),
                },
                s if (200..300).contains(&s) => "answered without credentials".to_owned(),
                _ => String::new(),
            };
            Some(format!(
                "without the token, {}: HTTP {} {meaning}",
                describe_request(r),
                answer.status
            ))
        })
        .collect()
}

/// One 401 next to servers that accepted the same token.
fn note_disagreement(servers: &mut [ServerReport]) {
    let accepted: Vec<String> = servers
        .iter()
        .filter(|s| s.classification.authenticated())
        .map(|s| {
            format!(
                "{} accepted the token ({})",
                s.observation.url,
                offset_text(s.offset)
            )
        })
        .collect();
    if accepted.is_empty() {
        return;
    }
    for server in servers
        .iter_mut()
        .filter(|s| s.classification == Classification::Unauthorized)
    {
        let line = format!(
            "the servers disagree: {}, {} rejected it ({}): the strongest sign of clock skew between API servers",
            accepted.join(", "),
            server.observation.url,
            offset_text(server.offset)
        );
        let mut candidates = server.diagnosis.candidates.clone();
        match candidates.iter_mut().find(|c| c.cause == Cause::ClockSkew) {
            Some(skew) => skew.evidence.push(line),
            None => {
                let mut c = cand(Cause::ClockSkew, Confidence::Low);
                c.evidence.push(line);
                c.evidence.push(
                    "yet the measured offsets keep the token inside its window on the rejecting server: a replica with other signing keys or issuers fits as well"
                        .to_owned(),
                );
                // After the summary candidate, before the generic ones.
                let at = usize::from(
                    candidates
                        .first()
                        .is_some_and(|c| c.cause == Cause::Unknown),
                );
                candidates.insert(at, c);
            }
        }
        let extra: Vec<String> = server
            .diagnosis
            .evidence
            .iter()
            .filter(|e| e.starts_with("without the token"))
            .cloned()
            .collect();
        server.diagnosis = Diagnosis::from_candidates(server.diagnosis.classification, candidates);
        server.diagnosis.evidence.extend(extra);
    }
}

fn offset_text(offset: Option<OffsetInterval>) -> String {
    match offset {
        Some(o) => format!(
            "clock {:+.1} s ± {:.1} s",
            o.estimate_seconds(),
            o.uncertainty_seconds()
        ),
        None => "clock unknown".to_owned(),
    }
}

/// The run's diagnosis: the worst class among the servers, with the candidates
/// of every server in that class (merged by cause); the other servers are named
/// in the evidence.
fn overall(servers: &[ServerReport]) -> Diagnosis {
    let Some(worst) = servers
        .iter()
        .map(|s| s.classification)
        .max_by_key(|c| rank(*c))
    else {
        return Diagnosis::from_candidates(Classification::NetworkError, Vec::new());
    };
    let several = servers.len() > 1;
    let mut merged: Vec<CauseCandidate> = Vec::new();
    let mut extra_evidence = Vec::new();
    for server in servers {
        let prefix = |text: &String| {
            if several {
                format!("{}: {text}", server.observation.url)
            } else {
                text.clone()
            }
        };
        if server.classification != worst {
            extra_evidence.push(format!(
                "{}: {}{}",
                server.observation.url,
                server.classification.as_str(),
                server
                    .user
                    .as_ref()
                    .map(|u| format!(" as {}", u.username))
                    .unwrap_or_default()
            ));
            continue;
        }
        for c in &server.diagnosis.candidates {
            let evidence: Vec<String> = c.evidence.iter().map(prefix).collect();
            match merged.iter_mut().find(|m| m.cause == c.cause) {
                Some(m) => {
                    m.confidence = m.confidence.max(c.confidence);
                    m.evidence.extend(evidence);
                    for step in &c.next_steps {
                        if !m.next_steps.contains(step) {
                            m.next_steps.push(step.clone());
                        }
                    }
                }
                None => merged.push(CauseCandidate {
                    evidence,
                    ..c.clone()
                }),
            }
        }
        // Server-level evidence (the anonymous contrast) goes to the top candidate.
        let top_evidence: Vec<String> = server
            .diagnosis
            .evidence
            .iter()
            .filter(|e| e.starts_with("without the token"))
            .map(prefix)
            .collect();
        extra_evidence.extend(top_evidence);
    }
    let mut diagnosis = Diagnosis::from_candidates(worst, merged);
    diagnosis.evidence.extend(extra_evidence);
    diagnosis
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{AccessQuery, StatusBody};
    use crate::secret::SecretToken;
    use std::time::Duration;

    const NOW: i64 = 1_767_225_600;

    fn at(offset_ms: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(NOW, 0).unwrap() + TimeDelta::milliseconds(offset_ms)
    }

    /// Unsigned test token with the given claims (signature irrelevant here).
    fn token(claims: Value) -> Token {
        use base64::Engine as _;
        let b64 = |v: &Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
        };
        let header = serde_json::json!({"alg": "RS256", "kid": "k1"});
        let text = format!("{}.{}.c2ln", b64(&header), b64(&claims));
        crate::token::parse(&SecretToken::new(text)).unwrap()
    }

    fn bound(nbf: i64, exp: i64) -> Token {
        token(serde_json::json!({
            "aud": ["https://kubernetes.default.svc"], "iss": "https://kubernetes.default.svc",
            "sub": "system:serviceaccount:shop:checkout", "nbf": nbf, "iat": nbf, "exp": exp,
            "kubernetes.io": {"namespace": "shop",
                "serviceaccount": {"name": "checkout", "uid": "uid-old"},
                "pod": {"name": "web-0", "uid": "pod-uid"}}
        }))
    }

    fn answer(status: u16, date_offset_s: i64, body: Value) -> Answer {
        let status_body = (body.get("kind") == Some(&Value::from("Status"))).then(|| StatusBody {
            reason: body
                .get("reason")
                .and_then(Value::as_str)
                .map(str::to_owned),
            message: body
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
            details: None,
        });
        Answer {
            status,
            status_body,
            json: Some(body),
            date: Some(DateTime::from_timestamp(NOW + date_offset_s, 0).unwrap()),
            malformed_date: None,
            location: None,
            sent_at: at(0),
            received_at: at(100),
            latency: Duration::from_millis(100),
        }
    }

    fn request(kind: RequestKind, anonymous: bool, answer: Answer) -> RequestObservation {
        RequestObservation {
            kind,
            method: "POST",
            path: "/x".to_owned(),
            anonymous,
            operator: false,
            api_version: None,
            result: Ok(answer),
        }
    }

    fn server(url: &str, requests: Vec<RequestObservation>) -> ServerObservation {
        ServerObservation {
            url: url.to_owned(),
            verifies_tls: true,
            requests,
            access: None,
            verify_name: None,
        }
    }

    fn unauthorized() -> Value {
        serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
    }

    fn review() -> Value {
        serde_json::json!({"status": {"userInfo": {"username": "system:serviceaccount:shop:checkout",
            "uid": "uid-old", "groups": ["system:authenticated"]}}})
    }

    fn probe(servers: Vec<ServerObservation>, token: &Token) -> ProbeReport {
        analyse(servers, token, at(0), TimeDelta::seconds(60))
    }

    #[test]
    fn a_server_90s_behind_rejects_a_fresh_token_as_clock_skew() {
        let token = bound(NOW, NOW + 3600);
        let behind = server(
            "https://b",
            vec![
                request(RequestKind::Version, true, answer(200, -90, review())),
                request(
                    RequestKind::SelfSubjectReview,
                    false,
                    answer(401, -90, unauthorized()),
                ),
            ],
        );
        let fine = server(
            "https://a",
            vec![
                request(RequestKind::Version, true, answer(200, 0, review())),
                request(
                    RequestKind::SelfSubjectReview,
                    false,
                    answer(201, 0, review()),
                ),
            ],
        );
        let report = probe(vec![fine, behind], &token);
        assert_eq!(report.servers[0].classification, Classification::Ok);
        assert_eq!(
            report.servers[1].classification,
            Classification::Unauthorized
        );
        let d = &report.diagnosis;
        assert_eq!(d.classification, Classification::Unauthorized);
        assert_eq!(d.cause, Cause::ClockSkew);
        assert_eq!(d.confidence, Confidence::Medium);
        let text = d.evidence.join("\n");
        assert!(
            text.contains("(-89.5 s ± 0.6 s from this machine"),
            "{text}"
        );
        assert!(text.contains("servers disagree"), "{text}");
        assert!(text.contains("in about 30 s"), "{text}");
    }

    #[test]
    fn expired_on_the_servers_clock() {
        let token = bound(NOW - 7200, NOW - 3600);
        let s = server(
            "https://a",
            vec![request(
                RequestKind::SelfSubjectReview,
                false,
                answer(401, 0, unauthorized()),
            )],
        );
        let d = probe(vec![s], &token).diagnosis;
        assert_eq!(d.cause, Cause::Expired);
        assert!(
            d.evidence.join(" ").contains("for 3540 s"),
            "{:?}",
            d.evidence
        );
    }

    #[test]
    fn a_401_in_time_lists_bindings_and_keys_with_low_confidence() {
        let token = bound(NOW - 60, NOW + 3600);
        let s = server(
            "https://a",
            vec![request(
                RequestKind::SelfSubjectReview,
                false,
                answer(401, 0, unauthorized()),
            )],
        );
        let d = probe(vec![s], &token).diagnosis;
        assert_eq!(d.cause, Cause::Unknown);
        assert_eq!(d.confidence, Confidence::Low);
        let causes: Vec<Cause> = d.candidates.iter().map(|c| c.cause).collect();
        for cause in [
            Cause::ServiceAccountRecreated,
            Cause::PodDeleted,
            Cause::KeyMismatch,
            Cause::AudienceMismatch,
        ] {
            assert!(causes.contains(&cause), "{causes:?}");
        }
        assert!(d.candidates.iter().all(|c| c.confidence == Confidence::Low));
        let sa = d
            .candidates
            .iter()
            .find(|c| c.cause == Cause::ServiceAccountRecreated)
            .unwrap();
        assert!(sa.evidence[0].contains("uid-old"));
        assert_eq!(
            sa.next_steps[0],
            "kubectl get serviceaccount checkout -n shop -o jsonpath='{.metadata.uid}'   # must print uid-old"
        );
    }

    #[test]
    fn forbidden_anonymous_and_access_review() {
        let token = bound(NOW - 60, NOW + 3600);
        let forbidden = |user: &str| {
            serde_json::json!({"kind": "Status", "message": format!(
                "pods is forbidden: User \"{user}\" cannot list resource \"pods\" in API group \"\" in the namespace \"shop\""),
                "reason": "Forbidden", "code": 403})
        };
        let s = server(
            "https://a",
            vec![request(
                RequestKind::Get,
                false,
                answer(403, 0, forbidden("system:serviceaccount:shop:checkout")),
            )],
        );
        let d = probe(vec![s], &token).diagnosis;
        assert_eq!(
            (d.cause, d.confidence),
            (Cause::RbacDenied, Confidence::High)
        );
        assert!(d.next_steps[0].starts_with("kubectl create role checkout-list-pods"));
        let s = server(
            "https://a",
            vec![request(
                RequestKind::Get,
                false,
                answer(403, 0, forbidden("system:anonymous")),
            )],
        );
        assert_eq!(probe(vec![s], &token).diagnosis.cause, Cause::TokenNotSent);
        let mut s = server(
            "https://a",
            vec![
                request(
                    RequestKind::SelfSubjectReview,
                    false,
                    answer(201, 0, review()),
                ),
                request(
                    RequestKind::SelfSubjectAccessReview,
                    false,
                    answer(201, 0, serde_json::json!({"status": {"allowed": false}})),
                ),
            ],
        );
        s.access = Some(AccessQuery {
            verb: "get".into(),
            resource: "configmaps".into(),
            namespace: Some("shop".into()),
            ..AccessQuery::default()
        });
        let d = probe(vec![s], &token).diagnosis;
        assert_eq!(d.classification, Classification::Forbidden);
        assert_eq!(
            d.next_steps[0],
            "kubectl create role checkout-get-configmaps --verb=get --resource=configmaps -n shop"
        );
    }

    #[test]
    fn legacy_tokens_are_never_judged_on_time() {
        // Legacy Secret tokens carry no exp; pkg/serviceaccount/legacy.go never checks time.
        let token = token(serde_json::json!({
            "iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:shop:old",
            "kubernetes.io/serviceaccount/namespace": "shop",
            "kubernetes.io/serviceaccount/secret.name": "old-token-x1",
            "kubernetes.io/serviceaccount/service-account.name": "old",
            "kubernetes.io/serviceaccount/service-account.uid": "uid-1"
        }));
        let s = server(
            "https://a",
            vec![request(
                RequestKind::SelfSubjectReview,
                false,
                answer(401, 0, unauthorized()),
            )],
        );
        let report = probe(vec![s], &token);
        let d = &report.diagnosis;
        assert_eq!(d.cause, Cause::Unknown);
        assert!(d.evidence.join(" ").contains("never time-checked"));
        let causes: Vec<Cause> = d.candidates.iter().map(|c| c.cause).collect();
        assert!(causes.contains(&Cause::SecretDeleted), "{causes:?}");
        assert!(
            causes.contains(&Cause::LegacyTokenInvalidated),
            "{causes:?}"
        );
        assert!(!causes.contains(&Cause::ClockSkew));
        assert_eq!(
            crate::probe::outcome(&report),
            crate::exit::Outcome::Problem
        );
    }

    #[test]
    fn not_found_is_authenticated_and_transport_errors_are_typed() {
        let token = bound(NOW - 60, NOW + 3600);
        let s = server(
            "https://a",
            vec![
                request(
                    RequestKind::SelfSubjectReview,
                    false,
                    answer(201, 0, review()),
                ),
                request(
                    RequestKind::Get,
                    false,
                    answer(
                        404,
                        0,
                        serde_json::json!({"kind": "Status", "reason": "NotFound", "message": "pods \"x\" not found"}),
                    ),
                ),
            ],
        );
        let d = probe(vec![s], &token).diagnosis;
        assert_eq!(
            (d.classification, d.cause),
            (Classification::NotFound, Cause::ObjectNotFound)
        );
        let mut s = server("https://a", vec![]);
        s.requests.push(RequestObservation {
            kind: RequestKind::Version,
            method: "GET",
            path: "/version".into(),
            anonymous: true,
            operator: false,
            api_version: None,
            result: Err(TransportError::Tls {
                reason: TlsReason::UnknownCa,
                detail: "invalid peer certificate: UnknownIssuer".into(),
            }),
        });
        let report = probe(vec![s], &token);
        assert_eq!(
            crate::probe::outcome(&report),
            crate::exit::Outcome::Unreachable
        );
        assert_eq!(report.diagnosis.cause, Cause::TlsUntrustedCa);
        assert_eq!(report.servers[0].tls.reason, Some(TlsReason::UnknownCa));
        assert!(!report.servers[0].tls.verified);
    }

    fn side(kind: RequestKind, path: &str, answer: Answer) -> RequestObservation {
        RequestObservation {
            kind,
            method: "GET",
            path: path.to_owned(),
            anonymous: false,
            operator: true,
            api_version: None,
            result: Ok(answer),
        }
    }

    fn deeper_probe(servers: Vec<ServerObservation>, token: &Token, replicas: bool) -> ProbeReport {
        let deeper = Deeper {
            raw: None,
            replicas,
            endpoints: None,
            bindings: bindings::targets(token),
        };
        analyse_deeper(servers, token, deeper, at(0), TimeDelta::seconds(60))
    }

    #[test]
    fn token_review_and_reads_outrank_guesses_without_repeating_causes() {
        let token = bound(NOW - 60, NOW + 3600);
        let rejected = || {
            request(
                RequestKind::SelfSubjectReview,
                false,
                answer(401, 0, unauthorized()),
            )
        };
        let sa_path = "/api/v1/namespaces/shop/serviceaccounts/checkout";
        let sa_read = || {
            side(
                RequestKind::ReadObject,
                sa_path,
                answer(
                    200,
                    0,
                    serde_json::json!({"metadata": {"name": "checkout", "uid": "uid-new"}}),
                ),
            )
        };
        let review = side(
            RequestKind::TokenReview,
            "/apis/authentication.k8s.io/v1/tokenreviews",
            answer(
                201,
                0,
                serde_json::json!({"status": {"user": {}, "error":
                    "[invalid bearer token, ServiceAccount UID (uid-new) does not match claim (uid-old)]"}}),
            ),
        );
        let confidence = |r: &ProbeReport| {
            r.diagnosis
                .candidates
                .iter()
                .find(|c| c.cause == Cause::ServiceAccountRecreated)
                .map(|c| c.confidence)
        };
        let guess = deeper_probe(vec![server("https://a", vec![rejected()])], &token, false);
        let read = deeper_probe(
            vec![server("https://a", vec![rejected(), sa_read()])],
            &token,
            false,
        );
        let reviewed = deeper_probe(
            vec![server("https://a", vec![rejected(), review, sa_read()])],
            &token,
            false,
        );
        assert_eq!(confidence(&guess), Some(Confidence::Low));
        assert_eq!(confidence(&read), Some(Confidence::High));
        assert_eq!(confidence(&reviewed), Some(Confidence::High));
        let d = &reviewed.diagnosis;
        assert_eq!(d.cause, Cause::ServiceAccountRecreated);
        assert!(
            d.evidence[0].starts_with("TokenReview on https://a"),
            "{:?}",
            d.evidence
        );
        assert!(d.evidence.iter().any(|e| e.contains("≤1.22, legacy (all)")));
        let mut causes: Vec<Cause> = d.candidates.iter().map(|c| c.cause).collect();
        causes.sort();
        let n = causes.len();
        causes.dedup();
        assert_eq!(causes.len(), n, "{:?}", d.candidates);
        // The read showed the ServiceAccount exists: "deleted" is ruled out.
        assert!(!causes.contains(&Cause::ServiceAccountDeleted));
        assert_eq!(reviewed.bindings[0].state, BindingState::UidDiffers);
    }

    #[test]
    fn replicas_that_disagree_are_replica_dependent() {
        let token = bound(NOW, NOW + 3600);
        let ok = server(
            "https://10.0.0.1:6443",
            vec![request(
                RequestKind::SelfSubjectReview,
                false,
                answer(201, 0, review()),
            )],
        );
        let behind = server(
            "https://10.0.0.2:6443",
            vec![request(
                RequestKind::SelfSubjectReview,
                false,
                answer(401, -90, unauthorized()),
            )],
        );
        let report = deeper_probe(vec![ok.clone(), behind.clone()], &token, true);
        assert_eq!(
            report.diagnosis.classification,
            Classification::ReplicaDependent
        );
        assert_eq!(report.diagnosis.cause, Cause::ClockSkew);
        assert!(report.diagnosis.evidence[0].contains("1 of 2 reject"));
        assert_eq!(
            crate::probe::outcome(&report),
            crate::exit::Outcome::Problem
        );
        // Servers the user named are not assumed to be replicas.
        let report = deeper_probe(vec![ok, behind], &token, false);
        assert_eq!(
            report.diagnosis.classification,
            Classification::Unauthorized
        );
    }
}
