//! Pure: one recognised piece of [`Evidence`] (plus, optionally, the token) ->
//! the typed case the diagnosis engine reads, and the engine's answer. The
//! rules themselves live in `crate::diagnosis::rules`, shared with `probe` and
//! `doctor`; here is only what is particular to pasted evidence: whose clock
//! its timestamp is, whether the token was the one sent, and the line it came
//! from.

use super::{Answer, BearerSeen, Context, Evidence, TokenCheck};
use crate::diagnosis::case::{Case, ClockSource, Peer, ServerClock, TokenSent, Witness};
use crate::diagnosis::forbidden::Forbidden;
use crate::diagnosis::{self, Classification, Diagnosis, Support, SupportKind};
use crate::token::{self, Token, TokenKind};
use crate::window::{self, TimeClaims};

/// Fills in the user and request a 403/404 message names, when the parser did not.
pub fn enrich(ev: &mut Evidence) {
    let Answer::Http(h) = &ev.answer else {
        return;
    };
    let Some(message) = &h.message else {
        return;
    };
    if let Some(f) = Forbidden::parse(message) {
        ev.user.get_or_insert_with(|| f.user.clone());
        if ev.request.as_ref().is_none_or(|r| r.is_empty()) {
            ev.request = Some(f.request);
        }
    } else if ev.answer.code() == Some(404) && ev.request.is_none() {
        ev.request = crate::diagnosis::extract::url::not_found_request(message);
    }
}

/// Diagnoses one event; with a token (given, or seen in a transcript), also how
/// the token fares at the event's instant.
pub fn diagnose(ev: &Evidence, ctx: Context<'_>) -> (Diagnosis, Option<TokenCheck>) {
    let seen = match (&ev.bearer, ctx.token) {
        (Some(BearerSeen::Token(secret)), None) => token::parse(secret).ok(),
        _ => None,
    };
    let token = ctx.token.or(seen.as_ref());
    let case = case_of(ev, ctx, token, seen.is_some());
    let mut diagnosis = diagnosis::diagnose(&case);
    // Evidence quotes server and client text; none of it may show a token.
    for s in diagnosis
        .candidates
        .iter_mut()
        .flat_map(|c| c.support.iter_mut())
        .chain(diagnosis.notes.iter_mut())
    {
        if let std::borrow::Cow::Owned(clean) = crate::redact::redact(&s.text) {
            s.text = clean;
        }
    }
    (diagnosis, token_check(&case))
}

/// The typed case for one event.
fn case_of<'t>(ev: &Evidence, ctx: Context<'_>, token: Option<&'t Token>, seen: bool) -> Case<'t> {
    let line = format!("line {} ({}): {}", ev.line, ev.format, ev.excerpt);
    let mut notes: Vec<Support> = std::iter::once(line)
        .chain(ev.notes.iter().cloned())
        .map(|n| Support::new(SupportKind::Context, n))
        .collect();
    if let Answer::Http(h) = &ev.answer
        && let (Some(relay), Some(code)) = (&h.relay, h.relay_status)
        && h.status.is_some_and(|c| c != code)
    {
        notes.push(Support::new(
            SupportKind::Context,
            format!(
                "{relay} answered its own caller with {code}; the status above is the one it got"
            ),
        ));
    }
    if seen && let Some(t) = token {
        notes.push(Support::new(
            SupportKind::Token,
            format!(
                "token sha256:{} taken from the transcript's Authorization header",
                t.fingerprint
            ),
        ));
    }
    let mut case = Case {
        answer: ev.answer.clone(),
        request: ev.request.clone().filter(|r| !r.is_empty()),
        witness: match ev.source {
            super::SourceType::Audit | super::SourceType::ApiserverLog => Witness::Server,
            _ => Witness::Client,
        },
        reasons: ev.reasons.clone(),
        reasons_from: ev.reasons_from.clone(),
        joined: ev.joined,
        token,
        token_sent: if seen {
            TokenSent::Yes
        } else {
            TokenSent::Assumed
        },
        clock: Some(clock(ev, ctx)),
        bearer: ev.bearer.clone(),
        audit: ev.audit.clone(),
        peers: ev
            .disagrees_with
            .iter()
            .map(|(line, classification)| Peer {
                url: format!("the answer at line {line}"),
                classification: *classification,
                offset: None,
                kids: None,
            })
            .collect(),
        user: ev.user.clone(),
        leeway: ctx.leeway,
        notes,
        missing: ev.missing.clone(),
        ..Case::default()
    };
    let from = if ev.format == "token-review" {
        "the TokenReview's reason"
    } else {
        "kube-apiserver said"
    };
    crate::diagnosis::extract::read_answer(&mut case, from);
    case
}

/// Where to judge a token's times: the evidence's own instant, else `--at`, else now.
fn clock(ev: &Evidence, ctx: Context<'_>) -> ServerClock {
    match (ev.stamp, ctx.at) {
        (Some(stamp), _) => ServerClock::at(stamp.at, stamp.source),
        (None, Some(at)) => ServerClock::at(at, ClockSource::AtFlag),
        (None, None) => ServerClock::at(ctx.now, ClockSource::Now),
    }
}

/// How the token fares at the event's instant (a 401 with a token that is
/// time-checked: legacy tokens never are).
fn token_check(case: &Case<'_>) -> Option<TokenCheck> {
    if case.classification() != Classification::Unauthorized {
        return None;
    }
    let token = case.token?;
    if case
        .token_kind()
        .is_some_and(|(k, _)| k == TokenKind::LegacySecret)
    {
        return None;
    }
    let clock = case.clock?;
    Some(TokenCheck {
        stamp: super::Stamp::new(clock.low, clock.source),
        judgement: window::judge(TimeClaims::from(&token.claims), clock.low, case.leeway),
    })
}
