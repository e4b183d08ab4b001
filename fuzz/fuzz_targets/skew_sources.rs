//! `skew`'s Lease and Node list readers.
//! The body lives in the library (`satoken::fuzzing`), shared with tests/it/props.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| satoken::fuzzing::skew_sources(data));
