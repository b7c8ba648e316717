#!/usr/bin/env python3
"""The quality suite's table, from the testnet summaries that bench/quality-suite.sh wrote.

    quality_table.py OUT_PREFIX NAME:SUMMARY.json...

For each data set and strategy, averages over the seeds the mean over nodes and the worst node of the final accuracy
and ROC AUC; then the gap of the mean to central's and the closure (strategy - alone) / (central - alone), both on AUC
where the task is binary and on accuracy otherwise. The goals (docs/benchmarks.md) for async and fragmented: the
mean within 0.01 of central, the worst node within 0.03 of central, closure at least 0.9. Writes OUT_PREFIX.csv and
OUT_PREFIX.json and prints the table.
"""
import csv
import json
import math
import sys
from collections import OrderedDict

GOAL_MEAN_GAP = 0.01
GOAL_WORST_GAP = 0.03
GOAL_CLOSURE = 0.9
CHECKED = ("async", "fragmented")


def number(v):
    return float("nan") if v is None else float(v)


def mean(values):
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else float("nan")


def collect(arguments):
    """{data set: {strategy: {metric: [one value per seed]}}}, in the order met."""
    table = OrderedDict()
    for argument in arguments:
        name, path = argument.split(":", 1)
        with open(path) as f:
            summary = json.load(f)
        for run in summary["runs"]:
            acc, auc = run["finalAccuracy"], run.get("finalAuc") or {}
            cell = table.setdefault(name, OrderedDict()).setdefault(run["label"], {})
            for key, value in (
                ("acc_mean", acc.get("mean")),
                ("acc_worst", acc.get("worst", acc.get("min"))),
                ("auc_mean", auc.get("mean")),
                ("auc_worst", auc.get("worst")),
            ):
                cell.setdefault(key, []).append(number(value))
    return table


def rows(table):
    out = []
    for name, runs in table.items():
        cells = {label: {k: mean(v) for k, v in metrics.items()} for label, metrics in runs.items()}
        seeds = max(len(v) for metrics in runs.values() for v in metrics.values())
        binary = not math.isnan(cells.get("central", {}).get("auc_mean", float("nan")))
        metric = "auc" if binary else "acc"
        central = cells.get("central", {}).get(metric + "_mean", float("nan"))
        alone = cells.get("alone", {}).get(metric + "_mean", float("nan"))
        for label, c in cells.items():
            gap = central - c[metric + "_mean"]
            worst_gap = central - c[metric + "_worst"]
            span = central - alone
            closure = (c[metric + "_mean"] - alone) / span if span > 0 else float("nan")
            goal = ""
            if label in CHECKED:
                met = gap <= GOAL_MEAN_GAP and worst_gap <= GOAL_WORST_GAP and closure >= GOAL_CLOSURE
                goal = "met" if met else "MISSED"
            out.append(OrderedDict(
                data=name, strategy=label, seeds=seeds, metric=metric,
                acc_mean=c["acc_mean"], acc_worst=c["acc_worst"],
                auc_mean=c["auc_mean"], auc_worst=c["auc_worst"],
                gap_to_central=gap, worst_gap_to_central=worst_gap, closure=closure, goal=goal))
    return out


def fmt(v, width=7):
    return f"{'-':>{width}}" if isinstance(v, float) and math.isnan(v) else f"{v:>{width}.4f}"


def main():
    prefix, arguments = sys.argv[1], sys.argv[2:]
    if not arguments:
        sys.exit("quality_table.py: no summaries to tabulate")
    table = rows(collect(arguments))
    with open(prefix + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(table[0].keys()))
        writer.writeheader()
        writer.writerows(table)
    with open(prefix + ".json", "w") as f:
        plain = [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in table]
        json.dump(plain, f, indent=1)
    print(f"\n{'data':<16} {'strategy':<11} {'seeds':>5} {'acc':>7} {'worst':>7} {'AUC':>7} {'worst':>7} "
          f"{'gap':>7} {'w.gap':>7} {'closure':>7}  goal")
    for r in table:
        print(f"{r['data']:<16} {r['strategy']:<11} {r['seeds']:>5} {fmt(r['acc_mean'])} {fmt(r['acc_worst'])} "
              f"{fmt(r['auc_mean'])} {fmt(r['auc_worst'])} {fmt(r['gap_to_central'])} "
              f"{fmt(r['worst_gap_to_central'])} {fmt(r['closure'])}  {r['goal']}")
    print("\ngap, w.gap and closure are on AUC for binary tasks, on accuracy otherwise; goal (async, fragmented):"
          f" gap <= {GOAL_MEAN_GAP}, w.gap <= {GOAL_WORST_GAP}, closure >= {GOAL_CLOSURE}; where central is"
          " barely above alone, the closure divides by almost nothing and says little")
    print(f"wrote {prefix}.csv and {prefix}.json")


if __name__ == "__main__":
    main()
