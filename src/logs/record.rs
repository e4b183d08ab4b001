//! Pure: kube-apiserver's log lines as records.
//!
//! A record is one line as `kubectl logs` and CRI files show it: a
//! `kubectl logs --prefix` tag (`[pod/NAME/CONTAINER] `, which replica or
//! container wrote it), an RFC 3339 prefix (`--timestamps`, CRI's `<time>
//! stderr F `), klog's `Lmmdd hh:mm:ss.uuuuuu` header (the year inferred from
//! `now`), or a `--logging-format=json` object's `ts`. A request line is
//! httplog's record of one answer (k8s.io/apiserver pkg/server/httplog:
//! `"HTTP" verb=… URI=… userAgent=… audit-ID=… srcIP=… resp=…`, the same
//! fields in JSON, or ≤1.17's `wrap.go` form).
//!
//! The reason lines' joins to requests and audit events are
//! [`crate::logs`]'s.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use memchr::memmem;

use super::Micros;
use super::time::{digits, parse_time};
use crate::diagnosis::extract::status;
use crate::diagnosis::facts::ClockSource;

/// One log line: who wrote it, when, and the text after its prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// The `kubectl logs --prefix` tag, without its brackets.
    pub stream: Option<&'a [u8]>,
    /// The line's time, and whose clock says so.
    pub at: Option<(Micros, ClockSource)>,
    /// The line after its prefixes.
    pub text: &'a [u8],
}

/// Reads a line's prefixes; see the module documentation.
pub fn record(line: &[u8], now: DateTime<Utc>) -> Record<'_> {
    let mut text = line.trim_ascii_end();
    let mut stream = None;
    if let Some(rest) = text.strip_prefix(b"[pod/")
        && let Some(end) = memchr::memchr(b']', rest)
        && rest.get(end + 1) == Some(&b' ')
    {
        stream = Some(&text[1..end + 5]);
        text = &rest[end + 2..];
    }
    let mut at = None;
    let first = memchr::memchr(b' ', text).unwrap_or(text.len());
    if text.first().is_some_and(u8::is_ascii_digit)
        && let Some(t) = parse_time(&text[..first])
    {
        at = Some((t, ClockSource::LogTimestamp));
        text = text[first..].trim_ascii_start();
        for cri in [b"stderr F ", b"stdout F ", b"stderr P ", b"stdout P "] {
            text = text.strip_prefix(cri).unwrap_or(text);
        }
    }
    if let Some((t, rest)) = klog_header(text, now) {
        at = at.or(Some((t, ClockSource::LogTimestampYearInferred)));
        text = rest;
    } else if at.is_none() && text.first() == Some(&b'{') {
        at = field(text, b"ts")
            .and_then(|ts| std::str::from_utf8(ts).ok()?.parse::<f64>().ok())
            .map(|ts| ((ts * 1e6).round() as Micros, ClockSource::LogTimestamp));
    }
    Record { stream, at, text }
}

/// klog's `Lmmdd hh:mm:ss.uuuuuu` header: the instant (this year, or last year
/// when that would be more than a day ahead of `now`) and the text after the
/// header's `file.go:N] `.
fn klog_header(line: &[u8], now: DateTime<Utc>) -> Option<(Micros, &[u8])> {
    let h = line.get(..21)?;
    let n = |r: std::ops::Range<usize>| digits(&h[r]);
    if !matches!(h[0], b'I' | b'W' | b'E' | b'F') || h[5] != b' ' || h[8] != b':' || h[14] != b'.' {
        return None;
    }
    let (month, day, hour, minute) = (n(1..3)?, n(3..5)?, n(6..8)?, n(9..11)?);
    let (second, micros) = (n(12..14)?, n(15..21)?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let time = ((hour * 60 + minute) * 60 + second) * 1_000_000 + micros;
    let (month, day) = (u32::try_from(month).ok()?, u32::try_from(day).ok()?);
    let mut at = midnight(now.year(), month, day)? + time;
    if at > now.timestamp_micros() + 86_400_000_000 {
        at = midnight(now.year() - 1, month, day)? + time;
    }
    let rest = &line[21..];
    // The header ends at `file.go:N] `; a `]` alone (`Trace[123]`) does not.
    let end = memchr::memchr_iter(b']', rest).find(|&i| rest.get(i + 1) == Some(&b' '));
    let rest = end.map_or(rest, |i| &rest[i + 2..]);
    Some((at, rest))
}

/// The start of a day in UTC, or `None` for no such date. A log's lines
/// share a few days: the last one asked is kept, per thread.
fn midnight(year: i32, month: u32, day: u32) -> Option<Micros> {
    type Day = (i32, u32, u32, Option<Micros>);
    thread_local! {
        static LAST: std::cell::Cell<Day> = const { std::cell::Cell::new((0, 0, 0, None)) };
    }
    LAST.with(|last| {
        let (y, m, d, start) = last.get();
        if (y, m, d) == (year, month, day) && y != 0 {
            return start;
        }
        let start = NaiveDate::from_ymd_opt(year, month, day).map(|date| {
            date.and_time(chrono::NaiveTime::MIN)
                .and_utc()
                .timestamp_micros()
        });
        last.set((year, month, day, start));
        start
    })
}

/// A field's value: klog's `key="value"` or `key=value`, or JSON's
/// `"key":"value"` or `"key":value` (escapes left as they are).
pub fn field<'a>(text: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let mut at = 0;
    while let Some(i) = memmem::find(&text[at..], key) {
        let start = at + i;
        at = start + key.len();
        let before = start.checked_sub(1).map(|b| text[b]);
        let rest = &text[at..];
        let value = match (before, rest) {
            (Some(b'"'), [b'"', b':', v @ ..]) => v.trim_ascii_start(),
            (None | Some(b' ' | b'{' | b','), [b'=', v @ ..]) => v,
            _ => continue,
        };
        return Some(match value.strip_prefix(b"\"") {
            Some(quoted) => {
                let end = (0..quoted.len())
                    .find(|&i| quoted[i] == b'"' && (i == 0 || quoted[i - 1] != b'\\'))
                    .unwrap_or(quoted.len());
                &quoted[..end]
            }
            None => {
                let end = value
                    .iter()
                    .position(|&c| c == b' ' || c == b',' || c == b'}')
                    .unwrap_or(value.len());
                &value[..end]
            }
        });
    }
    None
}

