//! Every excerpt of offline output in README.md and docs/ is what the binary
//! prints today: each `$ kubectl satoken …` line in a code block that runs on
//! the shipped test data (`testdata/` and a pinned `--now`) is run, and the
//! lines under it must be its output (`…` alone on a line stands for lines
//! left out; `$ echo $?` and the next line, its exit code). Excerpts from a
//! cluster or the test API server are made by the doc printers instead, or
//! are the test server's snapshots: a block under `<!-- snapshot: FILE -->`
//! must be that snapshot's output (`snapshot_excerpts_are_the_test_servers`).
//! `SATOKEN_UPDATE_DOCS=1 cargo nextest run --test it docs_excerpts::`
//! rewrites stale excerpts (keeping the head and tail around a `…`): review
//! the diff.

use std::path::{Path, PathBuf};

/// One command in a code block and what the page shows it printing.
#[derive(Debug)]
pub(crate) struct Excerpt {
    page: String,
    pub(crate) line: usize,
    pub(crate) command: String,
    pub(crate) expected: Vec<String>,
    exit: Option<i32>,
}

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The commands of every fenced block of `page`, with the lines after each.
pub(crate) fn excerpts(page: &Path) -> Vec<Excerpt> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page.strip_prefix(repo()).unwrap().display().to_string();
    let mut out: Vec<Excerpt> = Vec::new();
    let mut in_block = false;
    let mut pending_exit = false;
    // The excerpt the lines belong to: only until its block closes.
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            pending_exit = false;
            open = false;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            pending_exit = command.trim() == "echo $?";
            if !pending_exit {
                open = true;
                out.push(Excerpt {
                    page: name.clone(),
                    line: i + 1,
                    command: command.to_owned(),
                    expected: Vec::new(),
                    exit: None,
                });
            }
            continue;
        }
        let Some(last) = out.last_mut().filter(|_| open) else {
            continue;
        };
        if pending_exit {
            last.exit = line.trim().parse().ok();
            pending_exit = false;
        } else if last.exit.is_none() {
            last.expected.push(line.trim_end().to_owned());
        }
    }
    out
}

/// Runs on the shipped data alone: no cluster, no server, no clock.
fn offline(command: &str) -> bool {
    let explain = command.starts_with("kubectl satoken explain") && !command.contains('|');
    explain
        || (command.contains("kubectl satoken ")
            && command.contains("--now ")
            && command.contains("testdata/")
            && !command.contains(" -s ")
            && !command.contains("probe")
            && !command.contains("doctor"))
}

/// `expected` with `…` lines matching any run of lines.
pub(crate) fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "…" => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| a.trim_end() == first && matches(rest, more)),
    }
}

/// The excerpt rewritten from what was printed: whole, or, where the page
/// left lines out, its head and tail around one `…`.
fn refreshed(expected: &[String], actual: &[&str]) -> Vec<String> {
    let Some(first) = expected.iter().position(|l| l.trim() == "…") else {
        return actual.iter().map(|l| l.trim_end().to_owned()).collect();
    };
    let last = expected
        .iter()
        .rposition(|l| l.trim() == "…")
        .unwrap_or(first);
    let tail = expected.len() - last - 1;
    let head = first.min(actual.len());
    let tail = tail.min(actual.len() - head);
    let mut out: Vec<String> = actual[..head]
        .iter()
        .map(|l| l.trim_end().to_owned())
        .collect();
    out.push(expected[first].clone());
    out.extend(
        actual[actual.len() - tail..]
            .iter()
            .map(|l| l.trim_end().to_owned()),
    );
    out
}

/// Rewrites the stale excerpts of one page (`SATOKEN_UPDATE_DOCS=1`).
fn rewrite(page: &str, fixes: &[(usize, usize, Vec<String>)]) {
    let path = repo().join(page);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // From the bottom up, so earlier line numbers stay right.
    for (line, old_len, new) in fixes.iter().rev() {
        let start = *line; // the command is line `line` (1-based): output follows
        lines.splice(start..start + old_len, new.iter().cloned());
    }
    let mut out = lines.join("\n");
    out.push('\n');
    std::fs::write(path, out).unwrap();
}

