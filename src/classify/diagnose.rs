//! Pure: one piece of [`Evidence`] (plus, optionally, the token) -> [`Diagnosis`].
//!
//! Rules, each from the Kubernetes source (see docs/classify.md):
//! - 2xx: ok; an audit `authentication.k8s.io/stale-token` annotation makes the
//!   cause `stale-token` (accepted, but the client holds a token past `warnafter`).
//! - 404: authenticated *and* authorised (authorization runs before routing).
//! - 403: `diagnosis::forbidden` reads the message; `system:anonymous` means no
//!   token reached the server (an invalid token is always 401, never anonymous).
//! - 401: the body never says why. The reasons come from kube-apiserver's log or a
//!   TokenReview (`diagnosis::reasons`, high confidence), from an audit annotation,
//!   or from the token's own times judged at the evidence's instant with
//!   `window::judge` (the `Date` header and log/audit timestamps are the API
//!   server's clock). Otherwise the cause is `unknown` and the families are listed.
//! - no answer: the transport failure.

use super::{Answer, BearerSeen, Context, Evidence, Stamp, StampSource, TokenCheck, transport};
use crate::diagnosis::forbidden::Forbidden;
use crate::diagnosis::reasons::{self, AuthReason, ReasonKind};
use crate::diagnosis::{Cause, CauseCandidate, Classification, Confidence, Diagnosis};
use crate::timefmt::{human_seconds, rfc3339};
use crate::token::{self, Binding, Token, TokenKind};
use crate::window::{self, TimeClaims, Verdict, ceil_seconds, floor_seconds};

/// Candidates, merged by cause (highest confidence, evidence appended).
#[derive(Default)]
struct Candidates(Vec<CauseCandidate>);

impl Candidates {
    fn add(&mut self, cause: Cause, confidence: Confidence, evidence: Vec<String>) {
        if let Some(c) = self.0.iter_mut().find(|c| c.cause == cause) {
            c.confidence = c.confidence.max(confidence);
            for e in evidence {
                if !c.evidence.contains(&e) {
                    c.evidence.push(e);
                }
            }
            return;
        }
        self.0.push(CauseCandidate {
            cause,
            confidence,
            evidence,
            next_steps: next_steps(cause),
        });
    }

    /// Adds evidence to a cause already present (no-op otherwise).
    fn support(&mut self, cause: Cause, evidence: String) {
        if let Some(c) = self.0.iter_mut().find(|c| c.cause == cause)
            && !c.evidence.contains(&evidence)
        {
            c.evidence.push(evidence);
        }
    }

    fn has(&self, cause: Cause) -> bool {
        self.0.iter().any(|c| c.cause == cause)
    }
}

/// Fills in the user and request a 403/404 message names, when the parser did not.
pub fn enrich(ev: &mut Evidence) {
    let Answer::Status {
        message: Some(message),
        ..
    } = &ev.answer
    else {
        return;
    };
    if let Some(f) = Forbidden::parse(message) {
        ev.user.get_or_insert_with(|| f.user.clone());
        if ev.request.as_ref().is_none_or(|r| r.is_empty()) {
            ev.request = Some(super::RequestInfo {
                verb: Some(f.verb.clone()),
                resource: f.resource.clone(),
                subresource: f.subresource.clone(),
                api_group: f.api_group.clone(),
                namespace: f.namespace.clone(),
                name: f.name.clone(),
                path: f.path.clone(),
            });
        }
    } else if ev.answer.code() == Some(404) && ev.request.is_none() {
        ev.request = super::text::not_found_request(message);
    }
}

