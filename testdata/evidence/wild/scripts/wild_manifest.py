#!/usr/bin/env python3
"""Checks the wild corpus's split and marks the cases whose text cannot carry
their cause (testdata/evidence/wild/README.md, "Text that cannot carry its
cause"). Reads only each case's manifest fields and whether its text holds the
words that name its cause; prints nothing of any text.

    testdata/evidence/wild/scripts/wild_manifest.py          # check; exit 1 on a duplicate or a split incident
    testdata/evidence/wild/scripts/wild_manifest.py --write  # also (re)write text_carries_cause
"""
import collections
import hashlib
import sys

import corpus

# A 401's cause, and the words (lower case) by which a text names it or the
# fact that fixes it. A 401 case whose text holds none of its cause's words
# carries only the status: the cause came from the thread.
CAUSE_WORDS = {
    "expired": ["expir"],
    "clock-skew": ["not valid yet", "not yet valid", "future", "nbf", "iat", "clock", "skew"],
    "token-not-sent": ["anonymous", "credential", "no token", "empty token", "authorization"],
    "signature-invalid": ["signature", "crypto", "verification"],
    "key-mismatch": ["signature", "crypto", "key", "kid"],
    "issuer-mismatch": ["issuer", "iss"],
    "audience-mismatch": ["audience", "aud"],
    "service-account-deleted": ["serviceaccount", "service account", "deleted", "not found"],
    "service-account-recreated": ["serviceaccount", "service account", "uid", "recreated"],
    "pod-deleted": ["pod", "invalidated"],
    "secret-deleted": ["secret", "invalidated"],
    "node-deleted": ["node", "invalidated"],
    "legacy-token-invalidated": ["invalidated", "legacy", "does not match"],
}


def carries(case, text):
    words = CAUSE_WORDS.get(case["cause"])
    if case["answer"] != "401" or words is None:
        return True
    lower = text.lower()
    return any(w in lower for w in words)


def main():
    manifest = corpus.load()
    problems = []
    digests = collections.defaultdict(list)
    sets = collections.defaultdict(set)
    for case in manifest:
        text = corpus.text_path(case).read_bytes()
        digests[hashlib.sha256(text).hexdigest()].append(case["id"])
        sets[case["source_url"]].add(case["set"])
        if "--write" in sys.argv:
            case.pop("text_carries_cause", None)
            if not carries(case, text.decode("utf-8", "replace")):
                case["text_carries_cause"] = False
    problems += [f"same text: {ids}" for ids in digests.values() if len(ids) > 1]
    problems += [f"thread in both sets: {u}" for u, s in sets.items() if len(s) > 1]
    if "--write" in sys.argv:
        corpus.save(manifest)
    for p in problems:
        print(p)
    marked = collections.Counter(c["set"] for c in manifest if c.get("text_carries_cause") is False)
    print(f"{len(manifest)} cases; text cannot carry its cause: {dict(marked)}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
