//! `explain` snapshots for codes that are not causes: an answer, a finding.

use super::{Invocation, check};

const AREA: &str = "explain";

#[test]
fn codes_the_tool_prints() {
    for code in ["401-invalid-token", "not-yet-valid", "clock-skw"] {
        check(AREA, code, &Invocation::new(&["explain", code]));
    }
}