/// Diagnoses one event; with a token (given, or seen in a curl transcript), also
/// how the token fares at the event's instant.
pub fn diagnose(ev: &Evidence, ctx: Context<'_>) -> (Diagnosis, Option<TokenCheck>) {
    let classification = ev.answer.classification();
    let mut cands = Candidates::default();
    let mut notes = Vec::new();
    let seen_token = match (&ev.bearer, ctx.token) {
        (Some(BearerSeen::Token(secret)), None) => token::parse(secret).ok(),
        _ => None,
    };
    let token = ctx.token.or(seen_token.as_ref());
    if let Some(t) = seen_token.as_ref() {
        notes.push(format!(
            "token sha256:{} taken from the transcript's Authorization header",
            t.fingerprint
        ));
    }
    let mut check = None;

    match &ev.answer {
        Answer::Transport { cause, detail } => {
            cands.add(
                *cause,
                if *cause == Cause::Unknown {
                    Confidence::Medium
                } else {
                    Confidence::High
                },
                vec![format!(
                    "no HTTP answer: {detail} (the token was never judged)"
                )],
            );
            if let Some(c) = cands.0.first_mut() {
                c.next_steps = transport::next_steps(*cause);
            }
        }
        Answer::Authenticated => cands.add(
            Cause::None,
            Confidence::High,
            vec!["TokenReview: status.authenticated is true".to_owned()],
        ),
        Answer::Rejected { reasons } => {
            check = unauthorized(ev, reasons, token, ctx, &mut cands);
        }
        Answer::Status { message, .. } => match classification {
            Classification::Ok => {
                stale(ev, &mut cands);
                cands.add(
                    Cause::None,
                    Confidence::High,
                    vec![format!(
                        "HTTP {}: authenticated and authorised",
                        ev.answer.code().unwrap_or(200)
                    )],
                );
            }
            Classification::NotFound => cands.add(
                Cause::ObjectNotFound,
                Confidence::High,
                vec![
                    "404 comes after authentication and authorization: the token works and RBAC allows the request; the object (or the resource type) does not exist"
                        .to_owned(),
                ],
            ),
            Classification::Forbidden => {
                forbidden(ev, message.as_deref(), token, &mut cands);
            }
            Classification::Unauthorized => {
                check = unauthorized(ev, &[], token, ctx, &mut cands);
            }
            _ => {
                let code = ev
                    .answer
                    .code()
                    .map_or("this status".to_owned(), |c| format!("HTTP {c}"));
                let mut evidence = vec![format!(
                    "{code} is not an authentication answer: the token was accepted or never judged"
                )];
                if let Some(m) = message {
                    evidence.push(format!("server message: {m}"));
                }
                cands.add(Cause::Unknown, Confidence::Medium, evidence);
                if let Some(c) = cands.0.first_mut() {
                    c.next_steps = other_status_steps(ev.answer.code());
                }
            }
        },
    }
    audit_facts(ev, token, &mut cands, &mut notes);

    let mut diagnosis = if cands.0.iter().all(|c| c.confidence == Confidence::Low) {
        // Nothing stands out: say so rather than promote a guess.
        let mut all = cands.0;
        let unknown = match all.iter().position(|c| c.cause == Cause::Unknown) {
            Some(i) => all.remove(i),
            None => CauseCandidate {
                cause: Cause::Unknown,
                confidence: Confidence::Low,
                evidence: Vec::new(),
                next_steps: next_steps(Cause::Unknown),
            },
        };
        let (evidence, steps) = (unknown.evidence.clone(), unknown.next_steps.clone());
        all.insert(0, unknown);
        Diagnosis {
            classification,
            cause: Cause::Unknown,
            confidence: Confidence::Low,
            evidence,
            next_steps: steps,
            candidates: all,
        }
    } else {
        Diagnosis::from_candidates(classification, cands.0)
    };
    let mut evidence = vec![seen_line(ev)];
    evidence.append(&mut diagnosis.evidence);
    evidence.extend(ev.notes.iter().cloned());
    evidence.extend(notes);
    diagnosis.evidence = evidence;
    if diagnosis.cause == Cause::Unknown && classification == Classification::Unauthorized {
        diagnosis.evidence.push(
            "a 401 body is always the generic Status \"Unauthorized\": the reason is only in the kube-apiserver log and in TokenReview status.error"
                .to_owned(),
        );
    }
    // Evidence quotes server and client text; none of it may show a token.
    let redact = |items: &mut Vec<String>| {
        for item in items.iter_mut() {
            if let std::borrow::Cow::Owned(clean) = super::text::redact_tokens(item) {
                *item = clean;
            }
        }
    };
    redact(&mut diagnosis.evidence);
    for c in &mut diagnosis.candidates {
        redact(&mut c.evidence);
    }
    (diagnosis, check)
}

/// `line N (format): excerpt`.
fn seen_line(ev: &Evidence) -> String {
    format!("line {} ({}): {}", ev.line, ev.format, ev.excerpt)
}

