//! Metamorphic tests: each development case of the wild corpus, and each seed,
//! mutated the way pastes are mutated (a prefix on every line, quotes
//! stripped, lines re-wrapped, unrelated log lines mixed in, the tail cut
//! off, escaped into JSON), must never make `classify` surer than the
//! original did, and never switch to another cause at high confidence; and a
//! mutation that keeps every line (all but the cut tail) must not lose the
//! classes of answer the original found. Only the cut may lose an answer.

use std::collections::BTreeSet;

use satoken::classify::ClassifyReport;
use satoken::diagnosis::{Cause, Confidence};

use super::{Set, corpus, run};

/// Routine lines of other components: no answer to anyone.
const CHATTER: &[&str] = &[
    "I0101 00:00:00.000000       1 leaderelection.go:258] successfully acquired lease kube-system/kube-controller-manager",
    "I0101 00:00:01.000000       1 reflector.go:359] Listing and watching *v1.ConfigMap from k8s.io/client-go/informers/factory.go:159",
    "I0101 00:00:02.000000       1 cacher.go:460] cacher (pods): initialized",
];

fn lines_mapped(text: &str, f: impl Fn(&str) -> String) -> String {
    text.lines().map(|l| f(l) + "\n").collect()
}

fn json_escape(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The mutations, by name.
fn mutations(text: &str) -> Vec<(&'static str, String)> {
    let cut = (0..=text.len() * 7 / 10)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    vec![
        ("quoted", lines_mapped(text, |l| format!("> {l}"))),
        (
            "kubectl-prefix",
            lines_mapped(text, |l| format!("[pod/app-7d9f8-x2lq/app] {l}")),
        ),
        ("unquoted", text.replace('"', "")),
        (
            "rewrapped",
            lines_mapped(text, |l| {
                let chars: Vec<char> = l.chars().collect();
                chars
                    .chunks(80)
                    .map(|c| c.iter().collect::<String>())
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
        ),
        (
            "mixed",
            text.lines()
                .enumerate()
                .map(|(i, l)| format!("{l}\n{}\n", CHATTER[i % CHATTER.len()]))
                .collect(),
        ),
        ("truncated", text[..cut].to_owned()),
        (
            "docker-json",
            lines_mapped(text, |l| {
                format!(
                    r#"{{"log":{},"stream":"stderr","time":"2026-01-01T00:00:00.000000000Z"}}"#,
                    json_escape(&format!("{l}\n"))
                )
            }),
        ),
        (
            "json-string",
            format!(r#"{{"level":"error","msg":{}}}"#, json_escape(text)) + "\n",
        ),
    ]
}

/// The strongest claim of a specific cause (`low` when there is none).
fn strongest(report: &Option<ClassifyReport>) -> Confidence {
    report
        .iter()
        .flat_map(|r| &r.results)
        .filter(|r| r.diagnosis.cause() != Cause::Unknown)
        .map(|r| r.diagnosis.confidence())
        .max()
        .unwrap_or(Confidence::Low)
}

/// The (class, cause) pairs claimed at high confidence.
fn high(report: &Option<ClassifyReport>) -> BTreeSet<(String, Cause)> {
    report
        .iter()
        .flat_map(|r| &r.results)
        .filter(|r| r.diagnosis.confidence() == Confidence::High)
        .map(|r| {
            (
                r.diagnosis.classification.as_str().to_owned(),
                r.diagnosis.cause(),
            )
        })
        .collect()
}

/// The classes of answer a report found.
fn classes(report: &Option<ClassifyReport>) -> BTreeSet<String> {
    report
        .iter()
        .flat_map(|r| &r.results)
        .map(|r| r.diagnosis.classification.as_str().to_owned())
        .collect()
}

/// The answers lost to a mutation today, one `ID [MUTATION] CLASS` a line: a
/// ratchet (a loss not listed fails, and so does a listed one that is found
/// again, until it is struck from the list).
const KNOWN_LOSSES: &str = "tests/it/wild/metamorphic_losses.txt";

/// What a mutation did wrong, if anything.
fn violation(
    original: &Option<ClassifyReport>,
    mutated: &Option<ClassifyReport>,
) -> Option<String> {
    let (before, after) = (strongest(original), strongest(mutated));
    if after > before {
        return Some(format!(
            "confidence rose from {} to {}",
            before.as_str(),
            after.as_str()
        ));
    }
    let new: Vec<_> = high(mutated).difference(&high(original)).cloned().collect();
    (!new.is_empty()).then(|| format!("new high claims {new:?}"))
}

#[test]
fn mutated_pastes_never_make_classify_surer() {
    let mut texts: Vec<(String, String)> = corpus()
        .into_iter()
        .filter(|c| c.set == Set::Development)
        .map(|c| (c.id, c.text))
        .collect();
    for seed in [
        "001-curl-vik-401.txt",
        "001-apiserver.log",
        "001-fabric8-401.txt",
        "003-ray-job-submit-401.txt",
    ] {
        let text = std::fs::read_to_string(format!("testdata/seeds/{seed}")).unwrap();
        texts.push((format!("seed {seed}"), text));
    }
    let mut violations = Vec::new();
    let mut lost = BTreeSet::new();
    let mut runs = 0;
    for (id, text) in &texts {
        let original = run(text).ok();
        for (name, mutated_text) in mutations(text) {
            runs += 1;
            let mutated = run(&mutated_text).ok();
            if let Some(v) = violation(&original, &mutated) {
                violations.push(format!("{id} [{name}]: {v}"));
            }
            // Every mutation but the cut keeps every line: it may not lose
            // a class of answer the original found.
            if name != "truncated" {
                for class in classes(&original).difference(&classes(&mutated)) {
                    lost.insert(format!("{id} [{name}] {class}"));
                }
            }
        }
    }
    let known: BTreeSet<String> = std::fs::read_to_string(KNOWN_LOSSES)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    violations.extend(
        lost.difference(&known)
            .map(|l| format!("{l}: the answer is lost (not in {KNOWN_LOSSES})")),
    );
    violations.extend(
        known
            .difference(&lost)
            .map(|l| format!("{l}: found again: strike it from {KNOWN_LOSSES}")),
    );
    println!(
        "{runs} mutated runs, {} violations, {} known losses",
        violations.len(),
        known.len()
    );
    assert!(
        violations.is_empty(),
        "{} of {runs} mutations made classify surer:\n  {}",
        violations.len(),
        violations.join("\n  ")
    );
}
