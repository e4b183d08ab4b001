//! Pure: a log read as a report. A log (a day of kube-apiserver's lines,
//! `kubectl logs` of a controller, JSON logs) is read one line at a time and
//! each line on its own: lines of concurrent requests interleave, so no
//! answer is assembled across lines by where they stand. Instead:
//!
//! - httplog's record of a request ([`apiserver::request`](crate::logs::record::request)) is counted by its
//!   status; a failed one (4xx, 5xx) is an event with its request and source;
//! - any other line that holds an anchor ([`super::prefilter`]) is read by
//!   the engine ([`super::start`]); every answer but `ok` is an event;
//! - kube-apiserver's "Unable to authenticate the request" line and the
//!   httplog `resp=401` of the same request are one event, joined as
//!   [`crate::logs`] joins (exact by audit ID, else a guess by time within
//!   one input and stream), the join an input to the policy;
//! - events fold into groups ([`LogGroups`]): answer class, cause, confidence
//!   and the server's reason wording, each with its sources (user, source
//!   IP, user agent), counts, first and last seen and hourly timeline.
//!
//! Memory is flat in the log's size: lines are not kept, joins wait at most
//! a few seconds of log time ([`MAX_PENDING`] lines at most), groups and
//! their sources are capped with what is past the caps counted.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, TimeDelta, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Answer, ClassifyResult, Context, Evidence, SourceType, Tally, diagnose_one};
use crate::diagnosis::extract::url::request_from_url;
use crate::diagnosis::facts::{Case, HttpAnswer, ReasonSource, ServerClock};
use crate::diagnosis::reasons::{ReasonKind, specific};
use crate::diagnosis::{Cause, Classification, Confidence};
pub use crate::logs::Join;
use crate::logs::record as apiserver;
use crate::logs::tally::{Other, Seen, add_counts, kept, see, widen, widen_span};
use crate::logs::time::instant;
use crate::logs::{BUCKET, Lane, Lanes, MAX_PENDING, Micros, Settled, WINDOW};

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

/// Who sent the request, as far as its lines say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Origin {
    /// The `kubectl logs --prefix` tag (`pod/NAME/CONTAINER`), or null.
    pub stream: Option<String>,
    /// The user the lines name, or null.
    pub user: Option<String>,
    /// httplog's `srcIP` without its port, or null.
    pub source_ip: Option<String>,
    /// httplog's `userAgent`, or null.
    pub user_agent: Option<String>,
}

/// One failing event of a log.
#[derive(Debug, Clone)]
pub struct LogEvent {
    /// Which input it came from (an index into the sources read).
    pub source: usize,
    pub at: Option<Micros>,
    pub origin: Origin,
    pub audit_id: Option<String>,
    pub join: Join,
    /// The httplog line joined to a reason line.
    pub request_line: Option<u64>,
    pub result: ClassifyResult,
}

/// An event before its diagnosis.
#[derive(Debug, Default)]
struct Item {
    ev: Evidence,
    origin: Origin,
    audit_id: Option<String>,
    source: usize,
    at: Option<Micros>,
}

/// Reads a log's lines into events (see the module documentation).
pub struct LogScan<'c> {
    ctx: Context<'c>,
    look: Look,
    joins: Lanes<Item>,
    pub lines: u64,
    /// httplog's requests by status code.
    pub requests: BTreeMap<u16, u64>,
    /// The first and last line time.
    pub span: Option<(Micros, Micros)>,
}

impl<'c> LogScan<'c> {
    /// A scan with `ctx` (token, `--at`, `now`, leeway), only events of the
    /// `forced` type when one is, the engine reading every line when
    /// `prefilter` is off.
    pub fn new(ctx: Context<'c>, forced: Option<SourceType>, prefilter: bool) -> Self {
        LogScan {
            ctx,
            look: Look {
                now: ctx.now,
                forced,
                prefilter,
            },
            joins: Lanes::default(),
            lines: 0,
            requests: BTreeMap::new(),
            span: None,
        }
    }

