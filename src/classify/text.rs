//! Pure text helpers shared by the evidence parsers: Status bodies embedded in
//! any text, HTTP dates, log timestamps, Kubernetes REST paths, Go-quoted strings.

use chrono::{DateTime, Datelike as _, NaiveDate, NaiveDateTime, TimeDelta, Utc};
use serde_json::Value;

use super::{RequestInfo, Stamp, StampSource};

/// Longest excerpt kept from a line.
const EXCERPT_CHARS: usize = 240;

/// Replaces anything shaped like a JWT (`eyJ….….…`) with `<token>`: evidence
/// (kubectl -v=9 logs, pasted headers) may carry a token, and output never shows one.
pub fn redact_tokens(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("eyJ") {
        return std::borrow::Cow::Borrowed(text);
    }
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("eyJ") {
        out.push_str(&rest[..i]);
        let candidate = &rest[i..];
        let len = candidate
            .find(|c: char| !(is_b64(c) || c == '.'))
            .unwrap_or(candidate.len());
        let word = &candidate[..len];
        if word.matches('.').count() >= 2 && len >= 20 {
            out.push_str("<token>");
        } else {
            out.push_str(word);
        }
        rest = &candidate[len.max(3)..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A line, trimmed, tokens redacted, and cut to a readable length.
pub fn excerpt(line: &str) -> String {
    let line = redact_tokens(line.trim());
    let line = line.as_ref();
    if line.chars().count() <= EXCERPT_CHARS {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(EXCERPT_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// 1-based line number of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The parts of a Kubernetes `Status` we use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusBody {
    pub code: Option<u16>,
    pub reason: Option<String>,
    pub message: Option<String>,
    /// `details.name`, `details.kind` (which holds the resource for 403/404).
    pub details_name: Option<String>,
    pub details_kind: Option<String>,
    /// Byte offset of the object in the text.
    pub offset: usize,
}

impl StatusBody {
    /// Reads a `Status` object.
    pub fn from_value(value: &Value, offset: usize) -> Option<StatusBody> {
        let obj = value.as_object()?;
        if obj.get("kind").and_then(Value::as_str) != Some("Status") {
            return None;
        }
        let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let details = obj.get("details");
        Some(StatusBody {
            code: obj
                .get("code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok()),
            reason: s(obj.get("reason")).filter(|r| !r.is_empty()),
            message: s(obj.get("message")).filter(|m| !m.is_empty()),
            details_name: s(details.and_then(|d| d.get("name"))),
            details_kind: s(details.and_then(|d| d.get("kind"))),
            offset,
        })
    }
}

/// Finds the first Kubernetes `Status` JSON object anywhere in `text` (a body
/// after headers, inside an exception message, after `HTTP response body:`).
pub fn find_status_json(text: &str) -> Option<StatusBody> {
    let mut search = 0;
    while let Some(i) = text[search..].find("\"Status\"") {
        let marker = search + i;
        // Walk back over the `{` before the marker: the nearest may be a nested
        // object (`"metadata":{}`), so try a few.
        let mut end = marker;
        for _ in 0..8 {
            let Some(open) = text[..end].rfind('{') else {
                break;
            };
            let mut stream = serde_json::Deserializer::from_str(&text[open..]).into_iter::<Value>();
            if let Some(Ok(value)) = stream.next()
                && let Some(body) = StatusBody::from_value(&value, open)
            {
                return Some(body);
            }
            end = open;
        }
        search = marker + 1;
    }
    None
}

/// An HTTP `Date` value (RFC 1123, `Thu, 01 Jan 2026 00:00:00 GMT`).
pub fn parse_http_date(value: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc2822(value.trim().trim_matches(['\'', '"']))
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The first `Date:` header anywhere in `text`: `Date: …`, curl's `< date: …`,
/// kubectl -v=8's indented headers, Python's `'Date': '…'`.
pub fn find_date_header(text: &str) -> Option<DateTime<Utc>> {
    for line in text.lines() {
        let l = line.trim_start_matches(['<', ' ', '\t']);
        if l.get(..5).is_some_and(|h| h.eq_ignore_ascii_case("date:"))
            && let Some(at) = parse_http_date(&l[5..])
        {
            return Some(at);
        }
        if let Some(i) = line.find("'Date': '") {
            let rest = &line[i + 9..];
            if let Some(end) = rest.find('\'')
                && let Some(at) = parse_http_date(&rest[..end])
            {
                return Some(at);
            }
        }
    }
    None
}

/// A timestamp at the start of a log line, and the rest of the line after it.
/// Recognises RFC 3339 (`kubectl logs --timestamps`, CRI log files),
/// `YYYY-MM-DD HH:MM:SS[.,fff]` (Python logging; read as UTC), and the klog header
/// `Lmmdd hh:mm:ss.uuuuuu` (no year: the year that puts it closest before `now`).
pub fn leading_timestamp(line: &str, now: DateTime<Utc>) -> Option<(Stamp, &str)> {
    let line = line.trim_start();
    let first = line.split_whitespace().next()?;
    if let Ok(t) = DateTime::parse_from_rfc3339(first) {
        let rest = line[first.len()..].trim_start();
        // CRI log files: `<time> stderr F <message>`.
        let rest = rest
            .strip_prefix("stderr F ")
            .or_else(|| rest.strip_prefix("stdout F "))
            .unwrap_or(rest);
        let stamp = Stamp {
            at: t.with_timezone(&Utc),
            source: StampSource::LogTimestamp,
        };
        return Some((stamp, rest));
    }
    if line.len() >= 19 && line.is_char_boundary(19) {
        let head = &line[..19];
        if let Ok(t) = NaiveDateTime::parse_from_str(head, "%Y-%m-%d %H:%M:%S") {
            let mut rest = &line[19..];
            if let Some(frac) = rest.strip_prefix([',', '.']) {
                let digits = frac.chars().take_while(char::is_ascii_digit).count();
                let ms: i64 = frac[..digits.min(3)].parse().unwrap_or(0)
                    * 10_i64.pow(3 - digits.min(3) as u32);
                rest = &frac[digits..];
                let stamp = Stamp {
                    at: t.and_utc() + TimeDelta::milliseconds(ms),
                    source: StampSource::LogTimestamp,
                };
                return Some((stamp, rest.trim_start()));
            }
            let stamp = Stamp {
                at: t.and_utc(),
                source: StampSource::LogTimestamp,
            };
            return Some((stamp, rest.trim_start()));
        }
    }
    klog_header(line, now)
}

/// `E0101 00:00:00.123456    1 file.go:75] msg` -> (instant, `file.go:75] msg`).
fn klog_header(line: &str, now: DateTime<Utc>) -> Option<(Stamp, &str)> {
    let bytes = line.as_bytes();
    if bytes.len() < 21 || !matches!(bytes[0], b'I' | b'W' | b'E' | b'F') {
        return None;
    }
    let month: u32 = line.get(1..3)?.parse().ok()?;
    let day: u32 = line.get(3..5)?.parse().ok()?;
    let time = line.get(6..21)?;
    let clock = chrono::NaiveTime::parse_from_str(time, "%H:%M:%S%.f").ok()?;
    let at_year =
        |year: i32| NaiveDate::from_ymd_opt(year, month, day).map(|d| d.and_time(clock).and_utc());
    // klog writes no year: take this year, or last year if that would be more
    // than a day in the future.
    let mut at = at_year(now.year())?;
    if at > now + TimeDelta::days(1) {
        at = at_year(now.year() - 1)?;
    }
    let rest = line[21..].trim_start();
    // Skip the thread id.
    let rest = rest
        .split_once(' ')
        .filter(|(tid, _)| tid.chars().all(|c| c.is_ascii_digit()))
        .map_or(rest, |(_, r)| r.trim_start());
    Some((
        Stamp {
            at,
            source: StampSource::LogTimestampYearInferred,
        },
        rest,
    ))
}

/// A Kubernetes REST request from an HTTP method and a URL or path.
/// `/api/v1/namespaces/NS/RES[/NAME[/SUB]]`, `/apis/GROUP/VERSION/…`, cluster
/// scope without `namespaces/NS`; anything else is a non-resource path.
pub fn request_from_url(method: Option<&str>, url: &str) -> RequestInfo {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let mut info = RequestInfo::default();
    let rest: &[&str] = match segments.as_slice() {
        ["api", _version, rest @ ..] if !rest.is_empty() => {
            info.api_group = Some(String::new());
            rest
        }
        ["apis", group, _version, rest @ ..] if !rest.is_empty() => {
            info.api_group = Some((*group).to_owned());
            rest
        }
        _ => {
            info.path = Some(path.to_owned());
            info.verb = method.map(|m| m.to_ascii_lowercase());
            return info;
        }
    };
    let rest = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => {
            info.namespace = Some((*ns).to_owned());
            rest
        }
        other => other,
    };
    info.resource = rest.first().map(|s| (*s).to_owned());
    info.name = rest.get(1).map(|s| (*s).to_owned());
    info.subresource = rest.get(2).map(|s| (*s).to_owned());
    let watch = query
        .split('&')
        .any(|kv| kv == "watch=true" || kv == "watch=1");
    info.verb = method.map(|m| {
        match (m.to_ascii_uppercase().as_str(), info.name.is_some()) {
            ("GET", _) if watch => "watch",
            ("GET", true) => "get",
            ("GET", false) => "list",
            ("POST", _) => "create",
            ("PUT", _) => "update",
            ("PATCH", _) => "patch",
            ("DELETE", true) => "delete",
            ("DELETE", false) => "deletecollection",
            _ => return m.to_ascii_lowercase(),
        }
        .to_owned()
    });
    info
}

/// Reads a Go-quoted string (`"a \"b\""`) at the start of `text`; returns the
/// unquoted value and the bytes used.
pub fn go_unquote(text: &str) -> Option<(String, usize)> {
    let mut chars = text.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in chars {
        if escaped {
            out.push(match c {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            return Some((out, i + 1));
        } else {
            out.push(c);
        }
    }
    None
}

/// The message inside a line that holds a 403 text (`… pods is forbidden: User "x"
/// cannot …`), starting at the resource before ` is forbidden`.
pub fn forbidden_message(line: &str) -> Option<&str> {
    let at = line.find("forbidden: User \"")?;
    let before = &line[..at];
    let start = if before.ends_with(" is ") {
        // Start after the last `: ` (or `(Forbidden): `) before the resource.
        before.rfind(": ").map_or(0, |i| i + 2)
    } else {
        at
    };
    let mut message = line[start..].trim_end_matches(['\'', ')', '.', ' ', ',']);
    // A quote left over from the surrounding text (`"message": "…"`) is unbalanced.
    if message.matches('"').count() % 2 == 1 {
        message = message.strip_suffix('"').unwrap_or(message);
    }
    Some(message)
}

/// `pods "web-0" not found` -> the request it names.
pub fn not_found_request(message: &str) -> Option<RequestInfo> {
    let message = message.trim();
    let (what, rest) = message.split_once(" \"")?;
    let (name, tail) = rest.split_once('"')?;
    if tail.trim() != "not found" || what.contains(' ') {
        return None;
    }
    let (resource, group) = what.split_once('.').unwrap_or((what, ""));
    Some(RequestInfo {
        verb: Some("get".to_owned()),
        resource: Some(resource.to_owned()),
        api_group: Some(group.to_owned()),
        name: Some(name.to_owned()),
        ..RequestInfo::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-01-01T00:00:00Z";

    fn now() -> DateTime<Utc> {
        crate::timefmt::parse_instant(NOW).unwrap()
    }

    #[test]
    fn status_json_inside_other_text() {
        let text = r#"HTTP response body: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#;
        let s = find_status_json(text).unwrap();
        assert_eq!(
            (s.code, s.reason.as_deref()),
            (Some(401), Some("Unauthorized"))
        );
        // kind after a nested object.
        let text = r#"x {"metadata":{},"kind":"Status","code":403,"details":{"kind":"pods"}}"#;
        assert_eq!(
            find_status_json(text).unwrap().details_kind.as_deref(),
            Some("pods")
        );
        assert!(find_status_json(r#"{"kind":"Pod"} "Status""#).is_none());
    }

    #[test]
    fn timestamps() {
        let (s, rest) =
            leading_timestamp("2025-12-31T23:58:30.5Z stderr F E1231 x", now()).unwrap();
        assert_eq!(s.at.to_rfc3339(), "2025-12-31T23:58:30.500+00:00");
        assert_eq!(rest, "E1231 x");
        let (s, rest) = leading_timestamp(
            "E1231 23:58:30.123456       1 authentication.go:75] \"x\"",
            now(),
        )
        .unwrap();
        assert_eq!(s.at.to_rfc3339(), "2025-12-31T23:58:30.123456+00:00");
        assert_eq!(s.source, StampSource::LogTimestampYearInferred);
        assert_eq!(rest, "authentication.go:75] \"x\"");
        let (s, _) = leading_timestamp("2025-12-31 23:59:59,250 ERROR x", now()).unwrap();
        assert_eq!(s.at.to_rfc3339(), "2025-12-31T23:59:59.250+00:00");
        assert!(leading_timestamp("Error from server", now()).is_none());
        assert_eq!(
            find_date_header("< date: Thu, 01 Jan 2026 00:00:00 GMT").unwrap(),
            now()
        );
        assert_eq!(
            find_date_header("HTTPHeaderDict({'Date': 'Thu, 01 Jan 2026 00:00:00 GMT'})").unwrap(),
            now()
        );
    }

    #[test]
    fn rest_paths() {
        let r = request_from_url(
            Some("GET"),
            "https://10.96.0.1/api/v1/namespaces/shop/pods?limit=500",
        );
        assert_eq!(
            (
                r.verb.as_deref(),
                r.resource.as_deref(),
                r.namespace.as_deref()
            ),
            (Some("list"), Some("pods"), Some("shop"))
        );
        let r = request_from_url(
            Some("GET"),
            "/apis/ray.io/v1/namespaces/ml/rayclusters/rc/status",
        );
        assert_eq!(r.api_group.as_deref(), Some("ray.io"));
        assert_eq!(
            (r.name.as_deref(), r.subresource.as_deref()),
            (Some("rc"), Some("status"))
        );
        let r = request_from_url(Some("GET"), "/api/v1/nodes?watch=true");
        assert_eq!((r.verb.as_deref(), r.namespace), (Some("watch"), None));
        let r = request_from_url(Some("GET"), "/version");
        assert_eq!(r.path.as_deref(), Some("/version"));
        let r = request_from_url(Some("GET"), "/api/v1/namespaces/shop");
        assert_eq!(
            (r.resource.as_deref(), r.name.as_deref()),
            (Some("namespaces"), Some("shop"))
        );
    }

    #[test]
    fn tokens_are_redacted() {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln";
        assert_eq!(
            redact_tokens(&format!("-H \"Authorization: Bearer {jwt}\" x")),
            "-H \"Authorization: Bearer <token>\" x"
        );
        assert_eq!(redact_tokens("eyJ alone"), "eyJ alone");
        assert!(!excerpt(&format!("> Authorization: Bearer {jwt}")).contains("eyJ"));
    }

    #[test]
    fn quoted_and_messages() {
        assert_eq!(
            go_unquote(r#""[invalid bearer token, serviceaccounts \"a\" not found]" x"#)
                .unwrap()
                .0,
            r#"[invalid bearer token, serviceaccounts "a" not found]"#
        );
        assert_eq!(
            forbidden_message(
                r#"E1 reflector.go:1] failed to list *v1.Pod: pods is forbidden: User "u" cannot list resource "pods""#
            ),
            Some(r#"pods is forbidden: User "u" cannot list resource "pods""#)
        );
        let r = not_found_request(r#"rayclusters.ray.io "rc" not found"#).unwrap();
        assert_eq!(
            (r.resource.as_deref(), r.api_group.as_deref()),
            (Some("rayclusters"), Some("ray.io"))
        );
    }
}
