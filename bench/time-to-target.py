#!/usr/bin/env python3
"""Times to several target accuracies from a testnet's samples.csv, per run.

    bench/time-to-target.py SAMPLES_CSV [TARGETS] [GRID_SECONDS]

TARGETS: comma-separated accuracies, default 0.75,0.80,0.82,0.84. GRID_SECONDS: the run's --eval-every,
default 1. For each run (strategy label) and target it prints two times: when the mean accuracy over
nodes first reached the target (each node counted with its latest score, as the testnet's
timeToTarget.meanOfNodes), and the median over nodes of each node's first evaluation at or above it
("never" unless more than half the nodes reached it), both as the time of the evaluation round. A
round's snapshots are taken at each node's first step after the round's request, so an evaluation
belongs to the round its time falls in (the last one, at the end of the run, to a round of its own).
"""
import csv
import statistics
import sys
from collections import defaultdict


def runs(path, grid):
    rows = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[r["strategy"]].append((float(r["time_s"]), int(r["node"]), float(r["accuracy"])))
    out = {}
    for label, samples in rows.items():
        samples.sort()
        nodes = {n for _, n, _ in samples}
        rounds = defaultdict(list)
        for t, n, a in samples:
            rounds[int(t // grid) * grid].append((n, a))
        out[label] = (nodes, sorted(rounds.items()))
    return out


def mean_time(nodes, rounds, target):
    latest = {}
    for t, scores in rounds:
        latest.update(scores)
        if len(latest) == len(nodes) and statistics.fmean(latest.values()) >= target:
            return t
    return None


def median_time(nodes, rounds, target):
    first = {}
    for t, scores in rounds:
        for n, a in scores:
            if a >= target and n not in first:
                first[n] = t
    times = sorted(first.get(n, float("inf")) for n in nodes)
    m = statistics.median(times)
    return None if m == float("inf") else m


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    targets = [float(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "0.75,0.80,0.82,0.84").split(",")]
    grid = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0

    def fmt(t):
        return "never" if t is None else f"{t:g} s"

    print(f"{'run':<18} " + " ".join(f"{'to ' + str(t) + ' mean / median':>26}" for t in targets))
    for label, (nodes, rounds) in runs(path, grid).items():
        cells = [f"{fmt(mean_time(nodes, rounds, t)) + ' / ' + fmt(median_time(nodes, rounds, t)):>26}"
                 for t in targets]
        print(f"{label:<18} " + " ".join(cells))


if __name__ == "__main__":
    main()
