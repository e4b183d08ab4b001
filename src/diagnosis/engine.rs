//! The engine: a [`Case`] in, a [`Diagnosis`] out, through every rule, so that
//! `probe`, `classify`, `doctor` and the audit view give the same answer to the
//! same evidence.
//!
//! Every rule reads the case alone and writes what it finds, apart from the
//! others; what depends on the other rules' findings (a fallback when nothing
//! explains the answer, the guesses for a bare 401) is weighed by the policy
//! once all have spoken. The order of the list below is only the order of
//! authority among causes found equally likely (the server's own reasons
//! first, then what the API and the keys say, then the token's times, then
//! the other servers, and the guesses last): the tests run the rules
//! shuffled and get the same answers.

use super::classification::Classification;
use super::facts::Case;
use super::merge::{Diagnosis, Findings};
use super::policy::When;
use super::rules;
use super::support::{Support, SupportKind};

/// A rule: reads the case, writes what it finds.
type Rule = fn(&Case<'_>, &mut Findings);

/// Every rule, for an answer of kube-apiserver's (or none).
const RULES: &[Rule] = &[
    rules::transport::rule,
    rules::checker::rule,
    rules::server_setup::rule,
    rules::services::rule,
    rules::admission::rule,
    rules::authn::rule,
    rules::answer::rule,
    rules::anonymous::rule,
    rules::rbac::rule,
    rules::authn_config::rule,
    rules::image_pull::rule,
    rules::bindings::rule,
    rules::keys::rule,
    rules::time::rule,
    rules::servers::rule,
    rules::audit::rule,
    guesses,
];

/// A service that judged the token itself (a cloud's token exchange, Vault's
/// role) answered: its status is its own, and kube-apiserver's authenticators
/// and authorizers never saw the request.
const SERVICE_RULES: &[Rule] = &[
    rules::transport::rule,
    rules::services::rule,
    rules::time::rule,
];

pub fn diagnose(case: &Case<'_>) -> Diagnosis {
    findings(case).rank(case)
}

/// What the rules find in one case, before the policy ranks it.
pub fn findings(case: &Case<'_>) -> Findings {
    let service = case.answer.http().is_some_and(|h| h.verdict.is_some());
    let rules = if service { SERVICE_RULES } else { RULES };
    let mut f = Findings::default();
    for note in &case.notes {
        f.note(note.clone());
    }
    let mut each: Vec<Findings> = rules.iter().map(|_| Findings::default()).collect();
    for i in order(rules.len()) {
        rules[i](case, &mut each[i]);
    }
    for found in each {
        f.absorb(found);
    }
    if !service {
        for a in &case.anonymous {
            f.note(Support::new(SupportKind::Anonymous, anonymous_words(a)));
        }
    }
    f
}

/// For a 401 nothing authoritative explains: every cause of a rejected token
/// the token itself points at is a guess; without a token, every cause is.
fn guesses(case: &Case<'_>, f: &mut Findings) {
    if case.classification() != Classification::Unauthorized {
        return;
    }
    f.when(When::NothingCertain, |g| {
        rules::bindings::guesses(case, g);
        rules::keys::guesses(case, g);
    });
    f.when(When::NothingStandsOut, |g| {
        rules::answer::bare_unauthorized(case, g);
    });
}

fn anonymous_words(a: &super::facts::AnonymousAnswer) -> String {
    let meaning = match a.status {
        401 => "anonymous authentication is off on this server",
        403 if a.as_anonymous => {
            "as system:anonymous: anonymous authentication is on, and only the token identifies you"
        }
        403 => "forbidden",
        200..=299 => "answered without credentials",
        _ => "",
    };
    format!(
        "without the token, {}: HTTP {} {meaning}",
        a.request, a.status
    )
    .trim_end()
    .to_owned()
}

#[cfg(not(test))]
fn order(rules: usize) -> std::ops::Range<usize> {
    0..rules
}

/// Under test, shuffled as [`tests::SHUFFLE`] asks.
#[cfg(test)]
fn order(rules: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rules).collect();
    if let Some(seed) = tests::SHUFFLE.get() {
        tests::shuffle(&mut order, seed);
    }
    order
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::{Path, PathBuf};

    use crate::classify::{Context, classify};
    use crate::diagnosis::Diagnosis;
    use crate::secret::SecretToken;
    use crate::token::{Token, parse::parse};

    thread_local! {
        /// The seed the engine shuffles its rules with, if any.
        pub(super) static SHUFFLE: Cell<Option<u64>> = const { Cell::new(None) };
    }

    /// A seeded Fisher–Yates shuffle (splitmix64), the same on every machine.
    pub(super) fn shuffle<T>(items: &mut [T], seed: u64) {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for i in (1..items.len()).rev() {
            let j = usize::try_from(next() % (i as u64 + 1)).unwrap();
            items.swap(i, j);
        }
    }

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// Every text of the corpora: the evidence fixtures, the wild corpus's
    /// development cases (never the sealed evaluation set) and the seeds.
    fn corpora() -> Vec<(String, String)> {
        let mut texts = Vec::new();
        let mut read_dir = |dir: &Path| {
            let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .collect();
            paths.sort();
            for p in paths {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(".expected.json") || name.ends_with(".md") {
                    continue;
                }
                if let Ok(text) = std::fs::read_to_string(&p) {
                    texts.push((p.display().to_string(), text));
                }
            }
        };
        read_dir(&root().join("testdata/evidence"));
        read_dir(&root().join("testdata/seeds"));
        let shared = root().join("../shared/seeds");
        if shared.is_dir() {
            read_dir(&shared);
        }
        let wild = root().join("testdata/evidence/wild");
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(wild.join("manifest.json")).unwrap())
                .unwrap();
        for case in manifest.as_array().unwrap() {
            if case["set"] == "development" {
                let file = wild.join(case["file"].as_str().unwrap());
                let text = std::fs::read_to_string(&file).unwrap();
                texts.push((file.display().to_string(), text));
            }
        }
        texts
    }

    fn diagnoses(text: &str, token: Option<&Token>) -> Vec<Diagnosis> {
        let ctx = Context {
            token,
            at: None,
            now: crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap(),
            leeway: chrono::TimeDelta::seconds(60),
        };
        classify(text, None, ctx)
            .map(|r| r.results.into_iter().map(|r| r.diagnosis).collect())
            .unwrap_or_default()
    }

    #[test]
    fn the_rules_order_changes_no_answer() {
        let seed_token = std::fs::read_to_string(root().join("testdata/seeds/001-token.jwt"))
            .expect("the seed token");
        let token = parse(&SecretToken::new(seed_token.trim())).expect("the seed token parses");
        let texts = corpora();
        assert!(texts.len() > 150, "the corpora shrank: {}", texts.len());
        let mut answers = 0;
        for (name, text) in &texts {
            for token in [None, Some(&token)] {
                SHUFFLE.set(None);
                let canonical = diagnoses(text, token);
                answers += canonical.len();
                for seed in 1..=20 {
                    SHUFFLE.set(Some(seed));
                    let shuffled = diagnoses(text, token);
                    SHUFFLE.set(None);
                    assert!(
                        shuffled == canonical,
                        "{name} (token: {}): the rules in shuffled order {seed} answer otherwise:\n{shuffled:#?}\nthan in their order:\n{canonical:#?}",
                        token.is_some()
                    );
                }
            }
        }
        assert!(answers > 300, "only {answers} answers diagnosed");
    }

    #[test]
    fn the_shuffle_moves_rules() {
        let canonical: Vec<usize> = (0..super::RULES.len()).collect();
        let moved = (1..=20).filter(|&seed| {
            let mut order = canonical.clone();
            shuffle(&mut order, seed);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, canonical, "a shuffle loses no rule");
            order != canonical
        });
        assert_eq!(moved.count(), 20);
    }
}
