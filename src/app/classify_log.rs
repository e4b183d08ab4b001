//! `classify` of a log: stream the sources line by line into the log reader
//! ([`crate::classify::log`]) -> group the events (or write each with
//! `--events`) -> render. [`read_log`] is also how `audit --apiserver-log`
//! reads API server logs; [`ProgressLine`] is both subcommands' progress line.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::Cx;
use crate::audit::read::{BlockError, Blocks, MAX_EVENT_BYTES, Source, Stop, in_order, open};
use crate::classify::Context;
use crate::classify::log::{LogEvent, LogGroups, LogReport, LogScan, Looked};
use crate::cli::ClassifyArgs;
use crate::exit::Outcome;
use crate::report::classify_log::{ClassifyLogJson, LogEventJson, write_log_table};
use crate::settings::Settings;

/// `classify` of a log; `first` is the first source, opened and partly read.
pub(super) fn run(
    args: &ClassifyArgs,
    Cx(settings, env, out, err): Cx<'_>,
    ctx: Context<'_>,
    sources: &[Source],
    first: Box<dyn Read>,
) -> anyhow::Result<Outcome> {
    let described: Vec<String> = sources.iter().map(Source::describe).collect();
    let mut scan = LogScan::new(ctx, args.source_type, true);
    let mut groups = LogGroups::default();
    let mut progress = ProgressLine::new(err, env.stderr_tty && !args.no_progress, "lines");
    let workers = workers(args.jobs);
    let token_file = args.named_token_file();
    let bytes = read_log(
        sources,
        Some(first),
        &mut scan,
        workers,
        &mut progress,
        &mut |mut ev| {
            if let Some(path) = &token_file {
                ev.result.diagnosis.fill_placeholder("TOKEN_FILE", path);
            }
            // Each event out as it settles, flushed (a live stream is followed);
            // only its tally is kept.
            if args.events {
                // JSON lines, or YAML documents with -o yaml.
                let format = settings
                    .format
                    .data()
                    .unwrap_or(crate::report::DataFormat::Json);
                crate::report::write_record(out, format, &LogEventJson::new(&ev, &described))?;
                groups.tally.add(&ev.result);
                return out.flush();
            }
            groups.add(ev);
            Ok(())
        },
    );
    progress.clear();
    let bytes = bytes?;
    let outcome = groups.tally.outcome();
    if args.events {
        return Ok(outcome);
    }
    let report = groups.report(&scan, described, bytes);
    let json = |r| ClassifyLogJson::new(r, ctx.token, args.shard);
    super::render(out, settings, &report, json, write_log_table)?;
    Ok(outcome)
}

/// `--merge`: the shards' documents read back and merged into one report.
pub fn merged(
    files: &[std::path::PathBuf],
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let read = crate::report::classify_log::shard::read;
    let parts = super::documents(files, "classify --log -o json", read)?;
    if let Some(two) = parts.windows(2).find(|p| p[0].leeway != p[1].leeway) {
        anyhow::bail!(
            "the shards were read with different leeways ({} s and {} s): read them again with one",
            two[0].leeway.num_seconds(),
            two[1].leeway.num_seconds()
        );
    }
    let Some(report) = LogReport::merge(parts, settings.clock.now()) else {
        anyhow::bail!("--merge takes two or more `classify --log -o json` documents");
    };
    let json = |r| ClassifyLogJson::new(r, None, false);
    super::render(out, settings, &report, json, write_log_table)?;
    Ok(report.tally.outcome())
}

