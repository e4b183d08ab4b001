#!/usr/bin/env python3
"""Validate the wild corpus's manifests (manifest.json, sealed/manifest.json)
and print the counts tables.

Standard library only.  Usage (from anywhere):

    python3 testdata/evidence/wild/scripts/wild_corpus_check.py          # check + counts
    python3 testdata/evidence/wild/scripts/wild_corpus_check.py --markdown  # counts as Markdown

Exit status 0 when the corpus is consistent, 1 otherwise (every problem is listed).
"""
import collections
import re
import sys

import corpus

FIELDS = [
    "id", "file", "source_url", "source_kind", "where", "printed_by",
    "kubernetes_version", "answer", "cause", "established_by", "also_possible",
    "truncated", "set",
]

# Every case is in one set: the cases recognisers and rules may be written
# from, and the sealed ones they are only scored on (scripts/add_cases.py
# assigns new cases by source thread).
SETS = {"development", "evaluation"}

SOURCE_KINDS = {
    "github-issue", "github-pr", "github-discussion", "stackoverflow",
    "serverfault", "superuser", "devops-stackexchange", "unix-stackexchange",
    "askubuntu", "reddit", "forum", "mailing-list", "docs", "knowledge-base",
    "blog", "repo-file",
}

ANSWERS = {
    "401", "403", "404", "2xx", "other-status", "tls", "network",
    "checker-failure", "none",
}

# Causes given by the brief (first block), the "likely new" codes proposed there
# (second block) and the codes added while collecting this corpus (third block).
CAUSES = {
    # existing
    "none", "clock-skew", "expired", "key-mismatch", "signature-invalid",
    "issuer-mismatch", "audience-mismatch", "token-malformed",
    "service-account-deleted", "service-account-recreated", "pod-deleted",
    "secret-deleted", "node-deleted", "legacy-token-invalidated", "stale-token",
    "token-not-sent", "rbac-denied", "rbac-role-missing", "object-not-found",
    "tls-untrusted-ca", "tls-name-mismatch", "tls-certificate-expired",
    "tls-other", "dns-failure", "connection-refused", "timeout", "redirected",
    "unknown",
    # proposed in the brief
    "admission-denied", "webhook-denied", "pod-security-denied",
    "node-restriction-denied", "service-account-admission", "quota-exceeded",
    "non-rbac-authorizer-denied", "checker-unauthorized", "checker-unreachable",
    "client-certificate-expired", "client-certificate-untrusted",
    "oidc-authenticator-error", "claim-validation-failed",
    "cloud-federation-mismatch", "cloud-oidc-provider-missing",
    "image-pull-token-denied", "not-kubernetes-answer",
    # added for this corpus
    "checker-policy-denied", "credential-provider-config-invalid",
    "api-not-served",
    # cloud identity refusals (the sealed batch)
    "cloud-trust-policy-denied", "pod-identity-association-missing",
    "cloud-caller-denied", "cloud-role-arn-invalid", "cloud-oidc-discovery-failed",
    "cloud-client-not-found", "cloud-token-not-accepted",
    "credential-provider-unsupported", "credential-plugin-failed",
    "network-unreachable", "legacy-token-not-generated", "wrong-endpoint",
    "kubelet-webhook-authn-disabled",
    # the API server's own refusal to serve more (429), given a code once a
    # batch's threads established it
    "throttled",
}

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
VERSION_RE = re.compile(r"^1\.[0-9]{1,2}$")
PRINTED_BY_RE = re.compile(r"^[a-z0-9][a-z0-9.-]*$")


