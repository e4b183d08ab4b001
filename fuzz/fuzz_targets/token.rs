//! Token input detection and JWT parsing, then the analysis and both renderers.
//! The body lives in the library (`satoken::fuzzing`), shared with tests/it/props.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| satoken::fuzzing::token(data));
