//! From artefacts to answers: one [`Evidence`] per answer the input shows.
//!
//! Several artefacts are often one answer seen twice: a status line and the
//! Status body under it, Python's `ApiException: (403)` and its `HTTP response
//! body`, kubectl's `-v` request log and its error line, an API server's
//! "Unable to authenticate" line and the controller's `Unauthorized` next to
//! it, Vault's `Code: 500` and the error it lists. They merge when they are
//! close (within [`WINDOW`] lines), agree (the same status, or one states
//! none) and are not two of the same kind (two status lines are two answers:
//! a retry, a second request). A shell prompt or a new request line ends an
//! answer. Context (the request, the `Authorization` header, the `Date`, notes,
//! objects a server logged as missing) attaches to the answer it is near, or
//! to the next one.
//!
//! A paste can hold several answers to the same request (a retry loop, two
//! replicas behind one address): when they disagree, each later one says so.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::{Answer, Evidence, SourceType};
use crate::diagnosis::Classification;
use crate::diagnosis::artefact::{Artefact, Kind, Place, Provenance, Review};
use crate::diagnosis::extract::{NearMiss, Scanner};
use crate::diagnosis::facts::HttpAnswer;
use crate::diagnosis::facts::{
    Case, CheckerFailure, ClockSource, Peer, ReasonSource, ServerClock, ServerFailure,
    TransportFailure,
};
use crate::diagnosis::reasons::AuthReason;
use crate::vocabulary::cause::Cause;
use crate::vocabulary::wordings::{AZURE_IDENTITY, CHAIN_MEMBER_DOUBT};

/// How many lines apart two artefacts of one answer may be.
pub const WINDOW: usize = 16;
/// Requests remembered for spotting disagreeing answers.
const MAX_REQUESTS: usize = 256;

/// The parts of an answer being gathered.
#[derive(Debug, Default)]
struct Open {
    last: usize,
    /// Where the artefact that speaks for the answer was found, and its weight.
    lead: Option<(u8, Place)>,
    http: Option<HttpAnswer>,
    /// Formats of the strong HTTP artefacts seen: a second one of a format
    /// (two status lines, two kubectl error lines) is a new answer, while a
    /// client's log line and the error it then prints are one.
    strong_http: Vec<&'static str>,
    reasons: Option<(Vec<AuthReason>, Option<ReasonSource>)>,
    transport: Option<TransportFailure>,
    checker: Option<CheckerFailure>,
    server: Option<ServerFailure>,
    review: Option<Review>,
    audit: Option<Box<Case<'static>>>,
    context: Context,
}

/// What surrounds an answer: the facts it adds, and the `Date`.
#[derive(Debug, Default)]
struct Context {
    facts: Case<'static>,
    date: Option<DateTime<Utc>>,
}

impl Context {
    fn take(&mut self, kind: Kind) {
        let facts = &mut self.facts;
        match kind {
            Kind::Request(r) => {
                facts.request.get_or_insert(r);
            }
            Kind::Bearer(b) => {
                facts.bearer.get_or_insert(b);
            }
            Kind::Date(d) => {
                self.date.get_or_insert(d);
            }
            Kind::Note(n) if !facts.notes.iter().any(|s| s.text == n) => facts.note(n),
            Kind::Missing { kind, name } => facts.missing.push((kind, name)),
            _ => {}
        }
    }
}

/// Groups a scanner's artefacts into answers.
pub struct Assembler<'a> {
    scanner: Scanner<'a>,
    open: Option<Open>,
    pending: Context,
    out: VecDeque<Evidence>,
    requests: VecDeque<(String, usize, Classification)>,
}

impl<'a> Assembler<'a> {
    pub fn new(text: &'a str, now: DateTime<Utc>) -> Self {
        Assembler {
            scanner: Scanner::new(text, now),
            open: None,
            pending: Context::default(),
            out: VecDeque::new(),
            requests: VecDeque::new(),
        }
    }

    /// What the input nearly was, when it held no answer.
    pub fn near_miss(&self) -> Option<NearMiss> {
        self.scanner.near_miss()
    }

    fn take(&mut self, a: Artefact) {
        if !a.kind.is_answer() {
            if matches!(a.kind, Kind::Boundary) {
                self.flush();
                self.pending = Context::default();
                return;
            }
            match self.open.as_mut() {
                Some(open) if a.at.line <= open.last + WINDOW => open.context.take(a.kind),
                _ => self.pending.take(a.kind),
            }
            return;
        }
        let joins = self
            .open
            .as_ref()
            .is_some_and(|open| a.at.line <= open.last + WINDOW && joins(open, &a));
        if !joins {
            self.flush();
        }
        let open = self.open.get_or_insert_with(|| Open {
            last: a.at.line,
            context: std::mem::take(&mut self.pending),
            ..Open::default()
        });
        add(open, a);
    }

