//! Pure: a log read as a report. A log (a day of kube-apiserver's lines,
//! `kubectl logs` of a controller, JSON logs) is read one line at a time and
//! each line on its own: lines of concurrent requests interleave, so no
//! answer is assembled across lines by where they stand. Instead:
//!
//! - httplog's record of a request ([`apiserver::request`]) is counted by its
//!   status; a failed one (4xx, 5xx) is an event with its request and source;
//! - any other line that holds an anchor ([`super::prefilter`]) is read by
//!   the engine ([`super::start`]); every answer but `ok` is an event;
//! - kube-apiserver's "Unable to authenticate the request" line and the
//!   httplog `resp=401` of the same request are one event, joined by time as
//!   `audit --apiserver-log` joins ([`WINDOW`]), within one stream (a source,
//!   a `kubectl logs --prefix` tag): exact when each is the other's only
//!   candidate, else a guess, which lowers the event's confidence one level;
//! - events fold into groups ([`LogGroups`]): answer class, cause, confidence
//!   and the server's reason wording, each with its sources (user, source
//!   IP, user agent), counts, first and last seen and hourly timeline.
//!
//! Memory is flat in the log's size: lines are not kept, joins wait at most
//! a few seconds of log time ([`MAX_PENDING`] lines at most), groups and
//! their sources are capped with what is past the caps counted.

use std::collections::{BTreeMap, HashMap, VecDeque};

use chrono::{DateTime, TimeDelta, Utc};
use strum::{IntoStaticStr, VariantArray};

use super::{Answer, ClassifyResult, Context, Evidence, SourceType, Stamp, Tally, diagnose_one};
use crate::audit::aggregate::{BUCKET, Seen, kept, see};
use crate::audit::apiserver::{self, Record, WINDOW};
use crate::audit::event::Micros;
use crate::audit::{Other, instant};
use crate::diagnosis::case::{HttpAnswer, ReasonSource};
use crate::diagnosis::extract::url::request_from_url;
use crate::diagnosis::reasons::{ReasonKind, specific};
use crate::diagnosis::{Cause, Classification, Confidence, Support, SupportKind};

/// Evidence up to this size may be a paste, read whole; more is a log.
pub const PASTE_BYTES: u64 = 1024 * 1024;
/// A paste has at most this many lines; more is a log.
pub const PASTE_LINES: usize = 1_000;
/// Past this many lines, text whose lines are nearly all log lines (a time
/// prefix, a klog header, a JSON log's `ts`) is a log.
pub const LOG_LINES: usize = 100;

/// Whether evidence is a log, from its first bytes (all of it, unless it is
/// over [`PASTE_BYTES`]): a paste (a handful of lines, a transcript, an
/// exception) is read whole and answer by answer instead.
pub fn is_log(head: &[u8], now: DateTime<Utc>) -> bool {
    if head.len() as u64 > PASTE_BYTES {
        return true;
    }
    let (mut lines, mut dated) = (0, 0);
    for line in head
        .split(|&b| b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
    {
        lines += 1;
        dated += usize::from(apiserver::record(line, now).at.is_some());
    }
    lines > PASTE_LINES || (lines > LOG_LINES && dated * 10 >= lines * 9)
}

/// Events waiting for their join at most; past it the oldest is settled.
pub const MAX_PENDING: usize = 4_096;
/// Groups kept; the events of others are counted in [`LogReport::other`].
pub const MAX_GROUPS: usize = 1_000;
/// Sources kept per group; the events of others are counted.
pub const MAX_SOURCES: usize = 256;
/// The memory the groups and their sources may take, as `audit`'s
/// aggregate may ([`crate::audit::aggregate::AGGREGATE_BYTES`]); past it
/// the events of new groups and sources are counted, not kept.
pub const LOG_BYTES: usize = crate::audit::aggregate::AGGREGATE_BYTES;
/// What a group costs besides its strings: its key, maps, timeline and the
/// example event with its diagnosis.
const GROUP_BYTES: usize = 16 * 1024;
/// What a source costs besides its strings (map entry, tally).
const SOURCE_BYTES: usize = 512;

/// How an event's reasons and its request were put together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Join {
    /// A reason line or a 401 with nothing to join in reach, or another answer.
    None,
    /// Each was the other's only candidate in the window.
    Exact,
    /// Several were in reach: the nearest was taken.
    Guess,
}

