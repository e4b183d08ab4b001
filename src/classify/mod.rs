//! Pure: `classify` turns evidence people arrive with (an HTTP status, a `curl -v`
//! transcript, a kubectl or client-library error, log lines of kube-apiserver,
//! controllers or token checkers, audit events, all as they are pasted) into
//! diagnoses, optionally combined with the token that was used.
//!
//! Flow: text -> [`crate::diagnosis::extract::Scanner`] (typed artefacts,
//! found anywhere, each with its provenance) -> [`assemble`] (one [`Evidence`]
//! per answer, its context attached) -> [`case`] (the typed case) -> the one
//! diagnosis engine. Streaming: every stage is an iterator with bounded state,
//! so a long log never sits in memory as diagnoses. No I/O here: the text, the
//! token and `now` are parameters; rendering is in `report::classify`.

pub mod assemble;
pub mod case;
pub mod log;
pub mod prefilter;

pub use crate::diagnosis::artefact::SourceType;
use crate::diagnosis::facts::ServerClock;

use std::collections::VecDeque;

use chrono::{DateTime, TimeDelta, Utc};

use crate::diagnosis::extract::NearMiss;
use crate::diagnosis::facts::Case;
use crate::diagnosis::{Cause, Classification, Diagnosis};
use crate::token::Token;
use crate::window::Judgement;

pub use crate::diagnosis::facts::{Answer, BearerSeen};

/// One answer found in the input: where it was found, and its facts.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// 1-based line of the answer (of its strongest artefact).
    pub line: usize,
    pub source: SourceType,
    /// The concrete format (`curl -v`, `client-go`, `fabric8`, `klog`…).
    pub format: &'static str,
    /// The line that carried the answer, trimmed
    /// ([`crate::diagnosis::extract::excerpt`]).
    pub excerpt: String,
    /// What the evidence shows of the request and its answer (the server's
    /// clock when it shows an instant), as the engine reads it; the token and
    /// leeway are the run's.
    pub facts: Case<'static>,
}

/// How a token was checked against the evidence's instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenCheck {
    pub stamp: ServerClock,
    pub judgement: Judgement,
}

#[derive(Debug, Clone)]
pub struct ClassifyResult {
    pub evidence: Evidence,
    pub diagnosis: Diagnosis,
    pub token_check: Option<TokenCheck>,
}

/// What was classified, and the answer for every event.
#[derive(Debug, Clone)]
pub struct ClassifyReport {
    pub source_type: SourceType,
    /// Whether the type was detected (`false`: forced with `--type`).
    pub detected: bool,
    pub results: Vec<ClassifyResult>,
    pub evaluated_at: DateTime<Utc>,
    pub leeway: TimeDelta,
}

/// Counts of results as they stream by: what the summary shows and what the
/// exit code follows from (1 when any event is a problem; `classify` never
/// connected anywhere, so a TLS or network failure in the evidence is 1 too).
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub events: usize,
    pub problems: usize,
    pub by_classification: std::collections::BTreeMap<Classification, usize>,
    pub by_cause: std::collections::BTreeMap<Cause, usize>,
}

impl Tally {
    /// Another tally's counts added to this one's.
    pub fn absorb(&mut self, o: Tally) {
        self.events = self.events.saturating_add(o.events);
        self.problems = self.problems.saturating_add(o.problems);
        for (class, n) in o.by_classification {
            let mine = self.by_classification.entry(class).or_default();
            *mine = mine.saturating_add(n);
        }
        for (cause, n) in o.by_cause {
            let mine = self.by_cause.entry(cause).or_default();
            *mine = mine.saturating_add(n);
        }
    }

    pub fn add(&mut self, r: &ClassifyResult) {
        self.events += 1;
        let class = r.diagnosis.classification;
        self.problems += usize::from(class.is_problem());
        *self.by_classification.entry(class).or_default() += 1;
        *self.by_cause.entry(r.diagnosis.cause()).or_default() += 1;
    }

    pub fn outcome(&self) -> crate::exit::Outcome {
        crate::exit::Outcome::problem_if(self.problems > 0)
    }
}

/// What an unrecognised input nearly was, for its one line.
fn near_words(near: &Option<NearMiss>) -> String {
    near.as_ref().map_or(String::new(), |n| {
        let try_type = n
            .try_type
            .map(|t| format!(" (--type {} reads it)", t.as_str()));
        format!(
            "; nearest: line {} has {}{}",
            n.line,
            n.what,
            try_type.unwrap_or_default()
        )
    })
}

/// Why evidence could not be classified (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClassifyError {
    #[error("the evidence is empty")]
    Empty,
    /// Nothing we know, anywhere in the text.
    #[error(
        "unrecognised evidence: looked for HTTP answers and Status bodies, kubectl and client errors, authentication log lines and their reasons, refusals (RBAC, admission, quota), token checkers' messages, TLS and network failures, TokenReviews and audit events{}",
        near_words(.0)
    )]
    Unrecognised(Option<NearMiss>),
    /// `--type` given, and nothing of that type found.
    #[error("no {} found in the evidence (forced with --type {})", .0.describe(), .0.as_str())]
    NothingOfType(SourceType),
}