/// One request as httplog logs it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request<'a> {
    pub verb: &'a str,
    pub uri: &'a str,
    pub code: u16,
    pub source_ip: Option<&'a str>,
    pub user_agent: Option<&'a str>,
    pub audit_id: Option<&'a str>,
}

/// httplog's 1.18+ line opens with this; [`structured`] reads it.
const STRUCTURED: &[u8] = b"\"HTTP\" verb=\"";

static FINDERS: std::sync::LazyLock<[memmem::Finder<'static>; 5]> =
    std::sync::LazyLock::new(|| {
        [
            memmem::Finder::new(STRUCTURED),
            memmem::Finder::new(b"\"msg\":\"HTTP\""),
            memmem::Finder::new(b"wrap.go:"),
            memmem::Finder::new(b"URI=\""),
            memmem::Finder::new(b" resp="),
        ]
    });

/// The request a record's text logs, if it is httplog's line; who sent it
/// only when it failed (4xx, 5xx).
pub fn request(text: &[u8]) -> Option<Request<'_>> {
    let [open, json, wrap, ..] = &*FINDERS;
    let (verb, uri, code) = if let Some(at) = open.find(text) {
        structured(&text[at + STRUCTURED.len()..])?
    } else if json.find(text).is_some() {
        let text = std::str::from_utf8(text).ok()?;
        let code = str_field(text, "resp")?.parse().ok()?;
        (str_field(text, "verb")?, str_field(text, "URI")?, code)
    } else if wrap.find(text).is_some()
        // ≤1.17's form may stand without its `wrap.go:` header in a cut
        // log: `GET /api: (484µs) 401 [[agent] 10.0.0.1:52998]`.
        || text
            .iter()
            .position(|c| !c.is_ascii_uppercase())
            .is_some_and(|verb| verb > 0 && text[verb..].starts_with(b" /"))
    {
        status::httplog(std::str::from_utf8(text).ok()?)?
    } else {
        return None;
    };
    let request = Request {
        verb,
        uri,
        code,
        ..Request::default()
    };
    if code < 400 {
        // Most of a log: a success is only counted, so its client's fields
        // are not looked for.
        return Some(request);
    }
    let text = std::str::from_utf8(text).ok()?;
    let str_field = |key| str_field(text, key);
    Some(Request {
        // `srcIP="10.0.0.1:4321"`: the address without its port.
        source_ip: str_field("srcIP").map(|ip| match ip.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|c| c.is_ascii_digit()) => {
                host.trim_start_matches('[').trim_end_matches(']')
            }
            _ => ip,
        }),
        user_agent: str_field("userAgent"),
        audit_id: audit_id(text),
        ..request
    })
}

/// The audit ID a line names: httplog's `audit-ID`, or a contextual
/// logger's `auditID`.
pub fn audit_id(text: &str) -> Option<&str> {
    str_field(text, "audit-ID").or_else(|| str_field(text, "auditID"))
}

/// A field's non-empty value as text.
fn str_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let v = field(text.as_bytes(), key.as_bytes())?;
    std::str::from_utf8(v).ok().filter(|v| !v.is_empty())
}