crate::wire::string_codes!(Join);

/// Who sent the request, as far as its lines say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// The `kubectl logs --prefix` tag.
    pub stream: Option<String>,
    pub user: Option<String>,
    pub source_ip: Option<String>,
    pub user_agent: Option<String>,
}

/// One failing event of a log.
#[derive(Debug, Clone)]
pub struct LogEvent {
    /// Which input it came from (an index into the sources read).
    pub source: usize,
    /// The line's time.
    pub at: Option<Micros>,
    pub origin: Origin,
    pub audit_id: Option<String>,
    pub join: Join,
    /// The httplog line joined to a reason line.
    pub request_line: Option<u64>,
    pub result: ClassifyResult,
}

/// Which side of a join a waiting event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Reasons,
    Request,
}

/// An event before its diagnosis.
#[derive(Debug)]
struct Item {
    ev: Evidence,
    origin: Origin,
    audit_id: Option<String>,
}

/// An event waiting for its join.
#[derive(Debug)]
struct Pending {
    side: Side,
    at: Micros,
    source: usize,
    stream: Option<String>,
    /// `None` once it was joined to another.
    item: Option<Item>,
}

/// Reads a log's lines into events (see the module documentation).
pub struct LogScan<'c> {
    ctx: Context<'c>,
    forced: Option<SourceType>,
    prefilter: bool,
    pending: VecDeque<Pending>,
    /// The latest line time read.
    clock: Micros,
    out: VecDeque<LogEvent>,
    /// Lines read.
    pub lines: u64,
    /// httplog's requests by status code.
    pub requests: BTreeMap<u16, u64>,
    /// The first and last line time.
    pub span: Option<(Micros, Micros)>,
    /// Events settled before their window passed ([`MAX_PENDING`]).
    pub crowded: u64,
}

impl<'c> LogScan<'c> {
    /// A scan with `ctx` (token, `--at`, `now`, leeway), only events of the
    /// `forced` type when one is, the engine reading every line when
    /// `prefilter` is off.
    pub fn new(ctx: Context<'c>, forced: Option<SourceType>, prefilter: bool) -> Self {
        LogScan {
            ctx,
            forced,
            prefilter,
            pending: VecDeque::new(),
            clock: Micros::MIN,
            out: VecDeque::new(),
            lines: 0,
            requests: BTreeMap::new(),
            span: None,
            crowded: 0,
        }
    }

    /// Reads line `number` (1-based) of input `source`.
    pub fn line(&mut self, source: usize, number: u64, line: &[u8]) {
        let mut seen = Looked::default();
        seen.add(self.look(), line, 0..line.len());
        let mut settled = Vec::new();
        let mut keep = |ev| {
            settled.push(ev);
            Ok(())
        };
        self.take(source, number, line, seen, &mut keep)
            .expect("keeping events never fails");
        self.out.extend(settled);
    }

    /// What the cheap stage needs to know, to look at lines on any thread.
    pub fn look(&self) -> Look {
        Look {
            now: self.ctx.now,
            forced: self.forced,
            prefilter: self.prefilter,
        }
    }

    /// Takes lines the cheap stage saw ([`Looked`]; its ranges in `text`, the
    /// first numbered `number`), in input order: the counts, the clock, and
    /// the lines to read; every event settled goes to `hand`, line by line.
    pub fn take(
        &mut self,
        source: usize,
        number: u64,
        text: &[u8],
        seen: Looked,
        hand: &mut dyn FnMut(LogEvent) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.lines += seen.lines;
        for (code, n) in seen.requests {
            *self.requests.entry(code).or_default() += n;
        }
        if let Some((first, last)) = seen.span {
            self.span = Some(
                self.span
                    .map_or((first, last), |(f, l)| (f.min(first), l.max(last))),
            );
        }
        for mark in seen.marks {
            if let Some(at) = mark.at {
                self.clock = self.clock.max(at);
            }
            if let Some((index, range)) = mark.read {
                let line = &text[range];
                let record = apiserver::record(line, self.ctx.now);
                match apiserver::request(record.text) {
                    Some(request) => self.request(source, number + index, line, &record, &request),
                    None => self.read(source, number + index, line, &record),
                }
            }
            self.settle(false);
            for ev in self.out.drain(..) {
                hand(ev)?;
            }
        }
        Ok(())
    }

