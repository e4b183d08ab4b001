//! The scorer of `classify` on evidence from the wild: every case of
//! testdata/evidence/wild (text programs printed in public threads, with the
//! cause each thread established) is classified, and scored on its status
//! class, its cause and its confidence. It prints the score by class and
//! fails below the floor reached so far (a ratchet: raise it, never lower it)
//! and on any wrong cause claimed at high confidence.
//!
//! A case is right when a result has the class of the case's answer and, for
//! an established cause, names that cause first, or names it beside a
//! specific first cause at the same medium confidence (a tie the tool says it
//! cannot break, with the command that does); for an unknown cause, when no specific
//! cause is claimed at high confidence. It is wrong when it gets another class
//! or another cause, unrecognised when `classify` refuses it. The manifest's
//! `not-kubernetes-answer` is the registry's `not-api-server`, whose class is
//! `not-kubernetes` whatever the status; `oidc-authenticator-error` is the
//! registry's `jwt-issuer-unreachable`, `claim-validation-failed` its
//! `jwt-authenticator-rejected`; an answer `none` (a server's log line
//! about its own setup) is the class `server-config`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use satoken::classify::{ClassifyError, Context, classify};
use satoken::diagnosis::{Cause, Confidence};
use serde_json::Value;

const WILD: &str = "testdata/evidence/wild";
/// Cases right at least: the score reached, raised as recognisers improve.
const RIGHT_FLOOR: usize = 191;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Right,
    Wrong,
    Unrecognised,
}

/// The score groups of the report, by the case's answer.
fn group(answer: &str) -> &'static str {
    match answer {
        "401" => "401",
        "403" => "403",
        "404" => "404",
        "tls" => "tls",
        "network" => "network",
        "checker-failure" => "checker-failure",
        _ => "other status",
    }
}

/// The classification `classify` gives an answer.
fn classification_of(answer: &str) -> &'static str {
    match answer {
        "401" => "401-invalid-token",
        "403" => "403-forbidden",
        "404" => "404-not-found",
        "tls" => "tls-error",
        "network" => "network-error",
        "checker-failure" => "checker-failure",
        "2xx" => "ok",
        // A server's log line about its own setup answers no request.
        "none" => "server-config",
        _ => "other-status",
    }
}

/// The registry's code for a cause of the manifest's vocabulary.
fn registry_code(cause: &str) -> &str {
    match cause {
        "not-kubernetes-answer" => "not-api-server",
        "oidc-authenticator-error" => "jwt-issuer-unreachable",
        "claim-validation-failed" => "jwt-authenticator-rejected",
        other => other,
    }
}

/// Whether `cause` names a specific cause (not "unknown").
fn specific(cause: Cause) -> bool {
    cause != Cause::Unknown
}

struct Scored {
    verdict: Verdict,
    wrong_high: bool,
    said: String,
}

