//! `skew`'s Lease and Node list readers.
#![no_main]

use chrono::{DateTime, TimeDelta};
use libfuzzer_sys::fuzz_target;
use satoken::skew::sources;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let now = DateTime::from_timestamp(1_767_225_600, 0).unwrap();
    let leeway = TimeDelta::seconds(60);
    let apiserver = sources::from_leases(text, "fuzz", now, leeway)
        .ok()
        .and_then(|o| o.apiserver);
    let _ = sources::from_nodes(text, "fuzz", now, leeway, apiserver);
});
