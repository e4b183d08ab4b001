//! `classify`: read the evidence (and optionally a token) -> detect and parse ->
//! diagnose and render one event at a time; a log goes to
//! [`super::classify_log`].

use std::io::{self, Read as _, Write};
use std::path::Path;

use anyhow::Context as _;

use super::Cx;
use crate::audit::read::{Source, open, sources};
use crate::classify::{self, Context};
use crate::cli::ClassifyArgs;
use crate::exit::Outcome;
use crate::input::TokenSource;
use crate::report::classify::{ClassifyJson, InputJson, write_tables};
use crate::report::{DataFormat, yaml};
use crate::token::Token;

pub fn run(args: ClassifyArgs, Cx(settings, env, out, err): Cx<'_>) -> anyhow::Result<Outcome> {
    if let Some(platform) = args.print_query {
        writeln!(out, "{}", query(platform))?;
        return Ok(Outcome::Healthy);
    }
    if args.merge {
        return super::classify_log::merged(&args.files, settings, out);
    }
    let evidence_from_stdin =
        args.files.is_empty() || args.files.iter().any(|f| f == Path::new("-"));
    if args.files.is_empty() && !env.stdin_readable {
        anyhow::bail!("no evidence given: pass FILE, or pipe the evidence on stdin");
    }
    let token = read_token(&args, evidence_from_stdin)?;
    let ctx = Context {
        token: token.as_ref(),
        at: args.at,
        now: settings.clock.now(),
        leeway: settings.leeway,
    };
    let sources = match args.files.is_empty() {
        true => vec![Source::Stdin],
        false => sources(&args.files)?,
    };
    let what = sources[0].describe();
    let mut stdin = || Box::new(io::stdin()) as Box<dyn io::Read>;
    let mut reader = open(&sources[0], &mut stdin)?;
    // Asked for a log: streamed from the first byte (a live stream's events
    // come out as they settle, not after a paste's worth of it).
    if args.log || args.events || args.shard || sources.len() > 1 {
        return super::classify_log::run(&args, Cx(settings, env, out, err), ctx, &sources, reader);
    }
    // A paste is read whole; past a paste's size, or shaped as a log, the
    // evidence is a log, streamed.
    let mut head = Vec::new();
    (&mut reader)
        .take(classify::log::PASTE_BYTES + 1)
        .read_to_end(&mut head)
        .with_context(|| format!("cannot read evidence from {what}"))?;
    if classify::log::is_log(&head, ctx.now) {
        let first = Box::new(io::Cursor::new(head).chain(reader));
        return super::classify_log::run(&args, Cx(settings, env, out, err), ctx, &sources, first);
    }
    // Valid UTF-8 is taken as is (no second copy); stray bytes are replaced.
    let text = String::from_utf8(head)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let stream = classify::start(&text, args.source_type, ctx.now)
        .with_context(|| format!("cannot classify the evidence from {what}"))?;
    // Diagnose and write one event at a time: a long log never sits in memory
    // as diagnoses.
    let token_file = args.named_token_file();
    let diagnose = |event| {
        let mut result = classify::diagnose_one(event, ctx);
        if let Some(path) = &token_file {
            result.diagnosis.fill_placeholder("TOKEN_FILE", path);
        }
        result
    };
    let input = InputJson {
        source: what,
        source_type: stream.source_type,
        detected: stream.detected,
    };
    let tally = match settings.format.data() {
        Some(data) => {
            // YAML is the JSON document re-encoded: it is built in memory, the
            // JSON is streamed.
            let mut buffer = Vec::new();
            let target: &mut dyn Write = match data {
                DataFormat::Json => out,
                DataFormat::Yaml => &mut buffer,
            };
            let events = stream.events.map(diagnose);
            let doc = ClassifyJson::new(input, ctx.now, ctx.leeway, token.as_ref(), events);
            crate::report::json::write_pretty(target, &doc)?;
            if data == DataFormat::Yaml {
                out.write_all(yaml::from_json(&buffer)?.as_bytes())?;
            }
            doc.tally()
        }
        None => {
            let events = stream.events.map(diagnose);
            write_tables(out, &settings.table, &input, token.as_ref(), events)?
        }
    };
    Ok(tally.outcome())
}

/// The token from `--token` or `-f`, if given; never both stdin streams.
fn read_token(args: &ClassifyArgs, evidence_from_stdin: bool) -> anyhow::Result<Option<Token>> {
    let source = match (&args.token, &args.token_file) {
        (Some(t), _) => TokenSource::Argument(t.clone()),
        (None, Some(p)) if p == Path::new("-") => {
            if evidence_from_stdin {
                anyhow::bail!(
                    "stdin cannot carry both the evidence and the token: give the evidence as FILE or the token with --token-file PATH"
                );
            }
            TokenSource::Stdin
        }
        (None, Some(p)) => TokenSource::File(p.clone()),
        (None, None) => return Ok(None),
    };
    Ok(Some(super::read_one_token(source)?.1))
}

/// The query that has `platform` select the lines a log's report reads
/// ([`classify::prefilter::pattern`]), for kube-apiserver's logs as each
/// platform's usual collector names them (docs/scale.md); oldest first, as
/// the joins by time expect.
fn query(platform: crate::cli::Platform) -> String {
    use crate::cli::Platform;
    use classify::prefilter::{Dialect, pattern};
    let quoted = |dialect| serde_json::to_string(&pattern(dialect)).unwrap_or_default();
    match platform {
        Platform::Loki => format!(
            "{{container=\"kube-apiserver\"}} |~ {}",
            quoted(Dialect::Search)
        ),
        Platform::Cloudwatch => format!(
            "fields @timestamp, @message\n| filter @logStream like /^kube-apiserver-/ and @message like /{}/\n| sort @timestamp asc",
            pattern(Dialect::Search)
        ),
        Platform::Gcloud => format!(
            "resource.type=\"k8s_control_plane_component\" AND resource.labels.component_name=\"apiserver\" AND textPayload=~{}",
            quoted(Dialect::Search)
        ),
        Platform::Elasticsearch => serde_json::json!({
            "query": {"regexp": {"message": {
                "value": pattern(Dialect::Whole),
                "flags": "NONE",
                "case_insensitive": true,
            }}},
            "sort": [{"@timestamp": "asc"}],
        })
        .to_string(),
    }
}