    fn flush(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        if let Some(mut ev) = evidence(open) {
            self.disagreement(&mut ev);
            self.out.push_back(ev);
        }
    }

    /// An answer to a request answered otherwise earlier in the paste.
    fn disagreement(&mut self, ev: &mut Evidence) {
        let Some(request) = ev.facts.request.as_ref().filter(|r| !r.is_empty()) else {
            return;
        };
        let key = request.describe();
        let class = ev.facts.classification();
        let mut seen: Vec<(usize, Classification)> = Vec::new();
        for (k, line, c) in &self.requests {
            if *k == key && *c != class && !seen.iter().any(|(_, s)| s == c) {
                seen.push((*line, *c));
            }
        }
        for (line, c) in seen {
            ev.facts.note(format!(
                "the same request got {} at line {line}: answers that differ for one request depend on which API server (replica) or which token answered",
                c.as_str()
            ));
            ev.facts.peers.push(Peer {
                url: format!("the answer at line {line}"),
                classification: c,
                offset: None,
                kids: None,
            });
        }
        if self.requests.len() >= MAX_REQUESTS {
            self.requests.pop_front();
        }
        self.requests.push_back((key, ev.line, class));
    }
}

impl Iterator for Assembler<'_> {
    type Item = Evidence;

    fn next(&mut self) -> Option<Evidence> {
        loop {
            if let Some(ev) = self.out.pop_front() {
                return Some(ev);
            }
            // Flushing again once the artefacts are out finds no open answer.
            let Some(a) = self.scanner.next() else {
                self.flush();
                return self.out.pop_front();
            };
            self.take(a);
        }
    }
}

/// Whether an answer artefact is another view of the open answer.
fn joins(open: &Open, a: &Artefact) -> bool {
    // A client's log line of a failed connection and the verdict it then
    // prints (client-go's klog line, kubectl's `Unable to connect`).
    if let (Some(open_t), Kind::Transport(t)) = (&open.transport, &a.kind) {
        return open_t.cause == t.cause
            && open
                .lead
                .as_ref()
                .is_some_and(|(_, lead)| lead.format != a.at.format)
            && open.http.is_none()
            && open.reasons.is_none()
            && open.checker.is_none();
    }
    // The Azure Identity libraries' error spans lines: the chain's summary,
    // each credential's error, and the token endpoint's answer (its status,
    // its body) to the one that was refused, which is then the answer.
    if let Some(open_s) = open.server.as_ref() {
        let chain =
            open_s.component == AZURE_IDENTITY && open_s.cause == Cause::CredentialSourceFailed;
        return chain
            && match &a.kind {
                Kind::ServerFailure(f) => f.doubt == Some(CHAIN_MEMBER_DOUBT),
                Kind::Http(_) => true,
                _ => false,
            };
    }
    if open.audit.is_some()
        || open.review.is_some()
        || open.transport.is_some()
        || open.server.is_some()
    {
        return false;
    }
    match &a.kind {
        // A server's own failure is never another view of a request's answer.
        Kind::Audit(_) | Kind::Review(_) | Kind::Transport(_) | Kind::ServerFailure(_) => false,
        Kind::Http(h) => {
            if h.weight >= 2 && open.strong_http.contains(&a.at.format) {
                return false;
            }
            if open.checker.is_some() {
                return h.own_code().is_none();
            }
            // A reason without a code (a struct's `Reason:` field) joins
            // any answer whose code some version sends it with.
            let fits = |code| {
                h.status.is_none()
                    && h.reason
                        .as_deref()
                        .is_some_and(|r| crate::vocabulary::apimachinery::reason_fits(r, code))
            };
            match (
                open.http.as_ref().and_then(HttpAnswer::own_code),
                h.own_code(),
            ) {
                (Some(a), Some(b)) if a != b => fits(a),
                (None, Some(b)) if open.reasons.is_some() => b == 401 || h.relay.is_some(),
                _ => true,
            }
        }
        // Either joins a relayed answer or one without a status of its own,
        // reasons a 401 too; an answer holds one of them at most.
        Kind::Reasons { .. } | Kind::CheckerFailure(_) => {
            let reasons = matches!(a.kind, Kind::Reasons { .. });
            open.reasons.is_none()
                && open.checker.is_none()
                && open.http.as_ref().is_none_or(|h| {
                    h.relay.is_some() || h.own_code().is_none_or(|c| reasons && c == 401)
                })
        }
        _ => false,
    }
}

