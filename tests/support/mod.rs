//! Shared test support: `mod support;` in an integration test brings in the test
//! API server ([`apiserver`]), certificates ([`pki`]) and token signing ([`tokens`]).
#![allow(dead_code)]

pub mod apiserver;
pub mod pki;
pub mod tokens;
