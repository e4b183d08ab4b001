//! `audit`: read the API server logs (optional) -> stream the audit logs into
//! per-worker aggregates -> analyse (pure) -> render; or `--merge` several
//! `audit -o json` documents. The progress line goes to stderr, only on a
//! terminal.

use std::io::{self, BufRead, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::audit::{self, ReasonIndex, Source};
use crate::cli::AuditArgs;
use crate::env::Env;
use crate::exit::Outcome;
use crate::report::audit::{AuditJson, merge, shard, write_table};
use crate::report::{DataFormat, write_data};
use crate::settings::Settings;
use crate::timefmt::rfc3339;

/// Largest `audit -o json` document read by `--merge`.
const MAX_MERGE_BYTES: u64 = 512 * 1024 * 1024;
/// Longest API server log line kept (longer ones are skipped).
const MAX_LOG_LINE: usize = 1024 * 1024;

/// `audit`.
pub fn run(
    args: AuditArgs,
    settings: &Settings,
    env: &Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let now = settings.clock.now();
    let doc = if args.merge {
        merged(&args.files, rfc3339(now))?
    } else {
        let sources = if args.files.is_empty() {
            if !env.stdin_readable {
                anyhow::bail!("no audit log given: pass FILE…, or pipe the log on stdin");
            }
            vec![Source::Stdin]
        } else {
            audit::read::sources(&args.files)?
        };
        if args.token_file.as_deref() == Some(Path::new("-")) && sources.contains(&Source::Stdin) {
            anyhow::bail!(
                "--token-file - reads the token from stdin: give the audit logs as files"
            );
        }
        let follow = followed_id(&args, env)?;
        let index = read_index(&args.apiserver_log, now)?;
        let workers = args.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(2, |n| n.get().min(16)),
            usize::from,
        );
        let show = env.stderr_tty && !args.no_progress;
        let started = Instant::now();
        let mut shown = Duration::ZERO;
        let mut progress = |p: audit::Progress| {
            let elapsed = started.elapsed();
            if !show || elapsed < shown + Duration::from_millis(500) {
                return;
            }
            shown = elapsed;
            let secs = elapsed.as_secs_f64().max(1e-3);
            let _ = write!(
                err,
                "\r\x1b[Kreading: {:.0} MB, {} events, {:.0} MB/s, {:.0}k events/s",
                p.bytes as f64 / 1e6,
                p.events,
                p.bytes as f64 / 1e6 / secs,
                p.events as f64 / 1e3 / secs
            );
            let _ = err.flush();
        };
        let mut stdin = || Box::new(io::stdin()) as Box<dyn Read>;
        let result = audit::read::read_all(
            &sources,
            &mut stdin,
            index.as_ref(),
            follow.as_deref(),
            workers,
            &mut progress,
        );
        if show {
            let _ = write!(err, "\r\x1b[K");
        }
        let (agg, volume) = result?;
        let described: Vec<String> = sources.iter().map(Source::describe).collect();
        if agg.events == 0 {
            anyhow::bail!(
                "no audit event in {}: expected audit.k8s.io events (JSON Lines, an EventList or an array)",
                described.join(", ")
            );
        }
        let report = audit::analyse(
            agg,
            index.as_ref(),
            described,
            volume.bytes,
            now,
            settings.leeway,
        );
        AuditJson::new(&report)
    };
    match settings.format.data() {
        Some(DataFormat::Json) => write_data(out, DataFormat::Json, &doc)?,
        Some(DataFormat::Yaml) => write_data(out, DataFormat::Yaml, &doc)?,
        None => write_table(out, &doc, &settings.table, args.details)?,
    }
    Ok(if doc.has_findings() {
        Outcome::Problem
    } else {
        Outcome::Healthy
    })
}

/// Longest credential id taken from --jti (kube-apiserver's are UUIDs).
const MAX_JTI: usize = 256;

/// The credential id (`JTI=<jti>`) that --jti or --token-file names.
fn followed_id(args: &AuditArgs, env: &Env) -> anyhow::Result<Option<String>> {
    let jti = match (&args.jti, &args.token_file) {
        (Some(jti), _) => jti.strip_prefix("JTI=").unwrap_or(jti).to_owned(),
        (None, Some(path)) => {
            let token_args = crate::cli::TokenArgs {
                token: None,
                token_flag: None,
                token_file: Some(path.clone()),
                sa_dir: crate::input::IN_POD_SA_DIR.into(),
            };
            let (_, token) = super::read_one_token(&token_args, env)?;
            token.claims.jwt_id.ok_or_else(|| {
                anyhow::anyhow!(
                    "the token in {} has no jti claim (a legacy Secret token, or minted before 1.29): its requests cannot be linked to a TokenRequest",
                    path.display()
                )
            })?
        }
        (None, None) => return Ok(None),
    };
    if jti.is_empty()
        || jti.len() > MAX_JTI
        || jti.chars().any(|c| c.is_control() || c == '"' || c == '\\')
    {
        anyhow::bail!(
            "--jti takes a token's jti claim (up to {MAX_JTI} characters, no quotes or control characters), with or without JTI="
        );
    }
    Ok(Some(format!("JTI={jti}")))
}

/// `--merge`: every document read and joined.
fn merged(files: &[std::path::PathBuf], evaluated_at: String) -> anyhow::Result<AuditJson> {
    if files.len() < 2 {
        anyhow::bail!("--merge takes two or more `audit -o json` documents");
    }
    let mut docs = Vec::new();
    for path in files {
        let what = format!("file {}", path.display());
        let file = std::fs::File::open(path).with_context(|| format!("cannot open {what}"))?;
        if file.metadata().map(|m| m.len()).unwrap_or(0) > MAX_MERGE_BYTES {
            anyhow::bail!(
                "{what} is over the {} MiB limit for a document to merge",
                MAX_MERGE_BYTES >> 20
            );
        }
        let reader = crate::input::file::text(Box::new(file))
            .with_context(|| format!("cannot read {what}"))?;
        let value: serde_json::Value = serde_json::from_reader(reader.take(MAX_MERGE_BYTES))
            .with_context(|| format!("{what} is not an `audit -o json` document"))?;
        docs.push(shard::read(value, &what)?);
    }
    Ok(merge(docs, evaluated_at)?)
}

/// The API server logs' authentication failures, by time.
fn read_index(
    files: &[std::path::PathBuf],
    now: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<Option<ReasonIndex>> {
    if files.is_empty() {
        return Ok(None);
    }
    let mut index = ReasonIndex::default();
    for path in files {
        read_log(path, now, &mut index)
            .with_context(|| format!("cannot read API server log {}", path.display()))?;
    }
    index.finish();
    Ok(Some(index))
}

fn read_log(
    path: &Path,
    now: chrono::DateTime<chrono::Utc>,
    index: &mut ReasonIndex,
) -> io::Result<()> {
    let mut reader = crate::input::file::open(path)?;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut reader)
            .take(MAX_LOG_LINE as u64)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(());
        }
        if line.last() != Some(&b'\n') && n == MAX_LOG_LINE {
            // Overlong: skip to the end of the line.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let m = (&mut reader)
                    .take(MAX_LOG_LINE as u64)
                    .read_until(b'\n', &mut rest)?;
                if m == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
            continue;
        }
        index.add_line(&String::from_utf8_lossy(&line), now);
    }
}