/// Where to judge a token's times: the evidence's own instant, else `--at`, else now.
fn instant(ev: &Evidence, ctx: Context<'_>) -> Stamp {
    ev.stamp
        .or(ctx.at.map(|at| Stamp {
            at,
            source: StampSource::AtFlag,
        }))
        .unwrap_or(Stamp {
            at: ctx.now,
            source: StampSource::Now,
        })
}

fn stamp_words(stamp: Stamp) -> String {
    let whose = match stamp.source {
        StampSource::DateHeader => "the server's Date header",
        StampSource::LogTimestamp => "the log timestamp",
        StampSource::LogTimestampYearInferred => "the klog timestamp, year inferred",
        StampSource::AuditTimestamp => "the audit stageTimestamp",
        StampSource::AtFlag => "--at",
        StampSource::Now => "now: the evidence carries no timestamp",
    };
    format!("{} ({whose})", rfc3339(stamp.at))
}

/// 401: reasons from the server if any, then the token's own story.
fn unauthorized(
    ev: &Evidence,
    reasons: &[AuthReason],
    token: Option<&Token>,
    ctx: Context<'_>,
    cands: &mut Candidates,
) -> Option<TokenCheck> {
    let specific = reasons::specific(reasons);
    let kind_binding = token.map(|t| token::kind::classify(&t.claims));
    let several = specific.len() > 1;
    for r in &specific {
        if r.kind == ReasonKind::Unrecognised {
            cands.add(
                Cause::Unknown,
                Confidence::Low,
                vec![format!(
                    "an authenticator said: {} (not a message this tool knows)",
                    r.message
                )],
            );
            continue;
        }
        if r.is_generic() {
            // Alone: no authenticator recognised the token at all.
            let mut ev_text = vec![
                "kube-apiserver: \"invalid bearer token\" and nothing else: no authenticator recognised the token (unknown issuer, not a JWT, or a token for another system)"
                    .to_owned(),
            ];
            if let Some(t) = token {
                ev_text.push(format!(
                    "your token's iss is {}",
                    t.claims.issuer.as_deref().unwrap_or("(none)")
                ));
            }
            let not_k8s = kind_binding.is_some_and(|(k, _)| k == TokenKind::NotKubernetes);
            cands.add(
                if not_k8s {
                    Cause::TokenMalformed
                } else {
                    Cause::IssuerMismatch
                },
                Confidence::Medium,
                ev_text,
            );
            cands.add(
                if not_k8s {
                    Cause::IssuerMismatch
                } else {
                    Cause::TokenMalformed
                },
                Confidence::Low,
                Vec::new(),
            );
            continue;
        }
        // With several authenticators answering, the legacy one's claim complaints
        // are noise when a bound-token reason is present.
        let confidence = if several && r.kind == ReasonKind::LegacyClaimInvalid {
            Confidence::Low
        } else {
            Confidence::High
        };
        let cause = refine_invalidated(r, kind_binding);
        let era = if r.era == "all" {
            "every version"
        } else {
            r.era
        };
        let mut evidence = vec![format!(
            "kube-apiserver said \"{}\" (wording of {era})",
            r.message
        )];
        evidence.extend(reason_detail(r, token));
        cands.add(cause, confidence, evidence);
        if r.kind == ReasonKind::TokenInvalidated && kind_binding.is_none() {
            let others: &[Cause] = if r.cause == Cause::PodDeleted {
                &[Cause::SecretDeleted, Cause::NodeDeleted]
            } else {
                &[Cause::PodDeleted]
            };
            for other in others {
                cands.add(
                    *other,
                    Confidence::Low,
                    vec![format!(
                        "\"{}\" is also what a {} token gets",
                        r.message,
                        match other {
                            Cause::SecretDeleted => "Secret-bound (or legacy)",
                            Cause::NodeDeleted => "node-bound",
                            _ => "pod-bound (≤1.22)",
                        }
                    )],
                );
            }
        }
    }
    if ev.audit.legacy_token_invalidated.is_some() {
        cands.add(
            Cause::LegacyTokenInvalidated,
            Confidence::High,
            vec![format!(
                "audit annotation authentication.k8s.io/legacy-token-invalidated: {}",
                ev.audit.legacy_token_invalidated.as_deref().unwrap_or("")
            )],
        );
    }
    if reasons.is_empty() {
        if let Answer::Status {
            message: Some(m), ..
        } = &ev.answer
            && m.contains("no credentials provided")
        {
            cands.add(
                Cause::TokenNotSent,
                Confidence::High,
                vec![format!(
                    "audit: \"{m}\": the request carried no credentials and anonymous access is off"
                )],
            );
        }
        match &ev.bearer {
            Some(BearerSeen::Absent) => cands.add(
                Cause::TokenNotSent,
                Confidence::High,
                vec!["the request lines show no Authorization header, and anonymous access is off (or not allowed on this path)".to_owned()],
            ),
            Some(BearerSeen::Empty) => cands.add(
                Cause::TokenNotSent,
                Confidence::High,
                vec!["the Authorization header has no token after \"Bearer\" (or two spaces): kube-apiserver treats that as no credentials".to_owned()],
            ),
            _ => {}
        }
    }
    let token = token?;
    let (kind, binding) = kind_binding.unwrap_or((TokenKind::NotKubernetes, Binding::None));
    let stamp = instant(ev, ctx);
    if kind == TokenKind::LegacySecret {
        let evidence = "your token is a legacy Secret token: never time-checked; it dies with its Secret or ServiceAccount".to_owned();
        if reasons.is_empty() {
            for cause in [
                Cause::SecretDeleted,
                Cause::LegacyTokenInvalidated,
                Cause::ServiceAccountRecreated,
                Cause::ServiceAccountDeleted,
            ] {
                cands.add(cause, Confidence::Low, vec![evidence.clone()]);
            }
        }
        return None;
    }
    let judgement = window::judge(TimeClaims::from(&token.claims), stamp.at, ctx.leeway);
    let check = TokenCheck { stamp, judgement };
    let confidence = if stamp.source.is_server_clock() {
        Confidence::High
    } else {
        Confidence::Medium
    };
    let when = stamp_words(stamp);
    let leeway = ctx.leeway.num_seconds();
    let server_says_time = specific
        .iter()
        .any(|r| matches!(r.cause, Cause::ClockSkew | Cause::Expired));
    match judgement.verdict {
        Verdict::RejectNotYetValid | Verdict::RejectIssuedInFuture => {
            let (claim, value) = match judgement.verdict {
                Verdict::RejectNotYetValid => ("nbf", token.claims.not_before),
                _ => ("iat", token.claims.issued_at),
            };
            let value = value.unwrap_or_default();
            let ahead = (window::at_seconds(value) - stamp.at).num_seconds();
            let wait = judgement
                .accepted_in
                .map(|d| format!("; accepted in {}", human_seconds(ceil_seconds(d))))
                .unwrap_or_default();
            cands.add(
                Cause::ClockSkew,
                confidence,
                vec![format!(
                    "your token's {claim} {} is {} ahead of {when}, more than the {leeway} s leeway: the minting clock ran ahead of the validating one{wait}",
                    rfc3339(window::at_seconds(value)),
                    human_seconds(ahead)
                )],
            );
        }
        Verdict::RejectExpired => {
            let exp = token.claims.expires_at.unwrap_or_default();
            cands.add(
                Cause::Expired,
                confidence,
                vec![format!(
                    "your token expired at {} ({} before {when}, beyond the {leeway} s leeway)",
                    rfc3339(window::at_seconds(exp)),
                    human_seconds((stamp.at - window::at_seconds(exp)).num_seconds())
                )],
            );
        }
        Verdict::Accept => {
            let left = judgement
                .remaining
                .map(|r| format!(" ({} left)", human_seconds(floor_seconds(r))))
                .unwrap_or_default();
            let fine =
                format!("your token is inside its time window at {when}{left}: not a time problem");
            if server_says_time {
                for cause in [Cause::ClockSkew, Cause::Expired] {
                    cands.support(
                        cause,
                        format!("{fine}, so the server was judging another token (an older copy the client still holds?) or its clock differs"),
                    );
                }
            } else if specific.iter().all(|r| r.is_generic()) {
                // No specific reason: the families that remain once time is ruled out.
                if kind == TokenKind::NotKubernetes {
                    cands.add(
                        Cause::IssuerMismatch,
                        Confidence::Medium,
                        vec![format!(
                            "{fine}; but it is not a Kubernetes ServiceAccount token (iss {})",
                            token.claims.issuer.as_deref().unwrap_or("none")
                        )],
                    );
                } else {
                    let mut families = vec![
                        Cause::ServiceAccountRecreated,
                        Cause::ServiceAccountDeleted,
                        Cause::KeyMismatch,
                        Cause::IssuerMismatch,
                        Cause::AudienceMismatch,
                    ];
                    families.insert(
                        0,
                        match binding {
                            Binding::Pod => Cause::PodDeleted,
                            Binding::Secret => Cause::SecretDeleted,
                            Binding::Node => Cause::NodeDeleted,
                            Binding::None => Cause::ServiceAccountRecreated,
                        },
                    );
                    for cause in families {
                        cands.add(cause, Confidence::Low, vec![fine.clone()]);
                    }
                }
            } else {
                for r in &specific {
                    cands.support(refine_invalidated(r, kind_binding), fine.clone());
                }
            }
        }
    }
    if server_says_time && judgement.verdict != Verdict::Accept {
        // The token and the server agree: note it on the server's reason.
        let detail = format!(
            "confirmed with your token at {when}: {}",
            judgement.verdict.as_str()
        );
        for cause in [Cause::ClockSkew, Cause::Expired] {
            cands.support(cause, detail.clone());
        }
    }
    Some(check)
}

