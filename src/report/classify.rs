//! `classify` output: the JSON wire types (documented in docs/classify.md) and
//! the table rendering. Evidence text is server- and user-supplied: every string
//! shown in a table goes through `sanitize`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use owo_colors::OwoColorize as _;
use serde::Serialize;

use super::TableStyle;
use super::sanitize::sanitize;
use super::table::{key_value_table, write_table};
use crate::classify::{ClassifyReport, ClassifyResult, RequestInfo, TokenCheck};
use crate::diagnosis::reasons::AuthReason;
use crate::diagnosis::{Cause, CauseCandidate, Classification, Confidence};
use crate::timefmt::rfc3339;
use crate::token::{self, Token};
use crate::window::{at_seconds, ceil_seconds, floor_seconds};

/// Every classification, for the summary (stable keys, zero counts included).
const CLASSIFICATIONS: [Classification; 7] = [
    Classification::Ok,
    Classification::NotFound,
    Classification::Forbidden,
    Classification::Unauthorized,
    Classification::OtherStatus,
    Classification::TlsError,
    Classification::NetworkError,
];

/// `classify -o json`.
#[derive(Debug, Serialize)]
pub struct ClassifyJson<'a> {
    pub input: InputJson,
    pub evaluated_at: String,
    pub leeway_seconds: i64,
    /// The token given with --token/-f; null without one.
    pub token: Option<TokenJson>,
    pub results: Vec<ResultJson<'a>>,
    pub summary: SummaryJson,
}

/// What was read.
#[derive(Debug, Serialize)]
pub struct InputJson {
    /// `stdin` or `file PATH`.
    pub source: String,
    /// The evidence type.
    #[serde(rename = "type")]
    pub source_type: &'static str,
    /// `false` when forced with --type.
    pub detected: bool,
}

/// The token, identified (never shown).
#[derive(Debug, Serialize)]
pub struct TokenJson {
    pub fingerprint: String,
    pub kind: &'static str,
    pub binding: &'static str,
    pub subject: Option<String>,
    pub issued_at: Option<String>,
    pub not_before: Option<String>,
    pub expires_at: Option<String>,
    pub credential_id: Option<String>,
}

/// One recognised event.
#[derive(Debug, Serialize)]
pub struct ResultJson<'a> {
    /// 1-based line of the event in the input.
    pub line: usize,
    pub source_type: &'static str,
    /// The concrete format (`curl -v`, `structured`, `fabric8`…).
    pub format: &'static str,
    /// The line that carried the answer.
    pub excerpt: &'a str,
    /// The evidence's own instant, when it has one.
    pub at: Option<String>,
    /// `date-header`, `log-timestamp`, `log-timestamp-year-inferred`, `audit-timestamp`.
    pub at_source: Option<&'static str>,
    /// HTTP status code, when known.
    pub status: Option<u16>,
    pub classification: Classification,
    pub cause: Cause,
    pub confidence: Confidence,
    pub user: Option<&'a str>,
    pub request: Option<&'a RequestInfo>,
    /// kube-apiserver's reasons (log line or TokenReview), parsed.
    pub reasons: &'a [AuthReason],
    pub evidence: &'a [String],
    pub next_steps: &'a [String],
    pub candidates: &'a [CauseCandidate],
    /// The token's times judged at the event's instant (401 with a token only).
    pub token_check: Option<TokenCheckJson>,
}

/// `window::judge` at the event's instant.
#[derive(Debug, Serialize)]
pub struct TokenCheckJson {
    pub at: String,
    pub at_source: &'static str,
    pub verdict: &'static str,
    pub accepted_in_seconds: Option<i64>,
    pub rejected_for_seconds: Option<i64>,
    pub remaining_seconds: Option<i64>,
}

/// Counts over all results.
#[derive(Debug, Serialize)]
pub struct SummaryJson {
    pub events: usize,
    /// Events whose classification is neither ok nor 404-not-found.
    pub problems: usize,
    /// Every classification, with 0 for those absent.
    pub by_classification: BTreeMap<&'static str, usize>,
    /// Only the causes present.
    pub by_cause: BTreeMap<&'static str, usize>,
}

