//! `verify`'s key readers: JWKS, PEM bundles, OpenID discovery documents.
//! The body lives in the library (`satoken::fuzzing`), shared with tests/it/props.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| satoken::fuzzing::keys(data));
