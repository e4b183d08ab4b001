//! The one place the system clock is read. `--now` pins it, so every analysis
//! and every I/O timestamp in one run agrees on what "now" is.

use chrono::{DateTime, Utc};

/// Where "now" comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// The system clock.
    System,
    /// `--now`: a fixed instant.
    Fixed(DateTime<Utc>),
}

impl Clock {
    /// The current instant on this clock.
    pub fn now(&self) -> DateTime<Utc> {
        match self {
            #[expect(clippy::disallowed_methods, reason = "the one sanctioned clock read")]
            Clock::System => Utc::now(),
            Clock::Fixed(at) => *at,
        }
    }
}
