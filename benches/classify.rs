//! One kube-apiserver log line through the classify pipeline: type detection,
//! parsing the klog line and its authentication error, enriching, diagnosing.
//! (Rendering is left out: it is the shared table/JSON code.)
//!
//! Run: `cargo bench --bench classify -- --warm-up-time 1 --measurement-time 3`.
//! Lines/s = 1 / the reported time per iteration.

use std::hint::black_box;

use chrono::{DateTime, TimeDelta};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use satoken::classify::{self, Context};

const LINE: &str = r#"E1231 23:58:11.000002       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#;

fn bench(c: &mut Criterion) {
    let ctx = Context {
        token: None,
        at: None,
        now: DateTime::from_timestamp(1_767_225_600, 0).unwrap(),
        leeway: TimeDelta::seconds(60),
    };
    // Sanity: the line is recognised and yields one diagnosed event.
    assert_eq!(
        classify::classify(LINE, None, ctx).unwrap().results.len(),
        1
    );
    let mut group = c.benchmark_group("classify");
    group.throughput(Throughput::Elements(1));
    group.bench_function("apiserver-log-line", |b| {
        b.iter(|| {
            let report = classify::classify(black_box(LINE), None, ctx).unwrap();
            black_box(report.results.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