/// Verb, URI and status of httplog's 1.18+ line, from just after its
/// `"HTTP" verb="`: what [`status::httplog`] reads, with searchers built once
/// (this is most lines of a log).
fn structured(rest: &[u8]) -> Option<(&str, &str, u16)> {
    let text = |b| std::str::from_utf8(b).ok();
    let end = memchr::memchr(b'"', rest)?;
    let verb = text(&rest[..end])?;
    let rest = &rest[end + 1..];
    let [.., uri_key, resp_key] = &*FINDERS;
    let from = uri_key.find(rest)? + b"URI=\"".len();
    let uri = &rest[from..];
    let uri = text(&uri[..memchr::memchr(b'"', uri).unwrap_or(uri.len())])?;
    let code = rest.get(resp_key.find(rest)? + b" resp=".len()..)?;
    Some((verb, uri, text(code.get(..3)?)?.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn klogs_year_is_this_one_unless_that_is_over_a_day_ahead() {
        let time = |t: &str| crate::timefmt::parse_instant(t).unwrap();
        let at = |header: &str| {
            let line = format!("{header}       1 get.go:262] x");
            klog_header(line.as_bytes(), time("2026-01-01T00:00:00Z")).map(|(t, _)| t)
        };
        let micros = |t: &str| Some(time(t).timestamp_micros());
        assert_eq!(
            at("I1231 23:59:59.500000"),
            micros("2025-12-31T23:59:59.5Z")
        );
        assert_eq!(at("E0101 23:59:59.000000"), micros("2026-01-01T23:59:59Z"));
        // Over a day ahead of now: last year's (the day cache holds each year in turn).
        assert_eq!(at("W0102 00:00:01.000000"), micros("2025-01-02T00:00:01Z"));
        assert_eq!(
            at("I1231 00:00:00.000001"),
            micros("2025-12-31T00:00:00.000001Z")
        );
        for bad in [
            "I0230 00:00:00.000000",
            "I0101 24:00:00.000000",
            "I1301 00:00:00.000000",
        ] {
            assert_eq!(at(bad), None, "{bad}");
        }
    }

    #[test]
    fn records_read_every_prefix_and_httplog_its_fields() {
        let now = crate::timefmt::parse_instant("2026-01-02T00:00:00Z").unwrap();
        let at = |s: &str| crate::timefmt::parse_instant(s).unwrap().timestamp_micros();
        let line = br#"[pod/kube-apiserver-cp-1/kube-apiserver] 2026-01-01T10:00:00.100000123Z stderr F I0101 10:00:00.200000       1 httplog.go:134] "HTTP" verb="LIST" URI="/api/v1/pods" latency="1ms" userAgent="worker/v1 (linux)" audit-ID="a-1" srcIP="10.0.0.7:4321" resp=401"#;
        let r = record(line, now);
        assert_eq!(
            r.stream,
            Some(&b"pod/kube-apiserver-cp-1/kube-apiserver"[..])
        );
        assert_eq!(
            r.at,
            Some((at("2026-01-01T10:00:00.1Z"), ClockSource::LogTimestamp))
        );
        let req = request(r.text).unwrap();
        assert_eq!((req.verb, req.uri, req.code), ("LIST", "/api/v1/pods", 401));
        assert_eq!(req.source_ip, Some("10.0.0.7"));
        assert_eq!(req.user_agent, Some("worker/v1 (linux)"));
        assert_eq!(req.audit_id, Some("a-1"));
        let klog = record(
            b"E1231 23:59:59.500000       1 authentication.go:75] x",
            now,
        );
        assert_eq!(
            klog.at,
            Some((
                at("2025-12-31T23:59:59.5Z"),
                ClockSource::LogTimestampYearInferred
            ))
        );
        assert_eq!(klog.text, b"x");
        let json = br#"{"ts":1767261612.5,"msg":"HTTP","verb":"GET","URI":"/api","srcIP":"[::1]:80","resp":403}"#;
        let r = record(json, now);
        assert_eq!(r.at.unwrap().0, at("2026-01-01T10:00:12.5Z"));
        let req = request(r.text).unwrap();
        assert_eq!((req.code, req.source_ip), (403, Some("::1")));
        assert_eq!(
            request(b"I0101 cacher.go:847] cacher (pods): 6 objects queued"),
            None
        );
        // An empty quoted value is no value (and no panic); an escaped quote
        // stays inside.
        let line = br#"I0101 httplog.go:134] "HTTP" verb="GET" URI="/api" userAgent="" audit-ID="a \"b\"" resp=401"#;
        let req = request(line).unwrap();
        assert_eq!((req.user_agent, req.code), (None, 401));
        assert_eq!(req.audit_id, Some(r#"a \"b\""#));
    }
}
