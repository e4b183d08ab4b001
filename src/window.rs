//! Pure: the time window in which kube-apiserver accepts a token, and the verdict
//! at one clock reading. This is the one place the go-jose rules live; `decode`,
//! `skew`, `probe` and `doctor` all ask it.
//!
//! go-jose v2 `Claims.ValidateWithLeeway` (used by pkg/serviceaccount/claims.go)
//! checks, in this order, with leeway `L` (60 s) and the validating server's clock `T`:
//! 1. nbf: rejected when `T + L < nbf` ("service account token is not valid yet");
//! 2. exp: rejected when `T - L > exp` ("service account token has expired");
//! 3. iat: rejected when `T + L < iat` ("service account token is issued in the future").
//!
//! The boundaries themselves pass, so the window is `[max(nbf, iat) - L, exp + L]`.
//! Missing claims are not checked. Legacy Secret tokens are never time-checked.

pub mod check;

use chrono::{DateTime, TimeDelta, Utc};
use strum::{IntoStaticStr, VariantArray};

use crate::findings::Code;
use crate::token::Claims;
use crate::wire::string_codes;

/// The three time claims, as whole seconds since the epoch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeClaims {
    pub not_before: Option<i64>,
    pub issued_at: Option<i64>,
    pub expires_at: Option<i64>,
}

impl From<&Claims> for TimeClaims {
    fn from(c: &Claims) -> Self {
        TimeClaims {
            not_before: c.not_before,
            issued_at: c.issued_at,
            expires_at: c.expires_at,
        }
    }
}

/// What one clock would do with the token. Its code is `accept`, or why not, in
/// the same words as the finding codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Verdict {
    Accept,
    #[strum(serialize = "not-yet-valid")]
    RejectNotYetValid,
    #[strum(serialize = "issued-in-future")]
    RejectIssuedInFuture,
    #[strum(serialize = "expired")]
    RejectExpired,
}

string_codes!(Verdict);

impl Verdict {
    /// The finding code of a rejection.
    pub fn code(self) -> Option<Code> {
        match self {
            Verdict::Accept => None,
            Verdict::RejectNotYetValid => Some(Code::NotYetValid),
            Verdict::RejectIssuedInFuture => Some(Code::IssuedInFuture),
            Verdict::RejectExpired => Some(Code::Expired),
        }
    }

    /// The verdict as the time check words it.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Accept => "accepted",
            Verdict::RejectNotYetValid => "not valid yet",
            Verdict::RejectIssuedInFuture => "issued in the future",
            Verdict::RejectExpired => "expired",
        }
    }

    /// The error text kube-apiserver 1.27+ logs and puts in TokenReview `status.error`.
    pub fn server_message(self) -> Option<&'static str> {
        match self {
            Verdict::Accept => None,
            Verdict::RejectNotYetValid => Some("service account token is not valid yet"),
            Verdict::RejectIssuedInFuture => Some("service account token is issued in the future"),
            Verdict::RejectExpired => Some("service account token has expired"),
        }
    }
}

/// A verdict plus how long until it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// For a not-yet-valid/issued-in-future rejection: how long until this clock accepts.
    pub accepted_in: Option<TimeDelta>,
    /// For an acceptance: how long this clock still accepts (none without `exp`).
    pub remaining: Option<TimeDelta>,
    /// For an expiry rejection: how long since this clock stopped accepting.
    pub rejected_for: Option<TimeDelta>,
}

/// `at + delta`, saturating at chrono's range instead of panicking. Flags are
/// bounded (`timefmt`), so saturation is a last line of defence, not a rule.
pub fn plus(at: DateTime<Utc>, delta: TimeDelta) -> DateTime<Utc> {
    at.checked_add_signed(delta)
        .unwrap_or(if delta < TimeDelta::zero() {
            DateTime::<Utc>::MIN_UTC
        } else {
            DateTime::<Utc>::MAX_UTC
        })
}

/// `at - delta`, saturating (see [`plus`]).
pub fn minus(at: DateTime<Utc>, delta: TimeDelta) -> DateTime<Utc> {
    // TimeDelta's range is symmetric: every delta has a negation.
    plus(at, -delta)
}

/// Start and end of the accepting window (either may be unbounded).
pub fn window(
    claims: TimeClaims,
    leeway: TimeDelta,
) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>) {
    let start = claims
        .not_before
        .into_iter()
        .chain(claims.issued_at)
        .max()
        .map(|s| minus(at_seconds(s), leeway));
    let end = claims.expires_at.map(|s| plus(at_seconds(s), leeway));
    (start, end)
}

