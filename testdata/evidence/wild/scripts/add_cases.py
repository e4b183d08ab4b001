#!/usr/bin/env python3
"""Add a batch of collected cases to the wild corpus, each assigned to a set.

Standard library only.  Usage (from anywhere):

    python3 testdata/evidence/wild/scripts/add_cases.py INCOMING_DIR [INCOMING_DIR ...]

An incoming directory holds `<id>.txt` files and a `manifest.json` with the
corpus's fields except `set`.  Every case is assigned to the `development` or
the `evaluation` set by its source thread: the thread's URL (without its
fragment, query and trailing slash) hashed with SEED.  The same thread always
lands in the same set, whatever the batch, so no thread is in both; about half
the threads go to evaluation.  Cases whose thread the corpus already holds are
refused (the new cases must come from threads it has not used), as are ids
that collide.  The files move into the corpus, each beside its set's manifest
(scripts/corpus.py: evaluation cases under sealed/), and the manifests are
rewritten, sorted by id; then wild_corpus_check.py validates the whole.

Recognisers and rules are written by reading development cases only; the
scorer (tests/it/wild) reports both sets and prints the misses of the
development set alone.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import urllib.parse

import corpus
# Fixed once, with the first sealed batch: changing it would move threads
# between the sets.
SEED = "satoken-wild-2026-11-27"


def thread(url):
    """The thread a URL points into: scheme, host and path, no anchor or query."""
    u = urllib.parse.urlsplit(url.strip())
    return "%s://%s%s" % (u.scheme, u.netloc.lower(), u.path.rstrip("/"))


def set_of(url):
    digest = hashlib.sha256(("%s\n%s" % (SEED, thread(url))).encode()).digest()
    return "evaluation" if digest[0] % 2 else "development"


def main(dirs):
    cases = corpus.load()
    used = {thread(e["source_url"]) for e in cases}
    ids = {e["id"] for e in cases}
    added, refused = [], []
    for d in dirs:
        with open(os.path.join(d, "manifest.json"), encoding="utf-8") as f:
            batch = json.load(f)
        for e in batch:
            if thread(e["source_url"]) in used:
                refused.append("%s: thread already in the corpus (%s)" % (e["id"], e["source_url"]))
                continue
            if e["id"] in ids:
                refused.append("%s: id already in the corpus" % e["id"])
                continue
            e["set"] = set_of(e["source_url"])
            target = corpus.text_path(e)
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(os.path.join(d, e["file"]), target)
            ids.add(e["id"])
            added.append(e)
        # Threads of this batch are used only once the whole batch is read:
        # several cases of one thread all come in together.
        used |= {thread(e["source_url"]) for e in batch}
    corpus.save(cases + added)
    for r in refused:
        print("refused: " + r)
    by_set = {}
    for e in added:
        by_set[e["set"]] = by_set.get(e["set"], 0) + 1
    print("added %d cases: %s" % (len(added), ", ".join("%s %d" % kv for kv in sorted(by_set.items()))))
    check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wild_corpus_check.py")
    return subprocess.call([sys.executable, check])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
