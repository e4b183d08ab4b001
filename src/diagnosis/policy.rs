//! Confidence, earned: the one written policy every diagnosis follows.
//!
//! A rule never picks a confidence. It says on what [`Basis`] it believes a
//! cause, and what in the same evidence speaks against it; this module turns
//! that into the confidence shown:
//!
//! | basis | confidence | what it takes |
//! |---|---|---|
//! | [`Basis::Said`] | high | the party that decided said why, in its own words: kube-apiserver's reason (its log line, a TokenReview's `status.error`, the Status message a client quotes, an audit annotation), or a checker or cloud service about its own refusal |
//! | [`Basis::Observed`] | high | satoken saw it itself: probe's own handshake and answers, its reads of the bound objects and published keys, the clocks it measured |
//! | [`Basis::Proven`] | high | the protocol leaves no other reading: the token the request carried lies outside its window on the answering server's own clock; a 403 naming `system:anonymous` got no token |
//! | [`Basis::Inferred`] | medium at most | a client's own words about what happened to it (a pasted TLS or network error, a client's rendering without the server's text), or facts that do not quite meet (a token given apart from the evidence, a clock that is not the server's) |
//! | [`Basis::Possible`] | low | one of several causes the evidence allows |
//!
//! Then, over every fact of the same input:
//! - a fact that contradicts a cause lowers it one level, and says so
//!   ([`super::Findings::contradict`]); one fact seen on several servers
//!   counts once;
//! - reasons put with the answer by a guess (a log's reason line joined to a
//!   401 by time, [`Join::Guess`]) hold every cause to medium at most: they
//!   may be another request's, so a guess is never high;
//! - two causes at the top level that the evidence fits equally lower each
//!   other one level, and the command that tells them apart comes first;
//! - when nothing rises above a guess, no cause is named (`unknown`, low) and
//!   the guesses are listed as the candidates to check;
//! - several servers asked with one token are one input: the findings of
//!   those whose answer is the worst class are ranked together, and replicas
//!   that answer differently make the class `replica-dependent`
//!   ([`super::Findings::across`]).
//!
//! What a rule finds only in some state of the others' findings (a fallback
//! when nothing explains the answer, the guesses for a bare 401, more support
//! for a cause if it is found) is weighed here, once every rule has spoken
//! ([`When`], [`settle`]): no rule reads another's findings, so the order the
//! rules run in never changes an answer.
//!
//! docs/classify.md says the same for users; the tests below hold one case per tier.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use strum::{IntoStaticStr, VariantArray};

use super::facts::{Join, Witness};
use crate::vocabulary::cause::Cause;
use crate::wire::string_codes;

/// How sure a diagnosis is (the module's table says what earns each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

string_codes!(Confidence);

/// Why a rule believes a cause: what its confidence is computed from (the
/// module's table, weakest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Basis {
    Possible,
    Inferred,
    Proven,
    Observed,
    Said,
}

string_codes!(Basis);

impl Basis {
    /// The confidence this basis earns before anything speaks against it.
    pub fn confidence(self) -> Confidence {
        match self {
            Basis::Said | Basis::Observed | Basis::Proven => Confidence::High,
            Basis::Inferred => Confidence::Medium,
            Basis::Possible => Confidence::Low,
        }
    }
}

impl Witness {
    /// The basis of what this witness says about the answer's form and its
    /// own connection: probe saw it, a server's record says it, a pasted
    /// client's words are a client's words.
    pub fn basis(self) -> Basis {
        match self {
            Witness::Probe => Basis::Observed,
            Witness::Server => Basis::Said,
            Witness::Client => Basis::Inferred,
        }
    }
}

impl Confidence {
    /// One level lower (low stays low).
    pub fn lowered(self) -> Self {
        match self {
            Confidence::High => Confidence::Medium,
            _ => Confidence::Low,
        }
    }
}

/// Two causes the best evidence fits equally: neither is certain (high
/// becomes medium).
pub fn tied(confidence: &mut Confidence) {
    *confidence = (*confidence).min(Confidence::Medium);
}

/// Nothing stands out: every cause found is a guess, low.
pub fn a_guess(confidence: &mut Confidence) {
    *confidence = (*confidence).min(Confidence::Low);
}

/// When a finding that depends on the others' findings stands. "Explains"
/// counts the causes found (an `unknown` explains nothing), at their
/// confidence before a guessed join is weighed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// No cause found explains the answer at medium or above: a fallback.
    NothingStandsOut,
    /// No cause found is certain (high): the guesses a token allows.
    NothingCertain,
    /// A cause found explains the answer at medium or above.
    SomethingStandsOut,
    Found(Cause),
    NotFound(Cause),
}

