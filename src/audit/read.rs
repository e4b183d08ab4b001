//! The I/O edge of the fleet view: audit logs from files, globs and stdin,
//! plain or gzip (also concatenated members, as `cat a.gz b.gz` makes), as
//! JSON Lines (one event or one `EventList` per line, any prefix before the
//! `{`: `kubectl logs --timestamps`, `aws logs tail`) or as one JSON document
//! (an `EventList`, an array, one event; pretty-printed or not).
//!
//! JSON Lines are read in large blocks cut at the last newline and handed to
//! one worker per core; each worker keeps its own [`Aggregate`] and the
//! aggregates merge at the end (their tallies do not depend on the order of
//! events). A document is read by one streaming deserializer, one event at a
//! time. Memory stays bounded either way: a block, one line (at most
//! [`MAX_EVENT_BYTES`]) and the aggregates.

use std::cell::Cell;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::aggregate::{AGGREGATE_BYTES, Aggregate};
use super::event::{RawEvent, Scan, scan_line};
use crate::logs::ReasonIndex;

/// The largest audit event (one line, or one element of a document):
/// kube-apiserver's own objects stay under etcd's 1.5 MiB, a
/// `RequestResponse` event carries two of them, and a large list response
/// more; past this the input is refused rather than held in memory.
pub const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;
/// Bytes per block handed to a worker.
pub const BLOCK_BYTES: usize = 4 * 1024 * 1024;
/// The blocks in memory at once, read or being read, however many workers:
/// past it the reader waits for a worker to hand one back.
pub const BLOCKS_BYTES: usize = 64 * 1024 * 1024;

/// Why audit input could not be read. Every variant is one line and exit 2.
#[derive(Debug, thiserror::Error)]
pub enum AuditInputError {
    #[error("cannot open {what}: {source}")]
    Open { what: String, source: io::Error },
    /// Reading failed part way (a gzip stream cut short says so).
    #[error("cannot read {what}: {detail}")]
    Read { what: String, detail: String },
    #[error("{what}: line {line} is over the {} MiB limit for one audit event", MAX_EVENT_BYTES / 1024 / 1024)]
    LineTooLong { what: String, line: u64 },
    #[error(
        "{what}: line {line} is not UTF-8 text (a binary or compressed file? gzip is read as is)"
    )]
    NotUtf8 { what: String, line: u64 },
    #[error("{what} is not an audit event, EventList or array of events: {detail}")]
    NotJson { what: String, detail: String },
    #[error("no file matches {0}")]
    NoMatch(String),
    #[error("invalid file pattern {pattern}: {detail}")]
    Pattern { pattern: String, detail: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Stdin,
}

impl Source {
    pub fn describe(&self) -> String {
        match self {
            Source::File(p) => format!("file {}", p.display()),
            Source::Stdin => "stdin".to_owned(),
        }
    }
}

/// The sources the arguments name: `-` is stdin, a path that does not exist
/// but holds `*`, `?` or `[` is a glob (for shells that pass it on quoted).
pub fn sources(args: &[PathBuf]) -> Result<Vec<Source>, AuditInputError> {
    let mut out = Vec::new();
    for arg in args {
        if arg == Path::new("-") {
            out.push(Source::Stdin);
            continue;
        }
        let text = arg.to_string_lossy();
        if arg.exists() || !text.contains(['*', '?', '[']) {
            out.push(Source::File(arg.clone()));
            continue;
        }
        let paths = glob::glob(&text).map_err(|e| AuditInputError::Pattern {
            pattern: text.to_string(),
            detail: e.msg.to_owned(),
        })?;
        let mut matched: Vec<PathBuf> = paths.filter_map(Result::ok).collect();
        if matched.is_empty() {
            return Err(AuditInputError::NoMatch(text.to_string()));
        }
        matched.sort();
        out.extend(matched.into_iter().map(Source::File));
    }
    Ok(out)
}