    /// Settles every event still waiting; call after the last line.
    pub fn finish(&mut self) {
        self.settle(true);
    }

    /// The events settled so far, in the order they settled.
    pub fn events(&mut self) -> std::collections::vec_deque::Drain<'_, LogEvent> {
        self.out.drain(..)
    }

    /// httplog's failed request: an event, waiting for its reasons if a 401.
    fn request(
        &mut self,
        source: usize,
        number: u64,
        line: &[u8],
        record: &Record<'_>,
        r: &apiserver::Request<'_>,
    ) {
        let text = String::from_utf8_lossy(line);
        let ev = Evidence {
            line: usize::try_from(number).unwrap_or(usize::MAX),
            source: SourceType::ApiserverLog,
            format: "httplog",
            excerpt: crate::diagnosis::extract::excerpt(&text),
            answer: Answer::Http(HttpAnswer::with_status(r.code, 2)),
            request: Some(request_from_url(Some(r.verb), r.uri)),
            stamp: record
                .at
                .map(|(at, source)| Stamp::new(instant(at), source)),
            ..Evidence::default()
        };
        let origin = Origin {
            stream: stream(record),
            user: None,
            source_ip: r.source_ip.map(kept),
            user_agent: r.user_agent.map(kept),
        };
        let item = Item {
            ev,
            origin,
            audit_id: r.audit_id.map(kept),
        };
        self.wait_or_settle(Side::Request, source, record, item);
    }

    /// Any other line, read by the engine.
    fn read(&mut self, source: usize, number: u64, line: &[u8], record: &Record<'_>) {
        let text = String::from_utf8_lossy(line);
        let Ok(stream) = super::start(&text, self.forced, self.ctx.now) else {
            return;
        };
        for mut ev in stream.events {
            if ev.answer.classification() == Classification::Ok {
                continue;
            }
            ev.line = usize::try_from(number).unwrap_or(usize::MAX);
            let origin = Origin {
                stream: self::stream(record),
                user: ev.user.as_deref().map(kept),
                ..Origin::default()
            };
            let reasons = matches!(ev.answer, Answer::Rejected)
                && ev.reasons_from == Some(ReasonSource::ApiserverLog);
            let item = Item {
                ev,
                origin,
                audit_id: None,
            };
            if reasons {
                self.wait_or_settle(Side::Reasons, source, record, item);
            } else {
                self.settle_one(
                    source,
                    record.at.map(|(at, _)| at),
                    Side::Request,
                    item,
                    None,
                );
            }
        }
    }

    /// Waits for a join (a reason line, a 401 with a time) or settles now.
    fn wait_or_settle(&mut self, side: Side, source: usize, record: &Record<'_>, item: Item) {
        let joinable = side == Side::Reasons || item.ev.answer.code() == Some(401);
        match record.at {
            Some((at, _)) if joinable => self.pending.push_back(Pending {
                side,
                at,
                source,
                stream: item.origin.stream.clone(),
                item: Some(item),
            }),
            at => self.settle_one(source, at.map(|(t, _)| t), side, item, None),
        }
    }

    /// Settles the waiting events whose window has passed (all with `all`),
    /// oldest first; a settled one stays in the queue while it can still
    /// make another's join a guess.
    fn settle(&mut self, all: bool) {
        let mut i = 0;
        while i < self.pending.len() {
            let p = &self.pending[i];
            let crowded = self.pending.len() > MAX_PENDING;
            if p.item.is_some() {
                if !all && !crowded && p.at.saturating_add(2 * WINDOW) >= self.clock {
                    break;
                }
                self.crowded += u64::from(crowded);
                let item = self.pending[i].item.take().expect("waiting");
                let partner = self.partner(i);
                let p = &self.pending[i];
                self.settle_one(p.source, Some(p.at), p.side, item, partner);
            }
            i += 1;
        }
        while let Some(front) = self.pending.front() {
            let spent =
                front.item.is_none() && (all || front.at.saturating_add(4 * WINDOW) < self.clock);
            if !spent && self.pending.len() <= MAX_PENDING {
                return;
            }
            self.pending.pop_front();
        }
    }

    /// The event of the other side that the event at `i` joins, taken out of
    /// the queue, and whether the join is exact: each is the other's only
    /// candidate, counting those already settled.
    fn partner(&mut self, i: usize) -> Option<(Item, Join)> {
        let p = &self.pending[i];
        let near = |q: &Pending, side: Side, at: Micros| {
            q.side == side
                && q.source == p.source
                && q.stream == p.stream
                && (q.at - at).abs() <= WINDOW
        };
        let other = match p.side {
            Side::Reasons => Side::Request,
            Side::Request => Side::Reasons,
        };
        let candidates: Vec<usize> = (0..self.pending.len())
            .filter(|&j| near(&self.pending[j], other, p.at))
            .collect();
        let &chosen = candidates
            .iter()
            .filter(|&&j| self.pending[j].item.is_some())
            .min_by_key(|&&j| ((self.pending[j].at - p.at).abs(), j))?;
        let at = self.pending[chosen].at;
        let rivals = (0..self.pending.len())
            .filter(|&j| j != i && near(&self.pending[j], p.side, at))
            .count();
        let join = if candidates.len() == 1 && rivals == 0 {
            Join::Exact
        } else {
            Join::Guess
        };
        Some((self.pending[chosen].item.take()?, join))
    }

    /// Diagnoses an event of `side` (joined to `partner`, if any) and hands
    /// it out.
    fn settle_one(
        &mut self,
        source: usize,
        at: Option<Micros>,
        side: Side,
        item: Item,
        partner: Option<(Item, Join)>,
    ) {
        let (mut join, mut request_line) = (Join::None, None);
        let Item {
            ev,
            origin,
            audit_id,
        } = match partner {
            None => item,
            Some((other, how)) => {
                // The reason line speaks for the event; the request line gives
                // the answer, the request and who sent it.
                let (Item { mut ev, .. }, request) = match side {
                    Side::Reasons => (item, other),
                    Side::Request => (other, item),
                };
                ev.answer = request.ev.answer;
                ev.request = request.ev.request.or(ev.request.take());
                (join, request_line) = (how, Some(request.ev.line as u64));
                Item {
                    ev,
                    origin: request.origin,
                    audit_id: request.audit_id,
                }
            }
        };
        let mut result = diagnose_one(ev, self.ctx);
        if join == Join::Guess {
            let top = &mut result.diagnosis.candidates[0];
            top.confidence = top.confidence.lowered();
            result.diagnosis.notes.push(Support::new(
                SupportKind::Context,
                format!(
                    "joined by time to the 401 at line {}: a guess, more than one request or reason line was within {} s",
                    request_line.unwrap_or(0),
                    WINDOW / 1_000_000
                ),
            ));
        }
        self.out.push_back(LogEvent {
            source,
            at,
            origin,
            audit_id,
            join,
            request_line,
            result,
        });
    }
}

