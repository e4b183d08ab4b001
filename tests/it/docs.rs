//! The documented contract covers everything the code can emit: every finding
//! code and classification appears in docs/output.md, docs/causes.md is the
//! cause registry as `explain` prints it, and every subcommand has its page.

use std::fmt::Write as _;

use clap::CommandFactory as _;
use satoken::diagnosis::{Cause, Classification};
use satoken::findings::Code;
use satoken::report::explain::ExplainJson;
use satoken::watch::metrics;

fn output_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/output.md")).unwrap()
}

#[test]
fn every_finding_code_is_documented() {
    let doc = output_md();
    let missing: Vec<&str> = Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !doc.contains(&format!("`{c}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "codes missing from docs/output.md: {missing:?}"
    );
}

#[test]
fn every_classification_is_documented() {
    let doc = output_md();
    let missing: Vec<&str> = Classification::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "missing from docs/output.md: {missing:?}"
    );
    assert!(doc.contains("causes.md"), "docs/output.md links the causes");
}

/// docs/causes.md is generated from the registry; `SATOKEN_UPDATE_DOCS=1`
/// rewrites it.
#[test]
fn causes_md_is_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/causes.md");
    let want = causes_markdown();
    if crate::support::rewrite_requested("SATOKEN_UPDATE_DOCS") {
        std::fs::write(path, &want).unwrap();
    }
    let got = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        got == want,
        "docs/causes.md is stale: SATOKEN_UPDATE_DOCS=1 cargo nextest run --test it docs::"
    );
    for cause in Cause::ALL {
        assert!(
            got.contains(&format!("\n## {}\n", cause.as_str())),
            "{cause}"
        );
    }
}

#[test]
fn every_subcommand_has_a_page() {
    let cli = satoken::cli::Cli::command();
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if matches!(name, "help" | "completion") {
            continue;
        }
        let page = format!("{}/docs/{name}.md", env!("CARGO_MANIFEST_DIR"));
        assert!(
            std::path::Path::new(&page).exists(),
            "docs/{name}.md is missing"
        );
    }
}

/// docs/watch.md's metric reference is generated from the metric definitions
/// (src/watch/metrics.rs); `SATOKEN_UPDATE_DOCS=1` rewrites it.
#[test]
fn watch_md_metric_reference_is_the_code() {
    const BEGIN: &str = "<!-- metrics:begin -->\n";
    const END: &str = "<!-- metrics:end -->";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/watch.md");
    let got = std::fs::read_to_string(path).unwrap();
    let (head, rest) = got
        .split_once(BEGIN)
        .expect("docs/watch.md has the begin marker");
    let (_, tail) = rest
        .split_once(END)
        .expect("docs/watch.md has the end marker");
    let want = format!("{head}{BEGIN}{}{END}{tail}", metric_reference());
    if std::env::var_os("SATOKEN_UPDATE_DOCS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    assert!(
        got == want,
        "docs/watch.md's metric reference is stale: SATOKEN_UPDATE_DOCS=1 cargo nextest run --test it docs::"
    );
}

/// The metric reference of docs/watch.md (between its `metrics` markers),
/// from the table `watch` registers its metrics from.
fn metric_reference() -> String {
    let mut out = String::from("| Metric | Type | Labels | Meaning |\n| --- | --- | --- | --- |\n");
    for def in metrics::DEFINITIONS {
        let kind = match def.kind {
            metrics::Kind::Gauge => "gauge",
            metrics::Kind::Counter => "counter",
        };
        let labels = if def.labels.is_empty() {
            "".to_owned()
        } else {
            def.labels
                .iter()
                .map(|l| format!("`{l}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push_str(&format!(
            "| `{}` | {kind} | {labels} | {}. |\n",
            def.name(),
            def.help
        ));
    }
    out
}

/// docs/causes.md: the table of causes and one section each, generated from the
/// registry (tests/it/docs.rs fails when the file differs).
fn causes_markdown() -> String {
    let mut md = String::new();
    md.push_str("# Causes\n\n");
    md.push_str(
        "<!-- Generated from src/diagnosis (the cause registry) by `kubectl satoken explain`;\n     \
         tests/it/docs.rs fails when this file is stale. Regenerate with\n     \
         SATOKEN_UPDATE_DOCS=1 cargo nextest run --test it docs:: -->\n\n",
    );
    md.push_str(
        "Every cause a diagnosis can name (`probe`, `classify`, `doctor`), with the answers it \
         explains. `kubectl satoken explain CAUSE` prints the same page in the terminal.\n\n",
    );
    md.push_str("| cause | answers | what it means |\n|---|---|---|\n");
    for cause in Cause::ALL {
        let explains: Vec<String> = cause
            .def()
            .explains
            .iter()
            .map(|c| format!("`{}`", c.as_str()))
            .collect();
        let _ = writeln!(
            md,
            "| [`{0}`](#{0}) | {1} | {2} |",
            cause.as_str(),
            explains.join(", "),
            cause.summary()
        );
    }
    for &cause in Cause::ALL {
        let page = ExplainJson::new(cause);
        let _ = write!(
            md,
            "\n## {}\n\n**{}.** {}.\n",
            cause.as_str(),
            page.title,
            page.summary
        );
        for para in page.explanation {
            let _ = write!(md, "\n{}\n", unbreak(para));
        }
        for (title, steps) in [("How to confirm", page.confirm), ("How to fix", page.fix)] {
            if steps.is_empty() {
                continue;
            }
            let _ = write!(md, "\n{title}:\n\n");
            for step in steps {
                let _ = writeln!(md, "- {}", step.why);
                if let Some(c) = &step.command {
                    let _ = writeln!(md, "  ```sh\n  {}\n  ```", c.shell());
                }
            }
        }
        if !page.wordings.is_empty() {
            md.push_str(
                "\nWhat kube-apiserver says (its log, a TokenReview's `status.error`):\n\n",
            );
            for w in page.wordings {
                let _ = writeln!(md, "- `{}` ({})", w.text, w.versions);
            }
        }
        if !page.other_wordings.is_empty() {
            md.push_str("\nWhat other programs say:\n\n");
            for w in page.other_wordings {
                let _ = writeln!(
                    md,
                    "- {}: `{}` ({}; `{}`)",
                    w.said_by, w.text, w.versions, w.source
                );
            }
        }
        let _ = writeln!(md, "\nSources: {}.", page.sources.join("; "));
    }
    md
}

/// Explanations are written with line breaks inside paragraphs; wrap anew.
fn unbreak(paragraph: &str) -> String {
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}
