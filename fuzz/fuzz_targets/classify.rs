//! `classify`'s evidence reader: type detection, every format's parser, and the
//! diagnosis of each event.
#![no_main]

use chrono::{DateTime, TimeDelta};
use libfuzzer_sys::fuzz_target;
use satoken::classify::{self, Context};

fuzz_target!(|data: &[u8]| {
    // The binary reads evidence lossily (logs carry stray bytes); so does this.
    let text = String::from_utf8_lossy(data);
    let ctx = Context {
        token: None,
        at: None,
        now: DateTime::from_timestamp(1_767_225_600, 0).unwrap(),
        leeway: TimeDelta::seconds(60),
    };
    let _ = classify::classify(&text, None, ctx);
});