/// Reads `sources` (the first already opened when `first` is given) into
/// `scan`, handing every event to `take` as it settles; the bytes read. The
/// cheap stage (a line's time, status and anchors) runs on `workers`
/// threads, block by block; the scan takes the blocks in input order, so
/// its events are the same whatever the workers.
pub fn read_log(
    sources: &[Source],
    mut first: Option<Box<dyn Read>>,
    scan: &mut LogScan<'_>,
    workers: usize,
    progress: &mut ProgressLine<'_>,
    take: &mut dyn FnMut(LogEvent) -> io::Result<()>,
) -> anyhow::Result<u64> {
    let (mut bytes, mut events) = (0u64, 0u64);
    let mut stdin = || Box::new(io::stdin()) as Box<dyn Read>;
    let look = scan.look();
    let work = |_: &mut (), block: &[u8]| {
        let mut looked = Looked::default();
        let mut start = 0;
        for end in line_ends(block) {
            looked.add(look, block, start..end);
            start = end + 1;
        }
        looked
    };
    for (i, source) in sources.iter().enumerate() {
        let what = source.describe();
        let reader = match first.take() {
            Some(r) => r,
            None => Box::new(open(source, &mut stdin)?),
        };
        // A regular file in full blocks; a pipe or a terminal as its lines
        // come (a live stream's events are wanted as they settle).
        let regular =
            matches!(source, Source::File(p) if std::fs::metadata(p).is_ok_and(|m| m.is_file()));
        let mut blocks = match regular {
            true => Blocks::new(reader),
            false => Blocks::streaming(reader),
        };
        let mut number = 1u64;
        let states = vec![(); workers.max(1)];
        let read = in_order(&mut blocks, states, &work, |block, n, looked| {
            let lines = looked.lines;
            let mut counted = |ev| {
                events += 1;
                take(ev)
            };
            scan.take(i, number, block, looked, &mut counted)?;
            (bytes, number) = (bytes + n, number + lines);
            progress.show(bytes, scan.lines, Some(events));
            Ok::<_, io::Error>(())
        });
        match read {
            Ok(_) => {}
            Err(Stop::Read(BlockError::TooLong)) => anyhow::bail!(
                "{what}: line {number} is over the {} MiB limit for one line",
                MAX_EVENT_BYTES >> 20
            ),
            Err(Stop::Read(BlockError::Io(e))) => {
                return Err(e).with_context(|| format!("cannot read {what}"));
            }
            Err(Stop::Take(e)) => return Err(e.into()),
        }
    }
    scan.finish();
    for ev in scan.events() {
        take(ev)?;
    }
    Ok(bytes)
}

/// Worker threads: `--jobs`, or one per core.
pub fn workers(jobs: Option<u16>) -> usize {
    jobs.map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get().min(16)),
        usize::from,
    )
}

/// Where a block's lines end: at each newline, and at its end when the
/// input ends without one.
fn line_ends(block: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'\n', block).chain((block.last() != Some(&b'\n')).then_some(block.len()))
}

/// `reading: 120 MB, 412345 lines, 600 MB/s, …, 37 events` on stderr, at most twice a
/// second, only when asked (stderr is a terminal and not `--no-progress`).
pub struct ProgressLine<'e> {
    err: &'e mut dyn Write,
    on: bool,
    what: &'static str,
    started: Instant,
    shown: Duration,
}

impl<'e> ProgressLine<'e> {
    pub fn new(err: &'e mut dyn Write, on: bool, what: &'static str) -> Self {
        ProgressLine {
            err,
            on,
            what,
            started: Instant::now(),
            shown: Duration::ZERO,
        }
    }

    /// Shows how far reading has come: bytes read, `what` counted and the
    /// events found so far, when they are not what is counted.
    pub fn show(&mut self, bytes: u64, count: u64, events: Option<u64>) {
        let elapsed = self.started.elapsed();
        if !self.on || elapsed < self.shown + Duration::from_millis(500) {
            return;
        }
        self.shown = elapsed;
        let secs = elapsed.as_secs_f64().max(1e-3);
        let _ = write!(
            self.err,
            "\r\x1b[Kreading: {:.0} MB, {count} {}, {:.0} MB/s, {:.0}k {}/s",
            bytes as f64 / 1e6,
            self.what,
            bytes as f64 / 1e6 / secs,
            count as f64 / 1e3 / secs,
            self.what
        );
        if let Some(events) = events {
            let _ = write!(self.err, ", {events} events");
        }
        let _ = self.err.flush();
    }

    /// Clears the line.
    pub fn clear(&mut self) {
        if self.on {
            let _ = write!(self.err, "\r\x1b[K");
        }
    }
}
