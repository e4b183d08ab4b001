//! From the rules' findings to one [`Diagnosis`]: the single merge and ranking
//! every subcommand uses.
//!
//! Confidence is computed here, not taken on trust: rules say how strongly
//! each piece of evidence points at a cause, and the merge
//! - keeps one candidate per cause (the strongest claim, all the support);
//! - drops guesses that a read of the API ruled out;
//! - lowers a `high` that another cause matches equally (two authoritative
//!   sources disagreeing is itself uncertainty) and puts the commands that tell
//!   the tied causes apart first;
//! - names no cause at all (`unknown`, low) when nothing rises above a guess,
//!   and lists the guesses as the candidates to check.
//!
//! Every candidate's next steps come from its cause's one definition
//! ([`super::cause::CauseDef::next`]), filled in from the case.

use serde::Serialize;

use super::cause::Cause;
use super::classification::Classification;
use super::facts::{Case, Join};
use super::next::NextStep;
pub use super::policy::Confidence;
use super::policy::{self, Basis, When};
use super::support::{Support, SupportKind};

/// One candidate cause with its confidence, the facts behind it and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub cause: Cause,
    pub confidence: Confidence,
    /// What the confidence was earned on (see [`super::policy`]).
    pub basis: Basis,
    pub support: Vec<Support>,
    pub next: Vec<NextStep>,
}

/// The conclusion about one answer (or one run): its class, the most likely
/// cause first, then the others the evidence allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    pub classification: Classification,
    /// Every cause considered, most likely first; never empty.
    pub candidates: Vec<Candidate>,
    /// Facts about the case that support no cause in particular.
    pub notes: Vec<Support>,
}

impl Diagnosis {
    pub fn top(&self) -> &Candidate {
        &self.candidates[0]
    }

    /// Fills `placeholder` in every candidate's next steps with `value` (a
    /// name the edge knows and the evidence does not: the token file given).
    pub fn fill_placeholder(&mut self, placeholder: &str, value: &str) {
        let steps = self.candidates.iter_mut().flat_map(|c| &mut c.next);
        for command in steps.filter_map(|s| s.command.as_mut()) {
            command.fill(placeholder, value);
        }
    }

    pub fn cause(&self) -> Cause {
        self.top().cause
    }

    pub fn confidence(&self) -> Confidence {
        self.top().confidence
    }

    pub fn alternatives(&self) -> &[Candidate] {
        &self.candidates[1..]
    }

    /// The other candidates worth listing beside the top one: "none" is not.
    pub fn others(&self) -> impl Iterator<Item = &Candidate> {
        self.alternatives()
            .iter()
            .filter(|c| c.cause != Cause::None)
    }
}

/// What the rules found about one case, in the order they wrote it; merged
/// only when ranked, once every rule has spoken.
#[derive(Debug, Default, Clone)]
pub struct Findings {
    log: Vec<Entry>,
}

/// One thing a rule wrote.
#[derive(Debug, Clone)]
enum Entry {
    Found(Cause, Basis, Vec<Support>),
    /// A fact of the same input that speaks against a cause.
    Against(Cause, Support),
    /// Findings that stand only in some state of the others' (see
    /// [`policy::When`]).
    When(When, Vec<Entry>),
    RuleOut(Cause),
    TellApart(Vec<Cause>, NextStep),
    Note(Support),
    /// The answer is of this class after all, for these facts (replicas
    /// that answer differently), which lead the top cause's support.
    Class(Classification, Vec<Support>),
}

impl Findings {
    /// The evidence points at `cause`, on this basis (the policy makes it a
    /// confidence).
    pub fn add(&mut self, cause: Cause, basis: Basis, support: Vec<Support>) {
        self.log.push(Entry::Found(cause, basis, support));
    }

    /// [`Findings::add`] with one fact.
    pub fn add_fact(
        &mut self,
        cause: Cause,
        basis: Basis,
        kind: SupportKind,
        text: impl Into<String>,
    ) {
        self.add(cause, basis, vec![Support::new(kind, text)]);
    }

    /// A fact of the same input that contradicts `cause`: it lowers the
    /// cause one level, and is shown with it.
    pub fn contradict(&mut self, cause: Cause, why: Support) {
        self.log.push(Entry::Against(cause, why));
    }

    /// More support for a cause, shown if any rule finds it.
    pub fn support(&mut self, cause: Cause, support: Support) {
        let more = Entry::Found(cause, Basis::Possible, vec![support]);
        self.log.push(Entry::When(When::Found(cause), vec![more]));
    }

