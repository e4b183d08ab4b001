//! Pure: a server's clock offset from its `Date` headers, as an interval.
//!
//! Go's net/http writes `Date` in RFC 1123, truncated to the second, when the
//! response headers are written. So the server's clock at that moment was in
//! `[Date, Date + 1 s)`, and the moment itself lies between our send and receive
//! instants. Hence the offset `o` (server clock minus ours) satisfies
//! `Date - received <= o < Date + 1 s - sent`. One response gives the estimate
//! `(Date + 0.5 s) - midpoint(sent, received)` with uncertainty
//! `RTT / 2 + 0.5 s`; several responses intersect their intervals.
//! (../shared/k8s-token-semantics.md section 5.)

use crate::http::Exchange;
use crate::timefmt::as_seconds_f64;
use chrono::{DateTime, TimeDelta, Utc};

/// One reading: when we sent, when we received, what `Date` said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateSample {
    pub sent_at: DateTime<Utc>,
    pub received_at: DateTime<Utc>,
    pub date: DateTime<Utc>,
}

impl DateSample {
    /// The reading an answer gives, when it carried a `Date`.
    pub fn of(e: &Exchange) -> Option<Self> {
        Some(DateSample {
            sent_at: e.sent_at,
            received_at: e.received_at,
            date: e.date?,
        })
    }
}

/// The server's clock minus ours: `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetInterval {
    pub low: TimeDelta,
    pub high: TimeDelta,
}

impl OffsetInterval {
    /// Centre of the interval.
    pub fn estimate(&self) -> TimeDelta {
        self.low + (self.high - self.low) / 2
    }

    /// Half its width.
    pub fn uncertainty(&self) -> TimeDelta {
        (self.high - self.low) / 2
    }

    /// Seconds, to the millisecond, for output.
    pub fn estimate_seconds(&self) -> f64 {
        as_seconds_f64(self.estimate())
    }

    /// Seconds, to the millisecond, for output.
    pub fn uncertainty_seconds(&self) -> f64 {
        as_seconds_f64(self.uncertainty())
    }
}

/// Intersects every sample's interval. If they do not overlap (a clock stepped
/// mid-run, or a proxy rewrote `Date`), the narrowest single interval is kept
/// rather than inventing precision.
pub fn estimate(samples: &[DateSample]) -> Option<OffsetInterval> {
    let intervals: Vec<OffsetInterval> = samples
        .iter()
        .map(|s| OffsetInterval {
            low: s.date - s.received_at,
            high: s.date + TimeDelta::seconds(1) - s.sent_at,
        })
        .collect();
    let low = intervals.iter().map(|i| i.low).max()?;
    let high = intervals.iter().map(|i| i.high).min()?;
    if low <= high {
        Some(OffsetInterval { low, high })
    } else {
        intervals.into_iter().min_by_key(|i| i.high - i.low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_767_225_600, 0).unwrap() + TimeDelta::milliseconds(ms)
    }

    fn sample(sent: i64, received: i64, date: i64) -> DateSample {
        DateSample {
            sent_at: t(sent),
            received_at: t(received),
            date: t(date),
        }
    }

    #[test]
    fn one_sample_is_date_plus_half_a_second_minus_midpoint() {
        // Sent at +0, received at +200 ms, Date says 90 s behind.
        let i = estimate(&[sample(0, 200, -90_000)]).unwrap();
        assert_eq!(i.estimate(), TimeDelta::milliseconds(-90_000 + 500 - 100));
        assert_eq!(i.uncertainty(), TimeDelta::milliseconds(600));
        assert_eq!(i.estimate_seconds(), -89.6);
        assert_eq!(i.uncertainty_seconds(), 0.6);
    }

    #[test]
    fn samples_tighten_and_disjoint_samples_fall_back() {
        let a = sample(0, 100, 0); // [-0.1, 1.0]
        let b = sample(1_400, 1_500, 2_000); // [0.5, 1.6]
        let i = estimate(&[a, b]).unwrap();
        assert_eq!(i.low, TimeDelta::milliseconds(500));
        assert_eq!(i.high, TimeDelta::milliseconds(1_000));
        let c = sample(0, 100, 10_000); // [9.9, 11.0]: disjoint from a
        let i = estimate(&[a, c]).unwrap();
        assert_eq!(i.high - i.low, TimeDelta::milliseconds(1_100));
        assert_eq!(estimate(&[]), None);
    }
}
