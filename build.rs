//! Stamps `--version` with the git commit when building from a checkout, so a
//! binary copied into a pod can say exactly what it is; links the Linux
//! binary as a fixed-address executable.

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
    // A position-independent executable makes the dynamic loader patch every
    // pointer in the binary's static data at each start: 28,000 of them (half
    // in the CEL parser's tables), 40 % of a one-token `decode`'s instructions and
    // a third of its page faults. Linked at a fixed address, as kubectl itself
    // is, they are resolved once by the linker; shared libraries, the heap and
    // the stack are still placed at random. Static builds keep their own layout.
    let env = |key| std::env::var(key).unwrap_or_default();
    if env("CARGO_CFG_TARGET_OS") == "linux"
        && env("CARGO_CFG_TARGET_ENV") == "gnu"
        && !env("CARGO_CFG_TARGET_FEATURE")
            .split(',')
            .any(|f| f == "crt-static")
    {
        println!("cargo:rustc-link-arg-bin=kubectl-satoken=-no-pie");
    }
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
}
