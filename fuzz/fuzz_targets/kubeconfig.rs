//! probe's kubeconfig reader: YAML parsing, then context resolution.
#![no_main]

use libfuzzer_sys::fuzz_target;
use satoken::kubeconfig;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = std::path::Path::new("fuzz.kubeconfig");
    if let Ok(file) = kubeconfig::parse_file(path, text) {
        let _ = kubeconfig::resolve(vec![file], None);
    }
});
