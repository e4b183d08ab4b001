//! `verify`'s key readers: JWKS, PEM bundles, OpenID discovery documents.
#![no_main]

use libfuzzer_sys::fuzz_target;
use satoken::verify::keys;

fuzz_target!(|data: &[u8]| {
    if let Ok(set) = keys::parse_jwks(data) {
        let _ = set.kids();
    }
    if let Ok(set) = keys::parse_pem_keys(data) {
        let _ = set.kids();
    }
    let _ = keys::parse_openid_configuration(data);
});
