//! The metrics `watch` exports, defined once ([`DEFINITIONS`]: registered from
//! here, and docs/watch.md's reference is generated from the same table), and
//! their update from a [`Cycle`].
//!
//! Names follow Prometheus' conventions: the `satoken_` prefix, base units
//! (`_seconds`), `_total` on counters (prometheus-client appends it), 0/1
//! gauges for states. Label cardinality is bounded: `replica` takes at most
//! [`MAX_REPLICA_LABELS`] values at a time (the discovery cap; the rest are
//! counted in `satoken_replicas_omitted`), a replica that is gone has its
//! series removed, and `answer` has five values.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::cycle::Cycle;
use super::measure::{self, AnswerClass, TokenStatus};
use crate::probe::endpoints;
use crate::timefmt::as_seconds_f64;

/// The prefix of every metric.
pub const PREFIX: &str = "satoken";

/// Most `replica` label values exported at once: probe's discovery cap.
pub const MAX_REPLICA_LABELS: usize = endpoints::MAX_REPLICAS;

/// A metric's type, as Prometheus names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gauge,
    Counter,
}

/// One metric: its name as exported, type, labels and help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricDef {
    /// Without the prefix, and for a counter without `_total` (both added).
    pub stem: &'static str,
    pub kind: Kind,
    pub labels: &'static [&'static str],
    pub help: &'static str,
}

impl MetricDef {
    /// The name as scraped.
    pub fn name(&self) -> String {
        let total = if self.kind == Kind::Counter {
            "_total"
        } else {
            ""
        };
        format!("{PREFIX}_{}{total}", self.stem)
    }
}

