//! Pure: parsing instants and durations from flags, and formatting times for
//! people ("in 47m", "3d ago", "1h 7s").

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};

/// Earliest instant a flag may name: 0000-01-01T00:00:00Z, where RFC 3339 and
/// the claims' range (`token::claims`) begin.
pub const MIN_INSTANT_SECONDS: i64 = -62_167_219_200;

/// Latest instant a flag may name: 9999-12-31T23:59:59Z, where RFC 3339 and the
/// claims' range end. With durations bounded by [`MAX_DURATION_SECONDS`], no
/// sum of an instant and a duration can leave chrono's range (±262,000 years).
pub const MAX_INSTANT_SECONDS: i64 = 253_402_300_799;

/// Longest duration a flag takes (leeway, timeouts, clock offsets): 100 years.
pub const MAX_DURATION_SECONDS: i64 = 100 * 366 * 86_400;

/// `--now`: RFC 3339 (`2026-01-01T00:00:00Z`) or Unix seconds (`1767225600`),
/// from year 0 to 9999.
pub fn parse_instant(text: &str) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    let out_of_range = || {
        format!(
            "{text:?} is outside the years 0 to 9999 (Unix seconds {MIN_INSTANT_SECONDS} to {MAX_INSTANT_SECONDS})"
        )
    };
    let at = if let Ok(seconds) = text.parse::<i64>() {
        DateTime::from_timestamp(seconds, 0).ok_or_else(out_of_range)?
    } else if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        // A date alone: its first instant, in UTC as every --now is.
        date.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc()
    } else {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| instant_error(text))?
    };
    if !(MIN_INSTANT_SECONDS..=MAX_INSTANT_SECONDS).contains(&at.timestamp()) {
        return Err(out_of_range());
    }
    Ok(at)
}

/// A measured clock offset with its uncertainty, worded one way by every
/// subcommand: "+1.2 s ± 0.5 s" (see [`signed_span`] and [`span`]).
pub fn offset_pm(estimate_seconds: f64, uncertainty_seconds: f64) -> String {
    format!(
        "{} ± {}",
        signed_span(estimate_seconds),
        span(uncertainty_seconds)
    )
}

/// A clock offset: "+1.2 s", "-90 s", "0 s", "+2m 5s".
pub fn signed_span(seconds: f64) -> String {
    let body = span(seconds);
    if body == "0 s" {
        body
    } else if seconds < 0.0 {
        format!("-{body}")
    } else {
        format!("+{body}")
    }
}

/// Fractional seconds of a duration, millisecond precision, for output.
pub fn as_seconds_f64(delta: TimeDelta) -> f64 {
    delta.num_milliseconds() as f64 / 1000.0
}

/// An unsigned span of seconds: tenths, without a trailing ".0" ("5.5 s",
/// "7 s"); hundredths under a tenth, so a tight measurement is not "0 s";
/// whole units from two minutes ("2m 5s").
pub fn span(seconds: f64) -> String {
    let seconds = seconds.abs();
    let tenths = (seconds * 10.0).round() / 10.0;
    if seconds >= 120.0 {
        human_seconds(seconds.round() as i64)
    } else if seconds >= 0.005 && tenths == 0.0 {
        format!("{seconds:.2} s")
    } else if tenths.fract() == 0.0 {
        format!("{tenths:.0} s")
    } else {
        format!("{tenths:.1} s")
    }
}

/// Why `text` is not an instant, in our words (chrono's "premature end of
/// input" says nothing to a user).
fn instant_error(text: &str) -> String {
    let hint = if text.eq_ignore_ascii_case("now") {
        "leave --now out to use this machine's clock"
    } else if text.contains('T') && !text.ends_with(['Z', 'z']) && !text.contains(['+']) {
        "add a zone: 2026-01-01T00:00:00Z for UTC"
    } else {
        "give 2026-01-01T00:00:00Z, 2026-01-01 (midnight UTC) or Unix seconds"
    };
    format!("{text:?} is not an instant: {hint}")
}