/// How strongly an artefact speaks for the answer (the strongest gives its line).
fn weight(a: &Artefact) -> u8 {
    match &a.kind {
        Kind::Http(h) => h.weight,
        Kind::Reasons { .. } if a.at.provenance == Provenance::Authenticator => 3,
        Kind::Reasons { .. } => 2,
        // kubectl's verdict speaks for the client-go log lines before it.
        Kind::Transport(_) if a.at.source == SourceType::Kubectl => 5,
        _ => 4,
    }
}

fn add(open: &mut Open, a: Artefact) {
    open.last = open.last.max(a.at.line);
    let w = weight(&a);
    let Artefact { at, kind } = a;
    let (format, provenance) = (at.format, at.provenance);
    if open.lead.as_ref().is_none_or(|(lead, _)| w > *lead) {
        open.lead = Some((w, at));
    } else if let Some((_, lead)) = open.lead.as_mut()
        && lead.stamp.is_none()
    {
        lead.stamp = at.stamp;
    }
    match kind {
        Kind::Http(h) => {
            if h.weight >= 2 && !open.strong_http.contains(&format) {
                open.strong_http.push(format);
            }
            match open.http.as_mut() {
                Some(existing) => existing.absorb(h),
                None => open.http = Some(h),
            }
        }
        Kind::Reasons { reasons, from } => {
            let source = match (provenance, from) {
                (Provenance::Forwarded, Some(who)) => ReasonSource::Forwarded(who),
                _ if format == "token-review" => ReasonSource::TokenReview,
                _ => ReasonSource::ApiserverLog,
            };
            open.reasons = Some((reasons, Some(source)));
        }
        Kind::Transport(failure) => open.transport = Some(failure),
        Kind::CheckerFailure(failure) => open.checker = Some(failure),
        // The first failure stands for the chain's lines that join it.
        Kind::ServerFailure(failure) => {
            open.server.get_or_insert(failure);
        }
        Kind::Review(review) => open.review = Some(review),
        Kind::Audit(answer) => open.audit = Some(answer),
        other => open.context.take(other),
    }
}

/// The answer the parts make.
fn evidence(open: Open) -> Option<Evidence> {
    let (_, lead) = open.lead?;
    let Open {
        http,
        reasons,
        transport,
        checker,
        server,
        review,
        audit,
        context: Context { mut facts, date },
        ..
    } = open;
    // The answer's own notes come first.
    let around = std::mem::take(&mut facts.notes);
    // A credential source whose failure lists a service's refusal below it
    // (a credential chain's summary, then each credential's error) failed
    // because of that refusal: the refusal is the answer.
    let refused = http.as_ref().is_some_and(|h| h.verdict.is_some());
    let server = server.filter(|f| {
        let because = refused && f.cause == Cause::CredentialSourceFailed;
        if because {
            facts.note(format!(
                "{} failed because of the refusal it lists: {}",
                f.component, f.detail
            ));
        }
        !because
    });
    facts.answer = if let Some(a) = audit {
        let a = *a;
        (facts.user, facts.audit, facts.notes) = (a.user, a.audit, a.notes);
        facts.request = a.request.or(facts.request);
        a.answer
    } else if let Some(failure) = server {
        Answer::ServerFailed(failure)
    } else if let Some(failure) = checker {
        Answer::CheckerFailed(failure)
    } else if let Some(failure) = transport {
        Answer::Transport(failure)
    } else if let Some(h) = http {
        Answer::Http(h)
    } else if let Some(r) = review.as_ref().filter(|r| r.authenticated) {
        facts.user = r.user.clone();
        if !r.audiences.is_empty() {
            facts.note(format!(
                "audiences the server accepted: {}",
                r.audiences.join(", ")
            ));
        }
        Answer::Authenticated(r.shown_by.to_owned())
    } else if reasons.is_some() {
        Answer::Rejected
    } else {
        return None;
    };
    if let Some((reasons, from)) = reasons
        && !matches!(
            facts.answer,
            Answer::CheckerFailed(_) | Answer::Transport(_)
        )
    {
        facts.reasons = reasons;
        facts.reasons_from = from;
    }
    facts.user = facts.user.or_else(|| review.and_then(|r| r.user));
    facts.notes.extend(around);
    // The server's clock: a `Date` header; else the line's own stamp, but a
    // year-less stamp only for an authenticator's own line (a client's klog
    // header is the client's clock, and its year a guess).
    facts.clock = match date {
        Some(at) => Some(ServerClock::at(at, ClockSource::DateHeader)),
        None => lead.stamp.filter(|s| {
            s.source != ClockSource::LogTimestampYearInferred
                || lead.provenance == Provenance::Authenticator
                || lead.source == SourceType::Audit
        }),
    };
    Some(Evidence {
        line: lead.line,
        source: lead.source,
        format: lead.format,
        excerpt: lead.excerpt,
        facts,
    })
}
