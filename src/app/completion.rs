//! `completion` (scripts from clap_complete) and `__complete` (kubectl's plugin
//! completion protocol).

use std::io::Write;

use clap::CommandFactory as _;

use crate::cli::{Cli, CompleteArgs, CompletionArgs};
use crate::complete;
use crate::exit::Outcome;

/// Prints a completion script for the binary as installed (`kubectl-satoken`).
pub fn completion(args: CompletionArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "kubectl-satoken", out);
    Ok(Outcome::Healthy)
}

/// Answers kubectl's `kubectl_complete-satoken ARGS… WORD`.
pub fn complete(args: CompleteArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut command = Cli::command();
    command.build();
    let (candidates, directive) = complete::complete(&command, &args.words);
    out.write_all(complete::render(&candidates, directive).as_bytes())?;
    Ok(Outcome::Healthy)
}
