#!/usr/bin/env python3
"""PyTorch side of the CUDA training benchmark (see gpu-backend/device-check.sh): the same MLP
(784-H-H-10, ReLU, softmax cross-entropy, SGD lr 0.01 momentum 0.9), the same synthetic
Fashion-MNIST-shaped data (60000 rows, 784 features uniform in [0, 1), 10 uniform classes) and the
same epoch structure (shuffle, full batches and a last partial one) as CudaTrainingBenchmark.

Two ways of feeding batches, each printed as one JSON object per (model, batch):
  host    the data stays in host memory; each batch is gathered on the CPU into page-locked memory
          and copied to the GPU, as Chorus's trainer does (its loss is read every step, as Chorus's
          trainer reads it);
  device  the whole data set lives on the GPU and batches are gathered there, PyTorch's fastest
          idiom (no per-step host work, no per-step synchronization).
float32 matmuls use 'highest' precision (no TF32), like Chorus's default.
"""
import argparse
import json
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="256,256;4096,4096")
    ap.add_argument("--batch", default="256,4096")
    ap.add_argument("--rows", type=int, default=60000)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--modes", default="host,device")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    gen = torch.Generator().manual_seed(args.seed)
    x_host = torch.rand(args.rows, 784, generator=gen)
    y_host = torch.randint(0, 10, (args.rows,), generator=gen)
    x_dev, y_dev = x_host.to(dev), y_host.to(dev)

    for hidden_text in args.models.split(";"):
        hidden = [int(h) for h in hidden_text.split(",")]
        for batch in [int(b) for b in args.batch.split(",")]:
            for mode in args.modes.split(","):
                torch.manual_seed(args.seed)
                layers, width = [], 784
                for h in hidden:
                    layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
                    width = h
                layers.append(torch.nn.Linear(width, 10))
                model = torch.nn.Sequential(*layers).to(dev)
                opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
                loss_fn = torch.nn.CrossEntropyLoss()
                pinned_x = [torch.empty(batch, 784).pin_memory() for _ in range(2)]
                pinned_y = [torch.empty(batch, dtype=torch.int64).pin_memory() for _ in range(2)]
                state = {"i": 0}

                def step(idx):
                    n = idx.shape[0]
                    if mode == "device":
                        xb, yb = x_dev[idx], y_dev[idx]
                    else:
                        # Double-buffered page-locked staging; the per-step loss read below makes
                        # reuse two steps later safe.
                        slot = state["i"] % 2
                        state["i"] += 1
                        torch.index_select(x_host, 0, idx, out=pinned_x[slot][:n])
                        torch.index_select(y_host, 0, idx, out=pinned_y[slot][:n])
                        xb = pinned_x[slot][:n].to(dev, non_blocking=True)
                        yb = pinned_y[slot][:n].to(dev, non_blocking=True)
                    opt.zero_grad(set_to_none=True)
                    loss = loss_fn(model(xb), yb)
                    loss.backward()
                    opt.step()
                    if mode == "host":
                        return float(loss)
                    return loss

                def epoch(rows):
                    perm = torch.randperm(rows, generator=gen)
                    if mode == "device":
                        perm = perm.to(dev)
                    loss = None
                    for i in range(0, rows, batch):
                        loss = step(perm[i : i + batch])
                    return loss

                epoch(min(args.rows, args.warmup * batch))
                torch.cuda.synchronize()
                samples, start, loss = 0, time.perf_counter(), None
                while time.perf_counter() - start < args.seconds:
                    loss = epoch(args.rows)
                    samples += args.rows
                torch.cuda.synchronize()
                seconds = time.perf_counter() - start
                print(json.dumps({
                    "impl": "pytorch-" + mode,
                    "torch": torch.__version__,
                    "device": torch.cuda.get_device_name(),
                    "model": "mlp:" + hidden_text,
                    "batch": batch,
                    "samples": samples,
                    "seconds": seconds,
                    "samplesPerSecond": samples / seconds,
                    "loss": float(loss),
                }), flush=True)


if __name__ == "__main__":
    main()
