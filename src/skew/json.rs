//! The `skew -o json` wire schema (docs/skew.md). Kept apart from
//! [`SkewReport`] so the schema changes only deliberately.

use serde::Serialize;

use super::{ClockResult, SkewReport, as_seconds_f64};
use crate::findings::Finding;
use crate::timefmt::rfc3339;
use crate::window::{ceil_seconds, floor_seconds};

/// `skew -o json`.
#[derive(Debug, Serialize)]
pub struct SkewJson<'a> {
    pub leeway_seconds: i64,
    /// The reference clock's instant: the local clock, or `--now`.
    pub evaluated_at: String,
    /// The reference clock first, then every measured clock.
    pub clocks: Vec<ClockJson<'a>>,
    /// Largest offset between two clocks; null with a single clock.
    pub max_pairwise_skew_seconds: Option<f64>,
    pub findings: &'a [Finding],
}

/// One clock.
#[derive(Debug, Serialize)]
pub struct ClockJson<'a> {
    pub name: &'a str,
    /// reference | flag | node-lease | apiserver-lease | node-status | token-iat | http-date
    pub source: &'static str,
    /// What this clock reads at `evaluated_at`.
    pub time: String,
    /// This clock minus the reference clock.
    pub offset_seconds: f64,
    /// The true offset is within `offset_seconds ± offset_uncertainty_seconds`.
    pub offset_uncertainty_seconds: f64,
    /// accept | not-yet-valid | issued-in-future | expired; null without a token.
    pub verdict: Option<&'static str>,
    pub reason: &'a str,
    /// Rejected as not yet valid (or issued in the future): seconds until this
    /// clock accepts, rounded up; null otherwise.
    pub accepted_in_seconds: Option<i64>,
    /// Accepted: seconds this clock still accepts, rounded down; null otherwise
    /// (and when the token has no exp).
    pub remaining_seconds: Option<i64>,
}

impl<'a> SkewJson<'a> {
    /// The wire form of a report.
    pub fn new(report: &'a SkewReport) -> Self {
        SkewJson {
            leeway_seconds: report.leeway.num_seconds(),
            evaluated_at: rfc3339(report.reference),
            clocks: report.clocks.iter().map(ClockJson::new).collect(),
            max_pairwise_skew_seconds: report.max_pair.as_ref().map(|p| as_seconds_f64(p.skew)),
            findings: &report.findings,
        }
    }
}

impl<'a> ClockJson<'a> {
    fn new(clock: &'a ClockResult) -> Self {
        let judgement = clock.judgement;
        ClockJson {
            name: &clock.reading.name,
            source: clock.reading.source.as_str(),
            time: rfc3339(clock.time),
            offset_seconds: as_seconds_f64(clock.reading.offset),
            offset_uncertainty_seconds: as_seconds_f64(clock.reading.uncertainty),
            verdict: judgement.map(|j| j.verdict.as_str()),
            reason: &clock.reason,
            accepted_in_seconds: judgement.and_then(|j| j.accepted_in).map(ceil_seconds),
            remaining_seconds: judgement.and_then(|j| j.remaining).map(floor_seconds),
        }
    }
}
