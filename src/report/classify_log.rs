//! `classify` of a log: the JSON wire types (docs/classify.md, "Logs"), the
//! table, and `--events`' one line per event. Log text is server- and
//! client-supplied: every string in the table goes through `sanitize`.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::io::{self, Write};

use owo_colors::OwoColorize as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TableStyle;
use super::audit::table::{Axis, axis_width, bytes_words, thousands};
use super::audit::{BucketJson, SpanJson, timeline};
use super::classify::{ResultJson, SummaryJson, counts, result_json};
use super::diagnosis::{DiagnosisJson, cause_words, write_hanging, write_item, write_lead};
use super::json::{Time, TokenSummaryJson};
use super::sanitize::{ellipsize, sanitize};
use super::table::{list_table, write_table};
use crate::classify::log::{Group, Join, LogEvent, LogReport, Origin, SourceTally};
use crate::diagnosis::reasons::AuthReason;
use crate::diagnosis::{Cause, Classification, Confidence, SupportKind};
use crate::logs::time::instant;
use crate::token::Token;

pub mod shard;

/// Sources listed per group in JSON, most events first.
pub const JSON_SOURCES: usize = 20;
/// Groups listed as rows in the table; the rest are counted.
pub const TABLE_GROUPS: usize = 40;
/// Groups of one classification listed as rows: the rest of a class's
/// groups are counted, so that every class has rows.
pub const TABLE_GROUPS_PER_CLASS: usize = 16;
/// The widest source a row names (an IPv4 address, a user's first words).
const FROM_CHARS: usize = 24;
/// Groups whose details (sources, diagnosis, next steps) the table shows.
pub const TABLE_DETAILS: usize = 3;

/// The failing events counted as people triage them: 401s and 403s (the
/// token rejected, the request refused) each on their own, then everything
/// else (404s, other statuses, connection errors) by its class.
fn failing_counts(tally: &crate::classify::Tally) -> String {
    use crate::diagnosis::Classification::{Forbidden, Unauthorized};
    let count = |class| tally.by_classification.get(&class).copied().unwrap_or(0);
    let mut parts: Vec<String> = [(Unauthorized, "401"), (Forbidden, "403")]
        .into_iter()
        .filter(|(class, _)| count(*class) > 0)
        .map(|(class, status)| format!("{} {status}s", thousands(count(class) as u64)))
        .collect();
    let others: Vec<(&Classification, &usize)> = tally
        .by_classification
        .iter()
        .filter(|(class, n)| !matches!(class, Unauthorized | Forbidden) && **n > 0)
        .collect();
    if !others.is_empty() {
        let n: usize = others.iter().map(|(_, n)| **n).sum();
        let noun = if n == 1 { "event" } else { "events" };
        let each: Vec<String> = others
            .iter()
            .map(|(class, n)| format!("{} {}", class.as_str(), thousands(**n as u64)))
            .collect();
        parts.push(format!(
            "{} other {noun} ({})",
            thousands(n as u64),
            each.join(", ")
        ));
    }
    parts.join(", ")
}

/// `classify -o json` of a log: the failing events in groups, most relevant
/// to a token first, with counts, timelines and a diagnosis each.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ClassifyLogJson<'a> {
    /// What was read.
    pub input: LogInputJson<'a>,
    /// `--now` or the clock.
    pub evaluated_at: Time,
    /// The leeway applied.
    #[schemars(range(min = 0))]
    pub leeway_seconds: i64,
    /// The token given with --token/-f; null without one.
    #[serde(deserialize_with = "super::diagnosis::ignored")]
    pub token: Option<TokenSummaryJson<'a>>,
    /// The first and last line time, or null when no line has one.
    pub span: Option<SpanJson>,
    /// Seconds per timeline bucket (an hour, aligned to the hour in UTC).
    pub bucket_seconds: u64,
    /// kube-apiserver's httplog requests per HTTP status (successes are
    /// counted here, not listed).
    pub requests: BTreeMap<String, u64>,
    /// The failing events by classification and cause.
    pub summary: SummaryJson,
    /// One per group of failing events, most relevant first.
    pub groups: Vec<GroupJson<'a>>,
    /// Limits reached and other facts about the run.
    pub notes: Cow<'a, [String]>,
}

/// What was read.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct LogInputJson<'a> {
    /// `file PATH` or `stdin`, in order.
    pub sources: Cow<'a, [String]>,
    /// Bytes read, after decompression.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
}