/// The facts a line is judged by before the engine: its time, httplog's
/// status, whether the engine reads it (a failed request, or a line with an
/// anchor).
#[derive(Debug, Clone, Copy)]
pub struct Look {
    now: DateTime<Utc>,
    forced: Option<SourceType>,
    prefilter: bool,
}

/// A step of [`LogScan::take`]: a line time that moves the clock, a line to
/// read (its index among the lines seen and its bytes), or both.
#[derive(Debug, Clone)]
pub struct Mark {
    at: Option<Micros>,
    read: Option<(u64, std::ops::Range<usize>)>,
}

/// Lines as the cheap stage saw them: counted, and marked only where the
/// sequential stage has something to do (a line to read, a later time).
#[derive(Debug, Clone, Default)]
pub struct Looked {
    pub lines: u64,
    requests: BTreeMap<u16, u64>,
    span: Option<(Micros, Micros)>,
    /// The latest time seen: an earlier one leaves the clock as it is.
    latest: Option<Micros>,
    marks: Vec<Mark>,
}

impl Looked {
    /// Looks at the line in `range` of `text`, the next one.
    pub fn add(&mut self, look: Look, text: &[u8], range: std::ops::Range<usize>) {
        let line = &text[range.clone()];
        let record = apiserver::record(line, look.now);
        let read = match apiserver::request(record.text) {
            Some(request) => {
                *self.requests.entry(request.code).or_default() += 1;
                request.code >= 400 && look.forced.is_none_or(|t| t == SourceType::ApiserverLog)
            }
            // The prefixes (stream, time, klog's header) hold no answer.
            None => !look.prefilter || super::prefilter::candidate(record.text),
        };
        let at = record.at.map(|(at, _)| at);
        if let Some(at) = at {
            self.span = Some(self.span.map_or((at, at), |(f, l)| (f.min(at), l.max(at))));
        }
        let later = at.filter(|&at| self.latest.is_none_or(|l| at > l));
        if read || later.is_some() {
            self.latest = self.latest.max(at);
            let read = read.then_some((self.lines, range));
            self.marks.push(Mark { at, read });
        }
        self.lines += 1;
    }
}

