//! Pure: kube-apiserver's authentication failures (`--type apiserver-log`).
//!
//! k8s.io/apiserver pkg/endpoints/filters/authentication.go logs every failed
//! authentication:
//! - ≤1.20, klog text: `Unable to authenticate the request due to an error: <err>`;
//! - 1.21+, structured: `"Unable to authenticate the request" err="<err>"` (Go-quoted),
//!   from authentication.go line 63 (1.21–1.26), 70 (1.27–1.28), 73 (1.29–1.31),
//!   74 (1.32), 75 (1.33–1.36);
//! - `--logging-format=json`: `{"ts":…,"msg":"Unable to authenticate the request","err":"…"}`.
//!
//! A TokenReview response carries the same aggregate in `status.error`
//! (pkg/registry/authentication/tokenreview), so it is read here too.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::text::{go_unquote, leading_timestamp};
use super::{Answer, Events, Evidence, SourceType, Stamp, StampSource};
use crate::diagnosis::reasons::parse_auth_error;

const MESSAGE: &str = "Unable to authenticate the request";

/// Whether `text` holds an authentication failure line or a TokenReview.
pub fn looks_like(text: &str) -> bool {
    text.contains(MESSAGE) || is_token_review(text)
}

fn is_token_review(text: &str) -> bool {
    serde_json::from_str::<Value>(text.trim())
        .ok()
        .is_some_and(|v| v.get("kind").and_then(Value::as_str) == Some("TokenReview"))
}

/// One event per failed-authentication line (other lines are skipped), or the
/// TokenReview.
pub fn parse(text: &str, now: DateTime<Utc>) -> Events<'_> {
    if let Ok(value) = serde_json::from_str::<Value>(text.trim())
        && value.get("kind").and_then(Value::as_str) == Some("TokenReview")
    {
        return Box::new(token_review(&value).into_iter());
    }
    Box::new(
        text.lines()
            .enumerate()
            .filter_map(move |(i, line)| parse_line(i + 1, line, now)),
    )
}

fn parse_line(number: usize, line: &str, now: DateTime<Utc>) -> Option<Evidence> {
    if !line.contains(MESSAGE) {
        return None;
    }
    let trimmed = line.trim();
    if trimmed.starts_with('{') {
        return json_line(number, trimmed);
    }
    let (stamp, rest) = match leading_timestamp(trimmed, now) {
        Some((stamp, rest)) => (Some(stamp), rest),
        None => (None, trimmed),
    };
    // A CRI/`--timestamps` prefix may be followed by the klog header too; keep the
    // full timestamp, skip the header.
    let rest = match (stamp, leading_timestamp(rest, now)) {
        (Some(_), Some((_, inner))) => inner,
        _ => rest,
    };
    let (err, format) = if let Some(i) = rest.find("err=\"") {
        (go_unquote(&rest[i + 4..])?.0, "structured")
    } else if let Some(i) = rest.find("due to an error: ") {
        (rest[i + 17..].trim().to_owned(), "klog")
    } else {
        return None;
    };
    let reasons = parse_auth_error(&err);
    let mut ev = Evidence::new(
        number,
        SourceType::ApiserverLog,
        format,
        line,
        Answer::Rejected { reasons },
    );
    ev.stamp = stamp;
    if let Some(era) = source_line_era(rest) {
        ev.notes.push(era);
    }
    Some(ev)
}

/// The kube-apiserver versions that log from this `authentication.go:N`.
fn source_line_era(rest: &str) -> Option<String> {
    let i = rest.find("authentication.go:")?;
    let n: u32 = rest[i + 18..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    let versions = match n {
        63 => "1.21–1.26",
        70 => "1.27–1.28",
        73 => "1.29–1.31",
        74 => "1.32",
        75 => "1.33–1.36",
        _ => return None,
    };
    Some(format!(
        "logged from authentication.go:{n}: kube-apiserver {versions}"
    ))
}

/// `--logging-format=json`: `ts` is seconds since the epoch (a float).
fn json_line(number: usize, line: &str) -> Option<Evidence> {
    let value: Value = serde_json::from_str(line).ok()?;
    if value.get("msg").and_then(Value::as_str) != Some(MESSAGE) {
        return None;
    }
    let err = value.get("err").and_then(Value::as_str)?;
    let mut ev = Evidence::new(
        number,
        SourceType::ApiserverLog,
        "json-log",
        line,
        Answer::Rejected {
            reasons: parse_auth_error(err),
        },
    );
    ev.stamp = value
        .get("ts")
        .and_then(Value::as_f64)
        .and_then(|ts| DateTime::from_timestamp_millis((ts * 1000.0).round() as i64))
        .map(|at| Stamp {
            at,
            source: StampSource::LogTimestamp,
        });
    if let Some(caller) = value.get("caller").and_then(Value::as_str)
        && let Some(era) = source_line_era(caller)
    {
        ev.notes.push(era);
    }
    Some(ev)
}

/// A TokenReview response: `status.authenticated`, `status.user`, `status.error`.
fn token_review(value: &Value) -> Option<Evidence> {
    let status = value.get("status")?;
    let authenticated = status
        .get("authenticated")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let error = status.get("error").and_then(Value::as_str).unwrap_or("");
    let (answer, excerpt) = if authenticated {
        (
            Answer::Authenticated,
            "status.authenticated: true".to_owned(),
        )
    } else if !error.is_empty() {
        (
            Answer::Rejected {
                reasons: parse_auth_error(error),
            },
            format!("status.error: {error}"),
        )
    } else {
        return None;
    };
    let mut ev = Evidence::new(
        1,
        SourceType::ApiserverLog,
        "token-review",
        &excerpt,
        answer,
    );
    ev.user = status
        .pointer("/user/username")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(aud) = status.get("audiences").and_then(Value::as_array) {
        let aud: Vec<&str> = aud.iter().filter_map(Value::as_str).collect();
        ev.notes
            .push(format!("audiences the server accepted: {}", aud.join(", ")));
    }
    Some(ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap()
    }

    #[test]
    fn structured_klog_and_json_lines() {
        let text = concat!(
            "I1231 23:59:00.000000       1 trace.go:236] Trace[1]: \"List\" (total time: 600ms)\n",
            "E1231 23:59:59.000000       1 authentication.go:75] \"Unable to authenticate the request\" err=\"[invalid bearer token, serviceaccounts \\\"reporter\\\" not found]\"\n",
            "E1231 23:59:59.500000       1 authentication.go:53] Unable to authenticate the request due to an error: [invalid bearer token, Token has expired.]\n",
            "{\"ts\":1767225599.25,\"caller\":\"filters/authentication.go:73\",\"msg\":\"Unable to authenticate the request\",\"err\":\"[invalid bearer token, service account token is not valid yet]\"}\n",
        );
        let ev: Vec<Evidence> = parse(text, now()).collect();
        assert_eq!(ev.len(), 3);
        assert_eq!((ev[0].line, ev[0].format), (2, "structured"));
        let Answer::Rejected { reasons } = &ev[0].answer else {
            panic!()
        };
        assert_eq!(reasons[1].values.name.as_deref(), Some("reporter"));
        assert!(ev[0].notes[0].contains("1.33–1.36"));
        assert_eq!(ev[1].format, "klog");
        assert_eq!(
            ev[2].stamp.unwrap().at.to_rfc3339(),
            "2025-12-31T23:59:59.250+00:00"
        );
    }
}
