//! Unwrapping: what people paste is program output inside other output. This
//! peels the layers one line at a time, so that every extractor sees the text
//! the program printed:
//!
//! - prefixes: journald (`Mar 26 16:23:32 host unit[pid]: `), CRI
//!   (`<RFC 3339> stderr F `), RFC 3339, Go's `log` (`2021/10/22 03:14:16`),
//!   Python logging (`2021-09-15 10:31:15,682`, `[2021-09-15 10:31:15,682]`),
//!   logrus `time="…"`, klog (`E0101 00:00:00.000000 1 file.go:75] `, also
//!   after a container name), `kubectl logs --prefix` (`[pod/x/y] `), Markdown
//!   quotes (`> `), pytest's `E   ` gutter, Vault agent's `  | `, box-drawing
//!   borders (`│ … │`, terraform, k9s);
//! - a Docker `json-file` line (`{"log":"…","time":"…"}`): its `log`;
//! - escapes: JSON and Go string escapes (`\"`, `\\`, `\n`, `\t`, `\u0009`),
//!   undone up to three times (a log line quoting a JSON log quoting an error),
//!   and the escaped newlines then split the line;
//! - `hexdump -C` output, whose byte column is decoded back into text.
//!
//! Each function takes one line (or a run of lines) and does linear work on it.

use std::borrow::Cow;

use chrono::{DateTime, Datelike as _, NaiveDate, NaiveDateTime, TimeDelta, Utc};

use super::super::facts::{ClockSource, ServerClock};
use crate::vocabulary::cues::LINE_OPENERS;

/// How many escape layers are undone at most.
pub const MAX_UNESCAPE: usize = 3;

/// A line with its prefixes removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Stripped<'a> {
    /// The line's own timestamp (the outermost full one; a year-less klog or
    /// journald stamp only when there is no other).
    pub stamp: Option<ServerClock>,
    /// The klog source position (`authentication.go:75`), when there was one.
    pub caller: Option<&'a str>,
    pub text: &'a str,
}

/// A Python traceback's frame line: `  File "path", line 12, in func`.
pub fn traceback_frame(text: &str) -> bool {
    text.trim_start()
        .strip_prefix("File \"")
        .and_then(|rest| rest.split_once("\", line "))
        .is_some_and(|(_, rest)| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Removes every known prefix from `line` (a bounded number of rounds).
pub fn strip(line: &str, now: DateTime<Utc>) -> Stripped<'_> {
    let mut text = line.trim_end_matches(['\r', '\n']);
    let mut stamp: Option<ServerClock> = None;
    let mut weak: Option<ServerClock> = None;
    let mut caller = None;
    for _ in 0..8 {
        let before = text;
        let t = text.trim_start();
        if let Some(rest) = box_border(t) {
            text = rest;
        } else if let Some(rest) = markdown_quote(t).or_else(|| gutter(t)) {
            text = rest;
        } else if let Some((s, rest)) = journald(t, now) {
            weak.get_or_insert(s);
            text = rest;
        } else if let Some(rest) = bracket_prefix(t) {
            text = rest;
        } else if let Some((s, rest)) = full_timestamp(t) {
            stamp.get_or_insert(s);
            text = rest;
        } else if let Some((s, file, rest)) = klog(t, now).or_else(|| named_klog(t, now)) {
            weak.get_or_insert(s);
            caller = caller.or(file);
            text = rest;
        } else if let Some(rest) = t.strip_prefix("ERROR: logging before flag.Parse: ") {
            text = rest;
        } else if let Some((s, rest)) = logrus_time(t) {
            stamp.get_or_insert(s);
            text = rest;
        }
        if text == before {
            break;
        }
    }
    Stripped {
        stamp: stamp.or(weak),
        caller,
        text,
    }
}

/// `│ text │` or `│ text` (terraform, k9s panes), `╷`/`╵` alone.
fn box_border(t: &str) -> Option<&str> {
    let rest = t.strip_prefix('│')?;
    Some(box_wrapped(t).map_or(rest.strip_prefix(' ').unwrap_or(rest), |(inner, _)| inner))
}

use super::status::PROXY_TARGET;

/// The widths terminals and log viewers wrap long lines at.
const WRAP_WIDTHS: &[usize] = &[
    80, 100, 120, 132, 140, 150, 160, 180, 200, 220, 240, 250, 256,
];

/// Lines as they were printed, with a terminal's hard wraps joined back: a
/// line exactly as long as a wrap width, followed by a line that starts no
/// record of its own, was cut there (and so on, while the pieces keep that
/// width). Each item is the 1-based number of its first line and its text.
pub struct Unwrapped<'a> {
    lines: std::iter::Peekable<std::str::Lines<'a>>,
    number: usize,
}

