//! Writes docs/man/*.1 from the command tree: `cargo run --example gen_man`.

mod pages;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man");
    std::fs::create_dir_all(&dir).expect("create docs/man");
    for (name, page) in pages::pages() {
        std::fs::write(dir.join(&name), page).expect("write man page");
        println!("wrote docs/man/{name}");
    }
}