/// A non-negative duration as kubectl writes them: `60s`, `1m30s`, `5m`, `1h`, or
/// bare seconds (`90`); at most [`MAX_DURATION_SECONDS`].
pub fn parse_duration(text: &str) -> Result<TimeDelta, String> {
    let text = text.trim();
    let too_long = || format!("{text:?} is over the 100-year limit for a duration");
    if let Ok(seconds) = text.parse::<u64>() {
        return i64::try_from(seconds)
            .ok()
            .filter(|s| *s <= MAX_DURATION_SECONDS)
            .map(TimeDelta::seconds)
            .ok_or_else(too_long);
    }
    let std = humantime::parse_duration(text).map_err(|e| match e {
        humantime::DurationError::NumberOverflow => too_long(),
        e => format!("{text:?} is not a duration like 60s, 1m30s or 90: {e}"),
    })?;
    TimeDelta::from_std(std)
        .ok()
        .filter(|d| d.num_seconds() <= MAX_DURATION_SECONDS)
        .ok_or_else(too_long)
}

/// A signed offset: `+90s`, `-1m30s`, `90s` (positive), `-5`.
pub fn parse_offset(text: &str) -> Result<TimeDelta, String> {
    let text = text.trim();
    match text.strip_prefix('-') {
        Some(rest) => parse_duration(rest).map(|d| -d),
        None => parse_duration(text.strip_prefix('+').unwrap_or(text)),
    }
}