def check(manifest):
    problems = []
    if not isinstance(manifest, list):
        return ["manifest.json is not a JSON array"]
    ids = [e.get("id") for e in manifest if isinstance(e, dict)]
    if len(ids) != len(set(ids)):
        dups = sorted(i for i, n in collections.Counter(ids).items() if n > 1)
        problems.append("duplicate ids: %s" % ", ".join(map(str, dups)))
    if ids != sorted(ids, key=str):
        problems.append("entries are not sorted by id")
    listed = set()
    for n, e in enumerate(manifest):
        where = "entry %d (%s)" % (n, e.get("id") if isinstance(e, dict) else "?")
        if not isinstance(e, dict):
            problems.append("%s: not an object" % where)
            continue
        missing = [k for k in FIELDS if k not in e]
        # Optional: false when the text cannot carry its cause (wild_manifest.py).
        extra = [k for k in e if k not in FIELDS and k != "text_carries_cause"]
        if e.get("text_carries_cause", False) is not False:
            problems.append("%s: text_carries_cause is only ever false" % where)
        if missing:
            problems.append("%s: missing fields %s" % (where, missing))
            continue
        if extra:
            problems.append("%s: unexpected fields %s" % (where, extra))
        if not isinstance(e["id"], str) or not ID_RE.match(e["id"]):
            problems.append("%s: id is not lowercase kebab-case" % where)
        if e["file"] != "%s.txt" % e["id"]:
            problems.append("%s: file must be <id>.txt" % where)
        path = corpus.text_path(e)
        listed.add(path)
        if not path.is_file():
            problems.append("%s: file %s does not exist" % (where, e["file"]))
        elif path.parent != corpus.FOLDERS.get(e["set"]):
            problems.append("%s: file is not beside its set's manifest (wild_manifest.py --write moves it)" % where)
        else:
            with open(path, "rb") as f:
                data = f.read()
            if not data.endswith(b"\n") or data.endswith(b"\n\n") or len(data) < 2:
                problems.append("%s: file must end with exactly one newline and not be empty" % where)
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                problems.append("%s: file is not UTF-8" % where)
        if not (isinstance(e["source_url"], str) and e["source_url"].startswith("https://")):
            problems.append("%s: source_url must be an https URL" % where)
        if e["source_kind"] not in SOURCE_KINDS:
            problems.append("%s: source_kind %r not allowed" % (where, e["source_kind"]))
        for k in ("where", "established_by"):
            if not (isinstance(e[k], str) and e[k].strip()):
                problems.append("%s: %s must be a non-empty string" % (where, k))
        if not (isinstance(e["printed_by"], str) and PRINTED_BY_RE.match(e["printed_by"])):
            problems.append("%s: printed_by must be a lowercase program name" % where)
        v = e["kubernetes_version"]
        if v is not None and not (isinstance(v, str) and VERSION_RE.match(v)):
            problems.append("%s: kubernetes_version must be null or \"1.N\"" % where)
        if e["answer"] not in ANSWERS:
            problems.append("%s: answer %r not allowed" % (where, e["answer"]))
        if e["cause"] not in CAUSES:
            problems.append("%s: cause %r not in the vocabulary" % (where, e["cause"]))
        if e["cause"] == "unknown" and not str(e["established_by"]).startswith("not established"):
            problems.append("%s: cause unknown but established_by does not say 'not established'" % where)
        if e["cause"] != "unknown" and str(e["established_by"]).startswith("not established"):
            problems.append("%s: established_by says 'not established' but cause is %r" % (where, e["cause"]))
        ap = e["also_possible"]
        if not isinstance(ap, list) or any(c not in CAUSES for c in ap):
            problems.append("%s: also_possible must be a list of vocabulary causes" % where)
        elif e["cause"] in ap:
            problems.append("%s: also_possible repeats the cause" % where)
        if not isinstance(e["truncated"], bool):
            problems.append("%s: truncated must be true or false" % where)
        if e["set"] not in SETS:
            problems.append("%s: set must be one of %s" % (where, sorted(SETS)))
    on_disk = {p for d in corpus.FOLDERS.values() if d.is_dir() for p in d.glob("*.txt")}
    for f in sorted(on_disk - listed):
        problems.append("file %s has no manifest entry" % f.relative_to(corpus.WILD))
    return problems


def table(title, counter, markdown):
    rows = sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))
    out = []
    if markdown:
        out.append("| %s | cases |" % title)
        out.append("|---|---:|")
        out.extend("| %s | %d |" % ("null" if k is None else k, n) for k, n in rows)
    else:
        out.append("%s:" % title)
        out.extend("  %-44s %4d" % ("null" if k is None else k, n) for k, n in rows)
    return "\n".join(out)


def counts(manifest, markdown=False):
    parts = []
    by = lambda key: collections.Counter(e[key] for e in manifest)
    parts.append(table("answer", by("answer"), markdown))
    parts.append(table("cause", by("cause"), markdown))
    parts.append(table("answer / cause",
                       collections.Counter("%s / %s" % (e["answer"], e["cause"]) for e in manifest),
                       markdown))
    parts.append(table("printed_by", by("printed_by"), markdown))
    parts.append(table("kubernetes_version", by("kubernetes_version"), markdown))
    parts.append(table("source_kind", by("source_kind"), markdown))
    parts.append(table("set", by("set"), markdown))
    c401 = {e["cause"] for e in manifest if e["answer"] == "401"} - {"unknown"}
    non_rbac_403 = [e for e in manifest if e["answer"] == "403"
                    and e["cause"] not in ("rbac-denied", "rbac-role-missing", "unknown")]
    summary = [
        "total cases: %d" % len(manifest),
        "401 cases: %d; distinct established 401 causes: %d (%s)"
        % (sum(e["answer"] == "401" for e in manifest), len(c401), ", ".join(sorted(c401))),
        "403 cases: %d; of them with an established non-RBAC cause: %d"
        % (sum(e["answer"] == "403" for e in manifest), len(non_rbac_403)),
        "404 cases: %d; tls+network cases: %d"
        % (sum(e["answer"] == "404" for e in manifest),
           sum(e["answer"] in ("tls", "network") for e in manifest)),
        "distinct printed_by: %d; truncated excerpts: %d"
        % (len(by("printed_by")), sum(e["truncated"] for e in manifest)),
    ]
    if markdown:
        summary = ["- " + s for s in summary]
    return "\n".join(summary) + "\n\n" + "\n\n".join(parts)


def main(argv):
    manifest = corpus.load()
    problems = check(manifest)
    if problems:
        for p in problems:
            print("PROBLEM: " + p)
        print("%d problem(s)" % len(problems))
        return 1
    print(counts(manifest, markdown="--markdown" in argv))
    if "--markdown" not in argv:
        print("\nOK: %d cases, manifest and files agree" % len(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