fn stream(record: &Record<'_>) -> Option<String> {
    record.stream.map(|s| kept(&String::from_utf8_lossy(s)))
}

/// What events of one group share.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupKey {
    pub class: Classification,
    pub cause: Cause,
    pub confidence: Confidence,
    /// The status, for HTTP answers.
    pub status: Option<u16>,
    /// The server's reasons: which wording, of which versions.
    pub wording: Vec<(ReasonKind, &'static str)>,
}

/// One source of a group's events.
#[derive(Debug, Clone, Default)]
pub struct SourceTally {
    pub events: u64,
    pub seen: Option<Seen>,
    /// The first event's input and line, and its audit ID.
    pub example: (usize, u64, Option<String>),
    /// Events joined to this source by a guess.
    pub guessed: u64,
}

/// Events that share a [`GroupKey`].
#[derive(Debug, Clone)]
pub struct Group {
    pub key: GroupKey,
    pub events: u64,
    /// The dated events.
    pub seen: Option<Seen>,
    /// Events per hour (hours since the epoch).
    pub hours: BTreeMap<i64, u64>,
    /// The first event: what the report quotes and diagnoses.
    pub example: Box<LogEvent>,
    /// Events by how their reasons and request were joined.
    pub joins: BTreeMap<Join, u64>,
    pub sources: HashMap<Origin, SourceTally>,
    /// Sources past [`MAX_SOURCES`], and their events.
    pub other_sources: Other,
}

/// The groups of a log's events, as they stream by.
#[derive(Debug)]
pub struct LogGroups {
    pub tally: Tally,
    groups: HashMap<GroupKey, Group>,
    other: Other,
    /// Bytes the groups and sources may still take.
    budget: usize,
    /// Events of groups or sources past the budget, counted, not kept.
    over_budget: u64,
}

impl Default for LogGroups {
    fn default() -> Self {
        LogGroups::with_budget(LOG_BYTES)
    }
}

impl Origin {
    fn bytes(&self) -> usize {
        [&self.stream, &self.user, &self.source_ip, &self.user_agent]
            .iter()
            .map(|s| s.as_deref().map_or(0, str::len))
            .sum()
    }
}

impl LogGroups {
    /// Empty groups that may take `budget` bytes.
    pub fn with_budget(budget: usize) -> Self {
        LogGroups {
            tally: Tally::default(),
            groups: HashMap::new(),
            other: Other::default(),
            budget,
            over_budget: 0,
        }
    }