    /// What `write` finds stands only `when` the other rules' findings allow
    /// it: the policy decides once every rule has spoken, so no rule reads
    /// another's findings and the rules' order does not matter.
    pub fn when(&mut self, when: When, write: impl FnOnce(&mut Findings)) {
        let mut pending = Findings::default();
        write(&mut pending);
        self.log.push(Entry::When(when, pending.log));
    }

    /// An API read showed `cause` is not it: guesses of it are dropped.
    pub fn rule_out(&mut self, cause: Cause) {
        self.log.push(Entry::RuleOut(cause));
    }

    /// When these causes tie, this step tells them apart.
    pub fn tell_apart(&mut self, causes: &[Cause], step: NextStep) {
        self.log.push(Entry::TellApart(causes.to_vec(), step));
    }

    /// A fact about the case that supports no cause in particular.
    pub fn note(&mut self, support: Support) {
        self.log.push(Entry::Note(support));
    }

    /// Takes in `other`'s findings, as if its rule had written them here.
    pub(crate) fn absorb(&mut self, other: Findings) {
        self.log.extend(other.log);
    }

    /// The findings that stand: the pending ones whose condition holds in
    /// their place ([`policy::settle`] says in what order they are weighed,
    /// each against what stands before it), the others gone.
    fn settled(self) -> Findings {
        let strongest = |entries: &[Entry]| {
            entries
                .iter()
                .filter_map(|e| match e {
                    Entry::Found(_, basis, _) => Some(*basis),
                    _ => None,
                })
                .max()
        };
        let pending = self.log.iter().enumerate().filter_map(|(i, e)| match e {
            Entry::When(when, entries) => Some((i, *when, strongest(entries))),
            _ => None,
        });
        let mut standing = Vec::new();
        for tier in policy::settle(pending.collect(), |p| p.2) {
            let now = self.merged(&standing);
            standing.extend(
                tier.into_iter()
                    .filter(|(_, when, _)| when.stands(|c| now.explains(c), |c| now.has(c)))
                    .map(|(i, _, _)| i),
            );
        }
        let log = self.log.into_iter().enumerate();
        let log = log.flat_map(|(i, e)| match e {
            Entry::When(_, entries) if standing.contains(&i) => entries,
            Entry::When(..) => Vec::new(),
            e => vec![e],
        });
        Findings { log: log.collect() }
    }

    /// The log merged, with the pending findings at these places.
    fn merged(&self, standing: &[usize]) -> Merged {
        let mut m = Merged::default();
        for (i, entry) in self.log.iter().enumerate() {
            match entry {
                Entry::When(_, entries) if standing.contains(&i) => {
                    entries.iter().for_each(|e| m.take(e.clone()));
                }
                e => m.take(e.clone()),
            }
        }
        m
    }

    /// Merges and ranks: the one algorithm (see the module header).
    pub fn rank(self, case: &Case<'_>) -> Diagnosis {
        self.settled().merged(&[]).rank(case)
    }

    /// Several servers asked with one token, as one run's diagnosis: the
    /// servers whose answer is the worst class speak, each fact named with
    /// its server, and the others' answers are notes; then ranked once, as
    /// one case is. `replicas`: the facts that make the run's answer
    /// replica-dependent, when replicas answer differently.
    pub fn across(servers: Vec<Server<'_, '_>>, replicas: Option<Vec<Support>>) -> Diagnosis {
        let worst = servers.iter().map(|s| s.case.classification());
        let worst = worst.max_by_key(|c| c.severity());
        let several = servers.len() > 1;
        let mut all = Findings::default();
        let mut case = None;
        for s in servers {
            let class = s.case.classification();
            let about = |mut support: Support| {
                if several && support.server.is_none() {
                    support = support.about(s.url);
                }
                support
            };
            if Some(class) == worst {
                case = case.or(Some(s.case));
                all.log.extend(
                    s.findings
                        .settled()
                        .log
                        .into_iter()
                        .map(|e| e.about(&about)),
                );
            } else {
                let who = s.user.map(|u| format!(" as {u}")).unwrap_or_default();
                all.note(about(Support::new(
                    SupportKind::Servers,
                    format!("{}{who}", class.as_str()),
                )));
            }
        }
        if let Some(lines) = replicas {
            all.log
                .push(Entry::Class(Classification::ReplicaDependent, lines));
        }
        match case {
            Some(case) => all.rank(case),
            None => Diagnosis {
                classification: Classification::NetworkError,
                candidates: vec![unknown(Vec::new(), &Case::default())],
                notes: Vec::new(),
            },
        }
    }
}

