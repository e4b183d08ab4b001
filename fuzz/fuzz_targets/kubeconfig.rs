//! probe's kubeconfig reader: YAML parsing, then context resolution.
//! The body lives in the library (`satoken::fuzzing`), shared with tests/it/props.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| satoken::fuzzing::kubeconfig(data, None));