/// Inputs of a run besides the text.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub token: Option<&'a Token>,
    /// `--at`: the instant of evidence that carries no timestamp.
    pub at: Option<DateTime<Utc>>,
    pub now: DateTime<Utc>,
    pub leeway: TimeDelta,
}

/// The evidence type and its answers, at least one; the start of a streamed run.
pub struct Stream<'a> {
    /// The type of the first answer (or the forced one).
    pub source_type: SourceType,
    /// Whether the type was detected (`false`: forced with `--type`).
    pub detected: bool,
    /// The recognised answers, produced lazily.
    pub events: Box<dyn Iterator<Item = Evidence> + 'a>,
}

/// Reads `text` into answers (only those of the forced type, if one is);
/// an error when there is none.
pub fn start(
    text: &str,
    forced: Option<SourceType>,
    now: DateTime<Utc>,
) -> Result<Stream<'_>, ClassifyError> {
    if text.trim().is_empty() {
        return Err(ClassifyError::Empty);
    }
    let wanted = move |e: &Evidence| forced.is_none_or(|t| e.source == t);
    let mut events = KubectlTrace {
        inner: assemble::Assembler::new(text, now),
        wanted,
        held: VecDeque::new(),
        ready: VecDeque::new(),
    };
    // Peek the first answer before handing the iterator over: its absence is
    // the error, and the near miss is known only then.
    let Some(first) = events.next() else {
        return Err(match forced {
            Some(t) => ClassifyError::NothingOfType(t),
            None => ClassifyError::Unrecognised(events.inner.near_miss()),
        });
    };
    let source_type = forced.unwrap_or(first.source);
    Ok(Stream {
        source_type,
        detected: forced.is_none(),
        events: Box::new(std::iter::once(first).chain(events)),
    })
}

/// A kubectl run at `-v=6` and above logs every request it makes (API
/// discovery first, a retry, the request itself) before it prints its own
/// verdict (`Error from server …`, `error: You must be logged in …`): those
/// logged answers lead up to the verdict, so they are one answer with it, and
/// a note counts them. Logged answers no verdict follows stay answers.
struct KubectlTrace<'a, F> {
    inner: assemble::Assembler<'a>,
    /// The answers asked for (`--type`).
    wanted: F,
    held: VecDeque<Evidence>,
    ready: VecDeque<Evidence>,
}

/// Logged answers held back while waiting for kubectl's verdict.
const MAX_HELD: usize = 1_024;

impl<F: Fn(&Evidence) -> bool> KubectlTrace<'_, F> {
    /// A line of the client's request log (client-go's round-tripper and
    /// discovery), not an answer it printed.
    fn logged(ev: &Evidence) -> bool {
        matches!(ev.format, "kubectl -v" | "client-go -v")
    }

    fn verdict(ev: &Evidence) -> bool {
        ev.source == SourceType::Kubectl && ev.format == "kubectl"
    }

    fn fold(&mut self, mut verdict: Evidence) -> Evidence {
        let held: Vec<Evidence> = self.held.drain(..).collect();
        if let (Some(first), Some(last)) = (held.first(), held.last()) {
            let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
            for ev in &held {
                *counts
                    .entry(ev.facts.classification().as_str())
                    .or_default() += 1;
            }
            let counts: Vec<String> = counts.iter().map(|(c, n)| format!("{n} {c}")).collect();
            verdict.facts.note(format!(
                "kubectl logged {} answer(s) to its earlier requests (API discovery, retries) at lines {}-{}: {}; the answer is its own verdict",
                held.len(),
                first.line,
                last.line,
                counts.join(", ")
            ));
        }
        verdict
    }
}

impl<F: Fn(&Evidence) -> bool> Iterator for KubectlTrace<'_, F> {
    type Item = Evidence;

    fn next(&mut self) -> Option<Evidence> {
        loop {
            if let Some(ev) = self.ready.pop_front() {
                return Some(ev);
            }
            match self.inner.next() {
                Some(ev) if !(self.wanted)(&ev) => {}
                Some(ev) if Self::logged(&ev) => {
                    if self.held.len() >= MAX_HELD {
                        self.ready.extend(self.held.pop_front());
                    }
                    self.held.push_back(ev);
                }
                Some(ev) if Self::verdict(&ev) => return Some(self.fold(ev)),
                Some(ev) => {
                    self.ready.extend(self.held.drain(..));
                    self.ready.push_back(ev);
                }
                None => return self.held.pop_front(),
            }
        }
    }
}

pub fn diagnose_one(mut evidence: Evidence, ctx: Context<'_>) -> ClassifyResult {
    case::read(&mut evidence);
    let (diagnosis, token_check) = case::diagnose(&evidence, ctx);
    ClassifyResult {
        evidence,
        diagnosis,
        token_check,
    }
}

