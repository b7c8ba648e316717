#!/usr/bin/env bash
# Accuracy check: 5-fold stratified cross-validation on WDBC with a fixed seed, Chorus and
# scikit-learn (Debian's python3-sklearn, installed here if missing) on exactly the same folds.
#
#   bench/wdbc-cv.sh [SEED]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seed="${1:-42}"
out="$root/bench/out"
mkdir -p "$out"
data="$root/node/src/main/resources/dev/chorus/node/data/wdbc.csv"
if ! /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
    echo "installing python3-sklearn (Debian)..." >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-sklearn >/dev/null
fi
results="$out/wdbc-cv.jsonl"
: > "$results"
for model in logreg mlp:64; do
    "$root/chorus" bench cv --data "$data" --label Diagnosis --positive M --drop ID --model "$model" \
        --folds 5 --seed "$seed" --folds-out "$out/wdbc-folds.txt" --json | tee -a "$results"
done
/usr/bin/python3 "$root/bench/sklearn_cv.py" --data "$data" --label Diagnosis --positive M --drop ID \
    --folds-file "$out/wdbc-folds.txt" --models "logreg,mlp:64" --seed "$seed" | tee -a "$results"
/usr/bin/python3 - "$results" "$out/wdbc-cv.csv" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
acc = {(r["impl"], r["model"].removesuffix(":relu")): r for r in rows}
with open(sys.argv[2], "w") as f:
    f.write("model,chorus_accuracy,sklearn_accuracy,difference_points,chorus_auc,sklearn_auc\n")
    print(f"{'model':>8} {'chorus':>8} {'sklearn':>8} {'diff (pts)':>10} {'chorus AUC':>10} {'sklearn AUC':>11}")
    for model in ("logreg", "mlp:64"):
        c, s = acc[("chorus", model)], acc[("scikit-learn", model)]
        d = 100 * (c["accuracy"] - s["accuracy"])
        f.write(f"{model},{c['accuracy']:.4f},{s['accuracy']:.4f},{d:.2f},{c['auc']:.4f},{s['auc']:.4f}\n")
        print(f"{model:>8} {c['accuracy']:>8.4f} {s['accuracy']:>8.4f} {d:>10.2f} {c['auc']:>10.4f} {s['auc']:>11.4f}")
PY