impl<'a> Unwrapped<'a> {
    pub fn new(text: &'a str) -> Self {
        Unwrapped {
            lines: text.lines().peekable(),
            number: 0,
        }
    }
}

impl<'a> Iterator for Unwrapped<'a> {
    type Item = (usize, std::borrow::Cow<'a, str>);

    fn next(&mut self) -> Option<Self::Item> {
        let first = self.lines.next()?;
        self.number += 1;
        let start = self.number;
        // kube-apiserver's proxy answers a failed call of its own with a
        // two-line body: `Error: 'ERR'` then `Trying to reach: 'URL'`.
        if first.trim_start().starts_with("Error: '")
            && let Some(next) = self
                .lines
                .next_if(|l| l.trim_start().starts_with(PROXY_TARGET))
        {
            self.number += 1;
            return Some((start, format!("{first} {}", next.trim_start()).into()));
        }
        let width = first.chars().count();
        if !WRAP_WIDTHS.contains(&width) {
            return Some((start, first.into()));
        }
        let mut joined = std::borrow::Cow::Borrowed(first);
        while let Some(next) = self.lines.peek() {
            // A cut that fell on a space or a quote leaves it first on the
            // next piece; an indent or a record is more than that one.
            let cut_at_space = next
                .strip_prefix([' ', '"'])
                .is_some_and(|r| r.starts_with(|c: char| !c.is_whitespace()));
            let record = starts_record(next) && !cut_at_space;
            if next.is_empty() || record || joined.len() > super::MAX_JOINED {
                break;
            }
            let next = self.lines.next().expect("peeked");
            self.number += 1;
            joined.to_mut().push_str(next);
            if next.chars().count() != width {
                break;
            }
        }
        Some((start, joined))
    }
}

/// Whether a line starts something of its own (a log record, a transcript
/// line, a frame, a value): then the line before it was not cut there.
fn starts_record(line: &str) -> bool {
    let Some(first) = line.chars().next() else {
        return true;
    };
    if first.is_whitespace() || "{}[]*><$#\"|".contains(first) {
        return true;
    }
    // klog (`E0101 `), dates, syslog months, levels and the usual openers.
    let b = line.as_bytes();
    let klog = b.len() > 5 && b"IWEF".contains(&b[0]) && b[1..5].iter().all(u8::is_ascii_digit);
    let date = b.len() > 4 && b[..4].iter().all(u8::is_ascii_digit);
    let month = MONTHS
        .iter()
        .any(|m| line.strip_prefix(m).is_some_and(|r| r.starts_with(' ')));
    klog || date || month || LINE_OPENERS.iter().any(|o| line.starts_with(o))
}

/// Whether a box pane line was wrapped: its text reaches the right border.
pub fn box_wrapped(line: &str) -> Option<(&str, bool)> {
    let t = line.trim_start();
    let rest = t.strip_prefix('│')?;
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let inner = rest.trim_end().strip_suffix('│')?;
    // One space of padding before the border; a complete line is padded with
    // more, a wrapped one runs up to it.
    let inner = inner.strip_suffix(' ').unwrap_or(inner);
    let wrapped = !inner.ends_with(' ') && !inner.is_empty();
    Some((inner, wrapped))
}

/// `> text`: a Markdown quote, unless it is a curl request line.
fn markdown_quote(t: &str) -> Option<&str> {
    let rest = t.strip_prefix('>')?;
    if rest.is_empty() || !rest.starts_with(' ') {
        return None;
    }
    let rest = &rest[1..];
    if super::curl::is_request_line(rest) {
        return None;
    }
    Some(rest)
}

/// pytest's `E   ` gutter, Vault agent's `  | ` continuation.
fn gutter(t: &str) -> Option<&str> {
    if let Some(rest) = t.strip_prefix('E')
        && rest.starts_with("   ")
    {
        return Some(rest.trim_start());
    }
    if let Some(rest) = t.strip_prefix('|')
        && (rest.is_empty() || rest.starts_with(' '))
    {
        return Some(rest.strip_prefix(' ').unwrap_or(rest));
    }
    None
}

/// `[pod/name/container] ` (kubectl logs --prefix), `[ns] ` and similar short
/// bracketed tags, but not `[{` (JSON) or `[invalid bearer token` (an aggregate).
fn bracket_prefix(t: &str) -> Option<&str> {
    let rest = t.strip_prefix('[')?;
    let end = rest.find(']')?;
    let tag = &rest[..end];
    let plain = tag
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/-_.:".contains(c));
    if end == 0 || end > 80 || !plain || !(tag.starts_with("pod/") || end <= 12) {
        return None;
    }
    let after = &rest[end + 1..];
    after.strip_prefix(' ').or_else(|| after.strip_prefix(": "))
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `Mar 26 16:23:32 host unit[pid]: ` (journald / syslog).
fn journald(t: &str, now: DateTime<Utc>) -> Option<(ServerClock, &str)> {
    let month = MONTHS.iter().position(|m| t.starts_with(m))? as u32 + 1;
    let rest = t.get(3..)?.strip_prefix(' ')?;
    let (day, rest) = rest.trim_start().split_once(' ')?;
    let day: u32 = day.parse().ok()?;
    let time = chrono::NaiveTime::parse_from_str(rest.get(..8)?, "%H:%M:%S").ok()?;
    let rest = rest[8..].strip_prefix(' ')?;
    let (_host, rest) = rest.split_once(' ')?;
    let (unit, rest) = rest.split_once(": ")?;
    if unit.contains(' ') || unit.is_empty() {
        return None;
    }
    let at = year_inferred(month, day, time, now)?;
    let stamp = ServerClock::at(at, ClockSource::LogTimestampYearInferred);
    Some((stamp, rest))
}

/// The instant of a year-less date: this year, or last year if that would be
/// more than a day after `now`.
fn year_inferred(
    month: u32,
    day: u32,
    time: chrono::NaiveTime,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let at_year =
        |year: i32| NaiveDate::from_ymd_opt(year, month, day).map(|d| d.and_time(time).and_utc());
    let at = at_year(now.year())?;
    if at > now + TimeDelta::days(1) {
        at_year(now.year() - 1)
    } else {
        Some(at)
    }
}

/// A full timestamp at the start: RFC 3339 (with a CRI `stderr F ` after it),
/// `YYYY-MM-DD HH:MM:SS[,.]fff` (Python, zap console; read as UTC), the same
/// in brackets (Airflow), `YYYY/MM/DD HH:MM:SS[.ffffff]` (Go's log).
pub fn full_timestamp(t: &str) -> Option<(ServerClock, &str)> {
    let stamp = |at: DateTime<Utc>| ServerClock::at(at, ClockSource::LogTimestamp);
    let inner = t.strip_prefix('[').unwrap_or(t);
    let bracketed = inner.len() < t.len();
    let first = inner.split([' ', '\t', ',', ']']).next()?;
    if let Ok(at) = DateTime::parse_from_rfc3339(first) {
        let mut rest = inner[first.len()..].trim_start_matches([' ', '\t']);
        if bracketed {
            rest = rest.strip_prefix(']')?.trim_start_matches([':', ' ']);
        }
        let rest = ["stderr F ", "stdout F ", "stderr P ", "stdout P "]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
            .unwrap_or(rest);
        return Some((stamp(at.to_utc()), rest));
    }
    let head = inner.get(..19)?;
    let naive = NaiveDateTime::parse_from_str(head, "%Y-%m-%d %H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(head, "%Y/%m/%d %H:%M:%S"))
        .or_else(|_| NaiveDateTime::parse_from_str(head, "%Y-%m-%dT%H:%M:%S"))
        .ok()?;
    let mut rest = &inner[19..];
    let mut at = naive.and_utc();
    if let Some(frac) = rest.strip_prefix([',', '.']) {
        let digits = frac.chars().take_while(char::is_ascii_digit).count();
        let nanos: i64 =
            frac[..digits.min(9)].parse().unwrap_or(0) * 10_i64.pow(9 - digits.min(9) as u32);
        at += TimeDelta::nanoseconds(nanos);
        rest = &frac[digits..];
    }
    rest = rest.trim_start_matches('Z');
    if bracketed {
        rest = rest.strip_prefix(']')?;
        rest = rest.strip_prefix(':').unwrap_or(rest);
    }
    Some((stamp(at), rest.trim_start()))
}

/// `E0101 00:00:00.123456    1 file.go:75] msg` -> (instant, `file.go:75`, `msg`).
/// klog writes no year: the year closest before `now`.
pub fn klog(t: &str, now: DateTime<Utc>) -> Option<(ServerClock, Option<&str>, &str)> {
    let bytes = t.as_bytes();
    if bytes.len() < 21 || !matches!(bytes[0], b'I' | b'W' | b'E' | b'F') {
        return None;
    }
    let month: u32 = t.get(1..3)?.parse().ok()?;
    let day: u32 = t.get(3..5)?.parse().ok()?;
    if bytes[5] != b' ' {
        return None;
    }
    let time = chrono::NaiveTime::parse_from_str(t.get(6..21)?, "%H:%M:%S%.f").ok()?;
    let at = year_inferred(month, day, time, now)?;
    let rest = t[21..].trim_start();
    // The thread id, then `file.go:N] `.
    let rest = rest
        .split_once(' ')
        .filter(|(tid, _)| tid.chars().all(|c| c.is_ascii_digit()))
        .map_or(rest, |(_, r)| r.trim_start());
    let (caller, rest) = match rest.split_once("] ") {
        Some((file, msg)) if file.contains(".go:") && !file.contains(' ') => (Some(file), msg),
        _ => (None, rest),
    };
    let stamp = ServerClock::at(at, ClockSource::LogTimestampYearInferred);
    Some((stamp, caller, rest))
}

/// A container or program name, then a klog line (`kube-rbac-proxy I0204 …`).
fn named_klog(t: &str, now: DateTime<Utc>) -> Option<(ServerClock, Option<&str>, &str)> {
    let (name, rest) = t.split_once(' ')?;
    if name.is_empty()
        || name.len() > 63
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return None;
    }
    klog(rest, now)
}

/// logrus: `time="2019-09-14T22:42:56Z" level=… msg=…`: the instant; the rest
/// stays (its `msg=` and `err=` values are read where they stand).
fn logrus_time(t: &str) -> Option<(ServerClock, &str)> {
    let rest = t.strip_prefix("time=\"")?;
    let (value, rest) = rest.split_once('"')?;
    let at = DateTime::parse_from_rfc3339(value).ok()?;
    let stamp = ServerClock::at(at.to_utc(), ClockSource::LogTimestamp);
    Some((stamp, rest.trim_start()))
}

/// Docker's json-file line: `{"log":"…\n","stream":"stdout","time":"…"}` ->
/// the logged text and its instant.
pub fn docker_json(t: &str) -> Option<(Option<ServerClock>, String)> {
    let t = t.trim();
    if !t.starts_with("{\"log\":") || !t.ends_with('}') {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(t).ok()?;
    let log = value.get("log")?.as_str()?.to_owned();
    let stamp = value
        .get("time")
        .and_then(serde_json::Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|at| ServerClock::at(at.to_utc(), ClockSource::LogTimestamp));
    Some((stamp, log))
}

/// Undoes one layer of JSON / Go string escapes (`\"`, `\\`, `\n`, `\t`,
/// `\r`, `\/`, `\'`, `\uXXXX`); anything else is kept as written.
pub fn unescape_once(text: &str) -> Cow<'_, str> {
    if !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let code = text
            .get(i + 2..i + 6)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32);
        // What the escape stands for, and how many characters after the
        // backslash it took.
        let (unescaped, took) = match (chars.peek().map(|&(_, n)| n), code) {
            (Some(n @ ('"' | '\\' | '/' | '\'')), _) => (Some(n), 1),
            (Some('n'), _) => (Some('\n'), 1),
            (Some('t'), _) => (Some('\t'), 1),
            (Some('r'), _) => (None, 1),
            (Some('u'), Some(ch)) => (Some(ch), 5),
            _ => (Some('\\'), 0),
        };
        out.extend(unescaped);
        (&mut chars).take(took).for_each(drop);
    }
    Cow::Owned(out)
}

