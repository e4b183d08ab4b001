//! The documented contract covers everything the code can emit: every finding
//! code, cause and classification appears in docs/output.md, and every
//! subcommand has its page.

use clap::CommandFactory as _;
use satoken::diagnosis::{Cause, Classification};
use satoken::findings::Code;

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
fn every_cause_and_classification_is_documented() {
    let doc = output_md();
    // Walk the serde names through JSON so new variants cannot be forgotten here.
    let mut names = Vec::new();
    for cause in Cause::ALL {
        names.push(
            serde_json::to_value(cause)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    for class in Classification::ALL {
        names.push(class.as_str().to_owned());
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "missing from docs/output.md: {missing:?}"
    );
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
