//! `kubectl-satoken`: parse the command line, capture the environment, run,
//! map the result to an exit code. Errors print once, as one line. Both streams
//! pass through the redactor ([`satoken::redact`]), clap's own messages too.

use std::ffi::OsString;
use std::io::{self, Write as _};
use std::process::ExitCode;

use satoken::redact::Redacted;
use satoken::{app, cli, cli::Cli, env::Env, exit};

fn main() -> ExitCode {
    // A panic is a bug; say so in one line, with no values that might hold a token.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let mut err = Redacted::new(io::stderr());
        let _ = writeln!(err, "kubectl-satoken: internal error{at}; please report it");
        let _ = err.finish();
    }));
    let args = Cli::invocation_args();
    if args
        .get(1)
        .is_some_and(|a| a == satoken::authconfig::CHILD_ARGUMENT)
    {
        return satoken::authconfig::child_main(&args);
    }
    if let Ok(exe) = std::env::current_exe() {
        satoken::authconfig::isolate_in(exe);
    }
    let env = Env::capture();
    let mut out = Redacted::new(io::BufWriter::new(io::stdout().lock()));
    let mut err = Redacted::new(io::stderr());
    let code = match Cli::try_parse_args(&args) {
        Ok(cli) => run(cli, &args, &env, &mut out, &mut err),
        Err(e) => usage(&e, &args, &env, &mut out, &mut err),
    };
    let _ = err.finish();
    code
}

fn run(
    cli: Cli,
    args: &[OsString],
    env: &Env,
    out: &mut Redacted<impl io::Write>,
    err: &mut Redacted<impl io::Write>,
) -> ExitCode {
    let accepted = cli.token_argument();
    let result = app::run(cli, env, out, err).and_then(|outcome| {
        out.finish()?;
        Ok(outcome)
    });
    match result {
        Ok(outcome) => outcome.into(),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.finish();
            let message = exit::one_line(&e);
            let hint = cli::misplaced_token_hint(args, accepted.as_ref(), &message)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            let _ = writeln!(err, "kubectl-satoken: error: {message}{hint}");
            exit::outcome_for_error(&e).into()
        }
    }
}

/// clap's errors, help and version, printed through the redactors: a token
/// typed where a subcommand or flag value belongs is echoed by clap.
fn usage(
    e: &clap::Error,
    args: &[OsString],
    env: &Env,
    out: &mut Redacted<impl io::Write>,
    err: &mut Redacted<impl io::Write>,
) -> ExitCode {
    let (stream, tty): (&mut dyn io::Write, bool) = if e.use_stderr() {
        (err, env.stderr_tty)
    } else {
        (out, env.stdout_tty)
    };
    let styled = e.render();
    let text = if tty && !env.no_color && !env.term_dumb {
        styled.ansi().to_string()
    } else {
        styled.to_string()
    };
    let mut written = stream.write_all(text.as_bytes());
    if e.use_stderr()
        && let Some(hint) = cli::misplaced_token_hint(args, None, &text)
    {
        written = written.and_then(|()| writeln!(stream, "hint: {hint}"));
    }
    let _ = out.finish();
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    }
}

/// `kubectl satoken decode … | head -1` is not an error.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