/// "has been invalidated" names no object: the token's binding says which.
fn refine_invalidated(r: &AuthReason, kind_binding: Option<(TokenKind, Binding)>) -> Cause {
    if r.kind != ReasonKind::TokenInvalidated {
        return r.cause;
    }
    match kind_binding {
        Some((TokenKind::LegacySecret, _)) => Cause::SecretDeleted,
        Some((_, Binding::Pod)) => Cause::PodDeleted,
        Some((_, Binding::Secret)) => Cause::SecretDeleted,
        Some((_, Binding::Node)) => Cause::NodeDeleted,
        _ => r.cause,
    }
}

/// Plain-words detail for a reason, compared with the token when there is one.
fn reason_detail(r: &AuthReason, token: Option<&Token>) -> Vec<String> {
    let v = &r.values;
    let mut out = Vec::new();
    match r.kind {
        ReasonKind::ServiceAccountUidMismatch
        | ReasonKind::PodUidMismatch
        | ReasonKind::SecretUidMismatch
        | ReasonKind::NodeUidMismatch => {
            let what = match r.kind {
                ReasonKind::ServiceAccountUidMismatch => "ServiceAccount",
                ReasonKind::PodUidMismatch => "pod",
                ReasonKind::SecretUidMismatch => "Secret",
                _ => "node",
            };
            out.push(format!(
                "the {what} was deleted and recreated: the token names uid {}, the live object has uid {}",
                v.claim_uid.as_deref().unwrap_or("?"),
                v.live_uid.as_deref().unwrap_or("?")
            ));
            if let Some(t) = token {
                let k8s = t.claims.kubernetes.as_ref();
                let mine = match r.kind {
                    ReasonKind::ServiceAccountUidMismatch => {
                        t.claims.service_account().and_then(|s| s.uid)
                    }
                    ReasonKind::PodUidMismatch => k8s.and_then(|k| k.pod.clone()).and_then(|p| p.uid),
                    ReasonKind::SecretUidMismatch => t.claims.secret().and_then(|s| s.uid),
                    _ => k8s.and_then(|k| k.node.clone()).and_then(|n| n.uid),
                };
                out.push(match mine {
                    Some(uid) if Some(&uid) == v.claim_uid.as_ref() => {
                        format!("your token's {what} uid is {uid}: this log line is about your token")
                    }
                    Some(uid) => format!(
                        "your token's {what} uid is {uid}, not {}: this log line is about another token",
                        v.claim_uid.as_deref().unwrap_or("?")
                    ),
                    None => format!("your token carries no {what} uid"),
                });
            }
        }
        ReasonKind::ServiceAccountNotFound | ReasonKind::ServiceAccountDeleted => {
            out.push(format!(
                "the ServiceAccount {}{} no longer exists (or is being deleted)",
                v.namespace.as_deref().map(|n| format!("{n}/")).unwrap_or_default(),
                v.name.as_deref().unwrap_or("?")
            ));
        }
        ReasonKind::AudienceInvalid => out.push(format!(
            "the token is for [{}]; the API server accepts [{}]",
            v.token_audiences.join(", "),
            v.target_audiences.join(", ")
        )),
        ReasonKind::LegacyTokenMarkedInvalid => out.push(format!(
            "Secret {}/{} is labelled kubernetes.io/legacy-token-invalid-since by the legacy token cleaner",
            v.namespace.as_deref().unwrap_or("?"),
            v.secret.as_deref().unwrap_or("?")
        )),
        ReasonKind::NodeBindingValidationDisabled => out.push(
            "a node-bound token on a server with ServiceAccountTokenNodeBindingValidation off (1.29–1.31): enable the gate or use a pod-bound token"
                .to_owned(),
        ),
        ReasonKind::CouldNotBeValidated => out.push(
            "≤1.22 wording for a token not yet valid (nbf or iat ahead of the server's clock)".to_owned(),
        ),
        ReasonKind::UnexpectedValidationError => out.push(
            "1.23–1.26 wording for a token issued in the future (iat ahead of the server's clock, no nbf)".to_owned(),
        ),
        _ => {}
    }
    out
}

