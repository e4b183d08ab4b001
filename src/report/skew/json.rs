//! The `skew -o json` wire types (docs/skew.md; docs/schema/skew.schema.json
//! is generated from them). Kept apart from [`SkewReport`] so the schema
//! changes only deliberately.

use schemars::JsonSchema;
use serde::Serialize;

use crate::findings::Finding;
use crate::report::json::Time;
use crate::skew::{ClockResult, ClockSource, SkewReport};
use crate::timefmt::as_seconds_f64;
use crate::window::{Verdict, ceil_seconds, floor_seconds};

/// `skew -o json`: every clock read, its offset from the reference clock, and
/// what each would do with the token.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SkewJson<'a> {
    /// The leeway applied.
    #[schemars(range(min = 0))]
    pub leeway_seconds: i64,
    /// The reference clock's instant: the local clock, or `--now`.
    pub evaluated_at: Time,
    /// The reference clock first, then every measured clock.
    #[schemars(length(min = 1))]
    pub clocks: Vec<ClockJson<'a>>,
    /// Largest offset between two clocks; null with a single clock.
    pub max_pairwise_skew_seconds: Option<f64>,
    /// What skew noticed.
    pub findings: &'a [Finding],
}

/// One clock.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ClockJson<'a> {
    /// The clock's name (node, lease holder, `reference`…).
    pub name: &'a str,
    /// Where the reading came from.
    pub source: ClockSource,
    /// What this clock reads at `evaluated_at`.
    pub time: Time,
    /// This clock minus the reference clock.
    pub offset_seconds: f64,
    /// The true offset is within `offset_seconds ± offset_uncertainty_seconds`.
    pub offset_uncertainty_seconds: f64,
    /// The token's verdict on this clock; null without a token.
    pub verdict: Option<Verdict>,
    /// Why the verdict (or the reading), in words.
    pub reason: &'a str,
    /// Rejected as not yet valid (or issued in the future): seconds until this
    /// clock accepts, rounded up; null otherwise.
    pub accepted_in_seconds: Option<i64>,
    /// Accepted: seconds this clock still accepts, rounded down; null otherwise
    /// (and when the token has no exp).
    pub remaining_seconds: Option<i64>,
}

impl<'a> SkewJson<'a> {
    pub fn new(report: &'a SkewReport) -> Self {
        SkewJson {
            leeway_seconds: report.leeway.num_seconds(),
            evaluated_at: Time::new(report.reference),
            clocks: report.clocks.iter().map(clock_json).collect(),
            max_pairwise_skew_seconds: report.max_pair.as_ref().map(|p| as_seconds_f64(p.skew)),
            findings: &report.findings,
        }
    }
}

fn clock_json(clock: &ClockResult) -> ClockJson<'_> {
    let judgement = clock.judgement;
    ClockJson {
        name: &clock.reading.name,
        source: clock.reading.source,
        time: Time::new(clock.time),
        offset_seconds: as_seconds_f64(clock.reading.offset),
        offset_uncertainty_seconds: as_seconds_f64(clock.reading.uncertainty),
        verdict: judgement.map(|j| j.verdict),
        reason: &clock.reason,
        accepted_in_seconds: judgement.and_then(|j| j.accepted_in).map(ceil_seconds),
        remaining_seconds: judgement.and_then(|j| j.remaining).map(floor_seconds),
    }
}
