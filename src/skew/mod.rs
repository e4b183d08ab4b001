//! Pure: judge one token against many clocks. Each clock is a [`ClockReading`]
//! (an offset from the reference clock, with an uncertainty); `analyse` asks
//! [`window::judge`] what each clock does with the token at its own "now", finds
//! the largest pairwise offset, and turns both into findings.
//!
//! Where readings come from (flags, Lease and Node JSON, the token's own `iat`,
//! an HTTP `Date` header) lives in [`sources`]; rendering in `report::skew` (table,
//! timeline and the wire schema). Nothing here reads a clock, a file or the
//! terminal.

pub mod observe;
pub mod sources;

use chrono::{DateTime, TimeDelta, Utc};
use strum::{IntoStaticStr, VariantArray};

use crate::exit::Outcome;
use crate::findings::{self, Code, Finding};
use crate::timefmt::human_seconds;
use crate::token::{Token, TokenKind};
use crate::window::{self, Judgement, TimeClaims, Verdict, ceil_seconds};
use crate::wire::string_codes;

pub use sources::ClockSpec;

/// Where a clock reading came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum ClockSource {
    /// The reference clock itself: the local system clock, or `--now`.
    Reference,
    /// `--clock NAME=TIME|OFFSET`, as the user stated it.
    Flag,
    /// A node's kubelet, from its Lease in `kube-node-lease` (`--leases`).
    NodeLease,
    /// One API server, from its identity Lease in `kube-system` (`--leases`).
    ApiserverLease,
    /// A node's kubelet, from its Node condition heartbeats (`--nodes`).
    NodeStatus,
    /// The API server that issued the token, from the token's own `iat`.
    TokenIat,
    /// An API server's HTTP `Date` header, bounded by the round trip.
    HttpDate,
}

string_codes!(ClockSource as "SkewClockSource");

/// One clock, read as an interval: its true offset from the reference clock lies
/// in `offset ± uncertainty`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockReading {
    /// Node, API server or user-chosen name.
    pub name: String,
    pub source: ClockSource,
    /// This clock minus the reference clock (the point estimate).
    pub offset: TimeDelta,
    /// Half-width of the interval around `offset` (zero for exact readings).
    pub uncertainty: TimeDelta,
}

impl ClockReading {
    /// A reading known exactly (the reference clock, a `--clock` flag).
    pub fn exact(name: impl Into<String>, source: ClockSource, offset: TimeDelta) -> Self {
        ClockReading {
            name: name.into(),
            source,
            offset,
            uncertainty: TimeDelta::zero(),
        }
    }
}

/// The time claims of the token under test, and whether they are checked at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenTimes {
    /// First 8 hex digits of SHA-256 of the token.
    pub fingerprint: String,
    pub claims: TimeClaims,
    /// False for legacy Secret tokens: pkg/serviceaccount/legacy.go never checks times.
    pub time_checked: bool,
}

impl TokenTimes {
    /// The facts `skew` needs from a parsed token.
    pub fn from_token(token: &Token) -> Self {
        let (kind, _) = crate::token::kind::classify(&token.claims);
        TokenTimes {
            fingerprint: token.fingerprint.clone(),
            claims: TimeClaims::from(&token.claims),
            time_checked: kind != TokenKind::LegacySecret,
        }
    }
}

/// One clock's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockResult {
    pub reading: ClockReading,
    /// What this clock reads at the reference instant.
    pub time: DateTime<Utc>,
    /// `None` without a token.
    pub judgement: Option<Judgement>,
    /// The verdict differs somewhere within `offset ± uncertainty`.
    pub uncertain: bool,
    /// Why: kube-apiserver's error text for a rejection, or why it accepts.
    pub reason: String,
}

impl ClockResult {
    /// Rejects the token (at the point estimate).
    pub fn rejects(&self) -> bool {
        self.judgement.is_some_and(|j| j.verdict != Verdict::Accept)
    }
}

/// The two clocks furthest apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairSkew {
    /// The clock that is ahead.
    pub ahead: String,
    /// The clock that is behind.
    pub behind: String,
    /// `ahead - behind`, never negative.
    pub skew: TimeDelta,
}

