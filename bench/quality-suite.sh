#!/usr/bin/env bash
# The quality suite: does averaging reach the pooled-data model on data it was never tuned on? For each data set of
# bench/data/suite.tsv, and Fashion-MNIST, 8 nodes on a Dirichlet(0.5) label skew train with every strategy (alone,
# async, fragmented, sync, central) under the defaults a user gets, with three seeds. Prints one table: per data set
# and strategy, the mean over nodes and the worst node of the final accuracy and ROC AUC (binary tasks), each
# averaged over the seeds, the gap to central, and the closure (strategy - alone) / (central - alone) of the mean
# (of AUC for binary tasks, of accuracy otherwise). Writes bench/out/quality-suite.csv and .json (quality-holdout.*
# for bench/data/holdout.tsv), and each testnet's folder under bench/out/quality/.
#
#   bench/quality-suite.sh [NAMES] [SEEDS]
#
# NAMES: comma-separated data set names of suite.tsv, or fashion-mnist; default all. SEEDS: default 1,2,3.
# Environment: CHORUS_SUITE_DURATION (default 10s per strategy), CHORUS_SUITE_FASHION_DURATION (default 20s),
# CHORUS_SUITE_WARMUP (default 0s), CHORUS_SUITE_RUNS (the strategies, default alone,async,fragmented,sync,central;
# the table needs alone and central beside any other, from this run or an earlier one), CHORUS_SUITE_EXTRA (more testnet options, e.g. "--weighting uniform" to measure
# an alternative; the defaults are measured without it), CHORUS_SUITE_SUFFIX (appended to each testnet's folder name,
# so that a partial rerun keeps the earlier one), CHORUS_SUITE_OUT (default bench/out), CHORUS_DATASETS (where
# Fashion-MNIST lies; default ../shared/datasets), CHORUS_SUITE_MANIFEST (the list of tables, default
# bench/data/suite.tsv; bench/data/holdout.tsv holds the tables kept out of every choice of a default, run with
# NAMES=all and a manifest of their own, e.g. CHORUS_SUITE_MANIFEST=bench/data/holdout.tsv bench/quality-suite.sh
# all; Fashion-MNIST runs only when named then). A data set whose file is absent is skipped with a line that says so.
# Every run of every seed takes about 5 x (duration + warm-up) plus the JVM start.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
names="${1:-all}"
seeds="${2:-1,2,3}"
duration="${CHORUS_SUITE_DURATION:-10s}"
fashion_duration="${CHORUS_SUITE_FASHION_DURATION:-20s}"
# The suite measures where the models end, not how fast they get there, so no run needs the JIT warmed up for it.
warmup="${CHORUS_SUITE_WARMUP:-0s}"
runs="${CHORUS_SUITE_RUNS:-alone,async,fragmented,sync,central}"
read -r -a extra <<< "${CHORUS_SUITE_EXTRA:-}"
out="${CHORUS_SUITE_OUT:-$root/bench/out}"
datasets="${CHORUS_DATASETS:-$root/../shared/datasets}"
manifest="${CHORUS_SUITE_MANIFEST:-$root/bench/data/suite.tsv}"
mkdir -p "$out/quality"
if [ "$runs" != alone,async,fragmented,sync,central ] && [ "$warmup" = 0s ]; then
    # The strategies of one invocation run one after another in one JVM, without a warm-up: the first trains with a
    # cold JIT, and each later one with a warmer JIT than the one before. A strategy's row compares only with rows
    # where it ran at the same place.
    echo "quality suite: running $runs in this order with no warm-up; compare a strategy only with runs" \
        "where it had the same place (or set CHORUS_SUITE_WARMUP)" >&2
fi

wanted() { [ "$names" = all ] || [[ ",$names," == *",$1,"* ]]; }

# run NAME DURATION SEED OPTIONS...: one testnet of every strategy on one data set and seed.
run() {
    local name="$1" dur="$2" seed="$3"
    shift 3
    local dir="$out/quality/$name-seed$seed${CHORUS_SUITE_SUFFIX:-}"
    echo "quality suite: $name, seed $seed, $dur per strategy" >&2
    "$root/chorus" testnet --nodes 8 --partition dirichlet:0.5 --compare "$runs" \
        --duration "$dur" --warmup "$warmup" --eval-every 1s --seed "$seed" "$@" "${extra[@]}" \
        --out "$dir" --json > "$dir.json"
    written+=("$name:$dir.json")
}

written=()
IFS=, read -r -a seed_list <<< "$seeds"
# suite.tsv: name, path, label, positive, drop, missing, sha256 (header first; '-' for none).
while IFS=$'\t' read -r name path label positive drop missing _; do
    [ "$name" = name ] && continue
    wanted "$name" || continue
    file="$root/$path"
    if [ ! -f "$file" ]; then
        echo "quality suite: skipping $name, $file is absent" >&2
        continue
    fi
    options=(--data "$file" --label "$label" --missing "$missing")
    [ "$positive" != - ] && options+=(--positive "$positive")
    [ "$drop" != - ] && options+=(--drop "$drop")
    for seed in "${seed_list[@]}"; do
        run "$name" "$duration" "$seed" "${options[@]}"
    done
done < "$manifest"

# Fashion-MNIST is not a table of a manifest: it runs with the default manifest, or when named.
if [[ ",$names," == *",fashion-mnist,"* ]] || { [ "$names" = all ] && [ -z "${CHORUS_SUITE_MANIFEST:-}" ]; }; then
    if [ -d "$datasets/fashion-mnist" ]; then
        for seed in "${seed_list[@]}"; do
            run fashion-mnist "$fashion_duration" "$seed" --data "$datasets/fashion-mnist" --eval-rows 2000
        done
    else
        echo "quality suite: skipping fashion-mnist, $datasets/fashion-mnist is absent" >&2
    fi
fi

# The table is named after the manifest: quality-suite for suite.tsv, quality-holdout for holdout.tsv.
table="quality-$(basename "$manifest" .tsv)"
/usr/bin/python3 "$root/bench/quality_table.py" "$out/$table" "${written[@]}"