    /// What the cheap stage needs to know, to look at lines on any thread.
    pub fn look(&self) -> Look {
        self.look
    }

    /// Takes lines the cheap stage saw ([`Looked`]; its ranges in `text`, the
    /// first numbered `number`), in input order: the counts, each stream's
    /// clock, and the lines to read; every event settled goes to `hand`.
    pub fn take(
        &mut self,
        source: usize,
        number: u64,
        text: &[u8],
        seen: Looked,
        hand: &mut dyn FnMut(LogEvent) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.lines += seen.lines;
        add_counts(&mut self.requests, seen.requests);
        widen_span(&mut self.span, seen.span);
        for mark in seen.marks {
            let lane = (source, mark.stream);
            if let Some(at) = mark.at {
                self.joins.tick(&lane, at);
            }
            if let Some((index, range)) = mark.read {
                self.read((source, lane), number + index, &text[range]);
            }
            for ev in self.events() {
                hand(ev)?;
            }
        }
        Ok(())
    }

    /// Settles every event still waiting; call after the last line.
    pub fn finish(&mut self) {
        self.joins.finish();
    }

    /// The events settled so far, in the order they settled, diagnosed.
    pub fn events(&mut self) -> impl Iterator<Item = LogEvent> + '_ {
        let ctx = self.ctx;
        self.joins.settled.drain(..).map(move |s| settle(s, ctx))
    }

    /// A line to read: httplog's failed request (an event, joined to its
    /// reasons if a 401), or any other line, read by the engine.
    fn read(&mut self, (source, lane): (usize, Lane), number: u64, line: &[u8]) {
        let record = apiserver::record(line, self.ctx.now);
        let text = String::from_utf8_lossy(line);
        let number = usize::try_from(number).unwrap_or(usize::MAX);
        let at = record.at.map(|(at, _)| at);
        let item = |ev, origin, audit_id: Option<&str>| Item {
            ev,
            origin: Origin {
                stream: record.stream.map(|s| kept(&String::from_utf8_lossy(s))),
                ..origin
            },
            audit_id: audit_id.map(kept),
            source,
            at,
        };
        if let Some(r) = apiserver::request(record.text) {
            let ev = Evidence {
                line: number,
                source: SourceType::ApiserverLog,
                format: "httplog",
                excerpt: crate::diagnosis::extract::excerpt(&text),
                facts: Case {
                    clock: (record.at).map(|(at, source)| ServerClock::at(instant(at), source)),
                    answer: Answer::Http(HttpAnswer::with_status(r.code, 2)),
                    request: Some(request_from_url(Some(r.verb), r.uri)),
                    ..Case::default()
                },
            };
            let origin = Origin {
                source_ip: r.source_ip.map(kept),
                user_agent: r.user_agent.map(kept),
                ..Origin::default()
            };
            let item = item(ev, origin, r.audit_id);
            match at {
                Some(at) if r.code == 401 => self.joins.request(&lane, at, r.audit_id, item),
                _ => self.joins.settled.push_back(Settled::Alone(item)),
            }
            return;
        }
        let Ok(stream) = super::start(&text, self.look.forced, self.ctx.now) else {
            return;
        };
        let id = std::str::from_utf8(record.text)
            .ok()
            .and_then(apiserver::audit_id);
        for mut ev in stream.events {
            if ev.facts.classification() == Classification::Ok {
                continue;
            }
            ev.line = number;
            let origin = Origin {
                user: ev.facts.user.as_deref().map(kept),
                ..Origin::default()
            };
            let reasons = matches!(ev.facts.answer, Answer::Rejected)
                && ev.facts.reasons_from == Some(ReasonSource::ApiserverLog);
            let item = item(ev, origin, id);
            match at {
                Some(at) if reasons => self.joins.reason(&lane, at, id, item),
                _ => self.joins.settled.push_back(Settled::Alone(item)),
            }
        }
    }
}

