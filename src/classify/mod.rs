//! Pure: `classify` turns evidence people arrive with (an HTTP status, a `curl -v`
//! transcript, a kubectl or client-library error, kube-apiserver log lines, audit
//! events) into diagnoses, optionally combined with the token that was used.
//!
//! Flow: [`detect`] picks the evidence type (or `--type` forces one), the type's
//! parser turns text into [`Evidence`] (one per recognised event, with its line),
//! and [`diagnose::diagnose`] turns each into a [`Diagnosis`]. No I/O here: the
//! text, the token and `now` are parameters; rendering is in `report::classify`.

pub mod audit;
pub mod case;
pub mod clients;
pub mod http;
pub mod logs;
pub mod text;

pub use crate::diagnosis::extract::transport;

use chrono::{DateTime, TimeDelta, Utc};

use crate::diagnosis::reasons::AuthReason;
use crate::diagnosis::{Cause, Classification, Diagnosis};
use crate::token::Token;
use crate::window::Judgement;
use crate::wire::string_codes;

/// The kinds of evidence `classify` reads (`--type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum SourceType {
    /// An HTTP status line or code, with or without headers and a Status body.
    Status,
    /// A `curl -v` transcript.
    Curl,
    /// kubectl's error output (also with `-v=6`+ request logs).
    Kubectl,
    /// A client library's error: client-go, fabric8 (Java), Python kubernetes /
    /// requests, Ray job submission.
    ClientError,
    /// kube-apiserver log lines ("Unable to authenticate the request"), or a
    /// TokenReview response, which carries the same error text.
    ApiserverLog,
    /// Kubernetes audit events (audit.k8s.io/v1 Event), JSON or JSON lines.
    Audit,
}

string_codes!(SourceType: Status, Curl, Kubectl, ClientError, ApiserverLog, Audit);

impl SourceType {
    /// Stable kebab-case name, as in JSON and `--type`.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Status => "status",
            SourceType::Curl => "curl",
            SourceType::Kubectl => "kubectl",
            SourceType::ClientError => "client-error",
            SourceType::ApiserverLog => "apiserver-log",
            SourceType::Audit => "audit",
        }
    }

    /// What a user would call it, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            SourceType::Status => "HTTP status",
            SourceType::Curl => "curl -v transcript",
            SourceType::Kubectl => "kubectl error",
            SourceType::ClientError => "client library error",
            SourceType::ApiserverLog => "kube-apiserver authentication log line or TokenReview",
            SourceType::Audit => "audit event",
        }
    }
}

/// Where an evidence timestamp came from, and so whose clock it is.
pub use crate::diagnosis::case::ClockSource as StampSource;

/// An instant and whose clock it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub at: DateTime<Utc>,
    pub source: StampSource,
}

/// What the request got: an HTTP answer, an authentication error text, or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// An HTTP status (code, or only the reason when a client printed that).
    Status {
        code: Option<u16>,
        /// `reason` of the Status body (`Forbidden`, `NotFound`…).
        reason: Option<String>,
        /// `message` of the Status body, or the client's rendering of it.
        message: Option<String>,
    },
    /// kube-apiserver's own account of a rejected token (a 401 with its reasons).
    Rejected { reasons: Vec<AuthReason> },
    /// A TokenReview that authenticated the token.
    Authenticated,
    /// No HTTP answer: TLS, DNS, refused, timeout.
    Transport { cause: Cause, detail: String },
}

impl Answer {
    /// The HTTP status code, when known.
    pub fn code(&self) -> Option<u16> {
        match self {
            Answer::Status { code, .. } => *code,
            Answer::Rejected { .. } => Some(401),
            _ => None,
        }
    }
}

pub use crate::diagnosis::case::{AuditFacts, BearerSeen, RequestInfo};

/// One recognised event in the input.
#[derive(Debug, Clone)]
pub struct Evidence {
    /// 1-based line where the event is (its first line for multi-line evidence).
    pub line: usize,
    pub source: SourceType,
    /// The concrete format (`curl -v`, `client-go`, `fabric8`, `klog`…).
    pub format: &'static str,
    /// The line that carried the answer, trimmed.
    pub excerpt: String,
    pub answer: Answer,
    pub stamp: Option<Stamp>,
    /// The authenticated user, when the evidence names one.
    pub user: Option<String>,
    pub request: Option<RequestInfo>,
    /// Facts noticed while parsing, shown as evidence.
    pub notes: Vec<String>,
    pub bearer: Option<BearerSeen>,
    pub audit: AuditFacts,
}

