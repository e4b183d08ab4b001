//! Pure: what one cycle of `watch` concludes from what it measured.
//!
//! - A replica's clock offset is [`crate::probe::offset`]'s interval over its
//!   `Date` samples: one sample bounds the offset to `RTT + 1 s` (the header is
//!   whole seconds), stated as the half-width `RTT/2 + 0.5 s`. Later samples
//!   are sent so that, by the current estimate, the server's clock crosses a
//!   whole second half-way through the round trip ([`next_sample_delay`]):
//!   whichever side of the boundary its `Date` falls on, the interval is cut
//!   about in half, as NTP-style estimators narrow a coarse clock.
//! - A token is valid on a replica when the go-jose window ([`crate::window`],
//!   nbf/iat/exp with the leeway) holds at that replica's measured time: our
//!   clock plus the offset's estimate.
//! - The kubelet replaces a projected token once it is older than 80 % of its
//!   requested lifetime or 24 h (pkg/kubelet/token/token_manager.go
//!   `requiresRefresh`); with an extended expiry the requested lifetime ends at
//!   `warnafter`, not at the year-long `exp`.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use strum::{IntoStaticStr, VariantArray};

use crate::probe::offset::OffsetInterval;
use crate::token::Claims;
use crate::window::{self, TimeClaims, Verdict};
use crate::wire::string_codes;

/// The kubelet refreshes a token past this fraction of its requested lifetime.
pub const REFRESH_FRACTION_PERCENT: i64 = 80;

/// ... or past this age, whichever comes first.
pub const REFRESH_MAX_AGE: TimeDelta = TimeDelta::hours(24);

/// A SelfSubjectReview answer, as the metrics count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, IntoStaticStr, VariantArray)]
pub enum AnswerClass {
    /// 2xx: the token authenticated.
    #[strum(serialize = "ok")]
    Ok,
    /// 401: the replica rejected the token.
    #[strum(serialize = "401")]
    Unauthorized,
    /// 403: authenticated, not allowed to review itself (an authorizer said no).
    #[strum(serialize = "403")]
    Forbidden,
    /// Any other status (a 3xx is never followed; 404 on every version, 5xx).
    #[strum(serialize = "other")]
    Other,
    /// No HTTP answer: DNS, refused, TLS, timeout.
    #[strum(serialize = "transport")]
    Transport,
}

string_codes!(AnswerClass);

impl AnswerClass {
    /// The class of an HTTP status, `None` meaning no answer.
    pub fn of(status: Option<u16>) -> Self {
        match status {
            None => AnswerClass::Transport,
            Some(200..=299) => AnswerClass::Ok,
            Some(401) => AnswerClass::Unauthorized,
            Some(403) => AnswerClass::Forbidden,
            Some(_) => AnswerClass::Other,
        }
    }
}

/// What one replica said in one cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaMeasurement {
    /// `https://IP:PORT` (a replica) or the server as given.
    pub replica: String,
    /// Its clock minus ours; `None` when no `Date` came back.
    pub offset: Option<OffsetInterval>,
    /// The shortest round trip of the cycle.
    pub round_trip: Option<Duration>,
    pub answer: AnswerClass,
    /// Whether the token's window holds on its clock (`None`: no offset, or no
    /// readable token).
    pub valid: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TokenStatus {
    /// [`crate::secret::fingerprint`] of the token: never the token.
    pub fingerprint: String,
    /// Seconds until `exp` on our clock (negative once past); `None` without `exp`.
    pub seconds_to_expiry: Option<f64>,
    /// Past `kubernetes.io.warnafter`.
    pub past_warn_after: bool,
    /// Past the point the kubelet should have replaced it by.
    pub refresh_overdue: bool,
    /// The file holds another token than last cycle.
    pub changed: bool,
}

