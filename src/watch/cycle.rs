//! I/O: one cycle of measurements. The replicas are found as `probe
//! --all-endpoints` finds them ([`observe::discover_replicas`], capped at
//! [`endpoints::MAX_REPLICAS`]) and reached through probe's clients, so the
//! same rules hold: verified TLS (a replica is verified against the original
//! server's name), never a redirect, never another host, and the token only
//! after a token-less request proved the handshake.
//!
//! Per replica, in order: `GET /version` (token-less, a first `Date`), the
//! SelfSubjectReview with the token (v1, then v1beta1 and v1alpha1 on 404:
//! [`observe::REVIEW_VERSIONS`]), then `GET /version` again, each timed to the
//! server's next second boundary ([`measure::next_sample_delay`]).

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::measure::{AnswerClass, ReplicaMeasurement};
use crate::http::{Connected, Exchange, Request, RunClock};
use crate::probe::endpoints;
use crate::probe::observe::{self, Plan, ServerClients};
use crate::probe::offset::{self, DateSample};
use crate::secret::SecretToken;

/// How the replicas were found this cycle.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Discovery {
    /// `endpointslices` or `endpoints`; `None` when not asked or not readable.
    pub source: Option<&'static str>,
    /// Addresses listed past the cap, not measured.
    pub omitted: usize,
    /// Why the servers as given were measured instead (sanitised text).
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cycle {
    /// Our clock when the cycle started.
    pub started_at: DateTime<Utc>,
    pub discovery: Discovery,
    pub replicas: Vec<ReplicaMeasurement>,
}

/// Measures every replica once. `plan.targets` are the servers as given;
/// `discover` reads the `kubernetes` Service's endpoints through the first.
/// `samples` is how many `Date` readings per replica (at least the two
/// requests that are sent anyway). An error when a client could not be built.
pub fn run(
    plan: &Plan,
    discover: bool,
    token: &SecretToken,
    clock: RunClock,
    samples: usize,
) -> Result<Cycle, crate::http::ConfigError> {
    let started_at = clock.now();
    let mut discovery = Discovery::default();
    let mut targets = plan.targets.clone();
    if discover && !plan.targets.is_empty() {
        let (found, replicas) = observe::discover_replicas(plan, clock, token)?;
        discovery.source = found.source;
        discovery.omitted = found.omitted;
        discovery.error = found
            .error
            .map(|e| crate::sanitize::sanitize(&e).into_owned());
        targets = replicas;
    }
    let clients = observe::clients(
        &Plan {
            targets,
            ..plan.clone()
        },
        clock,
    )?;
    let replicas = measure_all(&clients, token, clock, samples);
    Ok(Cycle {
        started_at,
        discovery,
        replicas,
    })
}

/// Every replica, a few at a time ([`endpoints::CONCURRENCY`]); results in order.
fn measure_all(
    clients: &[ServerClients],
    token: &SecretToken,
    clock: RunClock,
    samples: usize,
) -> Vec<ReplicaMeasurement> {
    let results = endpoints::each_bounded(clients, |c| measure_one(c, token, clock, samples));
    results
        .into_iter()
        .zip(clients)
        .map(|(slot, c)| {
            slot.unwrap_or_else(|| ReplicaMeasurement {
                replica: c.target.shown.clone(),
                offset: None,
                round_trip: None,
                answer: AnswerClass::Transport,
                valid: None,
            })
        })
        .collect()
}

/// Collects the `Date` samples and round trips of a replica's answers.
#[derive(Default)]
struct Samples {
    dates: Vec<DateSample>,
    round_trip: Option<Duration>,
}

impl Samples {
    fn add(&mut self, exchange: &Exchange) {
        self.dates.extend(DateSample::of(exchange));
        self.round_trip = Some(
            self.round_trip
                .map_or(exchange.latency, |r| r.min(exchange.latency)),
        );
    }
}

fn measure_one(
    clients: &ServerClients,
    token: &SecretToken,
    clock: RunClock,
    samples: usize,
) -> ReplicaMeasurement {
    let version = Request::get("/version");
    let mut collected = Samples::default();
    let answer = match clients.main.preflight(&version) {
        Ok((connected, exchange)) => {
            collected.add(&exchange);
            let answer = review(&connected, token, &mut collected);
            for _ in 2..samples.max(2) {
                if !boundary_sample(&connected, &version, clock, &mut collected) {
                    break;
                }
            }
            answer
        }
        Err(_) => AnswerClass::Transport,
    };
    ReplicaMeasurement {
        replica: clients.target.shown.clone(),
        offset: offset::estimate(&collected.dates),
        round_trip: collected.round_trip,
        answer,
        valid: None,
    }
}

/// The SelfSubjectReview with the token, newest version first, falling back
/// on 404 as `probe` does.
fn review(connected: &Connected<'_>, token: &SecretToken, samples: &mut Samples) -> AnswerClass {
    let mut status = None;
    for version in observe::REVIEW_VERSIONS {
        let request = observe::self_subject_review(version);
        match connected.send(&request, Some(token)) {
            Ok(exchange) => {
                samples.add(&exchange);
                status = Some(exchange.status);
                if exchange.status != 404 {
                    break;
                }
            }
            Err(_) => {
                status = None;
                break;
            }
        }
    }
    AnswerClass::of(status)
}

/// One more token-less `Date` reading, sent to straddle the server's next
/// second boundary; false when no answer came.
fn boundary_sample(
    connected: &Connected<'_>,
    version: &Request,
    clock: RunClock,
    samples: &mut Samples,
) -> bool {
    let (Some(interval), Some(round_trip)) = (offset::estimate(&samples.dates), samples.round_trip)
    else {
        return false;
    };
    if let Some(wait) = super::measure::next_sample_delay(&interval, clock.now(), round_trip) {
        std::thread::sleep(wait);
    }
    connected
        .send(version, None)
        .map(|e| samples.add(&e))
        .is_ok()
}