    /// Takes `bytes` from the budget when it has them.
    fn charge(&mut self, bytes: usize) -> bool {
        let fits = bytes <= self.budget;
        if fits {
            self.budget -= bytes;
        } else {
            self.over_budget += 1;
        }
        fits
    }

    /// Counts one event.
    pub fn add(&mut self, ev: LogEvent) {
        self.tally.add(&ev.result);
        let d = &ev.result.diagnosis;
        let key = GroupKey {
            class: d.classification,
            cause: d.cause(),
            confidence: d.confidence(),
            status: ev.result.evidence.answer.code(),
            wording: specific(&ev.result.evidence.reasons)
                .iter()
                .map(|r| (r.kind, r.era))
                .collect(),
        };
        let origin_bytes = ev.origin.bytes() + SOURCE_BYTES;
        if !self.groups.contains_key(&key)
            && (self.groups.len() >= MAX_GROUPS
                || !self.charge(GROUP_BYTES + origin_bytes + ev.result.evidence.excerpt.len()))
        {
            self.other.events += 1;
            return;
        }
        let origin = ev.origin.clone();
        let tally = SourceTally {
            example: (
                ev.source,
                ev.result.evidence.line as u64,
                ev.audit_id.clone(),
            ),
            ..SourceTally::default()
        };
        let (at, join) = (ev.at, ev.join);
        let g = self.groups.entry(key.clone()).or_insert_with(|| Group {
            key,
            events: 0,
            seen: None,
            hours: BTreeMap::new(),
            example: Box::new(ev),
            joins: BTreeMap::new(),
            sources: HashMap::new(),
            other_sources: Other::default(),
        });
        g.events += 1;
        *g.joins.entry(join).or_default() += 1;
        if let Some(at) = at {
            see(&mut g.seen, at);
            *g.hours.entry(at.div_euclid(BUCKET)).or_default() += 1;
        }
        if !g.sources.contains_key(&origin) {
            let full = g.sources.len() >= MAX_SOURCES;
            let fits = !full && {
                let fits = origin_bytes <= self.budget;
                self.budget = self.budget.saturating_sub(origin_bytes);
                self.over_budget += u64::from(!fits);
                fits
            };
            if !fits {
                g.other_sources.events += 1;
                g.other_sources.identities += 1;
                return;
            }
        }
        let s = g.sources.entry(origin).or_insert(tally);
        s.events += 1;
        s.guessed += u64::from(join == Join::Guess);
        if let Some(at) = at {
            see(&mut s.seen, at);
        }
    }

    /// The report: groups ranked (the token's failures first, then by events).
    pub fn report(self, scan: &LogScan<'_>, sources: Vec<String>, bytes: u64) -> LogReport {
        let mut groups: Vec<Group> = self.groups.into_values().collect();
        // The surest first within a class: a known cause before the
        // candidates of an unexplained 401.
        groups.sort_by_key(|g| {
            (
                rank(g.key.class),
                std::cmp::Reverse(g.key.confidence),
                std::cmp::Reverse(g.events),
                g.example.result.evidence.line,
            )
        });
        let mut notes = Vec::new();
        if self.other.events > 0 {
            notes.push(format!(
                "over {MAX_GROUPS} groups: {} events of further groups are counted, not listed",
                self.other.events
            ));
        }
        if self.over_budget > 0 {
            notes.push(format!(
                "the {} MiB memory budget was spent: {} events of further groups and sources are counted, not listed",
                LOG_BYTES >> 20,
                self.over_budget
            ));
        }
        if scan.crowded > 0 {
            notes.push(format!(
                "{} events were settled before their {} s window passed (over {MAX_PENDING} waiting): their joins may be missed",
                scan.crowded,
                WINDOW / 1_000_000
            ));
        }
        LogReport {
            evaluated_at: scan.ctx.now,
            leeway: scan.ctx.leeway,
            sources,
            bytes,
            lines: scan.lines,
            requests: scan.requests.clone(),
            span: scan.span,
            tally: self.tally,
            groups,
            notes,
        }
    }
}

