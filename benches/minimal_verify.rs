//! The floor for `verify --jwks`: a minimal jsonwebtoken RS256/ES256 verifier of
//! one token against a JWKS file (key chosen by `kid`), checking signature,
//! issuer and audience, printing the claims as one JSON line. Built by
//! scripts/bench.sh (`cargo build --release --example minimal_verify`).
//!
//! `exp`/`nbf` are not checked: jsonwebtoken reads the system clock and the
//! fixtures are pinned to 2026-01-01 (`verify --now` does the time check, a
//! few integer comparisons, not a measurable cost).
//!
//! Usage: `minimal_verify TOKEN_FILE JWKS_FILE ISSUER AUDIENCE`.

use std::process::ExitCode;

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{DecodingKey, Validation};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [token_file, jwks_file, issuer, audience] = args.as_slice() else {
        eprintln!("usage: minimal_verify TOKEN_FILE JWKS_FILE ISSUER AUDIENCE");
        return ExitCode::from(2);
    };
    let token = std::fs::read_to_string(token_file).expect("token file");
    let token = token.trim();
    let jwks: JwkSet =
        serde_json::from_slice(&std::fs::read(jwks_file).expect("jwks file")).expect("jwks");
    let header = jsonwebtoken::decode_header(token).expect("header");
    let Some(jwk) = header.kid.as_deref().and_then(|kid| jwks.find(kid)) else {
        eprintln!("no key for kid");
        return ExitCode::from(1);
    };
    let key = DecodingKey::from_jwk(jwk).expect("key");
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[audience]);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.required_spec_claims.clear();
    match jsonwebtoken::decode::<serde_json::Value>(token, &key, &validation) {
        Ok(data) => {
            println!("{}", data.claims);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("invalid: {e}");
            ExitCode::from(1)
        }
    }
}