/// Diagnoses a settled event: a reason line joined to its request speaks for
/// the event; the request line gives the answer, the request and who sent it.
fn settle(settled: Settled<Item>, ctx: Context<'_>) -> LogEvent {
    let (item, join, request_line) = match settled {
        Settled::Alone(item) => (item, Join::None, None),
        Settled::Joined {
            reason,
            request,
            join,
        } => {
            let (mut ev, line) = (reason.ev, request.ev.line);
            let facts = &mut ev.facts;
            facts.answer = request.ev.facts.answer;
            facts.request = request.ev.facts.request.or(facts.request.take());
            facts.joined = join;
            if join == Join::Guess {
                facts.note(format!(
                    "joined by time to the 401 at line {line}: a guess, the reason line names no request and may be another's within {} s",
                    WINDOW / 1_000_000
                ));
            }
            let item = Item {
                ev,
                origin: request.origin,
                audit_id: request.audit_id.or(reason.audit_id),
                ..reason
            };
            (item, join, Some(line as u64))
        }
    };
    LogEvent {
        source: item.source,
        at: item.at,
        origin: item.origin,
        audit_id: item.audit_id,
        join,
        request_line,
        result: diagnose_one(item.ev, ctx),
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
    /// The line's stream, as its lane names it ([`crate::logs::lane`]).
    stream: u64,
    read: Option<(u64, std::ops::Range<usize>)>,
}

/// Lines as the cheap stage saw them: counted, and marked only where the
/// sequential stage has something to do (a line to read, a later time).
#[derive(Debug, Clone, Default)]
pub struct Looked {
    pub lines: u64,
    requests: BTreeMap<u16, u64>,
    span: Option<(Micros, Micros)>,
    /// The latest time seen in each stream: an earlier one leaves that
    /// stream's clock as it is.
    latest: HashMap<u64, Micros>,
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
        widen_span(&mut self.span, at.map(|at| (at, at)));
        let stream = crate::logs::lane(0, record.stream).1;
        let later = at.filter(|&at| self.latest.get(&stream).is_none_or(|&l| at > l));
        if let Some(at) = later {
            self.latest.insert(stream, at);
        }
        if read || later.is_some() {
            let read = read.then_some((self.lines, range));
            self.marks.push(Mark { at, stream, read });
        }
        self.lines += 1;
    }
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
    pub fn with_budget(budget: usize) -> Self {
        LogGroups {
            tally: Tally::default(),
            groups: HashMap::new(),
            other: Other::default(),
            budget,
            over_budget: 0,
        }
    }

    fn charge(&mut self, bytes: usize) -> bool {
        let fits = bytes <= self.budget;
        if fits {
            self.budget -= bytes;
        } else {
            self.over_budget += 1;
        }
        fits
    }

    pub fn add(&mut self, ev: LogEvent) {
        self.tally.add(&ev.result);
        let d = &ev.result.diagnosis;
        let key = GroupKey {
            class: d.classification,
            cause: d.cause(),
            confidence: d.confidence(),
            status: ev.result.evidence.facts.answer.code(),
            wording: specific(&ev.result.evidence.facts.reasons)
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
        ranked(&mut groups);
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
        if scan.joins.crowded > 0 {
            notes.push(format!(
                "{} events were settled before their {} s window passed (over {MAX_PENDING} waiting): their joins may be missed",
                scan.joins.crowded,
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

/// Groups in report order: by class ([`rank`]), the surest first within a
/// class (a known cause before the candidates of an unexplained 401), then
/// by events, then by where the first event is in the input.
fn ranked(groups: &mut [Group]) {
    groups.sort_by_key(|g| {
        (
            rank(g.key.class),
            std::cmp::Reverse(g.key.confidence),
            std::cmp::Reverse(g.events),
            g.example.source,
            g.example.result.evidence.line,
            g.key.cause,
            g.key.status,
        )
    });
}

impl Group {
    /// A later part of the input's events of the same key, added in: its
    /// first event and sources' first events come after this one's.
    fn absorb(&mut self, o: Group) {
        self.events = self.events.saturating_add(o.events);
        widen(&mut self.seen, o.seen);
        add_counts(&mut self.hours, o.hours);
        add_counts(&mut self.joins, o.joins);
        // In the order they first appeared, as one run meets them: past
        // [`MAX_SOURCES`] a source's events are counted as one run counts them.
        let mut theirs: Vec<_> = o.sources.into_iter().collect();
        theirs.sort_by_key(|(_, t)| (t.example.0, t.example.1));
        for (origin, theirs) in theirs {
            if let Some(mine) = self.sources.get_mut(&origin) {
                mine.events = mine.events.saturating_add(theirs.events);
                mine.guessed = mine.guessed.saturating_add(theirs.guessed);
                widen(&mut mine.seen, theirs.seen);
            } else if self.sources.len() < MAX_SOURCES {
                self.sources.insert(origin, theirs);
            } else {
                let other = &mut self.other_sources;
                other.identities = other.identities.saturating_add(theirs.events);
                other.events = other.events.saturating_add(theirs.events);
            }
        }
        let other = &mut self.other_sources;
        other.identities = other.identities.saturating_add(o.other_sources.identities);
        other.events = other.events.saturating_add(o.other_sources.events);
    }
}

impl LogReport {
    /// Reports of the parts of one input (a log split into shards, read
    /// apart; `classify --merge`), in input order, as the report of the
    /// whole: sources in order, counts added, groups of one key joined (the
    /// first event and sources' first events the earliest part's), ranked
    /// again. Reasons are joined to requests within a source, so parts that
    /// are whole sources lose no join.
    pub fn merge(parts: Vec<LogReport>, evaluated_at: DateTime<Utc>) -> Option<LogReport> {
        let mut parts = parts.into_iter();
        let mut all = parts.next()?;
        all.evaluated_at = evaluated_at;
        let mut groups: HashMap<GroupKey, Group> =
            all.groups.drain(..).map(|g| (g.key.clone(), g)).collect();
        for part in parts {
            let offset = all.sources.len();
            all.sources.extend(part.sources);
            all.bytes = all.bytes.saturating_add(part.bytes);
            all.lines = all.lines.saturating_add(part.lines);
            add_counts(&mut all.requests, part.requests);
            widen_span(&mut all.span, part.span);
            all.tally.absorb(part.tally);
            for mut g in part.groups {
                g.example.source += offset;
                for tally in g.sources.values_mut() {
                    tally.example.0 += offset;
                }
                match groups.get_mut(&g.key) {
                    Some(mine) => mine.absorb(g),
                    None => {
                        groups.insert(g.key.clone(), g);
                    }
                }
            }
            for note in part.notes {
                if !all.notes.contains(&note) {
                    all.notes.push(note);
                }
            }
        }
        all.groups = groups.into_values().collect();
        ranked(&mut all.groups);
        if all.groups.len() > MAX_GROUPS {
            let unlisted: u64 = all.groups[MAX_GROUPS..].iter().map(|g| g.events).sum();
            all.groups.truncate(MAX_GROUPS);
            all.notes.push(format!(
                "over {MAX_GROUPS} groups once merged: {unlisted} events of further groups are counted, not listed"
            ));
        }
        Some(all)
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
        let mut text = String::new();
        for i in 0..n {
            text += &format!(
                r#"I0101 10:00:00.{i:06}       1 httplog.go:134] "HTTP" verb="GET" URI="/api/v1/pods" latency="1ms" userAgent="app/1" audit-ID="a{i}" srcIP="10.0.{}.{}:4000" resp=401"#,
                i / 250,
                i % 250
            );
            text.push('\n');
        }
        let (mut looked, mut start) = (Looked::default(), 0);
        for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
            looked.add(scan.look(), text.as_bytes(), start..end);
            start = end + 1;
        }
        let mut add = |ev: LogEvent| {
            groups.add(ev);
            Ok(())
        };
        scan.take(0, 1, text.as_bytes(), looked, &mut add).unwrap();
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
