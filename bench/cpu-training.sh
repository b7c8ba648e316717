#!/usr/bin/env bash
# CPU training throughput: Chorus and PyTorch side by side in one run, same MLP (784-256-256-10,
# ReLU, softmax cross-entropy, SGD with momentum 0.9), same Fashion-MNIST data, batch 64 and 256,
# 1 and 2 threads. Prints a table with the ratios and writes bench/out/cpu-training.csv.
#
# PyTorch is Debian's python3-torch (installed here if missing). It is run twice: as installed,
# and hand-tuned (OPENBLAS_CORETYPE=$TORCH_CORETYPE and OMP_WAIT_POLICY=PASSIVE, set in the
# PyTorch command only). Chorus runs with the environment as it is.
#
#   bench/cpu-training.sh [FASHION_MNIST_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${1:-${CHORUS_FASHION_MNIST:-$root/../shared/datasets/fashion-mnist}}"
samples="${SAMPLES:-60000}"
coretype="${TORCH_CORETYPE:-Haswell}"
out="$root/bench/out"
mkdir -p "$out"
[ -f "$data/train-images-idx3-ubyte.gz" ] || { echo "Fashion-MNIST not found in $data" >&2; exit 2; }
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    echo "installing python3-torch (Debian)..." >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch >/dev/null
fi

results="$out/cpu-training.jsonl"
: > "$results"
echo "== Chorus" >&2
"$root/chorus" bench train --data "$data" --format idx --model mlp:256,256 --batch 64,256 --threads 1,2 \
    --samples "$samples" --json | tee -a "$results"
echo "== PyTorch as installed" >&2
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 "$root/bench/torch_mlp.py" --data "$data" \
    --samples "$samples" | sed 's/"impl": "pytorch"/"impl": "pytorch-installed"/' | tee -a "$results"
echo "== PyTorch hand-tuned (OPENBLAS_CORETYPE=$coretype OMP_WAIT_POLICY=PASSIVE)" >&2
env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE="$coretype" OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 \
    "$root/bench/torch_mlp.py" --data "$data" --samples "$samples" \
    | sed 's/"impl": "pytorch"/"impl": "pytorch-tuned"/' | tee -a "$results"

/usr/bin/python3 - "$results" "$out/cpu-training.csv" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {(r["impl"], r["threads"], r["batch"]): r["samplesPerSecond"] for r in rows}
keys = sorted({(r["threads"], r["batch"]) for r in rows})
with open(sys.argv[2], "w") as f:
    f.write("threads,batch,chorus,pytorch_installed,pytorch_tuned,ratio_installed,ratio_tuned\n")
    print(f"{'threads':>7} {'batch':>5} {'chorus':>10} {'torch':>10} {'torch-tuned':>11} {'x torch':>8} {'x tuned':>8}")
    for t, b in keys:
        c, p, q = by.get(("chorus", t, b)), by.get(("pytorch-installed", t, b)), by.get(("pytorch-tuned", t, b))
        ri, rt = c / p, c / q
        f.write(f"{t},{b},{c:.0f},{p:.0f},{q:.0f},{ri:.3f},{rt:.3f}\n")
        print(f"{t:>7} {b:>5} {c:>10.0f} {p:>10.0f} {q:>11.0f} {ri:>8.2f} {rt:>8.2f}")
PY
echo "wrote $out/cpu-training.csv" >&2