impl Evidence {
    /// A new event with only the essentials; parsers fill in the rest.
    pub fn new(
        line: usize,
        source: SourceType,
        format: &'static str,
        excerpt: &str,
        answer: Answer,
    ) -> Self {
        Evidence {
            line,
            source,
            format,
            excerpt: text::excerpt(excerpt),
            answer,
            stamp: None,
            user: None,
            request: None,
            notes: Vec::new(),
            bearer: None,
            audit: AuditFacts::default(),
        }
    }
}

/// How a token was checked against the evidence's instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenCheck {
    pub stamp: Stamp,
    pub judgement: Judgement,
}

/// One event, diagnosed.
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

impl ClassifyReport {
    /// Whether a problem was classified: anything but ok and 404.
    pub fn has_problem(&self) -> bool {
        self.results
            .iter()
            .any(|r| r.diagnosis.classification.is_problem())
    }
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
    /// Counts one result.
    pub fn add(&mut self, r: &ClassifyResult) {
        self.events += 1;
        let class = r.diagnosis.classification;
        if class.is_problem() {
            self.problems += 1;
        }
        *self.by_classification.entry(class).or_default() += 1;
        *self.by_cause.entry(r.diagnosis.cause()).or_default() += 1;
    }

    /// The exit code.
    pub fn outcome(&self) -> crate::exit::Outcome {
        if self.problems > 0 {
            crate::exit::Outcome::Problem
        } else {
            crate::exit::Outcome::Healthy
        }
    }
}

/// Why evidence could not be classified (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClassifyError {
    /// Nothing but whitespace.
    #[error("the evidence is empty")]
    Empty,
    /// Not any type we know.
    #[error(
        "unrecognised evidence: not an HTTP status, a curl -v transcript, a kubectl or client error, a kube-apiserver authentication log line or an audit event (use --type to force one)"
    )]
    Unrecognised,
    /// `--type` given, and nothing of that type found.
    #[error("no {} found in the evidence (forced with --type {})", .0.describe(), .0.as_str())]
    NothingOfType(SourceType),
}

/// Inputs of a run besides the text.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The token the user gave, if any.
    pub token: Option<&'a Token>,
    /// `--at`: the instant of evidence that carries no timestamp.
    pub at: Option<DateTime<Utc>>,
    pub now: DateTime<Utc>,
    pub leeway: TimeDelta,
}

/// Detects the evidence type of `text`, or `None`.
pub fn detect(text: &str) -> Option<SourceType> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if audit::looks_like(trimmed) {
            return Some(SourceType::Audit);
        }
        if logs::looks_like(trimmed) {
            return Some(SourceType::ApiserverLog);
        }
        if http::looks_like_status(trimmed) {
            return Some(SourceType::Status);
        }
    }
    if logs::looks_like(text) {
        return Some(SourceType::ApiserverLog);
    }
    if http::looks_like_curl(text) {
        return Some(SourceType::Curl);
    }
    if clients::looks_like_kubectl(text) {
        return Some(SourceType::Kubectl);
    }
    if http::looks_like_status(trimmed) {
        return Some(SourceType::Status);
    }
    if clients::looks_like_client(text) {
        return Some(SourceType::ClientError);
    }
    None
}

/// Recognised events, produced lazily where the format allows (log lines, JSON
/// lines), so a long log is never held as diagnoses in memory.
pub type Events<'a> = Box<dyn Iterator<Item = Evidence> + 'a>;

/// Parses `text` as `source`: the recognised events, possibly none.
pub fn parse_as(source: SourceType, text: &str, now: DateTime<Utc>) -> Events<'_> {
    match source {
        SourceType::Status => Box::new(http::parse_status(text).into_iter()),
        SourceType::Curl => Box::new(http::parse_curl(text).into_iter()),
        SourceType::Kubectl => Box::new(clients::parse_kubectl(text).into_iter()),
        SourceType::ClientError => clients::parse_client(text),
        SourceType::ApiserverLog => logs::parse(text, now),
        SourceType::Audit => audit::parse(text),
    }
}

