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
    let mut out = Vec::new();
    // The plain version, not the commit: pages must not change with every commit.
    clap_mangen::Man::new(
        command
            .version(env!("CARGO_PKG_VERSION"))
            .long_version(None::<&str>),
    )
    .render(&mut out)
    .expect("rendering into a Vec cannot fail");
    out
}
