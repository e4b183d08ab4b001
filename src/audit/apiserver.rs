//! Pure: kube-apiserver's own reasons for 401s, from its log, joined to the
//! audit log's 401 events by time.
//!
//! An audit 401 event says only `Authentication failed, attempted: bearer`;
//! the reason (expired, key, ServiceAccount gone…) is in the API server's log,
//! `"Unable to authenticate the request" err="[…]"` (structured, 1.21+), `…
//! due to an error: […]` (klog, ≤1.20) or a `--logging-format=json` object,
//! read here with their time (RFC 3339 prefix, klog header, or `ts`). That line carries
//! no audit ID and no address (k8s.io/apiserver
//! pkg/endpoints/filters/authentication.go), so the join is by time: an event
//! takes the reasons of the failure lines logged within [`WINDOW`] of it when
//! they all agree, and is counted as ambiguous when they do not.

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, TimeDelta, Utc};
use serde::Deserialize;

use super::event::{Micros, parse_time};
use crate::diagnosis::reasons::{AuthReason, parse_auth_error};

/// What k8s.io/apiserver pkg/endpoints/filters/authentication.go logs.
const MESSAGE: &str = "Unable to authenticate the request";

/// How far from an audit event a log line may be and still be its.
pub const WINDOW: Micros = 1_000_000;
/// Failure lines kept (16 bytes each).
pub const MAX_LINES: usize = 4_000_000;
/// Distinct reason sets kept; a line with another one is counted, not kept.
pub const MAX_SETS: usize = 4_096;
/// Longest error text read from one line (longer ones are cut, and say so).
const MAX_ERROR_BYTES: usize = 4_096;

/// The failure lines of the API server logs, by time, with their reasons.
#[derive(Debug, Default)]
pub struct ReasonIndex {
    /// (time, index into `sets`), sorted by time.
    lines: Vec<(Micros, u32)>,
    /// The distinct reason sets, in order of first appearance.
    pub sets: Vec<Vec<AuthReason>>,
    /// Lines read, failure lines found, failure lines without a timestamp,
    /// and failure lines past [`MAX_LINES`].
    pub read: u64,
    pub failures: u64,
    pub undated: u64,
    pub dropped: u64,
}

/// What the log says about one 401.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// Every failure line within reach gives this reason set.
    One(u32),
    /// Failure lines within reach disagree.
    Several,
    /// No failure line within reach.
    None,
}

impl ReasonIndex {
    /// Adds one log line (others than failure lines are skipped).
    pub fn add_line(&mut self, line: &str, now: DateTime<Utc>) {
        self.read += 1;
        let Some((at, err)) = failure(line, now) else {
            return;
        };
        self.failures += 1;
        let Some(at) = at else {
            self.undated += 1;
            return;
        };
        let reasons = parse_auth_error(&super::aggregate::cut(&err, MAX_ERROR_BYTES));
        if self.lines.len() >= MAX_LINES {
            self.dropped += 1;
            return;
        }
        let set = match self.sets.iter().position(|s| same(s, &reasons)) {
            Some(i) => i,
            None if self.sets.len() >= MAX_SETS => {
                self.dropped += 1;
                return;
            }
            None => {
                self.sets.push(reasons);
                self.sets.len() - 1
            }
        };
        self.lines
            .push((at, u32::try_from(set).unwrap_or(u32::MAX)));
    }

    /// Sorts by time; call once, after the last line.
    pub fn finish(&mut self) {
        self.lines.sort_unstable();
    }

    /// The reasons for a 401 at `at`.
    pub fn join(&self, at: Micros) -> Join {
        let from = self.lines.partition_point(|(t, _)| *t < at - WINDOW);
        let mut found = None;
        for &(t, set) in &self.lines[from..] {
            if t > at + WINDOW {
                break;
            }
            match found {
                None => found = Some(set),
                Some(s) if s != set => return Join::Several,
                Some(_) => {}
            }
        }
        found.map_or(Join::None, Join::One)
    }

