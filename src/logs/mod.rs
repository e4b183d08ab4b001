//! Pure: the joins of log lines that `classify`'s log mode and `audit
//! --apiserver-log` share. kube-apiserver logs why it refused a credential
//! (k8s.io/apiserver pkg/endpoints/filters/authentication.go) on a line of
//! its own, before httplog logs the request's 401 when it completes
//! (pkg/server/httplog); neither names the other. So a reason goes with a
//! request exactly ([`Join::Exact`]) only when both carry the same audit ID;
//! else a 401 takes the oldest reason line waiting within [`WINDOW`] before
//! it in its lane (one input and `kubectl logs --prefix` stream, on its own
//! clock): a [`Join::Guess`] even as the only candidate, since a 401 whose
//! request presented no credential has no reason line and takes a
//! neighbour's. The policy says what a guess is worth. Both joins are
//! linear in the log, and reason sets are hashed.

use std::collections::{HashMap, VecDeque};

use crate::diagnosis::reasons::AuthReason;

pub mod record;
pub mod tally;
pub mod time;

pub use crate::diagnosis::facts::Join;

/// A time, in microseconds since the epoch.
pub type Micros = i64;

/// How far apart two lines (or a line and an event) of one request may be.
pub const WINDOW: Micros = 1_000_000;
/// The buckets of a timeline: an hour.
pub const BUCKET: Micros = 3_600_000_000;
/// [`BUCKET`] in seconds, as documents state it.
pub const BUCKET_SECONDS: u64 = BUCKET.unsigned_abs() / 1_000_000;
/// Reason lines waiting, over all lanes; past it they all settle alone.
pub const MAX_PENDING: usize = 4_096;
/// Lanes kept (each line waiting counts them); past it, every waiting line
/// settles alone.
const MAX_LANES: usize = 256;

/// One input and stream (by its hash: no copy per line): one writer's lines.
pub type Lane = (usize, u64);

pub fn lane(source: usize, stream: Option<&[u8]>) -> Lane {
    use std::hash::{Hash as _, Hasher as _};
    let mut h = std::hash::DefaultHasher::new();
    stream.hash(&mut h);
    (source, h.finish())
}

/// What a line settled as.
#[derive(Debug)]
pub enum Settled<T> {
    /// A reason line or a request with nothing joined.
    Alone(T),
    /// A reason line and the request it was put with.
    Joined { reason: T, request: T, join: Join },
}

/// A reason line waiting for its request: its time, its audit ID (which
/// only the same request may take) and itself (`None` once taken).
type Waiting<T> = (Micros, Option<Box<str>>, Option<T>);

#[derive(Debug)]
struct LaneState<T> {
    clock: Micros,
    waiting: VecDeque<Waiting<T>>,
    /// Of them, those with an audit ID.
    named: usize,
}

/// The join of reason lines and requests as a log streams by.
#[derive(Debug, Default)]
pub struct Lanes<T> {
    lanes: HashMap<Lane, LaneState<T>>,
    /// What settled, in order, for the caller to take.
    pub settled: VecDeque<Settled<T>>,
    /// Lines settled before their window passed ([`MAX_PENDING`], [`MAX_LANES`]).
    pub crowded: u64,
}

impl<T> Lanes<T> {
    /// The lane's state, its clock moved to `at` and the lines whose window
    /// passed settled.
    fn lane(&mut self, lane: &Lane, at: Micros) -> &mut LaneState<T> {
        let state = self.lanes.entry(*lane).or_insert_with(|| LaneState {
            clock: at,
            waiting: VecDeque::new(),
            named: 0,
        });
        state.clock = state.clock.max(at);
        let until = state.clock.saturating_sub(2 * WINDOW);
        state.settle(|w| w.0 < until, &mut self.settled);
        state
    }

    /// A dated line of `lane` that is neither: its time moves the lane's clock.
    pub fn tick(&mut self, lane: &Lane, at: Micros) {
        if self.lanes.contains_key(lane) {
            self.lane(lane, at);
        }
    }

    /// A reason line at `at`: it waits for its request (every lane's settle
    /// first when too many wait, or too many lanes do).
    pub fn reason(&mut self, lane: &Lane, at: Micros, id: Option<&str>, item: T) {
        let waiting: usize = self.lanes.values().map(|l| l.waiting.len()).sum();
        if waiting >= MAX_PENDING || self.lanes.len() >= MAX_LANES {
            self.crowded += waiting as u64;
            self.finish();
        }
        let state = self.lane(lane, at);
        state.named += usize::from(id.is_some());
        state
            .waiting
            .push_back((at, id.map(Into::into), Some(item)));
    }