/// Failing events that share a class, cause, confidence and reason wording.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GroupJson<'a> {
    /// What kind of answer the requests got.
    pub classification: Classification,
    /// The cause (`kubectl satoken explain CAUSE`).
    pub cause: Cause,
    /// How sure.
    pub confidence: Confidence,
    /// The HTTP status, for HTTP answers.
    #[schemars(range(min = 100, max = 599))]
    pub status: Option<u16>,
    /// kube-apiserver's reasons, as the first event gave them.
    pub reasons: Vec<AuthReason>,
    /// Events in the group.
    pub events: u64,
    /// The earliest dated event, or null.
    pub first_seen: Option<Time>,
    /// The latest dated event, or null.
    pub last_seen: Option<Time>,
    /// Events per hour, hours without events left out.
    pub timeline: Vec<BucketJson>,
    /// The first event, to look it up.
    pub example: ExampleJson<'a>,
    /// Events by how the reason line and the request's httplog line were
    /// joined: `exact`, `guess` (lower confidence) or `none`.
    #[schemars(schema_with = "counts::<Join>")]
    #[serde(deserialize_with = "super::classify::known_counts::<_, Join, _>")]
    pub joins: BTreeMap<&'static str, u64>,
    /// Who sent the requests, most events first (at most 20; a shard's, with
    /// `--shard`, every one kept, at most 256).
    pub sources: Vec<SourceJson<'a>>,
    /// Sources not listed, and their events.
    pub other_sources: OtherSourcesJson,
    /// The first event's diagnosis.
    pub diagnosis: DiagnosisJson<'a>,
}

/// An event's place in the input.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ExampleJson<'a> {
    /// `file PATH` or `stdin`.
    pub input: Cow<'a, str>,
    /// 1-based line.
    #[schemars(range(min = 1))]
    pub line: usize,
    /// The line, trimmed and cut.
    pub excerpt: Cow<'a, str>,
    /// The httplog line joined to the reason line, or null.
    pub request_line: Option<u64>,
}

/// One source of a group's events: what their lines say of the client.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SourceJson<'a> {
    #[serde(flatten)]
    pub origin: Cow<'a, Origin>,
    /// Events from it.
    pub events: u64,
    /// The earliest dated event, or null.
    pub first_seen: Option<Time>,
    /// The latest dated event, or null.
    pub last_seen: Option<Time>,
    /// The first event's input and line.
    pub example: ExampleLineJson<'a>,
    /// Events whose join to this source was a guess.
    pub guessed: u64,
}

/// A line of an input, and the audit ID it carries.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ExampleLineJson<'a> {
    /// `file PATH` or `stdin`.
    pub input: Cow<'a, str>,
    /// 1-based line.
    pub line: u64,
    /// httplog's `audit-ID`, or null.
    pub audit_id: Option<Cow<'a, str>>,
}

/// Sources not listed.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct OtherSourcesJson {
    /// Sources.
    pub sources: u64,
    /// Their events.
    pub events: u64,
}

/// `classify --events`: one failing event of a log, one JSON line each.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LogEventJson<'a> {
    /// `file PATH` or `stdin`.
    pub input: &'a str,
    /// The `kubectl logs --prefix` tag, or null.
    pub stream: Option<&'a str>,
    /// httplog's `srcIP` without its port, or null.
    pub source_ip: Option<&'a str>,
    /// httplog's `userAgent`, or null.
    pub user_agent: Option<&'a str>,
    /// httplog's `audit-ID`, or null.
    pub audit_id: Option<&'a str>,
    /// How the reason line and the request's httplog line were joined.
    pub join: Join,
    /// The httplog line joined to the reason line, or null.
    pub request_line: Option<u64>,
    /// The event, as `classify -o json` gives each result.
    #[serde(flatten)]
    pub result: ResultJson<'a>,
}

impl<'a> LogEventJson<'a> {
    pub fn new(ev: &'a LogEvent, sources: &'a [String]) -> Self {
        LogEventJson {
            input: input(sources, ev.source),
            stream: ev.origin.stream.as_deref(),
            source_ip: ev.origin.source_ip.as_deref(),
            user_agent: ev.origin.user_agent.as_deref(),
            audit_id: ev.audit_id.as_deref(),
            join: ev.join,
            request_line: ev.request_line,
            result: result_json(&ev.result),
        }
    }
}

fn input(sources: &[String], i: usize) -> &str {
    sources.get(i).map_or("stdin", String::as_str)
}

