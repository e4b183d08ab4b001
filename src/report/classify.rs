//! `classify` output: the JSON wire types (documented in docs/classify.md) and
//! the table rendering. Evidence text is server- and user-supplied: every string
//! shown in a table goes through `sanitize`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::rc::Rc;

use chrono::{DateTime, TimeDelta, Utc};

use owo_colors::OwoColorize as _;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::ser::SerializeSeq as _;
use serde::{Deserialize, Serialize, Serializer};

use super::TableStyle;
use super::diagnosis::{DiagnosisJson, write_diagnosis};
use super::json::{Time, TokenSummaryJson};
use super::sanitize::{cell, ellipsize, sanitize};
use super::table::{key_value_table, write_table};
use crate::classify::{ClassifyResult, SourceType, Tally};
use crate::diagnosis::facts::ClockSource;
use crate::diagnosis::facts::RequestInfo;
use crate::diagnosis::reasons::AuthReason;
use crate::diagnosis::{Cause, Classification, Diagnosis};
use crate::token::{self, Token};
use crate::window::Verdict;
use crate::window::{ceil_seconds, floor_seconds};

/// `classify -o json`: every answer recognised in the evidence, each with its
/// diagnosis, and counts over them.
#[derive(Serialize, JsonSchema)]
pub struct ClassifyJson<'a> {
    /// What was read.
    pub input: InputJson,
    /// `--now` or the clock.
    pub evaluated_at: Time,
    /// The leeway applied.
    #[schemars(range(min = 0))]
    pub leeway_seconds: i64,
    /// The token given with --token/-f; null without one.
    pub token: Option<TokenSummaryJson<'a>>,
    /// One per recognised event, in input order.
    #[schemars(with = "Vec<ResultJson<'static>>")]
    results: Results<'a>,
    /// Counts over all results.
    #[schemars(with = "SummaryJson")]
    summary: Summary,
}

/// The results, each diagnosed and tallied as it is written: a long log
/// never sits in memory as diagnoses.
struct Results<'a>(
    RefCell<Option<Box<dyn Iterator<Item = ClassifyResult> + 'a>>>,
    Summary,
);

/// The tally of the results written before it.
struct Summary(Rc<RefCell<Tally>>);

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for r in self.0.take().into_iter().flatten() {
            self.1.0.borrow_mut().add(&r);
            seq.serialize_element(&result_json(&r))?;
        }
        seq.end()
    }
}

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SummaryJson::new(&self.0.borrow()).serialize(s)
    }
}

/// What was read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct InputJson {
    /// `stdin` or `file PATH`.
    pub source: String,
    /// The evidence type.
    #[serde(rename = "type")]
    pub source_type: SourceType,
    /// `false` when forced with --type.
    pub detected: bool,
}

/// One recognised event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ResultJson<'a> {
    /// 1-based line of the event in the input.
    #[schemars(range(min = 1))]
    pub line: usize,
    /// The evidence type of this event.
    pub source_type: SourceType,
    /// The concrete format (`curl -v`, `structured`, `fabric8`…).
    pub format: &'static str,
    /// The line that carried the answer.
    pub excerpt: &'a str,
    /// The evidence's own instant, when it has one.
    pub at: Option<Time>,
    /// Where `at` came from.
    pub at_source: Option<ClockSource>,
    /// HTTP status code, when known.
    #[schemars(range(min = 100, max = 599))]
    pub status: Option<u16>,
    /// The user the evidence names.
    pub user: Option<&'a str>,
    /// The request, or null when nothing is known.
    pub request: Option<&'a RequestInfo>,
    /// kube-apiserver's reasons (log line or TokenReview), parsed.
    pub reasons: &'a [AuthReason],
    /// The token's times judged at the event's instant (401 with a token only).
    pub token_check: Option<TokenCheckJson>,
    /// What the answer means and what to do.
    pub diagnosis: DiagnosisJson<'a>,
}

/// `window::judge` at the event's instant.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TokenCheckJson {
    /// The instant judged at.
    pub at: Time,
    /// Where that instant came from.
    pub at_source: ClockSource,
    /// The verdict at that instant.
    pub verdict: Verdict,
    /// Not yet valid: seconds until accepted, rounded up.
    pub accepted_in_seconds: Option<i64>,
    /// Expired: seconds since rejection began, rounded up.
    pub rejected_for_seconds: Option<i64>,
    /// Accepted: seconds still accepted, rounded down.
    pub remaining_seconds: Option<i64>,
}