    /// A request's 401 at `at`: joined to its reason line, if one waits.
    pub fn request(&mut self, lane: &Lane, at: Micros, id: Option<&str>, request: T) {
        // No lane: no reason line waits there.
        self.tick(lane, at);
        let state = self.lanes.get_mut(lane);
        let reason = state.and_then(|state| state.take(at, id, &mut self.settled));
        self.settled.push_back(match reason {
            Some((reason, join)) => Settled::Joined {
                reason,
                request,
                join,
            },
            None => Settled::Alone(request),
        });
    }

    /// Settles every line still waiting; call after the last line.
    pub fn finish(&mut self) {
        for (_, mut state) in self.lanes.drain() {
            state.settle(|_| true, &mut self.settled);
        }
    }
}

impl<T> LaneState<T> {
    /// The reason line of a 401 at `at`: the one of its audit ID, else the
    /// oldest in reach (older ones settle alone).
    fn take(
        &mut self,
        at: Micros,
        id: Option<&str>,
        out: &mut VecDeque<Settled<T>>,
    ) -> Option<(T, Join)> {
        if self.named > 0
            && let Some(id) = id
            && let Some(w) = self.waiting.iter_mut().find(|w| w.1.as_deref() == Some(id))
            && let Some(reason) = w.2.take()
        {
            return Some((reason, Join::Exact));
        }
        self.settle(|w| w.0 < at - WINDOW || w.2.is_none(), out);
        let near = |w: &Waiting<T>| w.1.is_none() && w.0 <= at + WINDOW;
        let reason = self
            .waiting
            .front()
            .is_some_and(near)
            .then(|| self.waiting.pop_front());
        Some((reason??.2?, Join::Guess))
    }

    /// Settles lines from the front while `done` says so.
    fn settle(
        &mut self,
        mut done: impl FnMut(&Waiting<T>) -> bool,
        out: &mut VecDeque<Settled<T>>,
    ) {
        while self.waiting.front().is_some_and(&mut done)
            && let Some((_, id, item)) = self.waiting.pop_front()
        {
            self.named -= usize::from(id.is_some());
            out.extend(item.map(Settled::Alone));
        }
    }
}

/// The reason lines of the API server logs, by time and audit ID, for the
/// 401s of audit events, which the logs' lines do not name.
#[derive(Debug, Default)]
pub struct ReasonIndex {
    /// (time, index into `sets`), sorted by time.
    lines: Vec<(Micros, u32)>,
    /// Reason sets by the audit ID of the line that gave them.
    named: HashMap<Box<str>, u32>,
    /// The distinct reason sets, in order of first appearance, and by their
    /// messages.
    pub sets: Vec<Vec<AuthReason>>,
    known: HashMap<Box<[String]>, u32>,
    /// Lines read; reason lines found, undated, past [`MAX_LINES`] or [`MAX_SETS`].
    pub read: u64,
    pub failures: u64,
    pub undated: u64,
    pub dropped: u64,
}

/// Reason lines kept (16 bytes each).
pub const MAX_LINES: usize = 4_000_000;
/// Distinct reason sets kept; a line with another one is counted, not kept.
pub const MAX_SETS: usize = 4_096;

impl ReasonIndex {
    pub fn add(&mut self, at: Option<Micros>, id: Option<&str>, reasons: Vec<AuthReason>) {
        self.failures += 1;
        let Some(at) = at else {
            self.undated += 1;
            return;
        };
        let key: Box<[String]> = reasons.iter().map(|r| r.message.clone()).collect();
        let known = self.known.get(&key).copied();
        if self.lines.len() >= MAX_LINES || known.is_none() && self.sets.len() >= MAX_SETS {
            self.dropped += 1;
            return;
        }
        let set = known.unwrap_or_else(|| {
            self.sets.push(reasons);
            *self.known.entry(key).or_insert(self.sets.len() as u32 - 1)
        });
        if let Some(id) = id.filter(|_| self.named.len() < MAX_SETS) {
            self.named.insert(id.into(), set);
        }
        self.lines.push((at, set));
    }

    /// Sorts by time; call once, after the last line.
    pub fn finish(&mut self) {
        self.lines.sort_unstable();
    }

    /// The reasons for a 401 at `at` of audit ID `id`: the set of the line
    /// of the same ID (exact), else of every line within [`WINDOW`] when
    /// they agree (a guess; `None` when they disagree), else nothing.
    pub fn join(&self, at: Micros, id: Option<&str>) -> (Join, Option<u32>) {
        if let Some(&set) = id.and_then(|id| self.named.get(id)) {
            return (Join::Exact, Some(set));
        }
        let from = self.lines.partition_point(|(t, _)| *t < at - WINDOW);
        let mut sets = self.lines[from..]
            .iter()
            .take_while(|(t, _)| *t <= at + WINDOW)
            .map(|&(_, set)| set);
        match sets.next() {
            None => (Join::None, None),
            Some(first) if sets.all(|set| set == first) => (Join::Guess, Some(first)),
            Some(_) => (Join::Guess, None),
        }
    }
}

#[cfg(test)]
mod tests;