/// Undoes escapes until none is left (at most [`MAX_UNESCAPE`] layers).
pub fn unescape(text: &str) -> Cow<'_, str> {
    let mut current = Cow::Borrowed(text);
    for _ in 0..MAX_UNESCAPE {
        match unescape_once(&current) {
            Cow::Owned(next) if next != *current => current = Cow::Owned(next),
            _ => break,
        }
    }
    current
}

/// One line of `hexdump -C` (`00000460  48 5b 69 …  |H[invalid bearer|`),
/// after any prefix: its bytes.
pub fn hexdump_bytes(t: &str) -> Option<Vec<u8>> {
    let t = t.trim_start();
    let (offset, rest) = t.split_once("  ")?;
    if offset.len() != 8 || !offset.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let hex = rest.split('|').next()?;
    let bytes = hex
        .split_whitespace()
        .map(|word| {
            u8::from_str_radix(word, 16)
                .ok()
                .filter(|_| word.len() == 2)
        })
        .collect::<Option<Vec<u8>>>()?;
    (!bytes.is_empty() && bytes.len() <= 16).then_some(bytes)
}

/// Decoded hexdump bytes as text: printable runs kept, the rest as spaces.
pub fn bytes_as_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::extract::tests::now;

    #[test]
    fn a_terminal_s_hard_wraps_are_joined_back() {
        // A line as wide as the terminal, then what the cut left: a word, or
        // a space or a quote that fell first on the next piece.
        let first = format!(
            "E0101 reflector.go:1] pods is forbidden: User {}",
            "x".repeat(34)
        );
        assert_eq!(first.chars().count(), 80);
        for next in ["cannot list", " cannot list", "\"pods\" in API group"] {
            let pasted = format!("{first}\n{next}\n");
            let lines: Vec<_> = Unwrapped::new(&pasted).collect();
            assert_eq!(lines, [(1, format!("{first}{next}").into())], "{next:?}");
        }
        // An indented frame or a record after a line of that width is its own.
        for next in [
            "    at io.fabric8.Client.get",
            "\tat x",
            "E0101 a.go:1] y",
            "  key: value",
        ] {
            let pasted = format!("{first}\n{next}\n");
            assert_eq!(Unwrapped::new(&pasted).count(), 2, "{next:?}");
        }
    }

    #[test]
    fn prefixes_of_every_kind() {
        for (line, text, stamp) in [
            (
                "Mar 26 16:23:32 khteh microk8s.daemon-apiserver[27402]: I0326 16:23:32.570409   27402 log.go:172] http: TLS handshake error",
                "http: TLS handshake error",
                Some("2025-03-26T16:23:32Z"),
            ),
            (
                "2025-12-31T23:58:30.5Z stderr F E1231 23:58:30.123456 1 authentication.go:75] \"x\"",
                "\"x\"",
                Some("2025-12-31T23:58:30.500Z"),
            ),
            (
                "[2021-09-15 10:31:15,682] {{client.py:483}} ERROR - Traceback",
                "{{client.py:483}} ERROR - Traceback",
                Some("2021-09-15T10:31:15.682Z"),
            ),
            (
                "2021/10/22 03:14:16 Could not initialize",
                "Could not initialize",
                Some("2021-10-22T03:14:16Z"),
            ),
            (
                "> E0426 16:49:27.209682       7 authentication.go:53] Unable",
                "Unable",
                Some("2025-04-26T16:49:27.209682Z"),
            ),
            (
                "│ kube-rbac-proxy I0204 20:02:58.118029       1 request.go:1154] Response Body: {\"kind\" │",
                "Response Body: {\"kind\"",
                Some("2025-02-04T20:02:58.118029Z"),
            ),
            (
                "E           kubernetes.client.exceptions.ApiException: (0)",
                "kubernetes.client.exceptions.ApiException: (0)",
                None,
            ),
            (
                "[pod/droneio/drone-vault] time=\"2020-11-10T13:10:38Z\" level=error msg=\"x\"",
                "level=error msg=\"x\"",
                Some("2020-11-10T13:10:38Z"),
            ),
            (
                "ERROR: logging before flag.Parse: E0418 04:56:17.489683       1 reflector.go:201] x",
                "x",
                Some("2025-04-18T04:56:17.489683Z"),
            ),
            ("  | * permission denied", "* permission denied", None),
            ("> GET /api HTTP/1.1", "> GET /api HTTP/1.1", None),
        ] {
            let s = strip(line, now());
            assert_eq!(s.text, text, "{line}");
            assert_eq!(
                s.stamp
                    .map(|s| s.low.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
                stamp.map(str::to_owned),
                "{line}"
            );
        }
        assert_eq!(
            strip("E1231 23:58:30.123456 1 authentication.go:75] x", now()).caller,
            Some("authentication.go:75")
        );
    }

    #[test]
    fn escapes_and_boxes_and_hexdumps() {
        assert_eq!(
            unescape(r#"msg=\"User \\\"a\\\" cannot\" x\nnext"#),
            "msg=\"User \"a\" cannot\" x\nnext"
        );
        assert_eq!(unescape(r"a\u0009b"), "a\tb");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(box_wrapped("│ abc-f │"), Some(("abc-f", true)));
        let (text, wrapped) = box_wrapped("│ done    │").unwrap();
        assert_eq!((text.trim_end(), wrapped), ("done", false));
        let bytes = hexdump_bytes(
            "00000460  48 5b 69 6e 76 61 6c 69  64 20 62 65 61 72 65 72  |H[invalid bearer|",
        )
        .unwrap();
        assert_eq!(bytes_as_text(&bytes), "H[invalid bearer");
        assert!(hexdump_bytes("E0101 00:00:00.000000 x").is_none());
        let (stamp, log) = docker_json(
            r#"{"log":"2020-08-12T07:14:40.750383Z\u0009error\u0009x\n","stream":"stdout","time":"2020-08-12T07:14:40.750523315Z"}"#,
        )
        .unwrap();
        assert!(stamp.is_some());
        assert_eq!(log, "2020-08-12T07:14:40.750383Z\terror\tx\n");
    }
}
