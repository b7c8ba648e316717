"""The table of bench/byzantine.sh: per attack, the honest nodes' mean final accuracy (and their median time to the
target) for async and fragmented with and without screening and for sync with and without a robust rule.

    python3 bench/byzantine_table.py ROBUST UNDEFENDED DIR [DIR ...]

Writes DIR.json (every run's figures) and DIR.md (the table) beside each DIR and prints the table.
"""

import json
import os
import statistics
import sys

COLUMNS = [
    ("async", "gossip-clip", "async"),
    ("async", "gossip-{off}", "async"),
    ("fragmented", "gossip-clip", "fragmented"),
    ("fragmented", "gossip-{off}", "fragmented"),
    ("sync", "sync-robust", "sync"),
    ("sync", "sync-mean", "sync"),
]


def honest_median_time(run):
    attackers = set(run.get("attackerNodes") or [])
    times = [t for i, t in enumerate(run["timeToTarget"]["perNode"]) if i not in attackers]
    reached = [t for t in times if t is not None]
    if len(reached) * 2 <= len(times):
        return None
    return statistics.median([t if t is not None else float("inf") for t in times])


def load(directory, off):
    rows = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".log") and not os.path.exists(os.path.join(directory, name[: -len(".log")] + ".json")):
            # A run that failed: the attack drove a node's training to diverge, or something else went wrong.
            attack, _, invocation = name[: -len(".log")].partition("-")
            with open(os.path.join(directory, name)) as f:
                text = f.read()
            why = "diverged" if "diverged" in text else "failed"
            for label in ("async", "fragmented", "sync"):
                rows.setdefault(attack.replace("_", ":"), {})[(label, invocation)] = why
            continue
        if not name.endswith(".json"):
            continue
        attack, _, invocation = name[: -len(".json")].partition("-")
        with open(os.path.join(directory, name)) as f:
            d = json.load(f)
        for run in d["runs"]:
            rows.setdefault(attack.replace("_", ":"), {})[(run["label"], invocation)] = {
                "finalAccuracyMean": run["finalAccuracy"]["mean"],
                "finalAccuracyWorst": run["finalAccuracy"]["worst"],
                "finalAucMean": run["finalAuc"]["mean"],
                "timeToTargetMedian": honest_median_time(run),
                "meanOfNodesTimeToTarget": run["timeToTarget"]["meanOfNodes"],
                "attackerNodes": run.get("attackerNodes"),
                "updatesClipped": sum(run.get("updatesClipped") or []),
                "updatesDropped": sum(run.get("updatesDropped") or []),
                "stepsPerSecondMedian": statistics.median(run["stepsPerSecond"]),
                "seconds": run["seconds"],
                "durationSeconds": d["durationSeconds"],
                "target": d["targetAccuracy"],
            }
    return rows


def cell(r):
    if r is None:
        return "-"
    if isinstance(r, str):
        return r
    t = r["timeToTargetMedian"]
    return f"{r['finalAccuracyMean']:.3f} ({'-' if t is None else f'{t:.1f} s'})"


def main():
    robust, off = sys.argv[1], sys.argv[2]
    for directory in sys.argv[3:]:
        rows = load(directory, off)
        heads = [f"{label} {inv.format(off=off).replace('gossip-', '').replace('sync-', '')}" for label, inv, _ in COLUMNS]
        heads = [h.replace("sync robust", f"sync {robust} clip") for h in heads]
        order = ["none"] + sorted(a for a in rows if a != "none")
        lines = [
            f"{os.path.basename(directory)}: honest nodes' mean final accuracy (median time to target)",
            "",
            "| attack | " + " | ".join(heads) + " |",
            "| --- |" + " --- |" * len(heads),
        ]
        for attack in order:
            if attack not in rows:
                continue
            cells = [cell(rows[attack].get((label, inv.format(off=off)))) for label, inv, _ in COLUMNS]
            lines.append(f"| {attack} | " + " | ".join(cells) + " |")
        table = "\n".join(lines)
        print(table)
        with open(directory + ".md", "w") as f:
            f.write(table + "\n")
        with open(directory + ".json", "w") as f:
            json.dump(
                {a: {f"{k[0]} {k[1]}": v for k, v in runs.items()} for a, runs in rows.items()}, f, indent=1)
        print(f"(\"diverged\": the attack drove an honest node's training to a non-finite loss, which ends a testnet run)")


if __name__ == "__main__":
    main()
