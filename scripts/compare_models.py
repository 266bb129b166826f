#!/usr/bin/env python3
"""Logistic regression against gradient-boosted trees on the matching model's pairs, held out
by repository (issue 23, item 2).

  cargo run --release --example fit_matching -- --dry-run --dump pairs.jsonl
  pip install scikit-learn==1.9.1
  python3 scripts/compare_models.py pairs.jsonl

Reads every labelled pair (features, label, repository) that `fit_matching --dump` writes,
fits each model on every repository but one and predicts that one's pairs, pooled, and prints
the held-out pair AUC and log loss. The engine ships whichever wins: so far the logistic model
(docs/scoring.md), so no trees are shipped and this script is not part of the tests.
"""
import json
import sys

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score


def held_out(make, X, y, groups):
    p = np.zeros(len(y))
    for repo in sorted(set(groups)):
        train, test = groups != repo, groups == repo
        if y[train].min() == y[train].max():
            continue
        model = make()
        model.fit(X[train], y[train])
        p[test] = model.predict_proba(X[test])[:, 1]
    return roc_auc_score(y, p), log_loss(y, np.clip(p, 1e-6, 1 - 1e-6))


def main(path):
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    rows = [r for r in rows if r["label"] is not None]
    X = np.array([r["features"] for r in rows])
    y = np.array([r["label"] for r in rows]).astype(int)
    groups = np.array([r["repo"] for r in rows])
    print(f"{len(y)} labelled pairs, {y.sum()} one defect, {len(set(groups))} repositories")
    candidates = {
        "logistic, L2 (C=10, as the shipped fit's penalty 0.1)": lambda: LogisticRegression(C=10, max_iter=5000),
        "logistic, L2 (C=1)": lambda: LogisticRegression(C=1, max_iter=5000),
    }
    for depth in (2, 3):
        for rate in (0.05, 0.1):
            candidates[f"gradient-boosted trees, depth {depth}, rate {rate}, 200 trees"] = (
                lambda d=depth, r=rate: GradientBoostingClassifier(
                    n_estimators=200, max_depth=d, learning_rate=r, subsample=0.8, random_state=0))
    candidates["histogram gradient boosting, depth 3, rate 0.05, 300 trees, L2 1"] = lambda: HistGradientBoostingClassifier(
        max_depth=3, learning_rate=0.05, max_iter=300, l2_regularization=1.0, random_state=0)
    print("| model | held-out pair AUC | held-out log loss |\n|---|---:|---:|")
    for name, make in candidates.items():
        auc, loss = held_out(make, X, y, groups)
        print(f"| {name} | {auc:.3f} | {loss:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1])
