//! Exit codes, the contract scripts rely on (docs/output.md):
//! 0 nothing wrong; 1 a problem was diagnosed; 2 bad input or usage;
//! 3 could not get an answer (network, DNS, TLS).

use std::process::ExitCode;

/// How a run ended; the worst of several (a batch, several servers) is
/// their `max`: 3 > 2 > 1 > 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Healthy = 0,
    /// A problem was diagnosed (expired, rejected, 401, 403, skew beyond leeway…).
    Problem = 1,
    Usage = 2,
    Unreachable = 3,
}

impl Outcome {
    /// The outcome an answer of this class means: 0 for ok and 404, 3 when no
    /// answer came (TLS, network), 1 for every diagnosed problem.
    pub fn of(classification: crate::diagnosis::Classification) -> Outcome {
        if classification.is_unanswered() {
            Outcome::Unreachable
        } else {
            Outcome::problem_if(classification.is_problem())
        }
    }

    pub fn problem_if(problem: bool) -> Outcome {
        if problem {
            Outcome::Problem
        } else {
            Outcome::Healthy
        }
    }

    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> Self {
        ExitCode::from(outcome.code())
    }
}

/// Marks an error as "could not get an answer" (exit 3) rather than bad input.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unreachable(pub String);

/// The exit code for an error that ended the run: 3 if [`Unreachable`] is in
/// its chain, else 2.
pub fn outcome_for_error(error: &anyhow::Error) -> Outcome {
    if error.chain().any(|cause| cause.is::<Unreachable>()) {
        Outcome::Unreachable
    } else {
        Outcome::Usage
    }
}

/// The error as one line: its chain joined by `: `, as `{:#}` joins it, but a
/// cause whose words the line already ends with is left out (a typed error
/// that quotes its own `source`, as most say the OS error they wrap).
pub fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.ends_with(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{InputError, TokenError};

    #[test]
    fn max_is_the_worst() {
        use Outcome::*;
        assert_eq!(Healthy.max(Problem), Problem);
        assert_eq!(Usage.max(Problem), Usage);
        assert_eq!(Problem.max(Unreachable), Unreachable);
    }

    #[test]
    fn errors_map_to_codes() {
        let e = anyhow::Error::new(TokenError::Empty).context("reading");
        assert_eq!(outcome_for_error(&e), Outcome::Usage);
        let e = anyhow::Error::new(Unreachable("refused".into())).context("probing");
        assert_eq!(outcome_for_error(&e), Outcome::Unreachable);
    }

    #[test]
    fn a_quoted_cause_is_said_once() {
        let os = std::io::Error::from(std::io::ErrorKind::NotFound);
        let said = os.to_string();
        let e = anyhow::Error::new(InputError::ReadFile {
            path: "/x".into(),
            source: os,
        })
        .context("cannot read a token from file /x");
        assert_eq!(
            one_line(&e),
            format!("cannot read a token from file /x: {said}")
        );
    }
}