/// Counts over all results.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SummaryJson {
    /// Number of results.
    pub events: usize,
    /// Events whose classification is neither ok nor 404-not-found.
    pub problems: usize,
    /// Every per-request classification, with 0 for those absent.
    #[schemars(schema_with = "counts::<Classification>")]
    #[serde(deserialize_with = "known_counts::<_, Classification, _>")]
    pub by_classification: BTreeMap<&'static str, usize>,
    /// Only the causes present, with their counts.
    #[schemars(schema_with = "counts::<Cause>")]
    #[serde(deserialize_with = "known_counts::<_, Cause, _>")]
    pub by_cause: BTreeMap<&'static str, usize>,
}

/// `{code: count}`, keyed by the codes of `K`.
pub(crate) fn counts<K: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "propertyNames": generator.subschema_for::<K>(),
        "additionalProperties": generator.subschema_for::<usize>(),
    })
}

/// `{code: count}` read back (another run's document), every code one of `K`'s.
pub(crate) fn known_counts<'de, D, K, N>(d: D) -> Result<BTreeMap<&'static str, N>, D::Error>
where
    D: serde::Deserializer<'de>,
    K: strum::VariantArray + Copy + Into<&'static str>,
    N: Deserialize<'de>,
{
    let codes = K::VARIANTS.iter().map(|&c| c.into());
    BTreeMap::<String, N>::deserialize(d)?
        .into_iter()
        .map(|(k, n)| match codes.clone().find(|c| *c == k) {
            Some(code) => Ok((code, n)),
            None => Err(serde::de::Error::custom(format!("unknown code `{k}`"))),
        })
        .collect()
}

impl SummaryJson {
    /// The wire summary of a tally (every classification, zeros included).
    pub fn new(t: &Tally) -> Self {
        let mut by_classification: BTreeMap<&'static str, usize> = Classification::per_request()
            .map(|c| (c.as_str(), 0))
            .collect();
        by_classification.extend(t.by_classification.iter().map(|(k, v)| (k.as_str(), *v)));
        SummaryJson {
            events: t.events,
            problems: t.problems,
            by_classification,
            by_cause: t.by_cause.iter().map(|(k, v)| (k.as_str(), *v)).collect(),
        }
    }
}

impl<'a> ClassifyJson<'a> {
    /// The document of `results`, taken as it is written.
    pub fn new(
        input: InputJson,
        evaluated_at: DateTime<Utc>,
        leeway: TimeDelta,
        token: Option<&'a Token>,
        results: impl Iterator<Item = ClassifyResult> + 'a,
    ) -> Self {
        let tally = Rc::new(RefCell::new(Tally::default()));
        ClassifyJson {
            input,
            evaluated_at: Time::new(evaluated_at),
            leeway_seconds: leeway.num_seconds(),
            token: token.map(TokenSummaryJson::new),
            results: Results(
                RefCell::new(Some(Box::new(results))),
                Summary(tally.clone()),
            ),
            summary: Summary(tally),
        }
    }

    /// The tally of the results written.
    pub fn tally(&self) -> Tally {
        self.summary.0.borrow().clone()
    }
}

pub(crate) fn result_json(r: &ClassifyResult) -> ResultJson<'_> {
    let ev = &r.evidence;
    ResultJson {
        line: ev.line,
        source_type: ev.source,
        format: ev.format,
        excerpt: &ev.excerpt,
        at: ev.facts.clock.map(|c| Time::new(c.low)),
        at_source: ev.facts.clock.map(|c| c.source),
        status: ev.facts.answer.code(),
        user: ev.facts.user.as_deref(),
        request: ev.facts.request.as_ref().filter(|r| !r.is_empty()),
        reasons: &ev.facts.reasons,
        token_check: r.token_check.map(|c| TokenCheckJson {
            at: Time::new(c.stamp.low),
            at_source: c.stamp.source,
            verdict: c.judgement.verdict,
            accepted_in_seconds: c.judgement.accepted_in.map(ceil_seconds),
            rejected_for_seconds: c.judgement.rejected_for.map(ceil_seconds),
            remaining_seconds: c.judgement.remaining.map(floor_seconds),
        }),
        diagnosis: DiagnosisJson::new(&r.diagnosis),
    }
}