fn score(case: &Value, text: &str) -> Scored {
    let answer = case["answer"].as_str().unwrap();
    let want_cause = registry_code(case["cause"].as_str().unwrap());
    let want_class = if want_cause == "not-api-server" {
        "not-kubernetes"
    } else {
        classification_of(answer)
    };
    let ctx = Context {
        token: None,
        at: None,
        now: crate::support::base(),
        leeway: chrono::TimeDelta::seconds(60),
    };
    let report = match classify(text, None, ctx) {
        Ok(r) => r,
        Err(e @ (ClassifyError::Unrecognised(_) | ClassifyError::Empty)) => {
            return Scored {
                verdict: Verdict::Unrecognised,
                wrong_high: false,
                said: e.to_string(),
            };
        }
        Err(e) => panic!("{}: {e}", case["id"]),
    };
    let said = report
        .results
        .iter()
        .map(|r| {
            let d = &r.diagnosis;
            format!(
                "line {}: {} {} ({})",
                r.evidence.line,
                d.classification.as_str(),
                d.cause().as_str(),
                d.confidence().as_str()
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    // Any result naming a cause other than the established one, with high
    // confidence, is the failure that matters most.
    let wrong_high = report.results.iter().any(|r| {
        let d = &r.diagnosis;
        d.confidence() == Confidence::High
            && specific(d.cause())
            && d.cause().as_str() != want_cause
    });
    let pick = report
        .results
        .iter()
        .find(|r| r.diagnosis.classification.as_str() == want_class);
    let verdict = match pick {
        None => Verdict::Wrong,
        Some(r) if want_cause == "unknown" => {
            let d = &r.diagnosis;
            if specific(d.cause()) && d.confidence() == Confidence::High {
                Verdict::Wrong
            } else {
                Verdict::Right
            }
        }
        Some(r) if r.diagnosis.cause().as_str() == want_cause => Verdict::Right,
        Some(r) => {
            let d = &r.diagnosis;
            let tied = d.confidence() == Confidence::Medium
                && specific(d.cause())
                && d.candidates
                    .iter()
                    .any(|c| c.cause.as_str() == want_cause && c.confidence == d.confidence());
            if tied { Verdict::Right } else { Verdict::Wrong }
        }
    };
    Scored {
        verdict,
        wrong_high,
        said,
    }
}

#[test]
fn wild_cases_score_at_least_the_floor_and_never_wrong_with_high_confidence() {
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{WILD}/manifest.json")).expect("the wild manifest"),
    )
    .expect("the manifest is JSON");
    let cases = manifest.as_array().expect("the manifest is an array");
    assert!(cases.len() >= 120, "the wild corpus shrank");
    // group -> [right, wrong, unrecognised, wrong-high]
    let mut by_group: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let mut misses = String::new();
    let mut wrong_high = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let text = std::fs::read_to_string(format!("{WILD}/{}", case["file"].as_str().unwrap()))
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let s = score(case, &text);
        let row = by_group
            .entry(group(case["answer"].as_str().unwrap()))
            .or_default();
        match s.verdict {
            Verdict::Right => row[0] += 1,
            Verdict::Wrong => row[1] += 1,
            Verdict::Unrecognised => row[2] += 1,
        }
        if s.wrong_high {
            row[3] += 1;
            wrong_high.push(id);
        }
        if s.verdict != Verdict::Right || s.wrong_high {
            let _ = writeln!(
                misses,
                "  {id}: want {} {} -> {:?}{}: {}",
                case["answer"].as_str().unwrap(),
                case["cause"].as_str().unwrap(),
                s.verdict,
                if s.wrong_high { " WRONG-HIGH" } else { "" },
                s.said
            );
        }
    }
    let mut table = format!(
        "{:<16} {:>5} {:>5} {:>12} {:>10}\n",
        "class", "right", "wrong", "unrecognised", "wrong-high"
    );
    let mut total = [0usize; 4];
    for (g, row) in &by_group {
        let _ = writeln!(
            table,
            "{g:<16} {:>5} {:>5} {:>12} {:>10}",
            row[0], row[1], row[2], row[3]
        );
        for (t, r) in total.iter_mut().zip(row) {
            *t += r;
        }
    }
    let _ = writeln!(
        table,
        "{:<16} {:>5} {:>5} {:>12} {:>10}  ({} cases, {:.1} % right)",
        "all",
        total[0],
        total[1],
        total[2],
        total[3],
        cases.len(),
        100.0 * total[0] as f64 / cases.len() as f64
    );
    println!("{table}\nmisses:\n{misses}");
    assert!(
        wrong_high.is_empty(),
        "a wrong cause claimed at high confidence: {wrong_high:?}\n{table}\n{misses}"
    );
    assert!(
        total[0] >= RIGHT_FLOOR,
        "{} right, below the floor of {RIGHT_FLOOR}\n{table}\n{misses}",
        total[0]
    );
}
