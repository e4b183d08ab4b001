//! `classify` snapshots: every evidence file in testdata/evidence/, with the
//! token file and arguments its `NAME.expected.json` gives, and every
//! development case of the wild corpus in testdata/evidence/wild/ (as its
//! manifest lists them, with no token or arguments; the sealed evaluation
//! cases are only scored, never shown). One case per file, named after it;
//! and the shipped sample log, read as a report.

use serde_json::Value;

use super::{Invocation, NOW, check, crate_dir};

#[test]
fn every_evidence_file() {
    let dir = crate_dir().join("testdata/evidence");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".expected.json").map(str::to_owned))
        .collect();
    names.sort();
    assert!(names.len() >= 50, "{names:?}");
    for name in names {
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap(),
        )
        .unwrap();
        let mut invocation = Invocation::new(&[
            "classify",
            "--now",
            NOW,
            &format!("testdata/evidence/{name}"),
        ]);
        for arg in expected["args"].as_array().unwrap() {
            invocation = invocation.args(&[arg.as_str().unwrap()]);
        }
        if let Some(token) = expected["token_file"].as_str() {
            invocation = invocation.args(&["-f", &format!("testdata/tokens/{token}")]);
        }
        check("classify", &name, &invocation);
    }
}

#[test]
fn every_wild_evidence_file() {
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(crate_dir().join("testdata/evidence/wild/manifest.json")).unwrap(),
    )
    .unwrap();
    let cases = manifest.as_array().unwrap();
    assert!(cases.len() >= 100, "{}", cases.len());
    for case in cases.iter().filter(|c| c["set"] == "development") {
        let file = case["file"].as_str().unwrap();
        let path = format!("testdata/evidence/wild/{file}");
        check(
            "classify/wild",
            case["id"].as_str().unwrap(),
            &Invocation::new(&["classify", "--now", NOW, &path]),
        );
    }
}

/// A log is a report: the shipped sample day (testdata/logs/README.md) as
/// groups with counts and timelines, and its successful requests counted.
#[test]
fn a_log_as_a_report() {
    check(
        "classify",
        "log-apiserver-day",
        &Invocation::new(&[
            "classify",
            "--now",
            NOW,
            "testdata/logs/apiserver-day.log.gz",
        ]),
    );
}