/// RFC 3339 in UTC, whole seconds unless the instant has a fraction.
pub fn rfc3339(at: DateTime<Utc>) -> String {
    use chrono::{Datelike as _, Timelike as _};
    // Fast path for whole seconds in years 0-9999 (every token claim; a batch
    // formats several per token), byte-identical to chrono's; the rest goes to chrono.
    let year = at.year();
    if at.nanosecond() != 0 || !(0..=9999).contains(&year) {
        return at.to_rfc3339_opts(SecondsFormat::AutoSi, true);
    }
    let mut out = *b"0000-00-00T00:00:00Z";
    let mut put = |at: usize, value: u32, width: usize| {
        let mut v = value;
        for i in (0..width).rev() {
            out[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, year as u32, 4);
    put(5, at.month(), 2);
    put(8, at.day(), 2);
    put(11, at.hour(), 2);
    put(14, at.minute(), 2);
    put(17, at.second(), 2);
    out.iter().map(|&b| char::from(b)).collect()
}

/// "in 47m", "3d 2h ago", "now": `at` relative to `now`, two units at most.
pub fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (at - now).num_seconds();
    match seconds {
        0 => "now".to_owned(),
        s if s > 0 => format!("in {}", compact(s, 2)),
        s => format!("{} ago", compact(-s, 2)),
    }
}

/// A duration in seconds as "1h 7s", every non-zero unit.
pub fn human_seconds(seconds: i64) -> String {
    if seconds < 0 {
        format!("-{}", compact(-seconds, 4))
    } else {
        compact(seconds, 4)
    }
}

fn compact(seconds: i64, max_units: usize) -> String {
    if seconds == 0 {
        return "0s".to_owned();
    }
    let units = [(86_400, "d"), (3_600, "h"), (60, "m"), (1, "s")];
    let mut rest = seconds;
    let mut parts = Vec::new();
    for (size, name) in units {
        let n = rest / size;
        rest %= size;
        if n > 0 || !parts.is_empty() {
            parts.push((n, name));
        }
        if parts.len() == max_units {
            break;
        }
    }
    parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, name)| format!("{n}{name}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        parse_instant(s).unwrap()
    }

    #[test]
    fn a_measured_offset_is_worded_one_way_and_never_plus_minus_zero() {
        assert_eq!(offset_pm(-89.61, 0.5), "-89.6 s ± 0.5 s");
        assert_eq!(offset_pm(0.02, 0.04), "+0.02 s ± 0.04 s");
        assert_eq!(offset_pm(-0.001, 0.0), "0 s ± 0 s");
        assert_eq!(offset_pm(-90.0, 7.0), "-90 s ± 7 s");
        assert_eq!(offset_pm(3725.2, 1.0), "+1h 2m 5s ± 1 s");
        assert_eq!(offset_pm(-150.0, 150.0), "-2m 30s ± 2m 30s");
    }

    #[test]
    fn flag_instants_and_durations_are_bounded() {
        assert!(parse_instant("9999-12-31T23:59:59Z").is_ok());
        assert!(parse_instant("-62167219200").is_ok());
        for bad in [
            "253402300800",
            "8210298412799",
            "-62167219201",
            "-9999999999999",
        ] {
            let e = parse_instant(bad).unwrap_err();
            assert!(e.contains("years 0 to 9999"), "{bad}: {e}");
        }
        assert!(parse_duration("36600d").is_ok());
        for bad in [
            "999999999999999s",
            "36601d",
            "18446744073709551615",
            "9999999999999999999999h",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("100-year limit"), "{bad}: {e}");
        }
        assert_eq!(parse_offset("-36600d").unwrap(), TimeDelta::days(-36600));
    }

    #[test]
    fn rfc3339_fast_path_matches_chrono() {
        let chrono = |at: DateTime<Utc>| at.to_rfc3339_opts(SecondsFormat::AutoSi, true);
        let mut secs: Vec<i64> = vec![
            0,
            -1,
            1_767_225_600,
            -62_135_596_800,
            -62_167_219_200,
            -62_167_219_201,
            253_402_300_799,
            253_402_300_800,
            951_782_400,
        ];
        // A spread over years 1-9999, and every second of one day boundary.
        secs.extend((-62_135_596_800..253_402_300_799).step_by(7_654_321_987));
        secs.extend(1_767_225_500..1_767_225_700);
        for s in secs {
            let at = DateTime::from_timestamp(s, 0).unwrap();
            assert_eq!(rfc3339(at), chrono(at), "{s}");
        }
        let fraction = DateTime::from_timestamp(1_767_225_600, 500_000_000).unwrap();
        assert_eq!(rfc3339(fraction), "2026-01-01T00:00:00.500Z");
    }

    #[test]
    fn instants() {
        assert_eq!(t("1767225600"), t("2026-01-01T00:00:00Z"));
        assert_eq!(t("2026-01-01T01:00:00+01:00"), t("2026-01-01T00:00:00Z"));
        assert_eq!(t("2026-01-01"), t("2026-01-01T00:00:00Z"));
        for (bad, want) in [
            ("yesterday", "2026-01-01 (midnight UTC)"),
            ("now", "leave --now out"),
            ("2026-01-01T00:00:00", "add a zone"),
        ] {
            let e = parse_instant(bad).unwrap_err();
            assert!(e.contains(want) && !e.contains("premature"), "{bad}: {e}");
        }
    }

    #[test]
    fn durations_and_offsets() {
        for (text, want) in [("60s", 60), ("1m30s", 90), ("90", 90)] {
            let got = parse_duration(text).unwrap();
            assert_eq!(got, TimeDelta::seconds(want), "{text}");
        }
        for (text, want) in [("-1m30s", -90), ("+90s", 90)] {
            let got = parse_offset(text).unwrap();
            assert_eq!(got, TimeDelta::seconds(want), "{text}");
        }
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn relative_text() {
        let now = t("2026-01-01T00:00:00Z");
        for (at, want) in [
            ("2026-01-01T00:47:00Z", "in 47m"),
            ("2025-12-29T00:00:00Z", "3d ago"),
            ("2025-12-28T22:00:05Z", "3d 1h ago"),
            ("2026-01-01T00:00:00Z", "now"),
        ] {
            assert_eq!(relative(t(at), now), want, "{at}");
        }
        assert_eq!(human_seconds(3607), "1h 7s");
        assert_eq!(human_seconds(31_536_000), "365d");
    }
}