/// 403: who, what, and why not.
fn forbidden(ev: &Evidence, message: Option<&str>, token: Option<&Token>, cands: &mut Candidates) {
    let parsed = message.and_then(Forbidden::parse);
    let subject = token.and_then(|t| t.claims.subject.clone());
    let anonymous = parsed
        .as_ref()
        .map(Forbidden::is_anonymous)
        .unwrap_or_else(|| ev.user.as_deref() == Some(crate::diagnosis::forbidden::ANONYMOUS));
    if anonymous {
        let mut evidence = vec![
            "the request was anonymous (User \"system:anonymous\"): no token reached the server; a token that is sent but invalid always gets 401, never anonymous"
                .to_owned(),
        ];
        if ev.bearer == Some(BearerSeen::Empty) {
            evidence.push("the Authorization header carries no token after \"Bearer\" (an empty token or two spaces count as none)".to_owned());
        }
        if let Some(sub) = subject {
            evidence.push(format!("your token ({sub}) was not sent with this request"));
        }
        cands.add(Cause::TokenNotSent, Confidence::High, evidence);
        return;
    }
    let Some(f) = parsed else {
        match message {
            Some(m) => cands.add(
                Cause::Unknown,
                Confidence::Medium,
                vec![format!(
                    "a 403 without RBAC's \"User … cannot …\" text: \"{m}\"; denied by admission (PodSecurity, a webhook) or another authorizer, after the token was accepted"
                )],
            ),
            None => {
                cands.add(
                    Cause::RbacDenied,
                    Confidence::Medium,
                    vec!["403: the token was accepted and authorization said no (the message, which would name the user and the request, is not in the evidence)".to_owned()],
                );
                cands.add(
                    Cause::TokenNotSent,
                    Confidence::Low,
                    vec!["an anonymous request (no token sent) also gets 403; the message would say User \"system:anonymous\"".to_owned()],
                );
            }
        }
        return;
    };
    let what = match (&f.path, &f.resource) {
        (Some(path), _) => format!("{} {path}", f.verb),
        (None, Some(res)) => format!(
            "{} {res}{}{}{}",
            f.verb,
            f.subresource
                .as_deref()
                .map(|s| format!("/{s}"))
                .unwrap_or_default(),
            f.api_group
                .as_deref()
                .filter(|g| !g.is_empty())
                .map(|g| format!(" (group {g})"))
                .unwrap_or_default(),
            f.namespace
                .as_deref()
                .map_or(" at cluster scope".to_owned(), |n| format!(
                    " in namespace {n}"
                ))
        ),
        _ => f.verb.clone(),
    };
    let mut evidence = vec![format!(
        "authenticated as {} (the token works); RBAC allows no {what}",
        f.user
    )];
    if let Some(sub) = &subject
        && *sub != f.user
    {
        evidence.push(format!(
            "the 403 names {}, but your token is for {sub}: this request was not made with your token",
            f.user
        ));
    }
    let can_i = match (&f.path, &f.resource) {
        (Some(path), _) => format!("kubectl auth can-i {} {path} --as={}", f.verb, f.user),
        (None, Some(res)) => format!(
            "kubectl auth can-i {} {res}{}{}{} --as={}",
            f.verb,
            f.api_group
                .as_deref()
                .filter(|g| !g.is_empty())
                .map(|g| format!(".{g}"))
                .unwrap_or_default(),
            f.subresource
                .as_deref()
                .map(|sub| format!(" --subresource={sub}"))
                .unwrap_or_default(),
            f.namespace
                .as_deref()
                .map(|n| format!(" -n {n}"))
                .unwrap_or_default(),
            f.user
        ),
        _ => String::new(),
    };
    let role_missing = f
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("RBAC:") && r.contains("not found"));
    let cause = if role_missing {
        evidence.push(format!(
            "{}: a binding references a Role/ClusterRole that does not exist",
            f.reason.as_deref().unwrap_or("")
        ));
        Cause::RbacRoleMissing
    } else {
        if let Some(r) = &f.reason {
            evidence.push(format!("authorizer reason: {r}"));
        }
        Cause::RbacDenied
    };
    cands.add(cause, Confidence::High, evidence);
    if let Some(c) = cands.0.iter_mut().find(|c| c.cause == cause) {
        let mut steps = Vec::new();
        if role_missing {
            steps.push("create the missing role, or point the binding's roleRef at one that exists (kubectl get rolebindings,clusterrolebindings -A -o wide)".to_owned());
        }
        if !can_i.is_empty() {
            steps.push(format!("confirm: {can_i}"));
        }
        steps.extend(
            f.grant_commands()
                .into_iter()
                .map(|c| format!("grant: {c}")),
        );
        c.next_steps = steps;
    }
}