/// Classifies `text` in one go (`app::classify` streams with [`start`] instead).
pub fn classify(
    text: &str,
    forced: Option<SourceType>,
    ctx: Context<'_>,
) -> Result<ClassifyReport, ClassifyError> {
    let stream = start(text, forced, ctx.now)?;
    Ok(ClassifyReport {
        source_type: stream.source_type,
        detected: stream.detected,
        results: stream.events.map(|e| diagnose_one(e, ctx)).collect(),
        evaluated_at: ctx.now,
        leeway: ctx.leeway,
    })
}

#[cfg(test)]
mod generated;
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use super::generated::ctx;

    #[test]
    fn text_without_an_answer_says_what_it_nearly_was() {
        for (text, nearly) in [
            (
                "error: cannot create certificate signing request: User \"kubelet-boo",
                "an authorizer's refusal may have been cut short",
            ),
            (
                "  Warning  FailedCreate  7s  replicaset-controller  Error creating: ",
                "a controller's failed create",
            ),
            (
                "DEBUG: Error received, backing off (deadline=\"Instant { tv_sec: 1078 }\")",
                "a client retrying after an error it does not print",
            ),
        ] {
            let e = classify(text, None, ctx()).err().map(|e| e.to_string());
            assert!(
                e.as_deref()
                    .is_some_and(|e| e.contains("nearest: line 1 has") && e.contains(nearly)),
                "{text}: {e:?}"
            );
        }
    }

    #[test]
    fn a_mesh_verdict_is_not_read_as_the_transport_words_around_it() {
        let line = r#"[     3.1s]  WARN ThreadId(01) identity: linkerd_app_core::control: Failed to resolve control-plane component error=status: FailedPrecondition, message: "authentication token could not be authenticated""#;
        let d = &classify(line, None, ctx()).unwrap().results[0].diagnosis;
        assert_eq!(
            (d.classification, d.cause()),
            (Classification::Unauthorized, Cause::Unknown)
        );
    }

    /// A Go struct's `Reason: "Timeout",` field is the reason of the 429
    /// around it (old servers sent 429s with it), not a 504 of its own.
    #[test]
    fn a_struct_s_reason_field_joins_its_status() {
        let text = "<*errors.StatusError | 0xc>: {\n    ErrStatus: {\n        Message: \"the server has received too many requests and has asked us to try again later (get pods x)\",\n        Reason: \"Timeout\",\n        Code: 429,\n    },\n}";
        let r = classify(text, None, ctx()).unwrap();
        let answers: Vec<_> = r
            .results
            .iter()
            .map(|r| (r.diagnosis.classification, r.diagnosis.cause()))
            .collect();
        assert!(!answers.is_empty());
        assert!(
            answers
                .iter()
                .all(|a| *a == (Classification::OtherStatus, Cause::Throttled)),
            "{answers:?}"
        );
    }

    #[test]
    fn unrecognised_and_empty_are_errors() {
        assert!(matches!(
            classify("hello", None, ctx()).unwrap_err(),
            ClassifyError::Unrecognised(None)
        ));
        assert_eq!(
            classify(" \n", None, ctx()).unwrap_err(),
            ClassifyError::Empty
        );
        let e = classify("{\"kind\":\"Pod\"}\nthe job got a 401 back", None, ctx()).unwrap_err();
        let line = e.to_string();
        assert!(line.contains("line 2 has the number 401"), "{line}");
        assert!(line.contains("--type status"), "{line}");
        assert_eq!(line.lines().count(), 1);
    }

    proptest! {
        /// Whatever the text (including fragments of every format), classify
        /// answers or refuses; it never panics.
        #[test]
        fn never_panics(
            prefix in prop::sample::select(vec![
                "", "< HTTP/2 ", "HTTP/1.1 ", "error: You must be logged in to the server (",
                "Error from server (", "E1231 23:59:59.000000 1 authentication.go:75] \"Unable to authenticate the request\" err=\"[",
                "{\"kind\":\"Status\",\"code\":", "kubernetes.client.exceptions.ApiException: (",
                "Request failed with status code ", "> Authorization: Bearer ", "Date: ",
                "{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Event\",\"responseStatus\":{\"code\":",
                "Mar 26 16:23:32 h k[1]: ", "│ ", "00000460  48 5b 69  |H[i|", "time=\"x\" msg=\"",
                "pods \"x\" is forbidden: ", "* claim \"iss\" is invalid", "[invalid bearer token, [",
            ]),
            body in "\\PC{0,80}",
        ) {
            let text = format!("{prefix}{body}");
            let _ = classify(&text, None, ctx());
            for t in SourceType::ALL {
                let _ = classify(&text, Some(*t), ctx());
            }
            let _ = crate::diagnosis::reasons::parse_auth_error(&body);
        }
    }
}
