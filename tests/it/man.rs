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

/// Examples are commands to copy: each page keeps its block as written
/// (unfilled), or man would justify and split them across lines.
#[test]
fn examples_are_kept_as_written() {
    for (name, page) in pages::pages() {
        let page = String::from_utf8(page).unwrap();
        let Some(at) = page.find("\nExamples:\n") else {
            continue;
        };
        assert!(page[..at].ends_with("\n.nf"), "{name}: examples are filled");
        let block = &page[at..];
        let end = block.find("\n.SH").unwrap_or(block.len());
        assert!(block[..end].ends_with("\n.fi"), "{name}: .nf is not closed");
    }
}