    /// Whether any failure line was read.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// A failure line's time (when it has one) and error text.
fn failure(line: &str, now: DateTime<Utc>) -> Option<(Option<Micros>, String)> {
    if !line.contains(MESSAGE) {
        return None;
    }
    let line = line.trim();
    if line.starts_with('{') {
        #[derive(Deserialize)]
        struct JsonLine {
            ts: Option<f64>,
            msg: Option<String>,
            err: Option<String>,
        }
        let j: JsonLine = serde_json::from_str(line).ok()?;
        if j.msg.as_deref() != Some(MESSAGE) {
            return None;
        }
        let at = j.ts.map(|ts| (ts * 1e6).round() as Micros);
        return Some((at, j.err?));
    }
    // CRI files and `kubectl logs --timestamps`: `<RFC 3339> [stderr F ]`,
    // usually followed by the klog header too (the prefix's time is the exact one).
    let (mut at, mut rest) = match line.split_once(' ') {
        Some((first, rest)) => match parse_time(first.as_bytes()) {
            Some(t) => (Some(t), rest.trim_start()),
            None => (None, line),
        },
        None => (None, line),
    };
    rest = rest
        .strip_prefix("stderr F ")
        .or_else(|| rest.strip_prefix("stdout F "))
        .unwrap_or(rest);
    if let Some((klog, after)) = klog_header(rest, now) {
        at = at.or(Some(klog));
        rest = after;
    }
    let err = if let Some(i) = rest.find("err=\"") {
        go_unquote(&rest[i + 5..])?
    } else {
        let i = rest.find("due to an error: ")?;
        rest[i + 17..].trim().to_owned()
    };
    Some((at, err))
}

/// klog's `Lmmdd hh:mm:ss.uuuuuu` header: the instant (this year, or last year
/// when that would be more than a day ahead of `now`) and the rest of the line.
fn klog_header(line: &str, now: DateTime<Utc>) -> Option<(Micros, &str)> {
    if !line.starts_with(['I', 'W', 'E', 'F']) {
        return None;
    }
    let month: u32 = line.get(1..3)?.parse().ok()?;
    let day: u32 = line.get(3..5)?.parse().ok()?;
    let clock = NaiveTime::parse_from_str(line.get(6..21)?, "%H:%M:%S%.f").ok()?;
    let at_year =
        |year: i32| NaiveDate::from_ymd_opt(year, month, day).map(|d| d.and_time(clock).and_utc());
    let mut at = at_year(now.year())?;
    if at > now + TimeDelta::days(1) {
        at = at_year(now.year() - 1)?;
    }
    Some((at.timestamp_micros(), &line[21..]))
}

/// The Go-quoted string that `text` continues (after its opening quote).
fn go_unquote(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(match chars.next()? {
                'n' => '\n',
                't' => '\t',
                other => other,
            }),
            c => out.push(c),
        }
    }
    None
}

fn same(a: &[AuthReason], b: &[AuthReason]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.message == y.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_by_time_and_says_when_lines_disagree() {
        let now = crate::timefmt::parse_instant("2026-01-02T00:00:00Z").unwrap();
        let mut index = ReasonIndex::default();
        for line in [
            r#"2026-01-01T10:00:00.100000Z stderr F E0101 10:00:00.100000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#,
            r#"2026-01-01T10:00:05.000000Z stderr F E0101 10:00:05.000000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#,
            r#"2026-01-01T10:00:05.500000Z stderr F E0101 10:00:05.500000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, serviceaccounts \"x\" not found]""#,
            "I0101 10:00:06.000000       1 trace.go:236] unrelated",
            r#"E0101 10:00:09.000000       1 authentication.go:53] Unable to authenticate the request due to an error: [invalid bearer token, Token has expired.]"#,
            r#"{"ts":1767261612.5,"caller":"filters/authentication.go:73","msg":"Unable to authenticate the request","err":"[invalid bearer token, service account token has expired]"}"#,
        ] {
            index.add_line(line, now);
        }
        index.finish();
        assert_eq!((index.read, index.failures, index.sets.len()), (6, 5, 3));
        let at = |s: &str| crate::timefmt::parse_instant(s).unwrap().timestamp_micros();
        assert_eq!(index.join(at("2026-01-01T10:00:00.500Z")), Join::One(0));
        assert_eq!(index.join(at("2026-01-01T10:00:05.200Z")), Join::Several);
        assert_eq!(index.join(at("2026-01-01T11:00:00Z")), Join::None);
        // The klog header's year is inferred; `ts` is seconds since the epoch.
        assert_eq!(index.join(at("2026-01-01T10:00:09Z")), Join::One(2));
        assert_eq!(index.join(at("2026-01-01T10:00:12.5Z")), Join::One(0));
    }
}
