//! Verification throughput through the library's `verify::verify`, keys parsed
//! once: RS256 (RSA 2048) and ES256 (P-256) fixture tokens against the fixture
//! JWKS. Each iteration parses the token text and runs every check, as one
//! `kubectl satoken verify` run does after loading keys. Time is pinned to the
//! fixtures' NOW so the time check passes and the work is the same every time.
//!
//! Run: `cargo bench --bench verify -- --warm-up-time 1 --measurement-time 3`.
//! Tokens/s = 1 / the reported time per iteration.

use std::hint::black_box;
use std::path::Path;

use chrono::{DateTime, TimeDelta};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use satoken::secret::SecretToken;
use satoken::token;
use satoken::verify::{self, Expectations, keys};

const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

fn testdata(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(path),
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let keys = keys::parse_jwks(&testdata("jwks.json")).unwrap();
    let now = DateTime::from_timestamp(1_767_225_600, 0).unwrap();
    let leeway = TimeDelta::seconds(60);
    let mut group = c.benchmark_group("verify");
    group.throughput(Throughput::Elements(1));
    for (name, file, audience) in [
        ("RS256", "tokens/projected.jwt", ISSUER),
        ("ES256", "tokens/projected-es256.jwt", "vault"),
    ] {
        let raw = String::from_utf8(testdata(file)).unwrap().trim().to_owned();
        let expect = Expectations {
            issuers: vec![ISSUER.to_owned()],
            audiences: vec![audience.to_owned()],
        };
        // Sanity: the benchmark must measure the success path.
        let parsed = token::parse(&SecretToken::new(raw.clone())).unwrap();
        assert!(verify::verify(&raw, &parsed, &keys, &expect, now, leeway).valid);
        let secret = SecretToken::new(raw.clone());
        group.bench_function(name, |b| {
            b.iter(|| {
                let parsed = token::parse(black_box(&secret)).unwrap();
                let report = verify::verify(black_box(&raw), &parsed, &keys, &expect, now, leeway);
                black_box(report.valid)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
