//! `watch`: a long-running early warning. Every `--interval` (jittered) it
//! re-reads the token, measures every API server replica ([`cycle`]: clock
//! offset from `Date`, a SelfSubjectReview's answer), concludes ([`measure`]:
//! valid on each replica's clock, refresh overdue), exports the result as
//! Prometheus metrics ([`metrics`], served by [`serve`]) and logs a line per
//! change of state ([`events`]). After start nothing ends it but a signal:
//! failures become metrics and log lines.

pub mod cycle;
pub mod events;
pub mod measure;
pub mod metrics;
pub mod serve;

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use chrono::TimeDelta;
use serde_json::json;

use crate::http::RunClock;
use crate::probe::observe::Plan;
use crate::secret::SecretToken;
use crate::token::Token;
use crate::window::TimeClaims;
use events::{State, TokenRead};
use metrics::Metrics;

/// The jitter on each interval: up to this fraction either way, so that many
/// watchers started together do not ask in step.
pub const JITTER_PERCENT: u32 = 10;

/// How the loop runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The servers as given, and how to reach them.
    pub plan: Plan,
    /// Read the `kubernetes` Service's endpoints and measure each replica.
    pub discover: bool,
    pub interval: Duration,
    /// `Date` readings per replica and cycle.
    pub samples: usize,
    pub leeway: TimeDelta,
    pub clock: RunClock,
    /// Log lines as text (a terminal) rather than JSON.
    pub text_logs: bool,
}

/// A token as re-read each cycle: the secret, and its claims when it is a JWT.
pub type ReadToken = Result<(SecretToken, Option<Token>), String>;

/// `interval` with up to ±[`JITTER_PERCENT`] of it, from `random` (any u32).
pub fn jittered(interval: Duration, random: u32) -> Duration {
    let span = interval / 100 * JITTER_PERCENT;
    let fraction = f64::from(random) / f64::from(u32::MAX);
    interval.saturating_sub(span) + span.mul_f64(2.0 * fraction)
}

/// What the loop carries from one cycle to the next.
#[derive(Default)]
struct Memory {
    fingerprint: Option<String>,
    state: State,
}

/// Runs cycles until `stop` says so (or its sender is gone).
pub fn run(
    options: &Options,
    read_token: impl Fn() -> ReadToken,
    metrics: &Metrics,
    heartbeat: &serve::Heartbeat,
    log: impl Fn(String),
    stop: &Receiver<()>,
) {
    let mut memory = Memory::default();
    loop {
        one_cycle(options, &read_token, metrics, &log, &mut memory);
        heartbeat.beat();
        let mut random = [0u8; 4];
        let _ = aws_lc_rs::rand::fill(&mut random);
        match stop.recv_timeout(jittered(options.interval, u32::from_le_bytes(random))) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

fn one_cycle(
    options: &Options,
    read_token: &impl Fn() -> ReadToken,
    metrics: &Metrics,
    log: &impl Fn(String),
    memory: &mut Memory,
) {
    let started = Instant::now();
    let (secret, token) = match read_token() {
        Ok(pair) => pair,
        Err(why) => {
            metrics.record_token(None);
            let mut next = memory.state.clone();
            next.retain(|(subject, _), _| subject != "token");
            events::token_state(&mut next, TokenRead::Unreadable(&why));
            emit(options, &memory.state, &next, log);
            memory.state = next;
            return;
        }
    };
    let claims = token.as_ref().map(|t| &t.claims);
    let times = claims.map(TimeClaims::from).unwrap_or_default();
    let status = measure::token_status(
        claims,
        secret.fingerprint(),
        memory.fingerprint.as_deref(),
        options.clock.now(),
    );
    memory.fingerprint = Some(status.fingerprint.clone());
    metrics.record_token(Some(&status));
    let mut cycle = match cycle::run(
        &options.plan,
        options.discover,
        &secret,
        options.clock,
        options.samples,
    ) {
        Ok(cycle) => cycle,
        Err(e) => {
            let failing = events::Change {
                subject: "watch".to_owned(),
                aspect: "measure",
                from: None,
                to: events::observed("failing", json!({"error": e.to_string()})),
            };
            log(events::line(
                &failing,
                options.clock.now(),
                options.text_logs,
            ));
            return;
        }
    };
    let (at, leeway) = (cycle.started_at, options.leeway);
    for r in &mut cycle.replicas {
        let offset = r.offset.as_ref().filter(|_| token.is_some());
        r.valid = offset.map(|o| measure::valid_on_replica(times, at, o, leeway));
    }
    metrics.record_cycle(&cycle, started.elapsed().as_secs_f64());
    let read = TokenRead::Read {
        status: &status,
        times,
    };
    let next = events::state(&cycle, read, options.leeway);
    emit(options, &memory.state, &next, log);
    memory.state = next;
}

fn emit(options: &Options, before: &State, after: &State, log: &impl Fn(String)) {
    let at = options.clock.now();
    for change in events::changes(before, after) {
        log(events::line(&change, at, options.text_logs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_ten_percent() {
        let i = Duration::from_secs(30);
        assert_eq!(jittered(i, 0), Duration::from_secs(27));
        assert_eq!(jittered(i, u32::MAX), Duration::from_secs(33));
        let mid = jittered(i, u32::MAX / 2);
        assert!(mid > Duration::from_millis(29_990) && mid < Duration::from_millis(30_010));
    }
}