impl<'a> ClassifyJson<'a> {
    /// The wire form of a report.
    pub fn new(report: &'a ClassifyReport, source: &str, token: Option<&Token>) -> Self {
        ClassifyJson {
            input: InputJson {
                source: source.to_owned(),
                source_type: report.source_type.as_str(),
                detected: report.detected,
            },
            evaluated_at: rfc3339(report.evaluated_at),
            leeway_seconds: report.leeway.num_seconds(),
            token: token.map(token_json),
            results: report.results.iter().map(result_json).collect(),
            summary: summary(report),
        }
    }
}

fn token_json(t: &Token) -> TokenJson {
    let (kind, binding) = token::kind::classify(&t.claims);
    let time = |s: Option<i64>| s.map(|s| rfc3339(at_seconds(s)));
    TokenJson {
        fingerprint: t.fingerprint.clone(),
        kind: kind.as_str(),
        binding: binding.as_str(),
        subject: t.claims.subject.clone(),
        issued_at: time(t.claims.issued_at),
        not_before: time(t.claims.not_before),
        expires_at: time(t.claims.expires_at),
        credential_id: t.claims.jwt_id.as_ref().map(|j| format!("JTI={j}")),
    }
}

fn result_json(r: &ClassifyResult) -> ResultJson<'_> {
    let ev = &r.evidence;
    let reasons: &[AuthReason] = match &ev.answer {
        crate::classify::Answer::Rejected { reasons } => reasons,
        _ => &[],
    };
    ResultJson {
        line: ev.line,
        source_type: ev.source.as_str(),
        format: ev.format,
        excerpt: &ev.excerpt,
        at: ev.stamp.map(|s| rfc3339(s.at)),
        at_source: ev.stamp.map(|s| s.source.as_str()),
        status: ev.answer.code(),
        classification: r.diagnosis.classification,
        cause: r.diagnosis.cause,
        confidence: r.diagnosis.confidence,
        user: ev.user.as_deref(),
        request: ev.request.as_ref().filter(|r| !r.is_empty()),
        reasons,
        evidence: &r.diagnosis.evidence,
        next_steps: &r.diagnosis.next_steps,
        candidates: &r.diagnosis.candidates,
        token_check: r.token_check.map(check_json),
    }
}

fn check_json(c: TokenCheck) -> TokenCheckJson {
    let j = c.judgement;
    TokenCheckJson {
        at: rfc3339(c.stamp.at),
        at_source: c.stamp.source.as_str(),
        verdict: j.verdict.as_str(),
        accepted_in_seconds: j.accepted_in.map(ceil_seconds),
        rejected_for_seconds: j.rejected_for.map(ceil_seconds),
        remaining_seconds: j.remaining.map(floor_seconds),
    }
}

fn summary(report: &ClassifyReport) -> SummaryJson {
    let mut by_classification: BTreeMap<&'static str, usize> =
        CLASSIFICATIONS.iter().map(|c| (c.as_str(), 0)).collect();
    let mut by_cause = BTreeMap::new();
    for r in &report.results {
        *by_classification
            .entry(r.diagnosis.classification.as_str())
            .or_default() += 1;
        *by_cause.entry(r.diagnosis.cause.as_str()).or_default() += 1;
    }
    SummaryJson {
        events: report.results.len(),
        problems: report
            .results
            .iter()
            .filter(|r| {
                !matches!(
                    r.diagnosis.classification,
                    Classification::Ok | Classification::NotFound
                )
            })
            .count(),
        by_classification,
        by_cause,
    }
}

/// `classify` as tables: one block per event, then a summary line.
pub fn write_classify(
    out: &mut dyn Write,
    report: &ClassifyReport,
    token: Option<&Token>,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    writeln!(
        out,
        "{} {} ({})",
        "Evidence:".style(s.bold),
        report.source_type.as_str(),
        if report.detected {
            "detected"
        } else {
            "forced with --type"
        }
    )?;
    if let Some(t) = token {
        let (kind, _) = token::kind::classify(&t.claims);
        writeln!(
            out,
            "{} sha256:{} {} {}",
            "Token:".style(s.bold),
            t.fingerprint,
            kind.as_str(),
            sanitize(t.claims.subject.as_deref().unwrap_or("-"))
        )?;
    }
    for (n, r) in report.results.iter().enumerate() {
        writeln!(out)?;
        write_result(out, n + 1, r, style)?;
    }
    writeln!(out)?;
    let summary = summary(report);
    let counts: Vec<String> = summary
        .by_classification
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(c, n)| format!("{n} {c}"))
        .collect();
    let line = format!(
        "Summary: {} event{}: {}",
        summary.events,
        if summary.events == 1 { "" } else { "s" },
        counts.join(", ")
    );
    let styled = if summary.problems > 0 {
        line.style(s.error).to_string()
    } else {
        line.style(s.ok).to_string()
    };
    writeln!(out, "{styled}")
}

