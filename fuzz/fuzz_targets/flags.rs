//! Flag value parsers (`--now`, `--leeway`, durations, `--clock`, URLs and
//! paths) and the time arithmetic they feed. The body lives in the library
//! (`satoken::fuzzing`), shared with tests/it/props.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| satoken::fuzzing::flags(data));
