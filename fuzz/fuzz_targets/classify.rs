//! `classify`'s evidence reader: type detection, every format, the diagnosis.
//! The body lives in the library (`satoken::fuzzing`), shared with tests/it/props.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| satoken::fuzzing::classify(data));
