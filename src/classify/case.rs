//! Pure: one recognised piece of [`Evidence`] (plus, optionally, the token) ->
//! the typed case the diagnosis engine reads, and the engine's answer. The
//! rules themselves live in `crate::diagnosis::rules`, shared with `probe` and
//! `doctor`; here is only what is particular to pasted evidence: whose clock
//! its timestamp is, whether the token was the one sent, and the line it came
//! from.

use super::{Answer, BearerSeen, Context, Evidence, TokenCheck};
use crate::diagnosis::facts::{Case, ClockSource, ServerClock, TokenSent, Witness};
use crate::diagnosis::{self, Classification, Diagnosis, Support, SupportKind};
use crate::token::{self, Token, TokenKind};
use crate::window::{self, TimeClaims};

/// Reads the answer's message once into the record's facts; the request a
/// 403 or 404 message names stands for the request when the text showed none.
pub fn read(ev: &mut Evidence) {
    let from = if ev.format == "token-review" {
        "the TokenReview's reason"
    } else {
        "kube-apiserver said"
    };
    let facts = &mut ev.facts;
    if let Some(named) = crate::diagnosis::extract::read_answer(facts, from)
        && facts.request.as_ref().is_none_or(|r| r.is_empty())
    {
        facts.request = Some(named);
    }
}

/// Diagnoses one event; with a token (given, or seen in a transcript), also how
/// the token fares at the event's instant.
pub fn diagnose(ev: &Evidence, ctx: Context<'_>) -> (Diagnosis, Option<TokenCheck>) {
    let seen = match (&ev.facts.bearer, ctx.token) {
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

fn case_of<'t>(ev: &Evidence, ctx: Context<'_>, token: Option<&'t Token>, seen: bool) -> Case<'t> {
    let mut case: Case<'t> = ev.facts.clone();
    let line = format!("line {} ({}): {}", ev.line, ev.format, ev.excerpt);
    case.notes
        .insert(0, Support::new(SupportKind::Context, line));
    if let Answer::Http(h) = &case.answer
        && let (Some(relay), Some(code)) = (&h.relay, h.relay_status)
        && h.status.is_some_and(|c| c != code)
    {
        case.note(format!(
            "{relay} answered its own caller with {code}; the status above is the one it got"
        ));
    }
    if seen && let Some(t) = token {
        case.notes.push(Support::new(
            SupportKind::Token,
            format!(
                "token sha256:{} taken from the transcript's Authorization header",
                t.fingerprint
            ),
        ));
    }
    case.request = case.request.filter(|r| !r.is_empty());
    case.witness = match ev.source {
        super::SourceType::Audit | super::SourceType::ApiserverLog => Witness::Server,
        _ => Witness::Client,
    };
    case.token = token;
    case.token_sent = if seen {
        TokenSent::Yes
    } else {
        TokenSent::Assumed
    };
    // Where to judge a token's times: the evidence's own instant, else `--at`, else now.
    case.clock = case.clock.or(Some(match ctx.at {
        Some(at) => ServerClock::at(at, ClockSource::AtFlag),
        None => ServerClock::at(ctx.now, ClockSource::Now),
    }));
    case.leeway = ctx.leeway;
    case
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
        stamp: clock,
        judgement: window::judge(TimeClaims::from(&token.claims), clock.low, case.leeway),
    })
}