/// The go-jose verdict at clock reading `at`.
pub fn judge(claims: TimeClaims, at: DateTime<Utc>, leeway: TimeDelta) -> Judgement {
    let (start, end) = window(claims, leeway);
    let ahead = |claim: Option<i64>| claim.is_some_and(|c| plus(at, leeway) < at_seconds(c));
    let verdict = if ahead(claims.not_before) {
        Verdict::RejectNotYetValid
    } else if claims
        .expires_at
        .is_some_and(|exp| minus(at, leeway) > at_seconds(exp))
    {
        Verdict::RejectExpired
    } else if ahead(claims.issued_at) {
        Verdict::RejectIssuedInFuture
    } else {
        Verdict::Accept
    };
    let (accepted_in, remaining, rejected_for) = match verdict {
        Verdict::Accept => (None, end.map(|end| end - at), None),
        Verdict::RejectExpired => (None, None, end.map(|end| at - end)),
        // Accepted once past the window start, unless it has expired by then.
        Verdict::RejectNotYetValid | Verdict::RejectIssuedInFuture => {
            let start = start.filter(|&start| end.is_none_or(|end| start <= end));
            (start.map(|start| start - at), None, None)
        }
    };
    Judgement {
        verdict,
        accepted_in,
        remaining,
        rejected_for,
    }
}

/// An instant from whole epoch seconds (range-checked when claims were parsed).
pub fn at_seconds(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(seconds, 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// Whole seconds, rounded up: "accepted in 30 s" must not promise too early.
pub fn ceil_seconds(delta: TimeDelta) -> i64 {
    let ms = delta.num_milliseconds();
    ms.div_euclid(1000) + i64::from(ms.rem_euclid(1000) != 0)
}

/// Whole seconds, rounded down: "still accepts for 59 s" must not promise too long.
pub fn floor_seconds(delta: TimeDelta) -> i64 {
    delta.num_milliseconds().div_euclid(1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBF: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z
    const L: TimeDelta = TimeDelta::seconds(60);

    fn claims() -> TimeClaims {
        TimeClaims {
            not_before: Some(NBF),
            issued_at: Some(NBF),
            expires_at: Some(NBF + 3600),
        }
    }

    fn at(offset: i64) -> DateTime<Utc> {
        at_seconds(NBF + offset)
    }

    #[test]
    fn boundaries_are_inclusive_as_in_go_jose() {
        for (offset, want) in [
            (-61, Verdict::RejectNotYetValid),
            (-60, Verdict::Accept),
            (-59, Verdict::Accept),
            (3600 + 59, Verdict::Accept),
            (3600 + 60, Verdict::Accept),
            (3600 + 61, Verdict::RejectExpired),
        ] {
            let got = judge(claims(), at(offset), L).verdict;
            assert_eq!(got, want, "at {offset:+}");
        }
    }

    #[test]
    fn iat_is_checked_only_after_nbf_and_exp() {
        let no_nbf = TimeClaims {
            not_before: None,
            ..claims()
        };
        let j = judge(no_nbf, at(-61), L);
        assert_eq!(j.verdict, Verdict::RejectIssuedInFuture);
        assert_eq!(j.accepted_in, Some(TimeDelta::seconds(1)));
        assert_eq!(judge(no_nbf, at(-60), L).verdict, Verdict::Accept);
    }

    #[test]
    fn the_incident_clock_90s_behind_waits_30s() {
        // Minted on node B's clock; node A runs 90 s behind B.
        let j = judge(claims(), at(-90), L);
        assert_eq!(j.verdict, Verdict::RejectNotYetValid);
        assert_eq!(ceil_seconds(j.accepted_in.unwrap()), 30);
    }

    #[test]
    fn remaining_and_rejected_for() {
        let j = judge(claims(), at(0), L);
        assert_eq!(j.remaining, Some(TimeDelta::seconds(3660)));
        let j = judge(claims(), at(3600 + 100), L);
        assert_eq!(j.rejected_for, Some(TimeDelta::seconds(40)));
    }

    #[test]
    fn missing_claims_are_not_checked() {
        let j = judge(TimeClaims::default(), at(0), L);
        assert_eq!(j.verdict, Verdict::Accept);
        assert_eq!(j.remaining, None);
    }

    #[test]
    fn rounding() {
        assert_eq!(ceil_seconds(TimeDelta::milliseconds(29_001)), 30);
        assert_eq!(ceil_seconds(TimeDelta::milliseconds(-1_500)), -1);
        assert_eq!(floor_seconds(TimeDelta::milliseconds(59_999)), 59);
    }
}
