//! Pure: the times of log lines and audit events, in microseconds since the
//! epoch (one integer per line, no allocation).

use chrono::{DateTime, Datelike as _, Utc};

use super::Micros;

/// RFC 3339 in UTC as kube-apiserver writes it (`2026-01-01T00:00:00.004213Z`),
/// fast; any other offset or shape through chrono.
pub fn parse_time(t: &[u8]) -> Option<Micros> {
    let fast = || -> Option<Micros> {
        if t.len() < 20
            || t[4] != b'-'
            || t[7] != b'-'
            || t[10] != b'T'
            || t[13] != b':'
            || t[16] != b':'
        {
            return None;
        }
        let (y, mo, d) = (digits(&t[0..4])?, digits(&t[5..7])?, digits(&t[8..10])?);
        let (h, mi, s) = (
            digits(&t[11..13])?,
            digits(&t[14..16])?,
            digits(&t[17..19])?,
        );
        let mut micros = 0i64;
        let rest = &t[19..];
        let rest = if rest.first() == Some(&b'.') {
            let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            let frac = &rest[1..1 + n];
            for i in 0..6 {
                micros = micros * 10 + frac.get(i).map_or(0, |c| i64::from(c - b'0'));
            }
            &rest[1 + n..]
        } else {
            rest
        };
        if rest != b"Z" || h > 23 || mi > 59 || s > 60 {
            return None;
        }
        // chrono checks the day against its month, as the RFC 3339 path does.
        let date = chrono::NaiveDate::from_ymd_opt(
            i32::try_from(y).ok()?,
            u32::try_from(mo).ok()?,
            u32::try_from(d).ok()?,
        )?;
        let days = i64::from(date.num_days_from_ce()) - UNIX_EPOCH_DAYS_FROM_CE;
        Some(((days * 86_400 + h * 3600 + mi * 60 + s) * 1_000_000) + micros)
    };
    fast().or_else(|| {
        let text = std::str::from_utf8(t).ok()?;
        chrono::DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|d| d.timestamp_micros())
    })
}

/// The number a few ASCII digits write (0 for none), or `None` for any other byte.
pub fn digits(b: &[u8]) -> Option<i64> {
    b.iter().try_fold(0i64, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
    })
}

/// 1970-01-01 counted from 0001-01-01 (chrono's `num_days_from_ce`).
const UNIX_EPOCH_DAYS_FROM_CE: i64 = 719_163;

/// Microseconds since the epoch as an instant.
pub fn instant(micros: Micros) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(micros).unwrap_or_default()
}