const REPLICA: &[&str] = &["replica"];

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ReplicaLabel {
    replica: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct AnswerLabels {
    replica: String,
    answer: String,
}

type FloatGauge = Gauge<f64, AtomicU64>;
type PerReplica = Family<ReplicaLabel, FloatGauge>;

/// Each metric once: its field in [`Metrics`], its type there, and its
/// definition; [`DEFINITIONS`] and the registration follow from the one list.
macro_rules! metrics {
    ($($field:ident: $type:ty = $kind:ident($stem:literal, $labels:expr, $help:literal),)*) => {
        /// Every metric, in the order scraped.
        pub const DEFINITIONS: &[MetricDef] = &[$(MetricDef {
            stem: $stem,
            kind: Kind::$kind,
            labels: $labels,
            help: $help,
        }),*];

        /// The live metrics (cheap to clone: every metric is shared).
        #[derive(Debug, Clone, Default)]
        pub struct Metrics {
            $($field: $type,)*
            /// The replica label values exported now.
            labelled: Arc<Mutex<BTreeSet<String>>>,
        }

        impl Metrics {
            /// The metrics, registered in a new registry.
            pub fn register() -> (Metrics, Registry) {
                let m = Metrics::default();
                let mut registry = Registry::with_prefix(PREFIX);
                $(registry.register($stem, $help, m.$field.clone());)*
                (m, registry)
            }
        }
    };
}

metrics! {
    offset: PerReplica = Gauge("replica_clock_offset_seconds", REPLICA,
        "The replica's clock minus this process's, from its Date headers (positive: the replica is ahead)"),
    uncertainty: PerReplica = Gauge("replica_clock_offset_uncertainty_seconds", REPLICA,
        "Half the width of the interval the offset is known to lie in: RTT/2 plus what is left of Date's one-second resolution"),
    round_trip: PerReplica = Gauge("replica_round_trip_seconds", REPLICA,
        "The shortest request round trip to the replica in the last cycle"),
    spread: FloatGauge = Gauge("replicas_clock_spread_seconds", &[],
        "The largest difference between two replicas' clock offsets in the last cycle"),
    reviews: Family<AnswerLabels, Counter> = Counter("replica_reviews", &["replica", "answer"],
        "SelfSubjectReviews sent with the token, by replica and answer (ok, 401, 403, other, transport)"),
    valid: PerReplica = Gauge("token_valid_on_replica", REPLICA,
        "1 when the token's nbf/iat/exp window (with the leeway) holds on the replica's measured clock, else 0"),
    expiry: FloatGauge = Gauge("token_expiry_seconds", &[],
        "Seconds until the token's exp on this process's clock (negative once past)"),
    past_warn_after: Gauge = Gauge("token_past_warnafter", &[],
        "1 when the token is past kubernetes.io.warnafter (still accepted, audited as stale), else 0"),
    refresh_overdue: Gauge = Gauge("token_refresh_overdue", &[],
        "1 when the token is older than 80 % of its requested lifetime or 24 h, when the kubelet should have replaced it, else 0"),
    token_readable: Gauge = Gauge("token_readable", &[],
        "1 when the token file was read and holds one token this cycle, else 0"),
    token_changes: Counter = Counter("token_file_changes", &[],
        "Times the token file held another token than the cycle before"),
    replicas: Gauge = Gauge("replicas", &[], "Replicas measured in the last cycle"),
    omitted: Gauge = Gauge("replicas_omitted", &[],
        "Replica addresses listed past the cap and not measured (nor labelled) in the last cycle"),
    discovery_failures: Counter = Counter("discovery_failures", &[],
        "Cycles in which the kubernetes Service's endpoints were not readable (the servers as given were measured)"),
    cycles: Counter = Counter("cycles", &[], "Measurement cycles completed"),
    cycle_duration: FloatGauge = Gauge("cycle_duration_seconds", &[], "How long the last cycle took"),
    last_cycle: FloatGauge = Gauge("last_cycle_timestamp_seconds", &[],
        "When the last cycle started, Unix seconds on this process's clock"),
}

impl Metrics {
    /// The token's state this cycle; `None` when it could not be read.
    pub fn record_token(&self, status: Option<&TokenStatus>) {
        let Some(s) = status else {
            self.token_readable.set(0);
            return;
        };
        self.token_readable.set(1);
        self.expiry.set(s.seconds_to_expiry.unwrap_or(f64::NAN));
        self.past_warn_after.set(i64::from(s.past_warn_after));
        self.refresh_overdue.set(i64::from(s.refresh_overdue));
        if s.changed {
            self.token_changes.inc();
        }
    }

    /// A cycle's measurements; series of replicas no longer measured go.
    pub fn record_cycle(&self, cycle: &Cycle, duration_seconds: f64) {
        let now: BTreeSet<String> = cycle
            .replicas
            .iter()
            .take(MAX_REPLICA_LABELS)
            .map(|r| r.replica.clone())
            .collect();
        {
            let mut labelled = self.labelled.lock().unwrap_or_else(PoisonError::into_inner);
            for gone in labelled.difference(&now) {
                self.forget(gone);
            }
            *labelled = now;
        }
        for r in cycle.replicas.iter().take(MAX_REPLICA_LABELS) {
            let label = ReplicaLabel {
                replica: r.replica.clone(),
            };
            // A value not measured this cycle has no series (not a stale one).
            let offset = r.offset.as_ref();
            for (family, value) in [
                (&self.offset, offset.map(|o| o.estimate_seconds())),
                (&self.uncertainty, offset.map(|o| o.uncertainty_seconds())),
                (&self.round_trip, r.round_trip.map(|rtt| rtt.as_secs_f64())),
                (&self.valid, r.valid.map(|v| f64::from(u8::from(v)))),
            ] {
                match value {
                    Some(v) => _ = family.get_or_create(&label).set(v),
                    None => _ = family.remove(&label),
                }
            }
            self.reviews
                .get_or_create(&AnswerLabels {
                    replica: r.replica.clone(),
                    answer: r.answer.as_str().to_owned(),
                })
                .inc();
        }
        let spread = measure::spread(cycle.replicas.iter().filter_map(|r| r.offset.as_ref()));
        self.spread.set(spread.map_or(0.0, as_seconds_f64));
        let measured = cycle.replicas.len().min(MAX_REPLICA_LABELS);
        let dropped = cycle.replicas.len() - measured + cycle.discovery.omitted;
        self.replicas.set(measured as i64);
        self.omitted.set(dropped as i64);
        if cycle.discovery.error.is_some() {
            self.discovery_failures.inc();
        }
        self.cycles.inc();
        self.cycle_duration.set(duration_seconds);
        self.last_cycle
            .set(cycle.started_at.timestamp_millis() as f64 / 1000.0);
    }

    /// Removes every series of a replica.
    fn forget(&self, replica: &str) {
        let label = ReplicaLabel {
            replica: replica.to_owned(),
        };
        for family in [
            &self.offset,
            &self.uncertainty,
            &self.round_trip,
            &self.valid,
        ] {
            family.remove(&label);
        }
        for answer in AnswerClass::ALL {
            self.reviews.remove(&AnswerLabels {
                replica: replica.to_owned(),
                answer: answer.as_str().to_owned(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::cycle::Discovery;
    use crate::watch::measure::ReplicaMeasurement;

    fn cycle(replicas: usize, omitted: usize) -> Cycle {
        Cycle {
            started_at: crate::window::at_seconds(1_767_225_600),
            discovery: Discovery {
                omitted,
                ..Discovery::default()
            },
            replicas: (0..replicas)
                .map(|i| ReplicaMeasurement {
                    replica: format!("https://10.0.0.{i}:6443"),
                    offset: None,
                    round_trip: None,
                    answer: AnswerClass::Transport,
                    valid: None,
                })
                .collect(),
        }
    }

    fn labelled(registry: &Registry) -> BTreeSet<String> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
        text.lines()
            .filter_map(|l| l.split_once("replica=\"")?.1.split_once('"'))
            .map(|(r, _)| r.to_owned())
            .collect()
    }

    #[test]
    fn replicas_past_the_cap_are_counted_and_gone_ones_removed() {
        let (metrics, registry) = Metrics::register();
        metrics.record_cycle(&cycle(40, 5), 0.1);
        assert_eq!(labelled(&registry).len(), MAX_REPLICA_LABELS);
        assert_eq!(metrics.omitted.get(), 13);
        metrics.record_cycle(&cycle(2, 0), 0.1);
        assert_eq!(labelled(&registry).len(), 2);
        assert_eq!(metrics.omitted.get(), 0);
        assert_eq!(metrics.cycles.get(), 2);
    }
}
