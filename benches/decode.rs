//! One token through what `decode -o json` does after reading its input: shape
//! detection, parse (base64url, JSON, typed claims, fingerprint), analysis at a
//! fixed instant, and rendering the JSON wire form. Two fixtures: a projected
//! RS256 token (no findings) and an expired one (time findings with formatted
//! instants).
//!
//! Run: `cargo bench --bench decode -- --warm-up-time 1 --measurement-time 3`.
//! Tokens/s = 1 / the reported time per iteration.

use std::hint::black_box;
use std::path::Path;

use chrono::{DateTime, TimeDelta};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use satoken::report::json::{DecodeJson, write_pretty};
use satoken::{decode, input, token};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/tokens")
        .join(name);
    std::fs::read_to_string(path).unwrap().trim().to_owned()
}

fn bench(c: &mut Criterion) {
    let now = DateTime::from_timestamp(1_767_225_600, 0).unwrap();
    let leeway = TimeDelta::seconds(60);
    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Elements(1));
    for name in ["projected.jwt", "expired.jwt"] {
        let line = fixture(name);
        let mut out = Vec::with_capacity(8192);
        group.bench_function(name, |b| {
            b.iter(|| {
                let shaped = input::shape::detect_line(black_box(&line));
                let token = token::parse(&shaped.token).unwrap();
                let report = decode::analyse(token, &shaped, now, leeway);
                out.clear();
                write_pretty(&mut out, &DecodeJson::new(&report, None)).unwrap();
                black_box(out.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