/// Up to this many results are shown as detailed blocks; more (a log file) as
/// one compact row each.
pub const DETAILED_MAX: usize = 10;

/// `classify` as tables, streamed: a header, one block per event (or one row per
/// event past [`DETAILED_MAX`]), then a summary line; the tally of every result.
pub fn write_tables(
    out: &mut dyn Write,
    style: &TableStyle,
    input: &InputJson,
    token: Option<&Token>,
    results: impl Iterator<Item = ClassifyResult>,
) -> io::Result<Tally> {
    let s = &style.styles;
    writeln!(
        out,
        "{} {} ({})",
        "Input:".style(s.bold),
        input.source_type.as_str(),
        if input.detected {
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
    let mut tally = Tally::default();
    // Results held until we know whether there are more than `DETAILED_MAX`.
    let mut pending = Vec::new();
    let mut compact = false;
    for r in results {
        tally.add(&r);
        if compact {
            write_row(out, &r, style)?;
            continue;
        }
        pending.push(r);
        if pending.len() > DETAILED_MAX {
            compact = true;
            writeln!(out)?;
            let header = format!(
                "{:>6}  {:<17}  {:<25}  {:<6}  EVIDENCE",
                "LINE", "CLASSIFICATION", "CAUSE", "CONF"
            );
            writeln!(out, "{}", header.style(s.bold))?;
            for r in pending.drain(..) {
                write_row(out, &r, style)?;
            }
        }
    }
    for (n, r) in pending.iter().enumerate() {
        writeln!(out)?;
        write_result(out, n + 1, r, style)?;
    }
    writeln!(out)?;
    let summary = SummaryJson::new(&tally);
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
    let look = if summary.problems > 0 { s.error } else { s.ok };
    writeln!(out, "{}", line.style(look))?;
    if compact {
        let causes: Vec<String> = summary
            .by_cause
            .iter()
            .map(|(c, n)| format!("{n} {c}"))
            .collect();
        for line in wrap(&format!("Causes: {}", causes.join(", ")), style.width) {
            writeln!(out, "{line}")?;
        }
        writeln!(
            out,
            "{}",
            "Details: -o json, or classify one line at a time.".style(s.dim)
        )?;
    }
    Ok(tally)
}

/// Breaks `text` after `, ` so that lines fit `width` columns where possible.
fn wrap(text: &str, width: u16) -> Vec<String> {
    let width = usize::from(width);
    let mut lines = vec![String::new()];
    for (i, part) in text.split(", ").enumerate() {
        let last = lines.last_mut().expect("never empty");
        let piece = if i == 0 {
            part.to_owned()
        } else {
            format!(", {part}")
        };
        if !last.is_empty() && last.chars().count() + piece.chars().count() > width {
            last.push(',');
            lines.push(format!("  {part}"));
        } else {
            last.push_str(&piece);
        }
    }
    lines
}

fn class_style(d: &Diagnosis, style: &TableStyle) -> owo_colors::Style {
    let s = &style.styles;
    if d.classification.is_problem() {
        s.error
    } else {
        s.ok
    }
}

/// One compact row (streamed: no table is kept in memory).
fn write_row(out: &mut dyn Write, r: &ClassifyResult, style: &TableStyle) -> io::Result<()> {
    let d = &r.diagnosis;
    // What is left of the width after the fixed columns.
    let room = usize::from(style.width)
        .saturating_sub(6 + 2 + 17 + 2 + 25 + 2 + 6 + 2)
        .max(20);
    // For the apiserver's reasons, the reason says more than the log prefix.
    let what = if r.evidence.facts.reasons.is_empty() {
        r.evidence.excerpt.clone()
    } else {
        crate::diagnosis::reasons::specific(&r.evidence.facts.reasons)
            .iter()
            .map(|r| r.message.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let excerpt = ellipsize(&sanitize(&what), room);
    writeln!(
        out,
        "{:>6}  {}  {:<25}  {:<6}  {excerpt}",
        r.evidence.line,
        format!("{:<17}", d.classification.as_str()).style(class_style(d, style)),
        d.cause().as_str(),
        d.confidence().as_str(),
    )
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
    let at = (ev.facts.clock)
        .map(|c| format!("  {} ({})", style.time(c.low), c.source.as_str()))
        .unwrap_or_default();
    writeln!(
        out,
        "{}",
        format!("#{number}  line {}  {}{at}", ev.line, ev.format).style(s.bold)
    )?;
    let status = ev
        .facts
        .answer
        .code()
        .map(|c| format!(" (HTTP {c})"))
        .unwrap_or_default();
    let class = d.classification.as_str();
    let answer = format!("{}{status}", class.style(class_style(d, style)));
    let request = ev
        .facts
        .request
        .as_ref()
        .filter(|r| !r.is_empty())
        .map(request_words);
    let said: Vec<String> = ev
        .facts
        .reasons
        .iter()
        .map(|r| format!("{} ({}): {}", r.kind.as_str(), r.era, r.message))
        .map(|line| format!("- {}", sanitize(&line)))
        .collect();
    let check = r.token_check.map(|c| {
        let j = c.judgement;
        let mut text = format!(
            "{} at {} ({})",
            j.verdict.as_str(),
            style.time(c.stamp.low),
            c.stamp.source.as_str()
        );
        if let Some(d) = j.accepted_in {
            text.push_str(&format!(", accepted in {} s", ceil_seconds(d)));
        }
        if let Some(d) = j.rejected_for {
            text.push_str(&format!(", rejected for {} s", ceil_seconds(d)));
        }
        text
    });
    let rows = [
        ("Answer", Some(answer)),
        ("User", ev.facts.user.as_deref().map(cell)),
        ("Request", request.as_deref().map(cell)),
        ("Server said", Some(said.join("\n"))),
        ("Token check", check),
    ];
    // An empty value (no reasons, an empty user) makes no row.
    let rows = rows.map(|(key, value)| (key, value.filter(|v| !v.is_empty())));
    write_table(out, &key_value_table(style, rows))?;
    write_diagnosis(out, d, style)
}

/// `list pods -n shop`, `get rayclusters.ray.io/rc -n ml`, `get /api`.
fn request_words(r: &RequestInfo) -> String {
    let mut words = vec![r.verb.clone().unwrap_or_else(|| "?".to_owned())];
    if r.resource.is_some() {
        let mut what = r.qualified_resource(false);
        for part in [&r.name, &r.subresource].into_iter().flatten() {
            what = format!("{what}/{part}");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::{self, ClassifyReport, Context};
    use serde_json::Value;

    const MIXED: &str = include_str!("../../testdata/evidence/apiserver-1.33-mixed.log");

    fn input(report: &ClassifyReport) -> InputJson {
        InputJson {
            source: "stdin".to_owned(),
            source_type: report.source_type,
            detected: report.detected,
        }
    }

    fn report(text: &str) -> ClassifyReport {
        let ctx = Context {
            token: None,
            at: None,
            now: crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap(),
            leeway: chrono::TimeDelta::seconds(60),
        };
        classify::classify(text, None, ctx).unwrap()
    }

    #[test]
    fn streamed_json_has_every_result_and_their_summary() {
        for text in [
            MIXED,
            "401\n",
            "Error from server (NotFound): pods \"x\" not found",
        ] {
            let report = report(text);
            let (at, leeway) = (report.evaluated_at, report.leeway);
            let results = report.results.clone().into_iter();
            let doc = ClassifyJson::new(input(&report), at, leeway, None, results);
            let mut out = Vec::new();
            super::super::json::write_pretty(&mut out, &doc).unwrap();
            let streamed: Value = serde_json::from_slice(&out).unwrap();
            let each: Vec<Value> = (report.results.iter())
                .map(|r| serde_json::to_value(result_json(r)).unwrap())
                .collect();
            assert_eq!(streamed["results"], Value::Array(each));
            assert_eq!(streamed["summary"]["events"], report.results.len());
            assert_eq!(doc.tally().events, report.results.len());
        }
    }

    #[test]
    fn many_events_become_compact_rows() {
        let style = TableStyle::plain(100);
        let table = |text| {
            let report = report(text);
            let mut out = Vec::new();
            let input = input(&report);
            write_tables(&mut out, &style, &input, None, report.results.into_iter()).unwrap();
            String::from_utf8(out).unwrap()
        };
        let text = table(MIXED);
        assert!(text.contains("LINE  CLASSIFICATION"), "{text}");
        assert!(
            text.contains("Summary: 17 events: 17 401-invalid-token"),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        let text = table("401\n");
        assert!(
            text.contains("Answer:") && text.contains("Diagnosis:"),
            "{text}"
        );
        assert!(!text.contains("LINE  CLASSIFICATION"), "{text}");
    }
}
