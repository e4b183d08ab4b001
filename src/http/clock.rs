//! A run's clock for I/O timestamps: the run's [`Clock`] plus the monotonic time
//! elapsed since the run started. With `--now T` "now" is `T + elapsed`, so send
//! and receive instants keep their real spacing (round-trip times stay true) while
//! every instant stays anchored to the pinned `T`.

use std::time::Instant;

use chrono::{DateTime, TimeDelta, Utc};

use crate::clock::Clock;

/// The run's clock, advancing monotonically from its start.
#[derive(Debug, Clone, Copy)]
pub struct RunClock {
    clock: Clock,
    started: Instant,
}

impl RunClock {
    pub fn start(clock: Clock) -> Self {
        RunClock {
            clock,
            started: Instant::now(),
        }
    }

    /// The current instant: the system clock, or the pinned instant plus the
    /// monotonic time elapsed since [`RunClock::start`].
    pub fn now(&self) -> DateTime<Utc> {
        match self.clock {
            Clock::System => self.clock.now(),
            Clock::Fixed(at) => {
                at + TimeDelta::from_std(self.started.elapsed()).unwrap_or(TimeDelta::MAX)
            }
        }
    }

    /// The instant the run started on this clock (for `--now T`, exactly `T`).
    pub fn started_at(&self) -> DateTime<Utc> {
        match self.clock {
            Clock::System => {
                self.clock.now()
                    - TimeDelta::from_std(self.started.elapsed()).unwrap_or(TimeDelta::zero())
            }
            Clock::Fixed(at) => at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_clock_advances_monotonically_from_the_pin() {
        let pin = DateTime::from_timestamp(1_767_225_600, 0).unwrap();
        let clock = RunClock::start(Clock::Fixed(pin));
        let a = clock.now();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = clock.now();
        assert!(a >= pin && b > a, "{a} {b}");
        assert!(b - pin < TimeDelta::seconds(5));
        assert_eq!(clock.started_at(), pin);
    }
}
