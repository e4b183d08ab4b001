//! The calibration report: for each confidence level, how often the cause
//! `classify` claims is the cause that is true, on every corpus whose truth
//! is known (the wild cases' established causes, the generated corpus's
//! scenarios, the seed incidents; the live clients' scenarios are counted in
//! `clients.rs`). A high claim must be right every time: a confident wrong
//! cause sends a tired person the wrong way. A claim whose truth is not known
//! (the thread established no cause; another class's answer in the same
//! paste) is counted as unverified, at every level.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use satoken::diagnosis::{Cause, Confidence};
use serde_json::Value;

use super::{Set, corpus, run};

/// Claims at one level: right, wrong, and those whose truth is not known.
#[derive(Default, Clone, Copy)]
struct Level {
    right: usize,
    wrong: usize,
    unverified: usize,
}

/// One corpus's claims, by level, and the claims that were wrong at high.
#[derive(Default)]
struct Calibration {
    levels: BTreeMap<Confidence, Level>,
    /// Claims of no cause (`unknown`) at all.
    none_claimed: usize,
    wrong_high: Vec<String>,
    /// Cases whose answer was lost: `classify` printed no JSON document.
    lost: Vec<String>,
}

impl Calibration {
    /// One result: `truth` is the true cause (`None`: not known).
    fn claim(&mut self, what: &str, cause: Cause, confidence: Confidence, truth: Option<&str>) {
        if cause == Cause::Unknown {
            self.none_claimed += 1;
            return;
        }
        let level = self.levels.entry(confidence).or_default();
        match truth {
            Some(t) if t == cause.as_str() => level.right += 1,
            Some(_) => level.wrong += 1,
            None => level.unverified += 1,
        }
        let is_wrong = truth.is_some_and(|t| t != cause.as_str());
        if confidence == Confidence::High && is_wrong {
            self.wrong_high.push(format!(
                "{what}: {} (truth {})",
                cause.as_str(),
                truth.unwrap_or("not known")
            ));
        }
    }

    fn rows(&self, name: &str, out: &mut String) {
        for confidence in [Confidence::High, Confidence::Medium, Confidence::Low] {
            let l = self.levels.get(&confidence).copied().unwrap_or_default();
            let judged = l.right + l.wrong;
            let share = if judged == 0 {
                "-".to_owned()
            } else {
                format!("{:.1} %", 100.0 * l.right as f64 / judged as f64)
            };
            let _ = writeln!(
                out,
                "{name:<24} {:<7} {:>6} {:>6} {:>11} {:>8}",
                confidence.as_str(),
                l.right,
                l.wrong,
                l.unverified,
                share
            );
        }
        let _ = writeln!(out, "{name:<24} {:<7} {:>6}", "no cause", self.none_claimed);
    }
}

fn wild(set: Set) -> Calibration {
    let mut c = Calibration::default();
    for case in corpus().into_iter().filter(|c| c.set == set) {
        let Ok(report) = run(&case.text) else {
            continue;
        };
        let truth = (case.cause != "unknown").then_some(case.cause.as_str());
        for r in &report.results {
            let d = &r.diagnosis;
            // Another class's answer (a retry, a second request) has no
            // known truth of its own.
            let truth = if d.classification.as_str() == case.class() {
                truth
            } else {
                None
            };
            let what = match set {
                Set::Development => format!("{} line {}", case.id, r.evidence.line),
                Set::Evaluation => "a sealed case".to_owned(),
            };
            c.claim(&what, d.cause(), d.confidence(), truth);
        }
    }
    c
}

/// The generated corpus: each expected result is the scenario's cause, written
/// by hand from the scenario (testdata/evidence/README.md).
fn generated() -> Calibration {
    let mut c = Calibration::default();
    let mut names: Vec<_> = std::fs::read_dir("testdata/evidence")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".expected.json"))
        .collect();
    names.sort();
    for expected_path in names {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
        let name = expected_path
            .to_string_lossy()
            .replace(".expected.json", "");
        let mut cmd = crate::support::satoken();
        cmd.args([
            "classify",
            "--now",
            crate::support::BASE,
            "-o",
            "json",
            &name,
        ]);
        for arg in expected["args"].as_array().unwrap() {
            cmd.arg(arg.as_str().unwrap());
        }
        if let Some(token) = expected["token_file"].as_str() {
            cmd.args(["-f", &format!("testdata/tokens/{token}")]);
        }
        let out = cmd.write_stdin("").output().unwrap();
        let Ok(doc) = serde_json::from_slice::<Value>(&out.stdout) else {
            // Only a case expected to be refused (exit 2) may print none.
            if expected["exit"] == 2 && out.status.code() == Some(2) {
                continue;
            }
            c.lost.push(format!(
                "{name}: exit {:?}, no JSON: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        };
        let want = expected["results"].as_array().unwrap();
        let got = doc["results"].as_array().unwrap();
        for (i, r) in got.iter().enumerate() {
            // The expected result in the same place (several may share a line).
            let truth = want
                .get(i)
                .filter(|w| w["line"] == r["line"])
                .and_then(|w| w["cause"].as_str());
            let d = &r["diagnosis"];
            c.claim(
                &format!("{name} line {}", r["line"]),
                d["cause"].as_str().unwrap().parse().unwrap(),
                parse_confidence(&d["confidence"]),
                truth,
            );
        }
    }
    c
}

/// The seed incidents: the causes their documents established.
fn seeds() -> Calibration {
    let mut c = Calibration::default();
    for (file, truth) in [
        ("001-curl-vik-401.txt", "clock-skew"),
        ("001-apiserver.log", "clock-skew"),
        ("001-fabric8-401.txt", "clock-skew"),
        // The guide's 401: ray job submit sent no token to kube-rbac-proxy.
        ("003-ray-job-submit-401.txt", "token-not-sent"),
    ] {
        let text = std::fs::read_to_string(format!("testdata/seeds/{file}")).unwrap();
        let report = run(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        for r in &report.results {
            let d = &r.diagnosis;
            c.claim(file, d.cause(), d.confidence(), Some(truth));
        }
    }
    c
}

fn parse_confidence(v: &Value) -> Confidence {
    match v.as_str() {
        Some("high") => Confidence::High,
        Some("medium") => Confidence::Medium,
        _ => Confidence::Low,
    }
}

#[test]
fn high_confidence_is_right_every_time_on_every_corpus() {
    let corpora = [
        ("wild development", wild(Set::Development)),
        ("wild evaluation", wild(Set::Evaluation)),
        ("generated", generated()),
        ("seeds", seeds()),
    ];
    let mut report = format!(
        "{:<24} {:<7} {:>6} {:>6} {:>11} {:>8}\n",
        "corpus", "level", "right", "wrong", "unverified", "right %"
    );
    let mut wrong = Vec::new();
    let mut lost = Vec::new();
    for (name, c) in &corpora {
        c.rows(name, &mut report);
        wrong.extend(c.wrong_high.iter().map(|w| format!("{name}: {w}")));
        lost.extend(c.lost.iter().map(|w| format!("{name}: {w}")));
    }
    println!("{report}");
    assert!(
        lost.is_empty(),
        "answers lost (no JSON document):\n  {}",
        lost.join("\n  ")
    );
    assert!(
        wrong.is_empty(),
        "wrong at high confidence:\n  {}\n{report}",
        wrong.join("\n  ")
    );
}