fn time(at: Option<crate::logs::Micros>) -> Option<Time> {
    at.map(|at| Time::new(instant(at)))
}

impl<'a> ClassifyLogJson<'a> {
    /// The wire form of a report; a shard's (`--shard`) lists every source a
    /// group kept, not the first [`JSON_SOURCES`], so that merged shards list
    /// what one run over the whole lists.
    pub fn new(r: &'a LogReport, token: Option<&'a Token>, shard: bool) -> Self {
        let listed = if shard { usize::MAX } else { JSON_SOURCES };
        ClassifyLogJson {
            input: LogInputJson {
                sources: Cow::Borrowed(&r.sources),
                bytes: r.bytes,
                lines: r.lines,
            },
            evaluated_at: Time::new(r.evaluated_at),
            leeway_seconds: r.leeway.num_seconds(),
            token: token.map(TokenSummaryJson::new),
            span: r.span.map(|(f, l)| SpanJson {
                first: Time::new(instant(f)),
                last: Time::new(instant(l)),
            }),
            bucket_seconds: crate::logs::BUCKET_SECONDS,
            requests: r
                .requests
                .iter()
                .map(|(c, n)| (c.to_string(), *n))
                .collect(),
            summary: SummaryJson::new(&r.tally),
            groups: r
                .groups
                .iter()
                .map(|g| group_json(g, &r.sources, listed))
                .collect(),
            notes: Cow::Borrowed(&r.notes),
        }
    }
}

fn group_json<'a>(g: &'a Group, sources: &'a [String], most: usize) -> GroupJson<'a> {
    let ev = &g.example;
    let evidence = &ev.result.evidence;
    let mut listed = ranked_sources(g);
    let unlisted = listed.len().saturating_sub(most) as u64;
    listed.truncate(most);
    let shown: u64 = listed.iter().map(|(_, s)| s.events).sum();
    GroupJson {
        classification: g.key.class,
        cause: g.key.cause,
        confidence: g.key.confidence,
        status: g.key.status,
        reasons: evidence.facts.reasons.clone(),
        events: g.events,
        first_seen: time(g.seen.map(|s| s.first)),
        last_seen: time(g.seen.map(|s| s.last)),
        timeline: timeline(&g.hours),
        example: ExampleJson {
            input: Cow::Borrowed(input(sources, ev.source)),
            line: evidence.line,
            excerpt: Cow::Borrowed(&evidence.excerpt),
            request_line: ev.request_line,
        },
        joins: g.joins.iter().map(|(j, n)| (j.as_str(), *n)).collect(),
        other_sources: OtherSourcesJson {
            sources: unlisted + g.other_sources.identities,
            events: g.events - shown,
        },
        sources: listed
            .into_iter()
            .map(|(o, s)| SourceJson {
                origin: Cow::Borrowed(o),
                events: s.events,
                first_seen: time(s.seen.map(|x| x.first)),
                last_seen: time(s.seen.map(|x| x.last)),
                example: ExampleLineJson {
                    input: Cow::Borrowed(input(sources, s.example.0)),
                    line: s.example.1,
                    audit_id: s.example.2.as_deref().map(Cow::Borrowed),
                },
                guessed: s.guessed,
            })
            .collect(),
        diagnosis: DiagnosisJson::new(&ev.result.diagnosis),
    }
}

fn ranked_sources(g: &Group) -> Vec<(&Origin, &SourceTally)> {
    let mut v: Vec<_> = g.sources.iter().collect();
    v.sort_by_key(|&(o, t)| {
        (
            Reverse(t.events),
            [&o.stream, &o.user, &o.source_ip, &o.user_agent],
        )
    });
    v
}

/// `10.0.0.7 worker/v1`, `sa shop/api`, `pod/x/c`: a source in a few words.
fn origin_words(o: &Origin) -> String {
    let words: Vec<&str> = [&o.stream, &o.user, &o.source_ip, &o.user_agent]
        .into_iter()
        .filter_map(|v| v.as_deref())
        .collect();
    if words.is_empty() {
        "(the line names no source)".to_owned()
    } else {
        words.join(" ")
    }
}

/// A source in one word: the user, else the address, the stream or the
/// client.
fn origin_short(o: &Origin) -> String {
    [&o.user, &o.source_ip, &o.stream, &o.user_agent]
        .into_iter()
        .find_map(|v| v.clone())
        .unwrap_or_else(|| "(no source)".to_owned())
}

