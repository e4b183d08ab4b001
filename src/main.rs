//! `kubectl-satoken`: parse the command line, capture the environment, run,
//! map the result to an exit code. Errors print once, as one line.

use std::io::{self, Write as _};
use std::process::ExitCode;

use satoken::{app, cli::Cli, env::Env, exit};

fn main() -> ExitCode {
    // A panic is a bug; say so in one line, with no values that might hold a token.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("kubectl-satoken: internal error{at}; please report it");
    }));
    let cli = Cli::parse_invocation();
    let env = Env::capture();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let result = app::run(cli, &env, &mut out, &mut io::stderr()).and_then(|outcome| {
        out.flush()?;
        Ok(outcome)
    });
    match result {
        Ok(outcome) => outcome.into(),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kubectl-satoken: error: {e:#}");
            exit::outcome_for_error(&e).into()
        }
    }
}

/// `kubectl satoken decode … | head -1` is not an error.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