/// The order of classes in a report: what a token's failure looks like first.
fn rank(class: Classification) -> usize {
    [
        Classification::Unauthorized,
        Classification::Forbidden,
        Classification::CheckerFailure,
        Classification::ServerConfig,
        Classification::NotKubernetes,
        Classification::TlsError,
        Classification::NetworkError,
        Classification::OtherStatus,
        Classification::NotFound,
    ]
    .iter()
    .position(|c| *c == class)
    .unwrap_or(usize::MAX)
}

/// A log, as a report.
#[derive(Debug)]
pub struct LogReport {
    pub evaluated_at: DateTime<Utc>,
    pub leeway: TimeDelta,
    /// `file PATH` or `stdin`, in order.
    pub sources: Vec<String>,
    pub bytes: u64,
    pub lines: u64,
    /// httplog's requests by status code.
    pub requests: BTreeMap<u16, u64>,
    pub span: Option<(Micros, Micros)>,
    /// The failing events by class and cause.
    pub tally: Tally,
    /// Ranked: the token's failures first, then by events.
    pub groups: Vec<Group>,
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        crate::timefmt::parse_instant("2026-01-02T00:00:00Z").unwrap()
    }

    /// 401s from `n` source addresses, each its own source of one group.
    fn groups_of(n: usize, budget: usize) -> (LogGroups, u64) {
        let ctx = Context {
            token: None,
            at: None,
            now: now(),
            leeway: TimeDelta::seconds(60),
        };
        let mut scan = LogScan::new(ctx, None, true);
        let mut groups = LogGroups::with_budget(budget);
        for i in 0..n {
            let line = format!(
                r#"I0101 10:00:00.{i:06}       1 httplog.go:134] "HTTP" verb="GET" URI="/api/v1/pods" latency="1ms" userAgent="app/1" audit-ID="a{i}" srcIP="10.0.{}.{}:4000" resp=401"#,
                i / 250,
                i % 250
            );
            scan.line(0, i as u64 + 1, line.as_bytes());
            scan.events().for_each(|ev| groups.add(ev));
        }
        scan.finish();
        scan.events().for_each(|ev| groups.add(ev));
        let kept = groups.groups.values().map(|g| g.sources.len() as u64).sum();
        (groups, kept)
    }

    #[test]
    fn groups_and_sources_are_held_to_a_byte_budget() {
        let (groups, kept) = groups_of(200, LOG_BYTES);
        assert_eq!((kept, groups.over_budget), (200, 0));
        // Room for the group and about 50 sources: the rest are counted.
        let (groups, kept) = groups_of(200, GROUP_BYTES + 50 * (SOURCE_BYTES + 20));
        assert!((40..=60).contains(&kept), "{kept}");
        assert_eq!(groups.over_budget, 200 - kept);
        let g = groups.groups.values().next().unwrap();
        assert_eq!(g.events, 200);
        assert_eq!(g.other_sources.events, 200 - kept);
        // Not even the group fits: every event is counted, none kept.
        let (groups, kept) = groups_of(10, 100);
        assert_eq!((kept, groups.other.events, groups.over_budget), (0, 10, 10));
    }

    #[test]
    fn a_paste_is_not_a_log_and_many_log_lines_are() {
        let kubectl = "error: You must be logged in to the server (Unauthorized)\n";
        assert!(!is_log(kubectl.as_bytes(), now()));
        let klog = "I0101 00:00:00.000000       1 get.go:262] \"Starting watch\"\n";
        assert!(!is_log(klog.repeat(LOG_LINES).as_bytes(), now()));
        assert!(is_log(klog.repeat(LOG_LINES + 1).as_bytes(), now()));
        // Undated lines are a log only past a paste's size.
        assert!(!is_log(kubectl.repeat(LOG_LINES + 1).as_bytes(), now()));
        assert!(is_log(kubectl.repeat(PASTE_LINES + 1).as_bytes(), now()));
    }
}