/// One server's case and what the rules found in it, for [`Findings::across`].
pub struct Server<'s, 't> {
    pub url: &'s str,
    pub case: &'s Case<'t>,
    pub findings: Findings,
    /// The user it authenticated the token as.
    pub user: Option<&'s str>,
}

impl Entry {
    /// The entry with every fact passed through `about`.
    fn about(self, about: &impl Fn(Support) -> Support) -> Entry {
        let all = |v: Vec<Support>| v.into_iter().map(about).collect();
        match self {
            Entry::Found(c, b, v) => Entry::Found(c, b, all(v)),
            Entry::Against(c, s) => Entry::Against(c, about(s)),
            Entry::When(w, entries) => {
                Entry::When(w, entries.into_iter().map(|e| e.about(about)).collect())
            }
            Entry::Note(s) => Entry::Note(about(s)),
            Entry::Class(c, v) => Entry::Class(c, all(v)),
            e @ (Entry::RuleOut(_) | Entry::TellApart(..)) => e,
        }
    }
}

/// One cause found, with everything said for it.
#[derive(Debug)]
struct Found {
    cause: Cause,
    basis: Basis,
    support: Vec<Support>,
}

/// The findings merged: one entry per cause.
#[derive(Debug, Default)]
struct Merged {
    found: Vec<Found>,
    against: Vec<(Cause, Support)>,
    ruled_out: Vec<Cause>,
    tell_apart: Vec<(Vec<Cause>, NextStep)>,
    notes: Vec<Support>,
    class: Option<(Classification, Vec<Support>)>,
}

impl Merged {
    fn take(&mut self, entry: Entry) {
        match entry {
            Entry::Found(cause, basis, support) => self.add(cause, basis, support),
            Entry::Against(cause, why) => push_new(&mut self.against, (cause, why)),
            Entry::When(..) => {}
            Entry::RuleOut(cause) => push_new(&mut self.ruled_out, cause),
            Entry::TellApart(causes, step) => self.tell_apart.push((causes, step)),
            Entry::Note(support) => push_new(&mut self.notes, support),
            Entry::Class(class, support) => self.class = Some((class, support)),
        }
    }

    fn add(&mut self, cause: Cause, basis: Basis, support: Vec<Support>) {
        match self.found.iter_mut().find(|f| f.cause == cause) {
            Some(found) => {
                found.basis = found.basis.max(basis);
                for s in support {
                    push_new(&mut found.support, s);
                }
            }
            None => self.found.push(Found {
                cause,
                basis,
                support,
            }),
        }
    }

    fn has(&self, cause: Cause) -> bool {
        self.found.iter().any(|f| f.cause == cause)
    }

    /// Whether a cause found (not `unknown`) explains the answer at
    /// `confidence` or above, before a guessed join is weighed (the reasons
    /// explain the answer, if it is theirs).
    fn explains(&self, confidence: Confidence) -> bool {
        self.found.iter().any(|f| {
            f.cause != Cause::Unknown && self.confidence_of_found(f, Join::None) >= confidence
        })
    }

    fn confidence_of_found(&self, found: &Found, join: Join) -> Confidence {
        // One fact seen on several servers speaks against a cause once.
        let mut against: Vec<&str> = self
            .against
            .iter()
            .filter(|(c, _)| *c == found.cause)
            .map(|(_, s)| s.text.as_str())
            .collect();
        against.sort_unstable();
        against.dedup();
        policy::confidence(found.basis, against.len(), join)
    }