/// The instant the kubelet should have replaced the token by: `iat` plus 80 %
/// of the requested lifetime (to `warnafter` when set, else to `exp`), and
/// never later than `iat` + 24 h. `None` without `iat` and `exp`.
pub fn refresh_point(claims: &Claims) -> Option<DateTime<Utc>> {
    let issued = claims.issued_at?;
    let requested_end = claims
        .kubernetes
        .as_ref()
        .and_then(|k| k.warn_after)
        .or(claims.expires_at)?;
    let lifetime = requested_end.saturating_sub(issued).max(0);
    let after = (lifetime.saturating_mul(REFRESH_FRACTION_PERCENT) / 100)
        .min(REFRESH_MAX_AGE.num_seconds());
    Some(window::at_seconds(issued.saturating_add(after)))
}

/// The token's status at `now`; `previous` is last cycle's fingerprint.
pub fn token_status(
    claims: Option<&Claims>,
    fingerprint: String,
    previous: Option<&str>,
    now: DateTime<Utc>,
) -> TokenStatus {
    let seconds = |at: DateTime<Utc>| (at - now).num_milliseconds() as f64 / 1000.0;
    let warn_after = claims
        .and_then(|c| c.kubernetes.as_ref())
        .and_then(|k| k.warn_after);
    TokenStatus {
        changed: previous.is_some_and(|p| p != fingerprint),
        fingerprint,
        seconds_to_expiry: claims
            .and_then(|c| c.expires_at)
            .map(|exp| seconds(window::at_seconds(exp))),
        past_warn_after: warn_after.is_some_and(|w| now > window::at_seconds(w)),
        refresh_overdue: claims.and_then(refresh_point).is_some_and(|at| now > at),
    }
}

/// Whether a replica whose clock is `offset` ahead of ours accepts `claims` at
/// our instant `now`.
pub fn valid_on_replica(
    claims: TimeClaims,
    now: DateTime<Utc>,
    offset: &OffsetInterval,
    leeway: TimeDelta,
) -> bool {
    let replica_now = window::plus(now, offset.estimate());
    window::judge(claims, replica_now, leeway).verdict == Verdict::Accept
}

/// The largest difference between two replicas' offset estimates.
pub fn spread<'a>(offsets: impl IntoIterator<Item = &'a OffsetInterval>) -> Option<TimeDelta> {
    let estimates: Vec<TimeDelta> = offsets.into_iter().map(OffsetInterval::estimate).collect();
    Some(*estimates.iter().max()? - *estimates.iter().min()?)
}