/// What `skew` found.
#[derive(Debug, Clone)]
pub struct SkewReport {
    /// The reference instant: the local clock, or `--now`.
    pub reference: DateTime<Utc>,
    pub leeway: TimeDelta,
    /// `None` when run without a token (clock measurement only).
    pub token: Option<TokenTimes>,
    /// The reference clock first, then every other clock in input order.
    pub clocks: Vec<ClockResult>,
    /// `None` with fewer than two distinct clocks.
    pub max_pair: Option<PairSkew>,
    /// Most severe first.
    pub findings: Vec<Finding>,
}

impl SkewReport {
    /// 1 when a clock rejects the token or a pair is further apart than the leeway.
    pub fn outcome(&self) -> Outcome {
        let skewed = self.max_pair.as_ref().is_some_and(|p| p.skew > self.leeway);
        Outcome::problem_if(skewed || self.clocks.iter().any(ClockResult::rejects))
    }
}

pub const REFERENCE_NAME: &str = "local";

/// Judges `token` on every clock. `readings` must not include the reference
/// clock (it is added first); `findings` are those the sources produced.
pub fn analyse(
    token: Option<TokenTimes>,
    readings: Vec<ClockReading>,
    mut findings: Vec<Finding>,
    reference: DateTime<Utc>,
    leeway: TimeDelta,
) -> SkewReport {
    let all = std::iter::once(ClockReading::exact(
        REFERENCE_NAME,
        ClockSource::Reference,
        TimeDelta::zero(),
    ))
    .chain(readings);
    let clocks: Vec<ClockResult> = all
        .map(|reading| judge_clock(token.as_ref(), reading, reference, leeway))
        .collect();

    if let Some(t) = token.as_ref().filter(|t| !t.time_checked) {
        findings.push(Finding::warning(
            Code::LegacyToken,
            format!(
                "token sha256:{} is a legacy Secret-based token: kube-apiserver never checks its time claims, so no clock can reject it",
                t.fingerprint
            ),
        ));
    }
    for clock in &clocks {
        clock_findings(clock, &mut findings);
    }
    let max_pair = max_pair(&clocks);
    if let Some(pair) = max_pair.as_ref().filter(|p| p.skew > leeway) {
        findings.push(skew_finding(pair, leeway));
    }
    findings::sort(&mut findings);
    SkewReport {
        reference,
        leeway,
        token,
        clocks,
        max_pair,
        findings,
    }
}

fn judge_clock(
    token: Option<&TokenTimes>,
    reading: ClockReading,
    reference: DateTime<Utc>,
    leeway: TimeDelta,
) -> ClockResult {
    let time = window::plus(reference, reading.offset);
    let (judgement, uncertain, mut reason) = match token {
        None => (None, false, "no token given: nothing to judge".to_owned()),
        Some(t) if !t.time_checked => (
            Some(window::judge(TimeClaims::default(), time, leeway)),
            false,
            "legacy Secret token: kube-apiserver never checks its times".to_owned(),
        ),
        Some(t) => {
            let judgement = window::judge(t.claims, time, leeway);
            let at =
                |offset| window::judge(t.claims, window::plus(reference, offset), leeway).verdict;
            // The verdict at either end of `offset ± uncertainty`.
            let uncertain = [-reading.uncertainty, reading.uncertainty]
                .iter()
                .any(|&u| at(reading.offset + u) != judgement.verdict);
            let reason = match judgement.verdict.server_message() {
                Some(message) => message.to_owned(),
                None if judgement.remaining.is_some() => {
                    "inside the token's window on this clock".to_owned()
                }
                None => "within the window (no exp: never expires)".to_owned(),
            };
            (Some(judgement), uncertain, reason)
        }
    };
    if uncertain {
        reason.push_str(&format!(
            "; uncertain: the verdict changes within {}",
            plus_minus(reading.uncertainty)
        ));
    }
    ClockResult {
        reading,
        time,
        judgement,
        uncertain,
        reason,
    }
}

