#!/usr/bin/env python3
"""scikit-learn side of the accuracy comparison: k-fold cross-validation on exactly the folds that
`./chorus bench cv` used (read from its fold file), with the same preprocessing (drop columns,
z-score fitted on the training folds only). Prints one JSON object per model.
"""
import argparse
import csv
import json

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("--positive", required=True)
    ap.add_argument("--drop", default="")
    ap.add_argument("--folds-file", required=True, help="row,fold CSV, as written by chorus bench cv --folds-out")
    ap.add_argument("--models", default="logreg,mlp:64")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    drop = {c for c in args.drop.split(",") if c}
    with open(args.data, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    label_index = header.index(args.label)
    feature_index = [i for i, h in enumerate(header) if i != label_index and h not in drop]
    x = np.array([[float(r[i]) for i in feature_index] for r in body], dtype=np.float64)
    y = np.array([1 if r[label_index] == args.positive else 0 for r in body])
    with open(args.folds_file) as f:
        pairs = [line.strip().split(",") for line in f if line.strip() and not line.startswith("row")]
    folds = np.full(len(y), -1)
    for row, fold in pairs:
        folds[int(row)] = int(fold)
    if len(folds) != len(y):
        raise SystemExit(f"fold file has {len(folds)} rows, data has {len(y)}")

    for spec in args.models.split(","):
        accs, aucs = [], []
        for k in sorted(set(folds)):
            train, test = folds != k, folds == k
            scaler = StandardScaler().fit(x[train])
            xtr, xte = scaler.transform(x[train]), scaler.transform(x[test])
            if spec == "logreg":
                model = LogisticRegression(max_iter=5000)
            elif spec.startswith("mlp:"):
                hidden = tuple(int(h) for h in spec[4:].split(";"))
                model = MLPClassifier(hidden_layer_sizes=hidden, max_iter=2000, random_state=args.seed)
            else:
                raise SystemExit(f"unknown model {spec}")
            model.fit(xtr, y[train])
            accs.append(accuracy_score(y[test], model.predict(xte)))
            aucs.append(roc_auc_score(y[test], model.predict_proba(xte)[:, 1]))
        print(json.dumps({
            "impl": "scikit-learn",
            "model": spec.replace(";", ","),
            "foldAccuracy": accs,
            "accuracy": float(np.mean(accs)),
            "auc": float(np.mean(aucs)),
        }), flush=True)


if __name__ == "__main__":
    main()
