//! `audit`: read the API server logs (optional) -> stream the audit logs into
//! per-worker aggregates -> analyse (pure) -> render; or `--merge` several
//! `audit -o json` documents. The progress line goes to stderr, only on a
//! terminal.

use std::io::{self, Read, Write};
use std::path::Path;

use anyhow::Context as _;

use super::Cx;
use crate::audit::{self, ReasonIndex, Source};
use crate::cli::AuditArgs;
use crate::diagnosis::facts::{Join, ReasonSource};
use crate::exit::Outcome;
use crate::input::TokenSource;
use crate::report::audit::{AuditJson, merge, shard, write_table};
use crate::report::json::Time;
use crate::settings::Settings;

pub fn run(args: AuditArgs, Cx(settings, env, out, err): Cx<'_>) -> anyhow::Result<Outcome> {
    let now = settings.clock.now();
    let doc = if args.merge {
        merged(&args.files, Time::new(now))?
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
        let follow = followed_id(&args)?;
        let workers = super::classify_log::workers(args.jobs);
        let index = read_index(&args.apiserver_log, settings, workers)?;
        let mut progress = super::classify_log::ProgressLine::new(
            err,
            env.stderr_tty && !args.no_progress,
            "events",
        );
        let mut stdin = || Box::new(io::stdin()) as Box<dyn Read>;
        let result = audit::read::read_all(
            &sources,
            &mut stdin,
            index.as_ref(),
            follow.as_deref(),
            workers,
            &mut |bytes, events| progress.show(bytes, events, None),
        );
        progress.clear();
        let (agg, bytes) = result?;
        let described: Vec<String> = sources.iter().map(Source::describe).collect();
        if agg.events == 0 {
            anyhow::bail!(
                "no audit event in {}: expected audit.k8s.io events (JSON Lines, an EventList or an array)",
                described.join(", ")
            );
        }
        let report = audit::analyse(agg, index.as_ref(), described, bytes, now, settings.leeway);
        AuditJson::new(&report)
    };
    let table = |out: &mut dyn Write, doc, style: &_| write_table(out, doc, style, args.details);
    super::render(out, settings, &doc, |doc| doc, table)?;
    Ok(Outcome::problem_if(doc.has_findings()))
}

/// Longest credential id taken from --jti (kube-apiserver's are UUIDs).
const MAX_JTI: usize = 256;

/// The credential id (`JTI=<jti>`) that --jti or --token-file names.
fn followed_id(args: &AuditArgs) -> anyhow::Result<Option<String>> {
    let jti = match (&args.jti, &args.token_file) {
        // `JTI=` in any case: the credential id as audit events write it.
        (Some(jti), _) => match jti.get(..4) {
            Some(prefix) if prefix.eq_ignore_ascii_case("JTI=") => jti[4..].to_owned(),
            _ => jti.to_owned(),
        },
        (None, Some(path)) => {
            let source = TokenSource::choose(None, Some(path.clone()), false, Path::new(""));
            let (_, token) = super::read_one_token(source)?;
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
fn merged(files: &[std::path::PathBuf], evaluated_at: Time) -> anyhow::Result<AuditJson> {
    let docs = super::documents(files, "audit -o json", shard::read)?;
    Ok(merge(docs, evaluated_at)?)
}

/// The API server logs' authentication failures, by time, as `classify`
/// reads a log.
fn read_index(
    files: &[std::path::PathBuf],
    settings: &Settings,
    workers: usize,
) -> anyhow::Result<Option<ReasonIndex>> {
    if files.is_empty() {
        return Ok(None);
    }
    let sources: Vec<Source> = files.iter().cloned().map(Source::File).collect();
    let ctx = crate::classify::Context {
        token: None,
        at: None,
        now: settings.clock.now(),
        leeway: settings.leeway,
    };
    let mut scan = crate::classify::log::LogScan::new(ctx, None, true);
    let mut index = ReasonIndex::default();
    let mut quiet = io::sink();
    let mut progress = super::classify_log::ProgressLine::new(&mut quiet, false, "lines");
    super::classify_log::read_log(
        &sources,
        None,
        &mut scan,
        workers,
        &mut progress,
        &mut |ev| {
            let from_log =
                ev.result.evidence.facts.reasons_from == Some(ReasonSource::ApiserverLog);
            if from_log {
                // An audit ID the reason line was put with by a guess is not its own.
                let id = ev.audit_id.as_deref().filter(|_| ev.join != Join::Guess);
                index.add(ev.at, id, ev.result.evidence.facts.reasons);
            }
            Ok(())
        },
    )
    .context("cannot read the API server log")?;
    index.read = scan.lines;
    index.finish();
    Ok(Some(index))
}