/// How long to wait before the next `Date` sample, so that by the current
/// estimate the server's clock crosses a whole second half-way through the
/// round trip (`None` for a round trip past what a time holds).
pub fn next_sample_delay(
    interval: &OffsetInterval,
    now: DateTime<Utc>,
    round_trip: Duration,
) -> Option<Duration> {
    let half_trip = TimeDelta::from_std(round_trip / 2).ok()?;
    let millis = (now + interval.estimate() + half_trip).timestamp_subsec_millis();
    // On a boundary, or in a leap second (past 999 ms): no wait.
    let wait = 1000u32.saturating_sub(millis) % 1000;
    Some(Duration::from_millis(u64::from(wait)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::offset::{DateSample, estimate};
    use serde_json::json;

    fn t(ms: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_767_225_600, 0).unwrap() + TimeDelta::milliseconds(ms)
    }

    /// A server whose clock is `truth` ahead of ours, answering after `rtt`
    /// with its `Date` stamped half-way, truncated to the second.
    fn ask(sent: i64, rtt: i64, truth: i64) -> DateSample {
        let stamped = sent + rtt / 2 + truth;
        DateSample {
            sent_at: t(sent),
            received_at: t(sent + rtt),
            date: t(stamped.div_euclid(1000) * 1000),
        }
    }

    #[test]
    fn boundary_samples_narrow_the_offset_and_keep_the_truth() {
        for truth in [90_000, -90_337, 12, 999, 61_500] {
            let rtt = 20;
            let mut now = 137;
            let mut samples = vec![ask(now, rtt, truth)];
            let first = estimate(&samples).unwrap();
            assert_eq!(first.uncertainty(), TimeDelta::milliseconds(510));
            for _ in 0..4 {
                let i = estimate(&samples).unwrap();
                let wait = next_sample_delay(&i, t(now), Duration::from_millis(rtt as u64));
                now += rtt + wait.unwrap().as_millis() as i64;
                samples.push(ask(now, rtt, truth));
            }
            let last = estimate(&samples).unwrap();
            let truth = TimeDelta::milliseconds(truth);
            assert!(last.low <= truth && truth <= last.high, "{last:?} {truth}");
            assert!(
                last.uncertainty() <= TimeDelta::milliseconds(100),
                "{truth}: {}",
                last.uncertainty()
            );
        }
    }

    fn claims(value: serde_json::Value) -> Claims {
        Claims::from_payload(value.as_object().unwrap()).unwrap()
    }

    #[test]
    fn refresh_point_is_eighty_percent_of_the_requested_lifetime_or_a_day() {
        let base = 1_767_225_600;
        let kubelet = claims(json!({"iat": base, "exp": base + 3607}));
        assert_eq!(
            refresh_point(&kubelet),
            Some(window::at_seconds(base + 2885))
        );
        // Extended to a year: the kubelet still asked for 3607 s (warnafter).
        let extended = claims(json!({"iat": base, "exp": base + 31_536_000,
            "kubernetes.io": {"warnafter": base + 3607}}));
        assert_eq!(
            refresh_point(&extended),
            Some(window::at_seconds(base + 2885))
        );
        let week = claims(json!({"iat": base, "exp": base + 7 * 86_400}));
        assert_eq!(
            refresh_point(&week),
            Some(window::at_seconds(base + 86_400))
        );
        assert_eq!(refresh_point(&claims(json!({"iat": base}))), None);
        let s = token_status(
            Some(&extended),
            "f2".into(),
            Some("f1"),
            window::at_seconds(base + 3700),
        );
        assert!(s.changed && s.past_warn_after && s.refresh_overdue);
        assert_eq!(s.seconds_to_expiry, Some((31_536_000 - 3700) as f64));
        let s = token_status(
            Some(&kubelet),
            "f".into(),
            Some("f"),
            window::at_seconds(base + 60),
        );
        assert!(!s.changed && !s.past_warn_after && !s.refresh_overdue);
    }

    /// A token minted on a replica 90 s ahead: the others accept it from the
    /// instant their clocks reach iat - 60 s, i.e. ours reaches iat - 60 s - offset.
    #[test]
    fn valid_on_replica_flips_at_iat_minus_leeway_on_that_clock() {
        let iat = 1_767_225_690;
        let times = TimeClaims {
            not_before: Some(iat),
            issued_at: Some(iat),
            expires_at: Some(iat + 3607),
        };
        let leeway = TimeDelta::seconds(60);
        let on_time = OffsetInterval {
            low: TimeDelta::milliseconds(-200),
            high: TimeDelta::milliseconds(200),
        };
        let fast = OffsetInterval {
            low: TimeDelta::seconds(90),
            high: TimeDelta::seconds(90),
        };
        let flip = window::at_seconds(iat - 60);
        let ms = TimeDelta::milliseconds;
        assert!(!valid_on_replica(times, flip - ms(1), &on_time, leeway));
        assert!(valid_on_replica(times, flip, &on_time, leeway));
        let fast_flip = window::at_seconds(iat - 150);
        assert!(!valid_on_replica(times, fast_flip - ms(1), &fast, leeway));
        assert!(valid_on_replica(times, fast_flip, &fast, leeway));
        assert_eq!(spread([&on_time, &fast]), Some(TimeDelta::seconds(90)));
        assert_eq!(spread(std::iter::empty()), None);
    }

    #[test]
    fn answers_are_classed() {
        let codes: Vec<&str> = [None, Some(201), Some(401), Some(403), Some(404), Some(302)]
            .into_iter()
            .map(|s| AnswerClass::of(s).as_str())
            .collect();
        assert_eq!(codes, ["transport", "ok", "401", "403", "other", "other"]);
    }
}