/// Reads every source into one aggregate with `workers` threads (JSON Lines;
/// documents are read on this thread), and the bytes read (after
/// decompression). `progress` is given the bytes and events so far after each block.
/// With `follow` (a credential id, `JTI=…`), the requests made with it are
/// counted too: a line holding it always takes the full parse.
pub fn read_all(
    sources: &[Source],
    stdin: &mut dyn FnMut() -> Box<dyn Read>,
    index: Option<&ReasonIndex>,
    follow: Option<&str>,
    workers: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Aggregate, u64), AuditInputError> {
    let workers = workers.max(1);
    // The aggregation budget, shared by the workers and the documents; each
    // worker keeps its aggregate over every source.
    let share = AGGREGATE_BYTES / (workers + 1);
    let mut documents = Aggregate::following(follow, share);
    let mut states: Vec<Aggregate> = (0..workers)
        .map(|_| Aggregate::following(follow, share))
        .collect();
    let (mut bytes, mut events) = (0u64, 0u64);
    // Quoted, so that `JTI=ab` does not pick up `JTI=abc`.
    let needle = follow.map(|id| format!("\"{id}\""));
    let finder = needle.as_deref().map(memchr::memmem::Finder::new);
    let work = |agg: &mut Aggregate, block: &[u8]| {
        let before = agg.events;
        let (lines, bad) = scan_block(block, agg, index, finder.as_ref());
        (lines, bad, agg.events - before)
    };
    for source in sources {
        let what = source.describe();
        let mut reader = open(source, stdin)?;
        if is_document(&mut reader, &what)? {
            let before = documents.events;
            let since = Cell::new(0);
            let mut counted = LimitedRead {
                inner: &mut reader,
                since: &since,
                read: 0,
            };
            read_document(&mut counted, &what, &mut documents, index)?;
            bytes += counted.read;
            events += documents.events - before;
            continue;
        }
        // Lines of this source taken so far: where an error is.
        let mut line = 0u64;
        let read = in_order(&mut Blocks::new(reader), states, &work, |_, n, seen| {
            let (lines, bad, counted) = seen;
            if let Some(bad) = bad {
                let (what, line) = (what.clone(), line + bad);
                return Err(AuditInputError::NotUtf8 { what, line });
            }
            (line, bytes, events) = (line + lines, bytes + n, events + counted);
            progress(bytes, events);
            Ok(())
        });
        states = match read {
            Ok(states) => states,
            Err(Stop::Take(e)) => return Err(e),
            Err(Stop::Read(BlockError::TooLong)) => {
                let line = line + 1;
                return Err(AuditInputError::LineTooLong { what, line });
            }
            Err(Stop::Read(BlockError::Io(e))) => return Err(read_error(&what, &e)),
        };
    }
    let mut agg = Aggregate::following(follow, 0);
    for state in states {
        agg.merge(state);
    }
    agg.merge(documents);
    Ok((agg, bytes))
}

/// Appends from `reader` until `buf` holds `size` bytes or the input ends;
/// returns the bytes read. The room is reserved exactly, so a block's
/// capacity is its size.
fn fill(reader: &mut dyn Read, buf: &mut Vec<u8>, size: usize) -> io::Result<usize> {
    let room = size.saturating_sub(buf.len());
    buf.reserve_exact(room);
    reader.take(room as u64).read_to_end(buf)
}

