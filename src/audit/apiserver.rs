//! Pure: kube-apiserver's own reasons for 401s, from its log, joined to the
//! audit log's 401 events by time.
//!
//! An audit 401 event says only `Authentication failed, attempted: bearer`;
//! the reason (expired, key, ServiceAccount gone…) is in the API server's log,
//! `"Unable to authenticate the request" err="[…]"` (read by
//! `classify::logs::parse_line` in every version's format). That line carries
//! no audit ID and no address (k8s.io/apiserver
//! pkg/endpoints/filters/authentication.go), so the join is by time: an event
//! takes the reasons of the failure lines logged within [`WINDOW`] of it when
//! they all agree, and is counted as ambiguous when they do not.

use chrono::{DateTime, Utc};

use super::event::Micros;
use crate::classify::Answer;
use crate::diagnosis::reasons::AuthReason;

/// How far from an audit event a log line may be and still be its.
pub const WINDOW: Micros = 1_000_000;
/// Failure lines kept (16 bytes each).
pub const MAX_LINES: usize = 4_000_000;

/// The failure lines of the API server logs, by time, with their reasons.
#[derive(Debug, Default)]
pub struct ReasonIndex {
    /// (time, index into `sets`), sorted by time.
    lines: Vec<(Micros, u32)>,
    /// The distinct reason sets, in order of first appearance.
    pub sets: Vec<Vec<AuthReason>>,
    /// Lines read, failure lines found, failure lines without a timestamp,
    /// and failure lines past [`MAX_LINES`].
    pub read: u64,
    pub failures: u64,
    pub undated: u64,
    pub dropped: u64,
}

/// What the log says about one 401.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// Every failure line within reach gives this reason set.
    One(u32),
    /// Failure lines within reach disagree.
    Several,
    /// No failure line within reach.
    None,
}

impl ReasonIndex {
    /// Adds one log line (others than failure lines are skipped).
    pub fn add_line(&mut self, line: &str, now: DateTime<Utc>) {
        self.read += 1;
        let Some(ev) = crate::classify::logs::parse_line(0, line, now) else {
            return;
        };
        let Answer::Rejected { reasons } = ev.answer else {
            return;
        };
        self.failures += 1;
        let Some(stamp) = ev.stamp else {
            self.undated += 1;
            return;
        };
        if self.lines.len() >= MAX_LINES {
            self.dropped += 1;
            return;
        }
        let set = match self.sets.iter().position(|s| same(s, &reasons)) {
            Some(i) => i,
            None => {
                self.sets.push(reasons);
                self.sets.len() - 1
            }
        };
        self.lines.push((
            stamp.at.timestamp_micros(),
            u32::try_from(set).unwrap_or(u32::MAX),
        ));
    }

    /// Sorts by time; call once, after the last line.
    pub fn finish(&mut self) {
        self.lines.sort_unstable();
    }

    /// The reasons for a 401 at `at`.
    pub fn join(&self, at: Micros) -> Join {
        let from = self.lines.partition_point(|(t, _)| *t < at - WINDOW);
        let mut found = None;
        for &(t, set) in &self.lines[from..] {
            if t > at + WINDOW {
                break;
            }
            match found {
                None => found = Some(set),
                Some(s) if s != set => return Join::Several,
                Some(_) => {}
            }
        }
        found.map_or(Join::None, Join::One)
    }

    /// Whether any failure line was read.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

fn same(a: &[AuthReason], b: &[AuthReason]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.message == y.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_by_time_and_says_when_lines_disagree() {
        let now = crate::timefmt::parse_instant("2026-01-02T00:00:00Z").unwrap();
        let mut index = ReasonIndex::default();
        for line in [
            r#"2026-01-01T10:00:00.100000Z stderr F E0101 10:00:00.100000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#,
            r#"2026-01-01T10:00:05.000000Z stderr F E0101 10:00:05.000000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#,
            r#"2026-01-01T10:00:05.500000Z stderr F E0101 10:00:05.500000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, serviceaccounts \"x\" not found]""#,
            "I0101 10:00:06.000000       1 trace.go:236] unrelated",
        ] {
            index.add_line(line, now);
        }
        index.finish();
        assert_eq!((index.read, index.failures, index.sets.len()), (4, 3, 2));
        let at = |s: &str| crate::timefmt::parse_instant(s).unwrap().timestamp_micros();
        assert_eq!(index.join(at("2026-01-01T10:00:00.500Z")), Join::One(0));
        assert_eq!(index.join(at("2026-01-01T10:00:05.200Z")), Join::Several);
        assert_eq!(index.join(at("2026-01-01T11:00:00Z")), Join::None);
    }
}