/// 2xx with a stale-token annotation.
fn stale(ev: &Evidence, cands: &mut Candidates) {
    if let Some(value) = &ev.audit.stale_token {
        cands.add(
            Cause::StaleToken,
            Confidence::High,
            vec![format!(
                "audit annotation authentication.k8s.io/stale-token: \"{value}\": accepted, but the client still sends a token past its warnafter (it does not re-read the projected token file)"
            )],
        );
    }
}

/// Audit facts that are not a cause by themselves.
fn audit_facts(
    ev: &Evidence,
    token: Option<&Token>,
    cands: &mut Candidates,
    notes: &mut Vec<String>,
) {
    if ev.audit.stale_token.is_some() && !cands.has(Cause::StaleToken) {
        stale(ev, cands);
    }
    if let Some(sub) = &ev.audit.legacy_token {
        notes.push(format!(
            "audit annotation authentication.k8s.io/legacy-token: {sub} used a token without audiences (a legacy Secret token)"
        ));
    }
    if let Some(id) = &ev.audit.credential_id {
        let origin = if ev.audit.credential_id_from_annotation {
            "annotation authentication.k8s.io/credential-id (kube-apiserver does not write this annotation; it records the id in user.extra[\"authentication.kubernetes.io/credential-id\"])"
        } else {
            "user.extra[\"authentication.kubernetes.io/credential-id\"]"
        };
        notes.push(format!("credential id {id} from {origin}"));
        if let Some(jti) = token.and_then(|t| t.claims.jwt_id.as_deref()) {
            let mine = format!("JTI={jti}");
            notes.push(if *id == mine {
                "the event was made with your token (same credential id)".to_owned()
            } else {
                format!("the event was made with another token than yours ({mine}): the client sends a different (older?) token; compare fingerprints with kubectl satoken decode")
            });
        }
    }
    if let Some(a) = &ev.audit.authorization {
        notes.push(format!("authorization decision {a}"));
    }
}