    fn rank(self, case: &Case<'_>) -> Diagnosis {
        // Each cause's confidence under the policy, with what spoke against it.
        let mut found: Vec<Candidate> = self
            .found
            .iter()
            .map(|f| {
                let mut support = f.support.clone();
                support.extend(
                    self.against
                        .iter()
                        .filter(|(c, _)| *c == f.cause)
                        .map(|(_, s)| s.clone()),
                );
                let confidence = self.confidence_of_found(f, case.joined);
                candidate(f.cause, confidence, f.basis, support, case)
            })
            .collect();
        let Merged {
            ruled_out,
            tell_apart,
            notes,
            class,
            ..
        } = self;
        found.retain(|c| !(ruled_out.contains(&c.cause) && c.confidence < Confidence::High));
        // Once a cause stands out, the "evidence does not say" guess goes; and
        // "nothing wrong" is the answer only when nothing else was found.
        if found.iter().any(|c| c.confidence >= Confidence::Medium) {
            found.retain(|c| !(c.cause == Cause::Unknown && c.confidence == Confidence::Low));
        }
        if found
            .iter()
            .any(|c| c.cause != Cause::None && c.confidence >= Confidence::Medium)
        {
            found.retain(|c| c.cause != Cause::None);
        }
        // Stable: among equals the rule that spoke first (the more authoritative
        // source) stays first.
        found.sort_by_key(|c| std::cmp::Reverse(c.confidence));
        let top = found.first().map(|c| c.confidence);
        let candidates = match top {
            Some(top) if top >= Confidence::Medium => {
                let tied = found.iter().filter(|c| c.confidence == top).count();
                if tied > 1 {
                    for c in &mut found[..tied] {
                        policy::tied(&mut c.confidence);
                    }
                    let causes: Vec<Cause> = found[..tied].iter().map(|c| c.cause).collect();
                    lead_with_discriminators(&mut found[0], &causes, &tell_apart);
                }
                found
            }
            _ => {
                // Nothing stands out: say so rather than promote a guess.
                let (unknowns, mut guesses): (Vec<Candidate>, Vec<Candidate>) =
                    found.into_iter().partition(|c| c.cause == Cause::Unknown);
                for guess in &mut guesses {
                    policy::a_guess(&mut guess.confidence);
                }
                let support = unknowns.into_iter().flat_map(|c| c.support).collect();
                let mut top = unknown(support, case);
                let causes: Vec<Cause> = guesses.iter().map(|c| c.cause).collect();
                lead_with_discriminators(&mut top, &causes, &tell_apart);
                std::iter::once(top).chain(guesses).collect()
            }
        };
        let (classification, lead) = class.unwrap_or((case.classification(), Vec::new()));
        let mut candidates = candidates;
        candidates[0].support.splice(0..0, lead);
        Diagnosis {
            classification,
            candidates,
            notes,
        }
    }
}

/// A candidate with its cause's steps for this case.
fn candidate(
    cause: Cause,
    confidence: Confidence,
    basis: Basis,
    support: Vec<Support>,
    case: &Case<'_>,
) -> Candidate {
    Candidate {
        cause,
        confidence,
        basis,
        support,
        next: cause.def().next(case),
    }
}

/// The candidate that names no cause, with this support.
fn unknown(support: Vec<Support>, case: &Case<'_>) -> Candidate {
    let basis = Basis::Possible;
    candidate(Cause::Unknown, basis.confidence(), basis, support, case)
}

/// Puts the steps registered for telling apart two or more of `causes`
/// before `c`'s own steps, each step once.
fn lead_with_discriminators(
    c: &mut Candidate,
    causes: &[Cause],
    tell_apart: &[(Vec<Cause>, NextStep)],
) {
    let own = std::mem::take(&mut c.next);
    let discriminators = tell_apart
        .iter()
        .filter(|(set, _)| set.iter().filter(|c| causes.contains(c)).count() >= 2)
        .map(|(_, step)| step.clone());
    for step in discriminators.chain(own) {
        // A cause's own step that runs the discriminator's command again
        // says less than it: the command is shown once.
        let again =
            step.command.is_some() && c.next.iter().any(|s: &NextStep| s.command == step.command);
        if !again {
            push_new(&mut c.next, step);
        }
    }
}