/// Like [`fill`], but back as soon as a read brings a line's end: a live
/// stream's lines are taken as they are written. The bytes read, and whether
/// the input ended.
fn fill_lines(reader: &mut dyn Read, buf: &mut Vec<u8>, size: usize) -> io::Result<(usize, bool)> {
    const CHUNK: usize = 64 * 1024;
    let start = buf.len();
    while buf.len() < size {
        let old = buf.len();
        buf.resize(size.min(old + CHUNK), 0);
        match reader.read(&mut buf[old..]) {
            Ok(0) => {
                buf.truncate(old);
                return Ok((old - start, true));
            }
            Ok(n) => {
                buf.truncate(old + n);
                if memchr::memchr(b'\n', &buf[old..]).is_some() {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(old),
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    }
    Ok((buf.len() - start, false))
}

/// Why [`Blocks`] gave no block.
#[derive(Debug)]
pub enum BlockError {
    Io(io::Error),
    /// A line longer than [`MAX_EVENT_BYTES`].
    TooLong,
}

/// A text stream cut into blocks of whole lines (about [`BLOCK_BYTES`],
/// more when one line is longer, up to [`MAX_EVENT_BYTES`]): what every
/// log reader takes its lines from.
pub struct Blocks<R> {
    reader: R,
    /// The start of a line the last block cut off.
    carry: Vec<u8>,
    done: bool,
    /// Blocks end at the last line a read brought ([`Blocks::streaming`]).
    streaming: bool,
}

impl<R: Read> Blocks<R> {
    pub fn new(reader: R) -> Self {
        Blocks {
            reader,
            carry: Vec::new(),
            done: false,
            streaming: false,
        }
    }

    /// Blocks of the lines each read brings, not of a full block's worth:
    /// for a reader that follows a live stream line by line.
    pub fn streaming(reader: R) -> Self {
        Blocks {
            streaming: true,
            ..Blocks::new(reader)
        }
    }

    /// Replaces `buf`'s content with the next whole lines (the last one
    /// without its newline when the input ends so); the bytes read for them,
    /// or `None` at the end.
    pub fn next_into(&mut self, buf: &mut Vec<u8>) -> Result<Option<u64>, BlockError> {
        buf.clear();
        if self.done {
            return Ok(None);
        }
        buf.append(&mut self.carry);
        let mut size = BLOCK_BYTES.max(buf.len() * 2);
        let mut read = 0u64;
        loop {
            if self.streaming {
                let (n, end) = fill_lines(&mut self.reader, buf, size).map_err(BlockError::Io)?;
                read += n as u64;
                self.done = end;
            } else {
                read += fill(&mut self.reader, buf, size).map_err(BlockError::Io)? as u64;
                self.done = buf.len() < size;
            }
            if self.done || memchr::memrchr(b'\n', buf).is_some() {
                break;
            }
            if size > MAX_EVENT_BYTES {
                return Err(BlockError::TooLong);
            }
            size = (size * 2).min(MAX_EVENT_BYTES + 1);
        }
        let cut = memchr::memrchr(b'\n', buf);
        if !self.done
            && let Some(cut) = cut
        {
            self.carry.extend_from_slice(&buf[cut + 1..]);
            buf.truncate(cut + 1);
        }
        if self.done
            && buf.len() > MAX_EVENT_BYTES
            && cut.is_none_or(|c| buf.len() - c > MAX_EVENT_BYTES)
        {
            return Err(BlockError::TooLong);
        }
        Ok((!buf.is_empty()).then_some(read))
    }
}

/// Why [`in_order`] stopped: reading, or what `take` said.
#[derive(Debug)]
pub enum Stop<E> {
    Read(BlockError),
    Take(E),
}

/// Blocks of a live stream's reads are smaller: [`in_order`] takes every
/// block in flight before it waits for more input, so its lines are not
/// held back.
const LIVE_BYTES: u64 = 64 * 1024;

/// Reads `blocks` on this thread, hands each block to `work` on one of
/// the workers (one per state, each with its own), and each block with its
/// result to `take` on this thread in the blocks' order (with the bytes read
/// for it): whatever the workers, `take` sees what one would. At most 2 ×
/// workers blocks are in flight, and past [`BLOCKS_BYTES`] of blocks made
/// one is taken back before another is read. The states, once the input ends.
pub fn in_order<R: Read, S: Send, T: Send, E>(
    blocks: &mut Blocks<R>,
    states: Vec<S>,
    work: &(dyn Fn(&mut S, &[u8]) -> T + Sync),
    mut take: impl FnMut(&[u8], u64, T) -> Result<(), E>,
) -> Result<Vec<S>, Stop<E>> {
    let workers = states.len();
    std::thread::scope(|scope| {
        let (tx, rx) = crossbeam_channel::bounded::<(usize, Vec<u8>)>(workers);
        let (done_tx, done) = crossbeam_channel::unbounded::<(usize, Vec<u8>, T)>();
        let handles: Vec<_> = (states.into_iter())
            .map(|mut state| {
                let (rx, done_tx) = (rx.clone(), done_tx.clone());
                scope.spawn(move || {
                    for (seq, buf) in rx {
                        let result = work(&mut state, &buf);
                        if done_tx.send((seq, buf, result)).is_err() {
                            break;
                        }
                    }
                    state
                })
            })
            .collect();
        drop((rx, done_tx));
        // Bytes read per block not yet taken, in order, and blocks whose
        // turn has not come.
        let mut sizes = std::collections::VecDeque::new();
        let mut ready = std::collections::BTreeMap::new();
        let (mut next, mut sent, mut free, mut made) = (0usize, 0usize, Vec::new(), 0usize);
        // Takes the results in order while the blocks in flight are `more`.
        let mut take_until = |more: &dyn Fn(usize) -> bool,
                              sizes: &mut std::collections::VecDeque<u64>,
                              free: &mut Vec<Vec<u8>>| {
            while more(sizes.len()) {
                let (buf, result) = match ready.remove(&next) {
                    Some(r) => r,
                    None => {
                        let (seq, buf, result) = done.recv().expect("a worker holds the block");
                        if seq != next {
                            ready.insert(seq, (buf, result));
                            continue;
                        }
                        (buf, result)
                    }
                };
                let bytes = sizes.pop_front().unwrap_or(0);
                take(&buf, bytes, result).map_err(Stop::Take)?;
                next += 1;
                free.push(buf);
            }
            Ok(())
        };
        let mut live = false;
        let read = loop {
            let room = match free.is_empty() && made >= BLOCKS_BYTES {
                true => sizes.len().max(1),
                false => 2 * workers,
            };
            take_until(&|n| n >= room || (live && n > 0), &mut sizes, &mut free)?;
            let mut buf = free.pop().unwrap_or_default();
            let capacity = buf.capacity();
            let read = blocks.next_into(&mut buf);
            made += buf.capacity().saturating_sub(capacity);
            match read {
                Ok(Some(n)) => {
                    live = n < LIVE_BYTES;
                    sizes.push_back(n);
                    let _ = tx.send((sent, buf));
                    sent += 1;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(Stop::Read(e)),
            }
        };
        drop(tx);
        // The blocks before a read error are taken first.
        take_until(&|n| n > 0, &mut sizes, &mut free)?;
        read?;
        Ok(handles
            .into_iter()
            .map(|h| h.join().expect("a worker does not panic"))
            .collect())
    })
}

fn read_error(what: &str, e: &io::Error) -> AuditInputError {
    AuditInputError::Read {
        what: what.to_owned(),
        detail: e.to_string(),
    }
}

/// The source as text ([`crate::input::file`]: gzip, UTF-16, binary refused).
pub fn open(
    source: &Source,
    stdin: &mut dyn FnMut() -> Box<dyn Read>,
) -> Result<Box<dyn BufRead>, AuditInputError> {
    let reader = match source {
        Source::Stdin => stdin(),
        Source::File(p) => Box::new(std::fs::File::open(p).map_err(|e| AuditInputError::Open {
            what: source.describe(),
            source: e,
        })?),
    };
    crate::input::file::text(reader).map_err(|e| read_error(&source.describe(), &e))
}

/// Whether the stream is one JSON document (an array, or an object that does
/// not end on its first line) rather than JSON Lines.
fn is_document(reader: &mut Box<dyn BufRead>, what: &str) -> Result<bool, AuditInputError> {
    let head = reader.fill_buf().map_err(|e| read_error(what, &e))?;
    let Some(first) = head.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Ok(false);
    };
    match head[first] {
        b'[' => Ok(true),
        b'{' => {
            let line_end = memchr::memchr(b'\n', &head[first..]).map_or(head.len(), |i| first + i);
            let line = &head[first..line_end];
            match serde_json::from_slice::<IgnoredAny>(line) {
                Ok(_) => Ok(false),
                // An object cut by its first newline: a pretty-printed document.
                Err(e) => Ok(e.is_eof() && line_end < head.len()),
            }
        }
        _ => Ok(false),
    }
}

/// Scans a block of complete lines; returns the lines seen and, on a line
/// that is not UTF-8, its number within the block. A line `follow` finds is
/// parsed in full (the byte-level path does not read credential ids).
fn scan_block(
    buf: &[u8],
    agg: &mut Aggregate,
    index: Option<&ReasonIndex>,
    follow: Option<&memchr::memmem::Finder<'_>>,
) -> (u64, Option<u64>) {
    let mut n = 0u64;
    let mut start = 0usize;
    while start < buf.len() {
        let end = memchr::memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i);
        let line = &buf[start..end];
        start = end + 1;
        n += 1;
        if std::str::from_utf8(line).is_err() {
            return (n, Some(n));
        }
        let Some(brace) = memchr::memchr(b'{', line) else {
            if !line.iter().all(u8::is_ascii_whitespace) {
                agg.not_events += 1;
            }
            continue;
        };
        agg.lines += 1;
        let json = line[brace..].trim_ascii_end();
        let scan = match follow {
            Some(f) if f.find(json).is_some() => Scan::Parse,
            _ => scan_line(json),
        };
        match scan {
            Scan::Accepted(a) => agg.add_accepted(&a),
            Scan::NotCounted => {}
            Scan::Parse => match serde_json::from_slice::<RawEvent<'_>>(json) {
                Ok(ev) if ev.is_event() || ev.is_list() => agg.add_event(&ev, index),
                _ => agg.not_events += 1,
            },
        }
    }
    (n, None)
}

/// A reader that counts bytes, and refuses more than [`MAX_EVENT_BYTES`]
/// since `since` was last set to 0 (one event of a document).
struct LimitedRead<'s, R> {
    inner: R,
    since: &'s Cell<usize>,
    read: u64,
}

