#!/usr/bin/env python3
"""Lines of src/ as the project's line budget counts them: every line of each .rs
file up to its first `#[cfg(test)]`, `tests.rs` files apart, and the vocabulary
tables (a path containing `vocab`) apart. Prints non-test, vocabulary and test
lines, and apart the test-only modules (a `mod x;` declared under `#[cfg(test)]`,
whose files the rule's letter counts as non-test): counted as test, and added
back in the last figure, the count by the rule's letter.

Usage: python3 scripts/count_lines.py [--at-test-module] [ROOT]

--at-test-module cuts a file at its test module (`#[cfg(test)]` then `mod tests`
or an inline `mod … {`) instead of at its first `#[cfg(test)]`, for comparing a
tree where a test-only item stood early in a file.
"""
import os
import re
import sys

DECLARED = re.compile(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+(\w+);")


def rust_files(root):
    """(path, file name, lines) of every `.rs` file under `src/`."""
    for folder, _, files in os.walk(os.path.join(root, "src")):
        for name in files:
            if name.endswith(".rs"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    yield path, name, f.read().splitlines()


def test_only_modules(root):
    """Files and folders of modules declared `#[cfg(test)] mod x;` (not `tests.rs`)."""
    out = []
    for path, name, lines in rust_files(root):
        # A module's children live beside `mod.rs`/`lib.rs`, else in a
        # folder named for the file.
        folder = os.path.dirname(path)
        base = folder if name in ("mod.rs", "lib.rs", "main.rs") else path[:-3]
        for prev, line in zip(lines, lines[1:]):
            m = DECLARED.match(line)
            if prev.strip() == "#[cfg(test)]" and m and m.group(1) != "tests":
                out.append(os.path.join(base, m.group(1)))
    return out


def cut(lines, at_module):
    for i, line in enumerate(lines):
        if not line.strip().startswith("#[cfg(test)]"):
            continue
        if not at_module:
            return i
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if nxt.startswith(("mod ", "pub(crate) mod ", "pub mod ")) and (
            nxt.endswith("{") or nxt.startswith("mod tests")
        ):
            return i
    return len(lines)


def main(argv):
    at_module = "--at-test-module" in argv
    args = [a for a in argv if a != "--at-test-module"]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    code = vocab = test = test_only = 0
    modules = test_only_modules(root)
    for path, name, lines in rust_files(root):
        if name == "tests.rs":
            test += len(lines)
            continue
        if any(path == m + ".rs" or path.startswith(m + os.sep) for m in modules):
            test += len(lines)
            test_only += cut(lines, at_module)
            continue
        n = cut(lines, at_module)
        test += len(lines) - n
        if "vocab" in os.path.relpath(path, root):
            vocab += n
        else:
            code += n
    print(
        f"non-test {code}  vocabulary {vocab}  test {test}"
        f"  (test-only modules {test_only}; non-test by the rule's letter {code + test_only})"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