fn write_result(
    out: &mut dyn Write,
    number: usize,
    r: &ClassifyResult,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let ev = &r.evidence;
    let d = &r.diagnosis;
    let at = ev
        .stamp
        .map(|st| format!("  {} ({})", rfc3339(st.at), st.source.as_str()))
        .unwrap_or_default();
    writeln!(
        out,
        "{}",
        format!("#{number}  line {}  {}{at}", ev.line, ev.format).style(s.bold)
    )?;
    let mut table = key_value_table(style);
    let list = |items: &[String]| {
        items
            .iter()
            .map(|i| format!("- {}", sanitize(i)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut row = |key: &str, value: String| {
        if !value.is_empty() {
            table.add_row([format!("{key}:").style(s.bold).to_string(), value]);
        }
    };
    let class_style = match d.classification {
        Classification::Ok | Classification::NotFound => s.ok,
        _ => s.error,
    };
    let status = ev
        .answer
        .code()
        .map(|c| format!(" (HTTP {c})"))
        .unwrap_or_default();
    row(
        "Classification",
        format!("{}{status}", d.classification.as_str().style(class_style)),
    );
    row(
        "Cause",
        format!(
            "{} ({} confidence)",
            d.cause.as_str().style(s.bold),
            confidence_word(d.confidence)
        ),
    );
    if let Some(user) = &ev.user {
        row("User", sanitize(user).into_owned());
    }
    if let Some(req) = ev.request.as_ref().filter(|r| !r.is_empty()) {
        row("Request", sanitize(&request_words(req)).into_owned());
    }
    if let crate::classify::Answer::Rejected { reasons } = &ev.answer {
        let lines: Vec<String> = reasons
            .iter()
            .map(|r| format!("{} ({}): {}", r.kind.as_str(), r.era, r.message))
            .collect();
        row("Server said", list(&lines));
    }
    if let Some(c) = r.token_check {
        let j = c.judgement;
        let mut text = format!(
            "{} at {} ({})",
            j.verdict.as_str(),
            rfc3339(c.stamp.at),
            c.stamp.source.as_str()
        );
        if let Some(d) = j.accepted_in {
            text.push_str(&format!(", accepted in {} s", ceil_seconds(d)));
        }
        if let Some(d) = j.rejected_for {
            text.push_str(&format!(", rejected for {} s", ceil_seconds(d)));
        }
        row("Token check", text);
    }
    row("Evidence", list(&d.evidence));
    row("Next steps", list(&d.next_steps));
    let others: Vec<String> = d
        .candidates
        .iter()
        .skip(1)
        .map(|c| format!("{} ({})", c.cause.as_str(), confidence_word(c.confidence)))
        .collect();
    row("Also possible", others.join(", "));
    write_table(out, &table)
}

fn confidence_word(c: Confidence) -> &'static str {
    match c {
        Confidence::High => "high",
        Confidence::Medium => "medium",
        Confidence::Low => "low",
    }
}

/// `list pods -n shop`, `get rayclusters.ray.io/rc -n ml`, `get /api`.
fn request_words(r: &RequestInfo) -> String {
    let mut words = vec![r.verb.clone().unwrap_or_else(|| "?".to_owned())];
    if let Some(res) = &r.resource {
        let mut what = res.clone();
        if let Some(g) = r.api_group.as_deref().filter(|g| !g.is_empty()) {
            what = format!("{what}.{g}");
        }
        if let Some(name) = &r.name {
            what = format!("{what}/{name}");
        }
        if let Some(sub) = &r.subresource {
            what = format!("{what}/{sub}");
        }
        words.push(what);
        if let Some(ns) = &r.namespace {
            words.push(format!("-n {ns}"));
        }
    } else if let Some(path) = &r.path {
        words.push(path.clone());
    }
    words.join(" ")
}
