//! `completion` (scripts from clap_complete) and `__complete` (kubectl's plugin
//! completion protocol).

use std::io::Write;

use clap::CommandFactory as _;

use crate::cli::{Cli, CompleteArgs, CompletionArgs};
use crate::complete;
use crate::exit::Outcome;

/// Prints a completion script for the binary as installed (`kubectl-satoken`).
pub fn completion(args: CompletionArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut command = installed_command();
    // clap_complete panics on a write error; written whole, a closed pipe is
    // an io::Error main() ends quietly on.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, BIN_NAME, &mut script);
    if args.shell == clap_complete::Shell::Bash {
        script = bash_case_labels(&String::from_utf8_lossy(&script)).into_bytes();
    }
    if args.shell == clap_complete::Shell::Fish {
        script.extend(fish_positional_values(&command).into_bytes());
    }
    out.write_all(&script)?;
    Ok(Outcome::Healthy)
}

/// clap_complete 4.6's bash script labels each subcommand's branch with the
/// binary's `-` turned into its separator (`kubectl__subcmd__satoken__subcmd__decode`)
/// but sets `cmd` with it turned into `__` (`kubectl__satoken__subcmd__decode`):
/// no branch below the top level is ever taken. The labels are made to match.
fn bash_case_labels(script: &str) -> String {
    const SEP: &str = "__subcmd__";
    script.replace(
        &format!("{}{SEP}", BIN_NAME.replace('-', SEP)),
        &format!("{}{SEP}", BIN_NAME.replace('-', "__")),
    )
}

/// clap_complete 4.6's fish script offers no values for positionals: a line
/// per subcommand whose positional has a closed set (explain's codes).
fn fish_positional_values(command: &clap::Command) -> String {
    let mut lines = String::new();
    for sub in command.get_subcommands() {
        let values: Vec<String> = sub
            .get_positionals()
            .flat_map(|a| a.get_possible_values())
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        if !values.is_empty() {
            lines.push_str(&format!(
                "complete -c {BIN_NAME} -n \"__fish_{}_using_subcommand {}\" -f -a \"{}\"\n",
                BIN_NAME.replace('-', "_"),
                sub.get_name(),
                values.join(" ")
            ));
        }
    }
    lines
}

/// The executable's name, as shells complete it.
const BIN_NAME: &str = "kubectl-satoken";

/// The command tree as the shell sees the binary: named `kubectl-satoken`
/// (the `kubectl satoken` usage name would give subcommand functions the shell
/// never reaches), without the hidden subcommands.
fn installed_command() -> clap::Command {
    let full = Cli::command();
    let mut command = clap::Command::new(BIN_NAME)
        .bin_name(BIN_NAME)
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    if let Some(about) = full.get_about() {
        command = command.about(about.clone());
    }
    command
}

/// Answers kubectl's `kubectl_complete-satoken ARGS… WORD`.
pub fn complete(args: CompleteArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut command = Cli::command();
    command.build();
    let (candidates, directive) = complete::complete(&command, &args.words);
    out.write_all(complete::render(&candidates, directive).as_bytes())?;
    Ok(Outcome::Healthy)
}
