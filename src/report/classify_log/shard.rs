//! `classify --merge` input: another run's `classify --log -o json` document
//! (a shard of a log read apart), read back into the report it was written
//! from. It may have been written by anyone: every string is sanitised,
//! every code and era must be one this version knows, every time must parse,
//! and summaries and command lines are this version's, never the document's.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{DateTime, TimeDelta};
use serde_json::Value;

use super::{ClassifyLogJson, GroupJson};
use crate::classify::log::{Group, GroupKey, Join, LogEvent, LogReport, Origin, SourceTally};
use crate::classify::{ClassifyResult, Evidence, Tally};
use crate::diagnosis::reasons::specific;
use crate::diagnosis::{Cause, Classification};
use crate::logs::Micros;
use crate::logs::tally::{Other, Seen};
use crate::report::ShardError;

pub fn read(value: Value, what: &str) -> Result<LogReport, ShardError> {
    crate::report::read_shard(value, what, "classify --log -o json", report)
}

fn report(doc: ClassifyLogJson<'static>) -> Result<LogReport, String> {
    let sources = doc.input.sources.into_owned();
    let mut tally = Tally {
        events: doc.summary.events,
        problems: doc.summary.problems,
        ..Tally::default()
    };
    for (code, n) in doc
        .summary
        .by_classification
        .into_iter()
        .filter(|c| c.1 > 0)
    {
        let class = Classification::ALL.iter().find(|c| c.as_str() == code);
        tally.by_classification.extend(class.map(|c| (*c, n)));
    }
    for (code, n) in doc.summary.by_cause {
        let cause = Cause::ALL.iter().find(|c| c.as_str() == code);
        tally.by_cause.extend(cause.map(|c| (*c, n)));
    }
    let requests = doc
        .requests
        .iter()
        .map(|(code, n)| match code.parse::<u16>() {
            Ok(code) => Ok((code, *n)),
            Err(_) => Err(format!("requests: {code:?} is not an HTTP status")),
        })
        .collect::<Result<_, _>>()?;
    let span = match doc.span {
        Some(s) => Some((
            micros("span.first", &s.first)?,
            micros("span.last", &s.last)?,
        )),
        None => None,
    };
    let groups = doc
        .groups
        .into_iter()
        .map(|g| group(g, &sources))
        .collect::<Result<_, _>>()?;
    Ok(LogReport {
        evaluated_at: DateTime::from_timestamp_micros(micros("evaluated_at", &doc.evaluated_at)?)
            .unwrap_or_default(),
        leeway: TimeDelta::try_seconds(doc.leeway_seconds)
            .ok_or_else(|| format!("leeway_seconds {} is out of range", doc.leeway_seconds))?,
        sources,
        bytes: doc.input.bytes,
        lines: doc.input.lines,
        requests,
        span,
        tally,
        groups,
        notes: doc.notes.into_owned(),
    })
}

/// A group as the report held it: its first event's place, reasons and
/// diagnosis, its counts, and the sources the document lists (the others
/// counted).
fn group(g: GroupJson<'static>, sources: &[String]) -> Result<Group, String> {
    let index = |input: &str| {
        sources
            .iter()
            .position(|s| s == input)
            .ok_or_else(|| format!("input {input:?} is not one of its sources"))
    };
    let reasons = g.reasons;
    let key = GroupKey {
        class: g.classification,
        cause: g.cause,
        confidence: g.confidence,
        status: g.status,
        wording: specific(&reasons).iter().map(|r| (r.kind, r.era)).collect(),
    };
    let mut tallies = HashMap::new();
    for s in g.sources {
        let tally = SourceTally {
            events: s.events,
            seen: seen(s.first_seen.as_ref(), s.last_seen.as_ref(), s.events)?,
            example: (
                index(&s.example.input)?,
                s.example.line,
                s.example.audit_id.map(Cow::into_owned),
            ),
            guessed: s.guessed,
        };
        tallies.insert(s.origin.into_owned(), tally);
    }
    let mut hours = std::collections::BTreeMap::new();
    for b in &g.timeline {
        let hour = micros("timeline", &b.at)?.div_euclid(crate::logs::BUCKET);
        *hours.entry(hour).or_default() += b.count;
    }
    let joins = g
        .joins
        .iter()
        .filter_map(|(code, n)| Some((*Join::ALL.iter().find(|j| j.as_str() == *code)?, *n)))
        .collect();
    let evidence = Evidence {
        line: g.example.line,
        excerpt: g.example.excerpt.into_owned(),
        facts: crate::diagnosis::facts::Case {
            reasons,
            ..Default::default()
        },
        ..Evidence::default()
    };
    let example = LogEvent {
        source: index(&g.example.input)?,
        at: None,
        origin: Origin::default(),
        audit_id: None,
        join: Join::None,
        request_line: g.example.request_line,
        result: ClassifyResult {
            evidence,
            diagnosis: g.diagnosis.to_diagnosis(),
            token_check: None,
        },
    };
    Ok(Group {
        key,
        events: g.events,
        seen: seen(g.first_seen.as_ref(), g.last_seen.as_ref(), g.events)?,
        hours,
        example: Box::new(example),
        joins,
        sources: tallies,
        other_sources: Other {
            identities: g.other_sources.sources,
            events: g.other_sources.events,
        },
    })
}

fn seen(
    first: Option<&super::Time>,
    last: Option<&super::Time>,
    count: u64,
) -> Result<Option<Seen>, String> {
    Ok(match (first, last) {
        (Some(f), Some(l)) => Some(Seen {
            first: micros("first_seen", f)?,
            last: micros("last_seen", l)?,
            count,
        }),
        _ => None,
    })
}

fn micros(field: &str, text: &str) -> Result<Micros, String> {
    crate::logs::time::parse_time(text.as_bytes())
        .ok_or_else(|| format!("{field} {text:?} is not an RFC 3339 time"))
}