fn clock_findings(clock: &ClockResult, findings: &mut Vec<Finding>) {
    let Some(j) = clock.judgement else {
        return;
    };
    let name = &clock.reading.name;
    let source = clock.reading.source.as_str();
    let when = match (j.accepted_in, j.rejected_for) {
        (Some(wait), _) => format!(
            "; it accepts the token in {}",
            human_seconds(ceil_seconds(wait))
        ),
        (None, Some(since)) => format!(
            "; it stopped accepting {} ago",
            human_seconds(window::floor_seconds(since))
        ),
        (None, None) if j.verdict != Verdict::Accept => "; it never accepts it".to_owned(),
        (None, None) => String::new(),
    };
    if let (Some(code), Some(message)) = (j.verdict.code(), j.verdict.server_message()) {
        findings.push(Finding::error(
            code,
            format!("clock {name} ({source}) rejects the token: \"{message}\"{when}"),
        ));
    }
    if clock.uncertain {
        findings.push(Finding::warning(
            Code::VerdictUncertain,
            format!(
                "clock {name} ({source}) is known only to {}: within that range its verdict changes, so it may {} the token",
                plus_minus(clock.reading.uncertainty),
                if j.verdict == Verdict::Accept {
                    "reject"
                } else {
                    "accept"
                }
            ),
        ));
    }
}

/// The two clocks with the largest offset between them. Readings with the same
/// name (one node seen through its Lease and its Node) are one clock. Linear:
/// each clock's furthest partner is the lowest clock of another name, which is
/// the lowest or, when that shares its name, the lowest of any other name.
fn max_pair(clocks: &[ClockResult]) -> Option<PairSkew> {
    let lowest = |skip: Option<&str>| {
        clocks
            .iter()
            .filter(|c| skip.is_none_or(|name| c.reading.name != name))
            .min_by_key(|c| c.reading.offset)
    };
    let first = lowest(None)?;
    let second = lowest(Some(&first.reading.name));
    let mut best: Option<PairSkew> = None;
    for ahead in clocks {
        let behind = if ahead.reading.name == first.reading.name {
            second
        } else {
            Some(first)
        };
        let Some(behind) = behind else { continue };
        let skew = ahead.reading.offset - behind.reading.offset;
        if best.as_ref().is_none_or(|p| skew > p.skew) {
            best = Some(PairSkew {
                ahead: ahead.reading.name.clone(),
                behind: behind.reading.name.clone(),
                skew,
            });
        }
    }
    best
}

fn skew_finding(pair: &PairSkew, leeway: TimeDelta) -> Finding {
    let excess = pair.skew - leeway;
    Finding::error(
        Code::ClockSkew,
        format!(
            "clocks {ahead} and {behind} are {skew} apart, more than the {leeway} leeway: a token minted at {ahead}'s time is not valid yet at {behind}'s time for its first {excess} (what an API server on {behind}'s clock answers for a token from an API server on {ahead}'s clock: \"service account token is not valid yet\"), and it expires {excess} late there",
            ahead = pair.ahead,
            behind = pair.behind,
            skew = seconds_text(pair.skew),
            leeway = seconds_text(leeway),
            excess = seconds_text(excess),
        ),
    )
}

/// "90s", "2m 30s", or "0.5s" / "90.5s" below two minutes when there is a fraction.
pub fn seconds_text(delta: TimeDelta) -> String {
    let ms = delta.num_milliseconds();
    let whole = (ms as f64 / 1000.0).round() as i64;
    if ms.abs() < 120_000 && ms % 1000 != 0 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if whole.abs() < 120 {
        format!("{whole}s")
    } else {
        human_seconds(whole)
    }
}

/// An uncertainty, as every subcommand words one ("± 5.5 s").
pub fn plus_minus(delta: TimeDelta) -> String {
    format!(
        "± {}",
        crate::timefmt::span(crate::timefmt::as_seconds_f64(delta))
    )
}

