//! Man pages rendered from the clap command tree (clap_mangen), so they never
//! drift from the flags. `cargo run --example gen_man` writes them to docs/man;
//! tests/it/man.rs (which includes this file) fails when the checked-in pages
//! are stale. Kept out of the library: clap_mangen is a development dependency,
//! never linked into the shipped binary.

use clap::CommandFactory as _;

use satoken::cli::Cli;

/// Every page as (file name, roff): `kubectl-satoken.1` and one per subcommand.
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let mut root = Cli::command()
        .name("kubectl-satoken")
        .bin_name("kubectl-satoken");
    root.build();
    let mut pages = vec![("kubectl-satoken.1".to_owned(), render(root.clone()))];
    for sub in root
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = format!("kubectl-satoken-{}", sub.get_name());
        let sub = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("kubectl-satoken {}", sub.get_name()));
        pages.push((format!("{name}.1"), render(sub)));
    }
    pages
}

fn render(command: clap::Command) -> Vec<u8> {
    let command = help_kept(command);
    let mut out = Vec::new();
    // The plain version, not the commit: pages must not change with every commit.
    clap_mangen::Man::new(
        command
            .version(env!("CARGO_PKG_VERSION"))
            .long_version(None::<&str>),
    )
    .render(&mut out)
    .expect("rendering into a Vec cannot fail");
    examples_as_written(out)
}

/// The roff page with its examples block unfilled (`.nf` … `.fi`): filled,
/// man justifies commands across lines and splits them mid-line.
fn examples_as_written(page: Vec<u8>) -> Vec<u8> {
    let text = String::from_utf8(page).expect("clap_mangen writes UTF-8");
    let mut out = String::with_capacity(text.len() + 16);
    let mut unfilled = false;
    for line in text.split_inclusive('\n') {
        if unfilled && line.starts_with(".SH") {
            out.push_str(".fi\n");
            unfilled = false;
        }
        if !unfilled && line.trim_end() == "Examples:" {
            out.push_str(".nf\n");
            unfilled = true;
        }
        out.push_str(line);
    }
    if unfilled {
        out.push_str(".fi\n");
    }
    out.into_bytes()
}

/// `hide_short_help` flags (left out of `-h`) with their help as the long
/// help: clap_mangen prints an option's short help only when it is not hidden
/// from `-h`.
fn help_kept(mut command: clap::Command) -> clap::Command {
    let hidden: Vec<_> = command
        .get_arguments()
        .filter(|a| a.is_hide_short_help_set() && a.get_long_help().is_none())
        .filter_map(|a| Some((a.get_id().clone(), a.get_help()?.clone())))
        .collect();
    for (id, help) in hidden {
        command = command.mut_arg(id, |a| a.long_help(help));
    }
    command
}