impl<R: Read> Read for LimitedRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.since.set(self.since.get() + n);
        self.read += n as u64;
        if self.since.get() > MAX_EVENT_BYTES {
            return Err(io::Error::other(format!(
                "an event is over the {} MiB limit for one audit event",
                MAX_EVENT_BYTES / 1024 / 1024
            )));
        }
        Ok(n)
    }
}

/// One JSON document, streamed: each event is read, counted and dropped.
fn read_document<R: Read>(
    reader: &mut LimitedRead<'_, R>,
    what: &str,
    agg: &mut Aggregate,
    index: Option<&ReasonIndex>,
) -> Result<(), AuditInputError> {
    let since = reader.since;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = Document { agg, index, since }
        .deserialize(&mut de)
        .and_then(|()| de.end());
    result.map_err(|e| AuditInputError::NotJson {
        what: what.to_owned(),
        detail: match e.io_error_kind() {
            Some(io::ErrorKind::UnexpectedEof) => "the gzip stream is truncated".to_owned(),
            _ => e.to_string(),
        },
    })
}

struct Document<'x> {
    agg: &'x mut Aggregate,
    index: Option<&'x ReasonIndex>,
    since: &'x Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for Document<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Document<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an audit event, an EventList or an array of events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(ev) = seq.next_element::<RawEvent<'de>>()? {
            self.agg.lines += 1;
            if ev.is_event() || ev.is_list() {
                self.agg.add_event(&ev, self.index);
            } else {
                self.agg.not_events += 1;
            }
            self.since.set(0);
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut fields = serde_json::Map::new();
        let mut listed = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" {
                listed = true;
                map.next_value_seed(Document {
                    agg: &mut *self.agg,
                    ..self
                })?;
            } else {
                fields.insert(key, map.next_value()?);
            }
        }
        if !listed {
            let value = serde_json::Value::Object(fields);
            match RawEvent::deserialize(&value) {
                Ok(ev) if ev.is_event() => {
                    self.agg.lines += 1;
                    self.agg.add_event(&ev, self.index);
                }
                _ => self.agg.not_events += 1,
            }
        }
        Ok(())
    }
}
