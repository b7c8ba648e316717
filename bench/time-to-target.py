#!/usr/bin/env python3
"""Times to several target accuracies from a testnet's samples.csv, per run.

    bench/time-to-target.py SAMPLES_CSV [TARGETS] [GRID_SECONDS] [WINDOW]

TARGETS: comma-separated accuracies, default 0.75,0.80,0.82,0.84. GRID_SECONDS: the run's --eval-every,
default 1. For each run (strategy label) and target it prints two times: when the mean accuracy over
nodes first reached the target (each node counted with its latest score, as the testnet's
timeToTarget.meanOfNodes), and the median over nodes of each node's first evaluation at or above it
("never" unless more than half the nodes reached it), both as the time of the evaluation round. A
round's snapshots are taken at each node's first step after the round's request, so an evaluation
belongs to the round its time falls in (the last one, at the end of the run, to a round of its own).

WINDOW (default 0): also print, third, the first round at which the mean over nodes, averaged over the
rounds from WINDOW before to WINDOW after it (a centred moving average, fewer at the ends), reached the
target. The mean over nodes still moves by about a point between rounds a second apart, and near a plateau
that decides its first crossing; the centred average has the same trend without the swings. Last, always: the
first round from which the mean over nodes stays at or above the target to the end of the run (the testnet's
timeToTarget.meanOfNodesHeld), which a single round over the target does not decide either.
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


def mean_curve(nodes, rounds):
    latest = {}
    curve = []
    for t, scores in rounds:
        latest.update(scores)
        if len(latest) == len(nodes):
            curve.append((t, statistics.fmean(latest.values())))
    return curve


def smoothed_time(nodes, rounds, target, window):
    curve = mean_curve(nodes, rounds)
    values = [v for _, v in curve]
    for i, (t, _) in enumerate(curve):
        if statistics.fmean(values[max(0, i - window):i + window + 1]) >= target:
            return t
    return None


def held_time(nodes, rounds, target):
    curve = mean_curve(nodes, rounds)
    held = None
    for t, v in reversed(curve):
        if v < target:
            break
        held = t
    return held


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
    window = int(sys.argv[4]) if len(sys.argv) > 4 else 0

    def fmt(t):
        return "never" if t is None else f"{t:g} s"

    heading = " mean / median" + (f" / smoothed {window}" if window else "") + " / held"
    width = 44 if window else 34
    print(f"{'run':<18} " + " ".join(f"{'to ' + str(t) + heading:>{width}}" for t in targets))
    for label, (nodes, rounds) in runs(path, grid).items():
        cells = []
        for t in targets:
            cell = fmt(mean_time(nodes, rounds, t)) + " / " + fmt(median_time(nodes, rounds, t))
            if window:
                cell += " / " + fmt(smoothed_time(nodes, rounds, t, window))
            cell += " / " + fmt(held_time(nodes, rounds, t))
            cells.append(f"{cell:>{width}}")
        print(f"{label:<18} " + " ".join(cells))


if __name__ == "__main__":
    main()
