//! The checked-in man pages match the current flags
//! (regenerate with `cargo run --example gen_man`, whose page renderer this
//! test shares).

#[path = "../../examples/gen_man/pages.rs"]
mod pages;

#[test]
fn man_pages_are_current() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man");
    let pages = pages::pages();
    assert!(pages.len() >= 2);
    for (name, page) in pages {
        let checked_in = std::fs::read(dir.join(&name)).unwrap_or_default();
        assert!(
            checked_in == page,
            "docs/man/{name} is stale: run `cargo run --example gen_man`"
        );
    }
}
