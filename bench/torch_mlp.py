#!/usr/bin/env python3
"""PyTorch side of the CPU training benchmark: the same MLP, loss, optimizer and data as
`./chorus bench train`, so that the two can be compared in one run (see bench/cpu-training.sh).

Prints one JSON object per (batch, threads) configuration.
"""
import argparse
import gzip
import json
import struct
import time

import numpy as np
import torch


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack(">I", data[:4])[0]
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, data[4 : 4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="Fashion-MNIST directory (IDX, gzipped)")
    ap.add_argument("--hidden", default="256,256")
    ap.add_argument("--batch", default="64,256")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--samples", type=int, default=60000, help="samples timed per configuration")
    ap.add_argument("--warmup", type=int, default=100, help="untimed steps first")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    x = read_idx(f"{args.data}/train-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255.0
    y = read_idx(f"{args.data}/train-labels-idx1-ubyte.gz").astype(np.int64)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    hidden = [int(h) for h in args.hidden.split(",")]

    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        for batch in [int(b) for b in args.batch.split(",")]:
            torch.manual_seed(args.seed)
            layers, width = [], 784
            for h in hidden:
                layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
                width = h
            layers.append(torch.nn.Linear(width, 10))
            model = torch.nn.Sequential(*layers)
            opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
            loss_fn = torch.nn.CrossEntropyLoss()
            gen = torch.Generator().manual_seed(args.seed)

            def batches():
                while True:
                    perm = torch.randperm(x.shape[0], generator=gen)
                    for i in range(0, x.shape[0], batch):
                        idx = perm[i : i + batch]
                        yield x[idx], y[idx]

            it = batches()

            def step():
                xb, yb = next(it)
                opt.zero_grad(set_to_none=True)
                loss = loss_fn(model(xb), yb)
                loss.backward()
                opt.step()
                return loss, xb.shape[0]

            for _ in range(args.warmup):
                step()
            done, start = 0, time.perf_counter()
            while done < args.samples:
                loss, n = step()
                done += n
            loss = float(loss)
            seconds = time.perf_counter() - start
            print(json.dumps({
                "impl": "pytorch",
                "torch": torch.__version__,
                "threads": threads,
                "batch": batch,
                "samples": done,
                "seconds": seconds,
                "samplesPerSecond": done / seconds,
                "loss": loss,
            }), flush=True)


if __name__ == "__main__":
    main()