fn other_status_steps(code: Option<u16>) -> Vec<String> {
    let step = match code {
        Some(429) => {
            "API Priority and Fairness throttled the request: retry with backoff; check kubectl get flowschemas,prioritylevelconfigurations"
        }
        Some(500..=599) => {
            "the API server (or a proxy or aggregated API in front of it) failed: kubectl get --raw='/readyz?verbose' and the kube-apiserver log"
        }
        Some(400) | Some(422) => "the request itself is invalid: the message says which field",
        Some(409) => "a conflict on the object (already exists, or a resourceVersion/UID mismatch)",
        _ => "not an authentication problem: read the server message",
    };
    vec![step.to_owned()]
}

/// What to do about each cause.
pub fn next_steps(cause: Cause) -> Vec<String> {
    let steps: &[&str] = match cause {
        Cause::None => &[],
        Cause::ClockSkew => &[
            "compare the clocks of the kube-apiserver instances (the minting one ran ahead): kubectl satoken skew; fix NTP/chrony on the control-plane nodes",
            "a pod stuck with a future-dated token: wait until nbf - 60 s, or delete the pod so the kubelet mints a new token",
        ],
        Cause::Expired => &[
            "the client sent a token past its exp: make it re-read the projected token file (client-go does every minute; many clients read it once at start)",
            "for kubectl create token tokens: mint a new one, with a longer --duration if needed",
        ],
        Cause::KeyMismatch => &[
            "the token's kid is not among the server's keys (rotated --service-account-key-file, or a token from another cluster): compare with kubectl get --raw /openid/v1/jwks (kubectl satoken verify)",
        ],
        Cause::SignatureInvalid => &[
            "no server key verifies the signature (altered token, or signed by another cluster's key): kubectl satoken verify against the cluster's JWKS",
        ],
        Cause::IssuerMismatch => &[
            "check the token's iss (kubectl satoken decode) against the server's --service-account-issuer values (kubectl get --raw /.well-known/openid-configuration shows the first)",
        ],
        Cause::AudienceMismatch => &[
            "request the token for the API server's audience (omit --audience in kubectl create token / the projected volume), or use it only with the service it was minted for",
        ],
        Cause::TokenMalformed => &[
            "the server did not recognise the token: check it is one complete JWT meant for this cluster (kubectl satoken decode)",
        ],
        Cause::ServiceAccountDeleted => &[
            "kubectl get serviceaccount NAME -n NAMESPACE; recreate it, then restart the pods that use it",
        ],
        Cause::ServiceAccountRecreated => &[
            "the ServiceAccount was deleted and recreated (same name, new uid): restart the pods so the kubelet mints tokens for the new uid; find what deleted it (GitOps prune, namespace cleanup)",
        ],
        Cause::PodDeleted => &[
            "the pod the token is bound to is gone or was recreated: use the token mounted in the running pod; a client that copied the token elsewhere must re-read it",
        ],
        Cause::SecretDeleted => &[
            "the Secret the token is bound to is gone: mint a new token (kubectl create token, or a new kubernetes.io/service-account-token Secret)",
        ],
        Cause::NodeDeleted => &["the node the token is bound to is gone: mint a new token"],
        Cause::LegacyTokenInvalidated => &[
            "move the client to TokenRequest tokens (projected volume or kubectl create token); to allow the old token for now, remove the kubernetes.io/legacy-token-invalid-since label from its Secret",
        ],
        Cause::StaleToken => &[
            "the client keeps a token past warnafter: it does not re-read the projected file; upgrade the client library or re-read the file periodically (client-go does every minute)",
        ],
        Cause::TokenNotSent => &[
            "make the client send the token: Authorization: Bearer <token> with exactly one space; check its kubeconfig/token-file setting and proxies that strip the header",
        ],
        Cause::RbacDenied | Cause::RbacRoleMissing => {
            &["grant the verb on the resource to the user with a Role/ClusterRole and a binding"]
        }
        Cause::ObjectNotFound => &[
            "the token and RBAC are fine: check the object's name, namespace and API group (kubectl api-resources)",
        ],
        Cause::TlsUntrustedCa
        | Cause::TlsNameMismatch
        | Cause::TlsCertificateExpired
        | Cause::TlsOther
        | Cause::DnsFailure
        | Cause::ConnectionRefused
        | Cause::Timeout => return transport::next_steps(cause),
        Cause::Redirected => &[
            "the server answered with a redirect: point the client at the API server itself (not a proxy or load balancer that redirects); a token is never resent across a redirect",
        ],
        Cause::Unknown => &[
            "find the reason in the kube-apiserver log near the time of the request: grep 'Unable to authenticate the request' and run kubectl satoken classify on those lines",
            "or give the token: kubectl satoken classify FILE --token-file TOKEN_FILE (checks its times at the evidence's instant)",
        ],
    };
    steps.iter().map(|s| (*s).to_owned()).collect()
}