/// The table: what was read, one row per group, then the first groups' details.
pub fn write_log_table(out: &mut dyn Write, r: &LogReport, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let span = r
        .span
        .map(|(f, l)| format!(", {} to {}", style.time(instant(f)), style.time(instant(l))))
        .unwrap_or_default();
    writeln!(
        out,
        "{} {} lines in {} source{} ({}){span}",
        "Log:".style(s.bold),
        thousands(r.lines),
        r.sources.len(),
        if r.sources.len() == 1 { "" } else { "s" },
        bytes_words(r.bytes)
    )?;
    let requests: u64 = r.requests.values().sum();
    if requests > 0 {
        let mut classes: BTreeMap<&str, u64> = BTreeMap::new();
        for (code, n) in &r.requests {
            let class = match code {
                401 => "401",
                403 => "403",
                200..=399 => "2xx/3xx",
                _ => "other",
            };
            *classes.entry(class).or_default() += n;
        }
        let mut line = format!("     {} requests in httplog:", thousands(requests));
        for class in ["2xx/3xx", "401", "403", "other"] {
            if let Some(&n) = classes.get(class) {
                let pct = n as f64 * 100.0 / requests as f64;
                line.push_str(&format!("  {class} {} ({pct:.1} %)", thousands(n)));
            }
        }
        writeln!(out, "{line}")?;
    }
    let failing = r.tally.events as u64;
    if failing == 0 {
        writeln!(out, "{} no failing event", "Found:".style(s.bold))?;
    } else {
        let count = |j| -> u64 { r.groups.iter().filter_map(|g| g.joins.get(&j)).sum() };
        let (exact, guessed) = (count(Join::Exact), count(Join::Guess));
        let joins = if exact + guessed > 0 {
            format!(
                "; {} reason lines joined to their request's 401 ({} by a guess)",
                thousands(exact + guessed),
                thousands(guessed)
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "{} {} in {} group{}{joins}",
            "Found:".style(s.bold),
            failing_counts(&r.tally),
            r.groups.len(),
            if r.groups.len() == 1 { "" } else { "s" },
        )?;
    }
    for n in &r.notes {
        writeln!(out, "{} {}", "Note:".style(s.dim), sanitize(n))?;
    }
    if r.groups.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    write_rows(out, r, style)?;
    for (i, g) in r.groups.iter().enumerate().take(TABLE_DETAILS) {
        writeln!(out)?;
        write_group(out, i + 1, g, r, style)?;
    }
    if r.groups.len() > TABLE_DETAILS {
        writeln!(
            out,
            "\n{}",
            "The other groups' sources and next steps: -o json; every event: --events."
                .style(s.dim)
        )?;
    }
    Ok(())
}

/// One row per group (the first [`TABLE_GROUPS`], at most
/// [`TABLE_GROUPS_PER_CLASS`] of a classification), then the causes.
fn write_rows(out: &mut dyn Write, r: &LogReport, style: &TableStyle) -> io::Result<()> {
    let axis = r.span.map(|(f, l)| Axis::new(f, l, axis_width(style)));
    let header = axis.as_ref().map_or("TIMELINE".to_owned(), Axis::header);
    let mut table = list_table(style, &["#", "EVENTS", &header, "PROBLEM", "LINE", "FROM"]);
    let mut per_class: BTreeMap<Classification, usize> = BTreeMap::new();
    let mut hidden: Vec<&Group> = Vec::new();
    let mut shown = 0;
    for (i, g) in r.groups.iter().enumerate() {
        let listed = per_class.entry(g.key.class).or_default();
        if shown >= TABLE_GROUPS || *listed >= TABLE_GROUPS_PER_CLASS {
            hidden.push(g);
            continue;
        }
        (shown, *listed) = (shown + 1, *listed + 1);
        let answer = match (g.key.class, g.key.status) {
            (Classification::Unauthorized, _) => "401".to_owned(),
            (Classification::Forbidden, _) => "403".to_owned(),
            (Classification::NotFound, _) => "404".to_owned(),
            (Classification::OtherStatus, Some(code)) => code.to_string(),
            (class, _) => class.as_str().to_owned(),
        };
        let mut cause = match g.key.confidence {
            Confidence::High => g.key.cause.as_str().to_owned(),
            c => format!("{} ({})", g.key.cause.as_str(), c.as_str()),
        };
        // Two wordings of one cause (two versions') are two groups: say which.
        // (The era's first words: `≤1.22, and every version for legacy
        // tokens` is `≤1.22` in a row; the details and JSON have it whole.)
        if let Some((_, era)) = g.key.wording.first().filter(|(_, era)| *era != "all") {
            let short = era.split([',', ' ']).next().unwrap_or_default();
            cause.push_str(&format!(" [{short}]"));
        }
        // The source with the most events when it sent most of them (and how
        // many others there are), else how many sources there are.
        let count = g.sources.len() as u64 + g.other_sources.identities;
        let ranked = ranked_sources(g);
        let from = match ranked.first() {
            Some((o, t)) if t.events * 2 >= g.events => {
                let top = ellipsize(&sanitize(&origin_short(o)), FROM_CHARS);
                match count - 1 {
                    0 => top,
                    n => format!("{top} +{}", thousands(n)),
                }
            }
            _ => format!("{} sources", thousands(count)),
        };
        table.add_row(vec![
            (i + 1).to_string(),
            thousands(g.events),
            axis.as_ref().map_or(String::new(), |a| {
                a.sparkline(g.hours.iter().map(|(h, n)| (*h, *n)))
            }),
            format!("{answer} {cause}"),
            g.example.result.evidence.line.to_string(),
            from,
        ]);
    }
    write_table(out, &table)?;
    if !hidden.is_empty() {
        writeln!(
            out,
            "{} more groups ({} events): -o json lists every one",
            hidden.len(),
            thousands(hidden.iter().map(|g| g.events).sum())
        )?;
    }
    let causes: Vec<String> = r
        .tally
        .by_cause
        .iter()
        .map(|(c, n)| format!("{} {}", thousands(*n as u64), c.as_str()))
        .collect();
    let width = style.text_width();
    write_hanging(out, ["Causes: ", "  "], &causes.join(", "), width)
}

/// A group's details: when, what the server said, from whom, the diagnosis.
fn write_group(
    out: &mut dyn Write,
    n: usize,
    g: &Group,
    r: &LogReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let width = style.text_width();
    let ev = &g.example;
    let d = &ev.result.diagnosis;
    writeln!(
        out,
        "{}",
        format!(
            "{n}. {}: {}, {} event{}",
            d.classification.as_str(),
            cause_words(g.key.cause, g.key.confidence),
            thousands(g.events),
            if g.events == 1 { "" } else { "s" }
        )
        .style(s.bold)
    )?;
    let when = match g.seen {
        Some(seen) if seen.first == seen.last => {
            format!("at {}; ", style.time(instant(seen.first)))
        }
        Some(seen) => format!(
            "from {} to {}; ",
            style.time(instant(seen.first)),
            style.time(instant(seen.last))
        ),
        None => String::new(),
    };
    // The line is quoted here unless the evidence below quotes the server's
    // own words from it: each fact once.
    let quoted = d
        .top()
        .support
        .iter()
        .any(|s| s.kind == SupportKind::ServerReason);
    let mut first = format!(
        "{when}first at line {} of {}",
        ev.result.evidence.line,
        input(&r.sources, ev.source)
    );
    if !quoted {
        first = format!("{first}: {}", ev.result.evidence.excerpt);
    }
    write_item(out, &first, width)?;
    let ranked = ranked_sources(g);
    let mut from: Vec<String> = ranked
        .iter()
        .take(3)
        .map(|(o, t)| format!("{} ({})", origin_words(o), thousands(t.events)))
        .collect();
    let more = (ranked.len().saturating_sub(3)) as u64 + g.other_sources.identities;
    if more > 0 {
        from.push(format!("{} more", thousands(more)));
    }
    write_item(out, &format!("from {}", from.join(", ")), width)?;
    let guessed = g.joins.get(&Join::Guess).copied().unwrap_or(0);
    let exact = g.joins.get(&Join::Exact).copied().unwrap_or(0);
    if exact + guessed > 0 {
        write_item(
            out,
            &format!(
                "{} joined to their request's httplog 401: {} by audit ID, {} by time (a guess)",
                thousands(exact + guessed),
                thousands(exact),
                thousands(guessed)
            ),
            width,
        )?;
    }
    // The diagnosis in brief (its cause heads the group): the other
    // candidates by name (`-o json` has each in full).
    write_lead(out, d, style)?;
    let others: Vec<&str> = d.others().map(|c| c.cause.as_str()).collect();
    if !others.is_empty() {
        let text = format!("Other candidates: {} (-o json has each)", others.join(", "));
        write_hanging(out, [""; 2], &text, width + 2)?;
    }
    Ok(())
}
