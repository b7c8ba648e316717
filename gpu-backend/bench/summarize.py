#!/usr/bin/env python3
"""Tables of the device check's benchmark results (JSON lines from CudaTrainingBenchmark,
CudaGemmBenchmark, torch_cuda_mlp.py and torch_gemm.py), with the ratios against the goals:
training at least 0.9x PyTorch at the largest batch, GEMM at least 90% of PyTorch's matmul."""
import json
import sys


def main(path):
    rows = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    train = [r for r in rows if "samplesPerSecond" in r]
    gemm = [r for r in rows if "tflops" in r]
    if train:
        by = {(r["impl"], r["model"], r["batch"]): r["samplesPerSecond"] for r in train}
        keys = sorted({(r["model"], r["batch"]) for r in train})
        largest = max(b for _, b in keys)
        print("training throughput, samples/s (synthetic 784-feature data, SGD momentum 0.9)")
        print(f"{'model':<16} {'batch':>6} {'chorus':>11} {'torch host':>11} {'torch dev':>11}"
              f" {'x host':>7} {'x dev':>7}")
        for model, batch in keys:
            c = by.get(("chorus", model, batch))
            h = by.get(("pytorch-host", model, batch))
            d = by.get(("pytorch-device", model, batch))
            rh = f"{c / h:7.2f}" if c and h else "      -"
            rd = f"{c / d:7.2f}" if c and d else "      -"
            goal = "  (goal >= 0.90)" if batch == largest else ""
            fmt = lambda v: f"{v:11.0f}" if v else "          -"
            print(f"{model:<16} {batch:>6} {fmt(c)} {fmt(h)} {fmt(d)} {rh} {rd}{goal}")
        print()
    if gemm:
        by = {(r["impl"], r["m"], r["n"], r["k"], r["precision"]): r["tflops"] for r in gemm}
        keys = sorted({(r["m"], r["n"], r["k"], r["precision"]) for r in gemm})
        print("GEMM, TFLOP/s (C = A B, float32 storage)")
        print(f"{'m x n x k':<20} {'mode':<5} {'chorus':>8} {'torch':>8} {'ratio':>7}  (goal >= 0.90)")
        for m, n, k, p in keys:
            c, t = by.get(("chorus", m, n, k, p)), by.get(("pytorch", m, n, k, p))
            ratio = f"{c / t:7.2f}" if c and t else "      -"
            fmt = lambda v: f"{v:8.1f}" if v else "       -"
            print(f"{f'{m}x{n}x{k}':<20} {p:<5} {fmt(c)} {fmt(t)} {ratio}")


if __name__ == "__main__":
    main(sys.argv[1])
