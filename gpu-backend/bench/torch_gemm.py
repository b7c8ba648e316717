#!/usr/bin/env python3
"""PyTorch side of the GEMM benchmark (see gpu-backend/device-check.sh): C = A @ B on float32
tensors for each size MxNxK, with torch.set_float32_matmul_precision set to match each Chorus
mode (fp32: 'highest', tf32: 'high', bf16: 'medium'), timed like CudaGemmBenchmark (warm-up, one
timed product to size the run, then repetitions between synchronizations). One JSON object per
(size, precision), in TFLOP/s."""
import argparse
import json
import time

import torch

MODES = {"fp32": "highest", "tf32": "high", "bf16": "medium"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4096x4096x4096,4096x4096x784,256x4096x4096,8192x8192x8192")
    ap.add_argument("--precisions", default="fp32,tf32,bf16")
    ap.add_argument("--seconds", type=float, default=1.0)
    args = ap.parse_args()
    dev = torch.device("cuda")
    for size in args.sizes.split(","):
        m, n, k = (int(v) for v in size.split("x"))
        a = torch.rand(m, k, device=dev) * 2 - 1
        b = torch.rand(k, n, device=dev) * 2 - 1
        c = torch.empty(m, n, device=dev)
        for p in args.precisions.split(","):
            torch.set_float32_matmul_precision(MODES[p])
            for _ in range(3):
                torch.matmul(a, b, out=c)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            torch.matmul(a, b, out=c)
            torch.cuda.synchronize()
            one = time.perf_counter() - t0
            reps = int(max(5, min(10000, args.seconds / max(one, 1e-6))))
            start = time.perf_counter()
            for _ in range(reps):
                torch.matmul(a, b, out=c)
            torch.cuda.synchronize()
            elapsed = time.perf_counter() - start
            print(json.dumps({
                "impl": "pytorch",
                "torch": torch.__version__,
                "device": torch.cuda.get_device_name(),
                "m": m, "n": n, "k": k,
                "precision": p,
                "reps": reps,
                "seconds": elapsed,
                "tflops": 2.0 * m * n * k * reps / elapsed / 1e12,
            }), flush=True)


if __name__ == "__main__":
    main()