/// A signed offset, as every subcommand words one ("+1.5 s", "-90 s", "0 s").
pub fn offset_text(delta: TimeDelta) -> String {
    crate::timefmt::signed_span(crate::timefmt::as_seconds_f64(delta))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::window::at_seconds;

    // Also the fixtures of sources' and render's tests.
    const NOW: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z
    pub(crate) const L: TimeDelta = TimeDelta::seconds(60);

    pub(crate) fn now() -> DateTime<Utc> {
        at_seconds(NOW)
    }

    /// A token minted at NOW (+ `minted_at`) on the reference clock, an hour long.
    pub(crate) fn token(minted_at: i64, nbf: bool) -> TokenTimes {
        let iat = NOW + minted_at;
        TokenTimes {
            fingerprint: "abcd1234".into(),
            claims: TimeClaims {
                not_before: nbf.then_some(iat),
                issued_at: Some(iat),
                expires_at: Some(iat + 3600),
            },
            time_checked: true,
        }
    }

    pub(crate) fn flag(name: &str, offset: i64) -> ClockReading {
        ClockReading::exact(name, ClockSource::Flag, TimeDelta::seconds(offset))
    }

    #[test]
    fn skew_exactly_at_the_leeway_is_not_a_finding() {
        let r = analyse(Some(token(0, true)), vec![flag("a", -60)], vec![], now(), L);
        assert_eq!(r.max_pair.as_ref().unwrap().skew, L);
        assert!(!r.findings.iter().any(|f| f.code == Code::ClockSkew));
        assert_eq!(r.outcome(), Outcome::Healthy);
        let r = analyse(None, vec![flag("a", -61)], vec![], now(), L);
        assert_eq!(r.outcome(), Outcome::Problem);
    }

    #[test]
    fn an_interval_straddling_the_window_edge_is_flagged_uncertain() {
        let mut reading = flag("n", -58);
        reading.uncertainty = TimeDelta::seconds(5);
        let r = analyse(Some(token(0, true)), vec![reading], vec![], now(), L);
        let c = &r.clocks[1];
        assert_eq!(c.judgement.unwrap().verdict, Verdict::Accept);
        assert!(c.uncertain);
        assert!(r.findings.iter().any(|f| f.code == Code::VerdictUncertain));
    }

    #[test]
    fn same_name_is_one_clock_and_legacy_tokens_are_never_rejected() {
        let lease = ClockReading::exact("n", ClockSource::NodeLease, TimeDelta::seconds(300));
        let status = ClockReading::exact("n", ClockSource::NodeStatus, TimeDelta::seconds(302));
        let legacy = TokenTimes {
            time_checked: false,
            ..token(-10_000, true)
        };
        let r = analyse(Some(legacy), vec![lease, status], vec![], now(), L);
        assert!(r.clocks.iter().all(|c| !c.rejects()));
        // local vs n is the largest pair; n vs n is not a pair.
        assert_eq!(r.max_pair.unwrap().skew, TimeDelta::seconds(302));
    }

    #[test]
    fn max_pair_matches_brute_force() {
        let names = ["a", "b", "a", "c", "b", "d"];
        let offsets = [5, -7, -9, 3, 40, -7];
        for n in 1..=names.len() {
            let readings: Vec<ClockReading> = names[..n]
                .iter()
                .zip(offsets)
                .map(|(name, o)| flag(name, o))
                .collect();
            let r = analyse(None, readings, vec![], now(), L);
            let mut brute = None::<i64>;
            for a in &r.clocks {
                for b in &r.clocks {
                    if a.reading.name != b.reading.name {
                        let d = (a.reading.offset - b.reading.offset).num_seconds();
                        brute = brute.max(Some(d));
                    }
                }
            }
            let pair = r.max_pair.as_ref();
            assert_eq!(pair.map(|p| p.skew.num_seconds()), brute, "{n} clocks");
            if let Some(p) = pair {
                assert_ne!(p.ahead, p.behind);
            }
        }
    }

    #[test]
    fn text_helpers() {
        for (offset, want) in [
            (TimeDelta::seconds(90), "+90 s"),
            (TimeDelta::seconds(-150), "-2m 30s"),
            (TimeDelta::milliseconds(-500), "-0.5 s"),
            (TimeDelta::zero(), "0 s"),
        ] {
            assert_eq!(offset_text(offset), want, "{offset:?}");
        }
        assert_eq!(seconds_text(TimeDelta::milliseconds(5_500)), "5.5s");
        assert_eq!(plus_minus(TimeDelta::milliseconds(40)), "± 0.04 s");
    }
}
