#!/usr/bin/env python3
"""Lines of src/ as the project's line budget counts them: every line of each .rs
file up to its first `#[cfg(test)]`, `tests.rs` files apart, and the vocabulary
tables (a path containing `vocab`) apart. Prints non-test, vocabulary and test
lines.

Usage: python3 scripts/count_lines.py [--at-test-module] [ROOT]

--at-test-module cuts a file at its test module (`#[cfg(test)]` then `mod tests`
or an inline `mod … {`) instead of at its first `#[cfg(test)]`, for comparing a
tree where a test-only item stood early in a file.
"""
import os
import sys


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
    code = vocab = test = 0
    for folder, _, files in os.walk(os.path.join(root, "src")):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            if name == "tests.rs":
                test += len(lines)
                continue
            n = cut(lines, at_module)
            test += len(lines) - n
            if "vocab" in os.path.relpath(path, root):
                vocab += n
            else:
                code += n
    print(f"non-test {code}  vocabulary {vocab}  test {test}")


if __name__ == "__main__":
    main(sys.argv[1:])
