//! Token input detection (raw, Bearer, Authorization header, TokenRequest and
//! Secret JSON, batches) and JWT parsing, then the analysis and both renderers:
//! errors are fine, panics are not.
#![no_main]

use std::io::Cursor;

use chrono::{DateTime, TimeDelta};
use libfuzzer_sys::fuzz_target;
use satoken::input::{TokenInput, read_tokens};
use satoken::report::json::DecodeJson;
use satoken::report::{Styles, TableStyle, table};
use satoken::{decode, token};

fuzz_target!(|data: &[u8]| {
    let Ok(input) = read_tokens(Box::new(Cursor::new(data.to_vec())), "fuzz") else {
        return;
    };
    let shaped: Vec<_> = match input {
        TokenInput::Single(s) => vec![s],
        TokenInput::Batch(lines) => lines.filter_map(|l| l.ok()?.result.ok()).collect(),
    };
    let now = DateTime::from_timestamp(1_767_225_600, 0).unwrap();
    for shaped in shaped {
        let Ok(token) = token::parse(&shaped.token) else {
            continue;
        };
        let report = decode::analyse(token, &shaped, now, TimeDelta::seconds(60));
        let mut sink = Vec::new();
        serde_json::to_writer(&mut sink, &DecodeJson::new(&report, Some(1))).unwrap();
        let style = TableStyle {
            styles: Styles::default(),
            width: 80,
        };
        table::write_decode(&mut sink, &report, &style).unwrap();
    }
});
