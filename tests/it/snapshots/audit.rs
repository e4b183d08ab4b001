//! Snapshots of `audit` on testdata/audit/provenance.jsonl (see its README):
//! the fleet view with its credentials section (minted by a kubelet at each
//! audit level, by a user, and not in the log), and one credential asked
//! about by its token.

use super::{Invocation, check};

const AREA: &str = "audit";
const LOG: &str = "testdata/audit/provenance.jsonl";
const NOW: &str = "2026-01-02T00:00:00Z";

#[test]
fn credentials_on_findings_and_who_minted_them() {
    check(
        AREA,
        "provenance",
        &Invocation::new(&["audit", "--now", NOW, LOG]),
    );
}

#[test]
fn one_credential_by_its_token() {
    check(
        AREA,
        "token-file",
        &Invocation::new(&[
            "audit",
            "--now",
            NOW,
            "--token-file",
            "testdata/audit/checkout.jwt",
            LOG,
        ]),
    );
}