impl When {
    /// Whether it stands, given whether what was found explains the answer at
    /// a confidence, and whether a cause was found.
    pub fn stands(
        self,
        explained: impl Fn(Confidence) -> bool,
        found: impl Fn(Cause) -> bool,
    ) -> bool {
        match self {
            When::NothingStandsOut => !explained(Confidence::Medium),
            When::NothingCertain => !explained(Confidence::High),
            When::SomethingStandsOut => explained(Confidence::Medium),
            When::Found(cause) => found(cause),
            When::NotFound(cause) => !found(cause),
        }
    }
}

/// The order pending findings are weighed in: strongest first (by the basis
/// of the strongest cause each would add), in tiers of one confidence. A tier
/// is weighed against what stood before it, so a fallback that stands answers
/// for the weaker ones after it, and no rule's place in the list counts.
pub fn settle<T>(pending: Vec<T>, strength: impl Fn(&T) -> Option<Basis>) -> Vec<Vec<T>> {
    let mut tiers: BTreeMap<Reverse<Option<Confidence>>, Vec<T>> = BTreeMap::new();
    for p in pending {
        let tier = strength(&p).map(Basis::confidence);
        tiers.entry(Reverse(tier)).or_default().push(p);
    }
    tiers.into_values().collect()
}

/// The confidence a cause ends with: its basis, lowered one level for each
/// fact of the same input that contradicts it, and medium at most when the
/// answer's reasons were joined to it by a guess.
pub fn confidence(basis: Basis, contradictions: usize, join: Join) -> Confidence {
    let c = (0..contradictions).fold(basis.confidence(), |c, _| c.lowered());
    match join {
        Join::Guess => c.min(Confidence::Medium),
        Join::None | Join::Exact => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_by_basis_and_contradictions() {
        // (basis, contradictions, confidence)
        for (basis, contradictions, want) in [
            // What the decider said, probe saw or the protocol proves is high.
            (Basis::Said, 0, Confidence::High),
            (Basis::Observed, 0, Confidence::High),
            (Basis::Proven, 0, Confidence::High),
            // A client's own words are medium at most.
            (Basis::Inferred, 0, Confidence::Medium),
            // A possibility is low.
            (Basis::Possible, 0, Confidence::Low),
            // Each contradiction lowers one level, and low stays low.
            (Basis::Said, 1, Confidence::Medium),
            (Basis::Said, 2, Confidence::Low),
            (Basis::Inferred, 1, Confidence::Low),
            (Basis::Possible, 3, Confidence::Low),
        ] {
            let got = confidence(basis, contradictions, Join::None);
            assert_eq!(got, want, "{basis:?} with {contradictions} contradictions");
        }
    }

    #[test]
    fn pending_findings_are_weighed_strongest_first_in_tiers() {
        let pending = vec![
            ("guess", Some(Basis::Possible)),
            ("note", None),
            ("said", Some(Basis::Said)),
            ("inferred", Some(Basis::Inferred)),
            ("proven", Some(Basis::Proven)),
        ];
        let tiers: Vec<Vec<&str>> = settle(pending, |p| p.1)
            .into_iter()
            .map(|tier| tier.into_iter().map(|p| p.0).collect())
            .collect();
        assert_eq!(
            tiers,
            [
                vec!["said", "proven"],
                vec!["inferred"],
                vec!["guess"],
                vec!["note"]
            ]
        );
    }

    #[test]
    fn when_a_pending_finding_stands() {
        // Something explains the answer at medium, and a clock skew was found.
        let explained = |c: Confidence| c <= Confidence::Medium;
        let found = |c: Cause| c == Cause::ClockSkew;
        let stands = |when: When| when.stands(explained, found);
        assert!(!stands(When::NothingStandsOut));
        assert!(stands(When::NothingCertain));
        assert!(stands(When::SomethingStandsOut));
        assert!(stands(When::Found(Cause::ClockSkew)));
        assert!(!stands(When::Found(Cause::Expired)));
        assert!(!stands(When::NotFound(Cause::ClockSkew)));
        assert!(stands(When::NotFound(Cause::Expired)));
    }

    #[test]
    fn a_guessed_join_is_never_high() {
        for basis in Basis::VARIANTS {
            assert!(confidence(*basis, 0, Join::Guess) < Confidence::High);
            assert_eq!(
                confidence(*basis, 0, Join::Exact),
                confidence(*basis, 0, Join::None)
            );
        }
        assert_eq!(confidence(Basis::Said, 0, Join::Guess), Confidence::Medium);
    }
}