/// The evidence type and its events, at least one; the start of a streamed run.
pub struct Stream<'a> {
    pub source_type: SourceType,
    /// Whether the type was detected (`false`: forced with `--type`).
    pub detected: bool,
    pub events: std::iter::Peekable<Events<'a>>,
}

/// Detects (or takes the forced) type and parses; an error when nothing is recognised.
pub fn start(
    text: &str,
    forced: Option<SourceType>,
    now: DateTime<Utc>,
) -> Result<Stream<'_>, ClassifyError> {
    if text.trim().is_empty() {
        return Err(ClassifyError::Empty);
    }
    let (source_type, detected) = match forced {
        Some(t) => (t, false),
        None => (detect(text).ok_or(ClassifyError::Unrecognised)?, true),
    };
    let mut events = parse_as(source_type, text, now).peekable();
    if events.peek().is_none() {
        return Err(if detected {
            ClassifyError::Unrecognised
        } else {
            ClassifyError::NothingOfType(source_type)
        });
    }
    Ok(Stream {
        source_type,
        detected,
        events,
    })
}

/// Diagnoses one event.
pub fn diagnose_one(mut evidence: Evidence, ctx: Context<'_>) -> ClassifyResult {
    case::enrich(&mut evidence);
    let (diagnosis, token_check) = case::diagnose(&evidence, ctx);
    ClassifyResult {
        evidence,
        diagnosis,
        token_check,
    }
}

/// Classifies `text` in one go: detects (or uses the forced) type, parses,
/// diagnoses every event. (`app::classify` streams with [`start`] instead.)
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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ctx() -> Context<'static> {
        Context {
            token: None,
            at: None,
            now: crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap(),
            leeway: TimeDelta::seconds(60),
        }
    }

    #[test]
    fn detection_by_shape() {
        for (text, want) in [
            ("HTTP/1.1 403 Forbidden\r\n\r\n", Some(SourceType::Status)),
            ("401 Unauthorized", Some(SourceType::Status)),
            (r#"{"kind":"Status","code":404}"#, Some(SourceType::Status)),
            (
                "*   Trying 10.96.0.1:443...\ncurl: (7) Failed to connect",
                Some(SourceType::Curl),
            ),
            (
                "Error from server (NotFound): pods \"x\" not found",
                Some(SourceType::Kubectl),
            ),
            (
                "failed to list *v1.Pod: Unauthorized",
                Some(SourceType::ClientError),
            ),
            (
                r#"E1231 00:00:00.000000 1 authentication.go:75] "Unable to authenticate the request" err="invalid bearer token""#,
                Some(SourceType::ApiserverLog),
            ),
            (
                r#"{"kind":"TokenReview","status":{"error":"invalid bearer token"}}"#,
                Some(SourceType::ApiserverLog),
            ),
            (
                r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"x","responseStatus":{"code":200}}"#,
                Some(SourceType::Audit),
            ),
            ("all pods are ready", None),
            ("{\"kind\":\"Pod\"}", None),
        ] {
            assert_eq!(detect(text), want, "{text}");
        }
    }

    #[test]
    fn unrecognised_and_empty_are_errors() {
        assert_eq!(
            classify("hello", None, ctx()).unwrap_err(),
            ClassifyError::Unrecognised
        );
        assert_eq!(
            classify(" \n", None, ctx()).unwrap_err(),
            ClassifyError::Empty
        );
        assert_eq!(
            classify("hello", Some(SourceType::Curl), ctx()).unwrap_err(),
            ClassifyError::NothingOfType(SourceType::Curl)
        );
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
            ]),
            body in "\\PC{0,80}",
        ) {
            let text = format!("{prefix}{body}");
            let _ = classify(&text, None, ctx());
            for t in [SourceType::Status, SourceType::Curl, SourceType::Kubectl,
                      SourceType::ClientError, SourceType::ApiserverLog, SourceType::Audit] {
                let _ = classify(&text, Some(t), ctx());
            }
            let _ = crate::diagnosis::reasons::parse_auth_error(&body);
        }
    }
}