/// Appends `item` unless an equal one is there already.
fn push_new<T: PartialEq>(items: &mut Vec<T>, item: T) {
    if !items.contains(&item) {
        items.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Vec<Support> {
        vec![Support::new(SupportKind::Context, text)]
    }

    fn case_401() -> Case<'static> {
        Case {
            answer: super::super::facts::Answer::Rejected,
            ..Case::default()
        }
    }

    #[test]
    fn servers_rank_as_one_case_the_worst_class_speaking() {
        let ok = Case {
            answer: super::super::testing::http(200, None),
            ..Case::default()
        };
        let rejected = case_401();
        let against = Support::new(SupportKind::Token, "inside its window");
        let on = |url, case| {
            let mut f = Findings::default();
            f.add(Cause::ClockSkew, Basis::Proven, s("ahead"));
            f.contradict(Cause::ClockSkew, against.clone());
            f.add(Cause::KeyMismatch, Basis::Inferred, s(url));
            Server {
                url,
                case,
                findings: f,
                user: Some("system:serviceaccount:a:b"),
            }
        };
        let servers = vec![
            on("https://a", &rejected),
            on("https://b", &ok),
            on("https://c", &rejected),
        ];
        let d = Findings::across(servers, None);
        assert_eq!(d.classification, Classification::Unauthorized);
        // The same fact on two servers speaks against skew once: high -> medium,
        // then tied with key-mismatch (medium) stays medium.
        let skew = d
            .candidates
            .iter()
            .find(|c| c.cause == Cause::ClockSkew)
            .unwrap();
        assert_eq!(skew.confidence, Confidence::Medium);
        let servers: Vec<_> = skew
            .support
            .iter()
            .filter_map(|s| s.server.as_deref())
            .collect();
        assert_eq!(
            servers,
            ["https://a", "https://c", "https://a", "https://c"]
        );
        assert_eq!(d.notes.len(), 1, "{:?}", d.notes);
        assert_eq!(d.notes[0].text, "ok as system:serviceaccount:a:b");
        assert_eq!(d.notes[0].server.as_deref(), Some("https://b"));
        let lead = Support::new(SupportKind::Servers, "replicas disagree");
        let d = Findings::across(vec![on("https://a", &rejected)], Some(vec![lead.clone()]));
        assert_eq!(d.classification, Classification::ReplicaDependent);
        assert_eq!(d.top().support[0], lead);
    }

    #[test]
    fn the_most_confident_wins_and_causes_merge() {
        let mut f = Findings::default();
        f.add(Cause::KeyMismatch, Basis::Possible, s("a"));
        f.add(Cause::ClockSkew, Basis::Inferred, s("b"));
        f.add(Cause::ClockSkew, Basis::Possible, s("c"));
        let d = f.rank(&case_401());
        assert_eq!(d.cause(), Cause::ClockSkew);
        assert_eq!(d.confidence(), Confidence::Medium);
        assert_eq!(d.top().support.len(), 2);
        assert_eq!(d.candidates.len(), 2);
        assert!(!d.top().next.is_empty(), "steps come from the definition");
    }

    #[test]
    fn two_authoritative_causes_lower_each_other() {
        let mut f = Findings::default();
        f.add(Cause::PodDeleted, Basis::Said, s("a"));
        f.add(Cause::SecretDeleted, Basis::Said, s("b"));
        f.tell_apart(
            &[Cause::PodDeleted, Cause::SecretDeleted],
            NextStep::say("look at the token's binding"),
        );
        let d = f.rank(&case_401());
        assert_eq!(d.cause(), Cause::PodDeleted);
        assert_eq!(d.confidence(), Confidence::Medium);
        assert_eq!(d.candidates[1].confidence, Confidence::Medium);
        assert_eq!(d.top().next[0].why, "look at the token's binding");
    }

    #[test]
    fn guesses_alone_make_an_unknown_and_reads_rule_guesses_out() {
        let mut f = Findings::default();
        f.add(Cause::ServiceAccountRecreated, Basis::Possible, s("a"));
        f.add(Cause::PodDeleted, Basis::Possible, s("b"));
        f.rule_out(Cause::PodDeleted);
        let d = f.rank(&case_401());
        assert_eq!(d.cause(), Cause::Unknown);
        assert_eq!(d.confidence(), Confidence::Low);
        let causes: Vec<Cause> = d.candidates.iter().map(|c| c.cause).collect();
        assert_eq!(causes, [Cause::Unknown, Cause::ServiceAccountRecreated]);
        // Nothing found at all is the same.
        let d = Findings::default().rank(&case_401());
        assert_eq!(d.cause(), Cause::Unknown);
    }

    #[test]
    fn a_contradicting_fact_lowers_a_cause_and_is_shown_with_it() {
        let mut f = Findings::default();
        f.add(Cause::ServiceAccountRecreated, Basis::Said, s("a"));
        f.contradict(
            Cause::ServiceAccountRecreated,
            Support::new(SupportKind::Audit, "the uid did not change"),
        );
        let d = f.rank(&case_401());
        assert_eq!(d.cause(), Cause::ServiceAccountRecreated);
        assert_eq!(d.confidence(), Confidence::Medium);
        assert_eq!(d.top().basis, Basis::Said);
        assert!(
            d.top()
                .support
                .iter()
                .any(|s| s.text == "the uid did not change")
        );
    }

    #[test]
    fn an_authoritative_cause_survives_a_contradicting_read() {
        let mut f = Findings::default();
        f.add(Cause::ServiceAccountRecreated, Basis::Said, s("a"));
        f.rule_out(Cause::ServiceAccountRecreated);
        assert_eq!(f.rank(&case_401()).cause(), Cause::ServiceAccountRecreated);
    }
}
