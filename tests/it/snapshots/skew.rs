//! `skew` snapshots: `--clock` incidents, the Lease and Node fixtures in
//! testdata/skew/ (alone, together, on stdin, judged an hour late), and the
//! token-iat estimate when no clock source is given. Tokens come from
//! testdata/tokens/ or are signed at test time around NOW.

use chrono::TimeDelta;

use super::{Invocation, NOW, check};
use crate::support::base;
use crate::support::tokens::{projected, sign};

const AREA: &str = "skew";
/// Issued 30 s before NOW, valid an hour (iat = nbf = NOW - 30 s).
const RECENT: &str = "testdata/tokens/token-request.jwt";

fn skew(args: &[&str]) -> Invocation {
    Invocation::new(&["skew", "--now", NOW]).args(args)
}

/// A token minted at NOW (valid an hour), on stdin.
fn minted_now(invocation: Invocation) -> Invocation {
    invocation.stdin("minted-at-now.jwt", sign(&projected(base(), 3600)))
}

#[test]
fn clocks_given_by_hand() {
    check(
        AREA,
        "clock-node-a-90s-behind",
        &minted_now(skew(&["--clock", "node-a=-90s", "--clock", "node-b=+0s"])),
    );
    check(
        AREA,
        "clock-rfc3339-token-minted-90s-ahead",
        &skew(&[
            "-f",
            "testdata/tokens/not-yet-valid.jwt",
            "--clock",
            "node-b=2026-01-01T00:01:30Z",
        ]),
    );
    check(
        AREA,
        "clock-healthy",
        &skew(&["-f", RECENT, "--clock", "a=+5s", "--clock", "b=-5s"]),
    );
    check(
        AREA,
        "clock-and-leases-timeline",
        &minted_now(skew(&[
            "--clock",
            "user-a=-90s",
            "--clock",
            "user-b=+0s",
            "--leases",
            "testdata/skew/leases-all.json",
        ])),
    );
}

#[test]
fn lease_and_node_fixtures() {
    for (name, args) in [
        (
            "node-leases",
            &["--leases", "testdata/skew/node-leases.json"][..],
        ),
        ("leases-all", &["--leases", "testdata/skew/leases-all.json"]),
        ("nodes", &["--nodes", "testdata/skew/nodes.json"]),
        (
            "node-leases-and-nodes",
            &[
                "--leases",
                "testdata/skew/node-leases.json",
                "--nodes",
                "testdata/skew/nodes.json",
            ],
        ),
        (
            "node-leases-no-managed-fields",
            &[
                "--leases",
                "testdata/skew/node-leases-no-managed-fields.json",
            ],
        ),
    ] {
        check(AREA, name, &skew(&["-f", RECENT]).args(args));
    }
    // cp-2 runs 90 s behind cp-1, which minted the token just now.
    check(
        AREA,
        "apiserver-leases-token-minted-now",
        &minted_now(skew(&["--leases", "testdata/skew/apiserver-leases.json"])),
    );
    let leases =
        std::fs::read_to_string(super::crate_dir().join("testdata/skew/node-leases.json")).unwrap();
    check(
        AREA,
        "node-leases-stdin-no-token",
        &skew(&["--leases", "-"]).stdin("testdata/skew/node-leases.json", leases),
    );
    check(
        AREA,
        "node-leases-an-hour-old",
        &Invocation::new(&[
            "skew",
            "--now",
            "2026-01-01T01:00:00Z",
            "--leases",
            "testdata/skew/node-leases.json",
        ]),
    );
}

#[test]
fn token_iat_alone() {
    // Issued "now" by a server 90 s ahead: the iat places the issuer.
    check(
        AREA,
        "iat-90s-ahead",
        &skew(&["-f", "testdata/tokens/not-yet-valid.jwt"]),
    );
    // An hour-old token says nothing about clocks.
    check(
        AREA,
        "iat-an-hour-old",
        &skew(&[]).stdin(
            "issued-an-hour-ago.jwt",
            sign(&projected(base() - TimeDelta::hours(1), 3660)),
        ),
    );
}
