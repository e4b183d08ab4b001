//! The corpus as a measure that cannot drift unseen: no text twice, no thread
//! (incident) in both sets, the labels and sets pinned by a digest, and the
//! floors never below the last ones recorded for those labels.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{
    DEVELOPMENT_FLOOR, DEVELOPMENT_FLOOR_WITH_RULE, EVALUATION_FLOOR, EVALUATION_FLOOR_WITH_RULE,
    entries,
};

/// The record of floors, one entry per change, each for the manifest digest
/// it was measured on.
const FLOORS: &str = "tests/it/wild/floors.json";

fn sha256_hex(bytes: &[u8]) -> String {
    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The digest of what is scored: each case's id, set, answer, cause, whether
/// its text carries its cause, and its text's digest.
fn labels_digest() -> String {
    let mut all = String::new();
    for (c, file) in entries() {
        let text = std::fs::read(file).unwrap();
        all.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            c["id"].as_str().unwrap(),
            c["set"].as_str().unwrap(),
            c["answer"].as_str().unwrap(),
            c["cause"].as_str().unwrap(),
            c["text_carries_cause"].as_bool().unwrap_or(true),
            sha256_hex(&text)
        ));
    }
    sha256_hex(all.as_bytes())
}

#[test]
fn wild_no_text_twice_and_no_thread_in_both_sets() {
    let mut texts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut threads: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (c, file) in entries() {
        let id = c["id"].as_str().unwrap().to_owned();
        let text = std::fs::read(file).unwrap();
        texts.entry(sha256_hex(&text)).or_default().push(id);
        threads
            .entry(c["source_url"].as_str().unwrap().to_owned())
            .or_default()
            .insert(c["set"].as_str().unwrap().to_owned());
    }
    let twice: Vec<_> = texts.values().filter(|ids| ids.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "the same text in several cases: {twice:?}"
    );
    let split: Vec<_> = threads.iter().filter(|(_, s)| s.len() > 1).collect();
    assert!(split.is_empty(), "one thread in both sets: {split:?}");
}

#[test]
fn wild_labels_are_pinned_and_floors_never_fall() {
    let record: Value = serde_json::from_str(&std::fs::read_to_string(FLOORS).unwrap()).unwrap();
    let history = record["history"].as_array().unwrap();
    let last = history.last().expect("a recorded floor");
    let digest = labels_digest();
    assert_eq!(
        last["manifest"].as_str(),
        Some(digest.as_str()),
        "the manifest's labels or sets changed ({digest}): record the new digest and its floors in {FLOORS}, and say why in the commit"
    );
    let floors = [
        ("development", DEVELOPMENT_FLOOR),
        ("evaluation", EVALUATION_FLOOR),
        ("development_with_rule", DEVELOPMENT_FLOOR_WITH_RULE),
        ("evaluation_with_rule", EVALUATION_FLOOR_WITH_RULE),
    ];
    for (name, floor) in floors {
        let recorded = last[name].as_u64().unwrap() as usize;
        assert!(
            floor >= recorded,
            "{name}: the floor {floor} is below the recorded {recorded}"
        );
        // On the same labels, a recorded floor only rises.
        for pair in history.windows(2) {
            if pair[0]["manifest"] == pair[1]["manifest"] {
                assert!(
                    pair[1][name].as_u64() >= pair[0][name].as_u64(),
                    "{name} fell in {FLOORS}"
                );
            }
        }
    }
}