#[test]
fn offline_excerpts_are_what_the_binary_prints() {
    let update = crate::support::rewrite_requested("SATOKEN_UPDATE_DOCS");
    let mut fixes: std::collections::BTreeMap<String, Vec<(usize, usize, Vec<String>)>> =
        std::collections::BTreeMap::new();
    let binary = assert_cmd::cargo::cargo_bin("kubectl-satoken");
    let jq = std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let mut checked = 0;
    let mut problems = Vec::new();
    for page in pages() {
        // classify's examples are printed 100 columns wide, the rest 80.
        let width = if page.ends_with("classify.md") {
            "100"
        } else {
            "80"
        };
        for e in excerpts(&page).into_iter().filter(|e| offline(&e.command)) {
            if e.command.contains("| jq") && !crate::support::tool_available("jq", jq) {
                continue;
            }
            // Pages show stderr in place, as a terminal does.
            let script = format!(
                "{{ {}; }} 2>&1",
                e.command
                    .replace("kubectl satoken ", &format!("{} ", binary.display()))
            );
            // The same clean environment as support::satoken(), through a shell
            // for the pipes the pages show.
            let out = std::process::Command::new("sh")
                .args(["-c", &script])
                .current_dir(repo())
                .env("HOME", "/nonexistent/satoken-test-home")
                .env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent/satoken-test-sa")
                .env_remove("KUBECONFIG")
                .env_remove("KUBERNETES_SERVICE_HOST")
                .env_remove("KUBERNETES_SERVICE_PORT")
                .env_remove("NO_COLOR")
                .env("COLUMNS", width)
                .output()
                .unwrap();
            checked += 1;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let actual: Vec<&str> = stdout.lines().collect();
            let mut expected = e.expected.clone();
            while expected.last().is_some_and(|l| l.is_empty()) {
                expected.pop();
            }
            if !matches(&expected, &actual) && update {
                fixes.entry(e.page.clone()).or_default().push((
                    e.line,
                    e.expected.len(),
                    refreshed(&expected, &actual),
                ));
            } else if !matches(&expected, &actual) {
                problems.push(format!(
                    "{}:{}: `{}` prints\n{}\n(the page shows\n{})",
                    e.page,
                    e.line,
                    e.command,
                    stdout,
                    expected.join("\n")
                ));
            }
            if let Some(code) = e.exit
                && out.status.code() != Some(code)
            {
                problems.push(format!(
                    "{}:{}: exit {:?}, the page says {code}",
                    e.page,
                    e.line,
                    out.status.code()
                ));
            }
        }
    }
    for (page, fixes) in &fixes {
        rewrite(page, fixes);
    }
    assert!(checked >= 20, "only {checked} excerpts found");
    assert!(
        problems.is_empty(),
        "{} stale excerpt(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

#[test]
fn elisions_match_any_run_of_lines() {
    let e = |lines: &[&str]| lines.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "…", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&e(&["a", "  …", "b"]), &["a", "b"]));
    assert!(!matches(&e(&["a", "d"]), &["a", "b", "d"]));
    assert!(!matches(&e(&["a"]), &["b"]));
}

/// A page's block under `<!-- snapshot: tests/it/snapshots/… -->` is that
/// snapshot's output as a reader sees it: the test server's address as the
/// in-cluster one, a measured offset as the value it rounds to with the
/// model's ± 0.5 s, the wait it implies as 30 s; `…` leaves lines out.
#[test]
fn snapshot_excerpts_are_the_test_servers() {
    let display = |line: &str| {
        line.replace("https://127.0.0.1:[PORT1]", "https://10.96.0.1:443")
            .replace('≈', "")
            .replace("[U]", "0.5")
            .replace("[N]s", "30s")
            .replace("[MS]", "3ms")
            .replace(
                "[TMP]/serviceaccount",
                "/var/run/secrets/kubernetes.io/serviceaccount",
            )
    };
    let mut checked = 0;
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(file) = line
                .strip_prefix("<!-- snapshot: ")
                .and_then(|l| l.strip_suffix(" -->"))
            else {
                continue;
            };
            let snap = std::fs::read_to_string(repo().join(file))
                .unwrap_or_else(|e| panic!("{}:{}: {file}: {e}", page.display(), i + 1));
            let output: Vec<String> = snap
                .lines()
                .skip_while(|l| *l != "--- stdout")
                .skip(1)
                .map(display)
                .collect();
            let shown: Vec<String> = lines[i + 1..]
                .iter()
                .skip(1)
                .take_while(|l| !l.starts_with("```"))
                .filter(|l| !l.starts_with("$ "))
                .map(|l| (*l).to_owned())
                .collect();
            let output: Vec<&str> = output.iter().map(String::as_str).collect();
            checked += 1;
            if !matches(&shown, &output) {
                problems.push(format!(
                    "{}:{}: the block is not {file}'s output, which reads\n{}",
                    page.display(),
                    i + 1,
                    output.join("\n")
                ));
            }
        }
    }
    assert!(checked >= 2, "only {checked} snapshot excerpts found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
