//! Stamps `--version` with the git commit when building from a checkout, so a
//! binary copied into a pod can say exactly what it is.

use std::process::Command;

fn main() {
    let commit = git(&["rev-parse", "--short=10", "HEAD"]);
    let version = env!("CARGO_PKG_VERSION");
    let long = match commit {
        Some(c) => format!("{version} (commit {c})"),
        None => format!("{version} (commit unknown)"),
    };
    println!("cargo:rustc-env=SATOKEN_LONG_VERSION={long}");
    // Re-run when HEAD moves; in a worktree `.git` is a file and these paths are
    // simply absent, which cargo tolerates.
    for path in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        println!("cargo:rerun-if-changed={path}");
    }
    // Every binary is position-independent (the toolchain's default): its
    // code and static data load at a random address. A fixed-address link
    // saved the loader about 28,000 relocations at start (most of them the
    // CEL parser's tables), which a tool that parses hostile answers and logs
    // with C crypto inside should not trade ASLR for (README, "Start-up").
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
}
