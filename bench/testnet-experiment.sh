#!/usr/bin/env bash
# The straggler experiment: 16 nodes in one JVM, Dirichlet(0.5) label skew, 20% of the nodes with 5x slower
# compute and 20% on links at 1/10 of the others' bandwidth. sync, async and fragmented averaging, each with
# and without stragglers (--ideal), plus each node alone and one centralized model, side by side in one run per
# data set. Writes bench/out/testnet-<data>/ (samples.csv, accuracy.png, summary.json) and prints a table.
#
#   bench/testnet-experiment.sh [flchain|fashion-mnist|all|TABLE] [DURATION] [SEED] [RUNS]
#
# TABLE: a table of the quality suite (bench/data/suite.tsv), run with flchain's settings; its target accuracy is
# CHORUS_TARGET, or the script's own for rotterdam and mgus2 (see run_table).
# RUNS: the strategies compared, default sync,async,fragmented,alone,central (each exchanging one also without
# impairments). Output goes to bench/out/testnet-<data>[-seed<SEED>].json and the folder of the same name, the
# suffix for seeds other than 1.
#
# Data: ../shared/datasets (or CHORUS_DATASETS). Each measured run, with its warm-up of at least CHORUS_WARMUP
# (default: the run's duration; after 30 to 90 s, Fashion-MNIST runs on 2 cores under 16 training threads still
# trained at half their pace for their first 50 to 70 s while the JIT compilers worked; see docs/benchmarks.md), runs
# in a JVM of its own (--fork), so that no run starts from the JIT state another one left: in one JVM on 2 cores
# the run measured first was the slower for it (docs/benchmarks.md). CHORUS_FORK=0 measures them all in one JVM
# (each strategy warmed up with the impairments and then again without), output suffixed -one-jvm. With
# CHORUS_IDEAL_FIRST=1, each strategy's run without impairments is measured before its impaired one (the default
# is the other way round), output suffixed -ideal-first. Every unimpaired node is held to at most 2000 (flchain) or
# 500 (Fashion-MNIST) steps a second, stragglers their factor below that (--max-steps-per-second): on one machine a
# straggler's pauses would otherwise give its CPU to the other nodes, which a real consortium does not see (see
# docs/benchmarks.md). CHORUS_MAX_STEPS=R sets another bound, output suffixed -maxsteps<R>; CHORUS_MAX_STEPS=0
# none, output suffixed -unbounded.
# CHORUS_DTYPE sets how the models travel (default int8; output suffixed -<dtype> otherwise).
# CHORUS_TESTNET_OPTS adds testnet options to every run (output suffixed -opts). Both runs together take about
# 16 x DURATION plus the warm-ups.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
which="${1:-all}"
duration="${2:-60s}"
seed="${3:-1}"
runs="${4:-sync,async,fragmented,alone,central}"
suffix=""
if [ "$seed" != 1 ]; then suffix="-seed$seed"; fi
options=()
if [ "${CHORUS_FORK:-1}" = 1 ]; then options=(--fork); else suffix="$suffix-one-jvm"; fi
if [ "${CHORUS_IDEAL_FIRST:-0}" = 1 ]; then suffix="$suffix-ideal-first"; options+=(--ideal-first); fi
# pace DATASET_DEFAULT: the --max-steps-per-second option for one data set, and the output suffix it takes.
pace() {
    local bound="${CHORUS_MAX_STEPS:-$1}"
    pace_suffix=""
    if [ "$bound" = 0 ]; then pace_suffix="-unbounded"; pace_options=(); return; fi
    if [ "$bound" != "$1" ]; then pace_suffix="-maxsteps$bound"; fi
    pace_options=(--max-steps-per-second "$bound")
}
datasets="${CHORUS_DATASETS:-$root/../shared/datasets}"
dtype="${CHORUS_DTYPE:-int8}"
if [ "$dtype" != int8 ]; then suffix="$suffix-$dtype"; fi
out="$root/bench/out"
mkdir -p "$out"

common=(--nodes 16 --partition dirichlet:0.5 --compare "$runs" --ideal "${options[@]}"
    --stragglers 0.2:5 --slow-links 0.2:1 --link-mbit 10 --duration "$duration"
    --seed "$seed" --exchange-every 2 --weighting samples --lr-schedule cosine:0 --dtype "$dtype" --warmup "${CHORUS_WARMUP:-$duration}")
# CHORUS_TESTNET_OPTS: more `chorus testnet` options for every run (e.g. "--straggler-compensation 1"), output
# suffixed -opts.
if [ -n "${CHORUS_TESTNET_OPTS:-}" ]; then
    read -r -a extra <<< "$CHORUS_TESTNET_OPTS"
    common+=("${extra[@]}")
    suffix="$suffix-opts"
fi

run_flchain() {
    pace 2000
    "$root/chorus" testnet "${common[@]}" "${pace_options[@]}" --data "$datasets/flchain.csv" --label death --positive 1 \
        --drop futime,chapter --missing impute --model logreg --optimizer sgd:lr=0.01,momentum=0 \
        --max-drift 10 --target-accuracy 0.80 --eval-every 0.5s \
        --out "$out/testnet-flchain$suffix$pace_suffix" --json > "$out/testnet-flchain$suffix$pace_suffix.json"
    written+=("$out/testnet-flchain$suffix$pace_suffix.json")
}

run_fashion() {
    pace 500
    "$root/chorus" testnet "${common[@]}" "${pace_options[@]}" --data "$datasets/fashion-mnist" --model mlp:32 \
        --optimizer sgd:lr=0.1,momentum=0 --max-drift 100 --target-accuracy 0.80 --eval-rows 2000 --eval-every 1s \
        --out "$out/testnet-fashion-mnist$suffix$pace_suffix" --json > "$out/testnet-fashion-mnist$suffix$pace_suffix.json"
    written+=("$out/testnet-fashion-mnist$suffix$pace_suffix.json")
}

# run_table NAME: a table of the quality suite (bench/data/suite.tsv) with flchain's settings (logistic regression,
# sgd:lr=0.01, drift bound 10, 2000 steps a second, 0.5-s evaluations). Its target is CHORUS_TARGET, or the one below:
# a round accuracy 1 to 2 points under what central reaches with these settings, as flchain's 0.80 is, so that the
# target is reached by a consortium that learns what central does and missed by one that does not (how the two
# were set: docs/benchmarks.md, "Two tables of the suite").
run_table() {
    local name="$1" line target
    line="$(awk -F'\t' -v n="$name" '$1 == n' "$root/bench/data/suite.tsv")"
    if [ -z "$line" ]; then
        echo "$0: $name is neither flchain, fashion-mnist nor a table of bench/data/suite.tsv" >&2
        exit 2
    fi
    local path label positive drop missing
    IFS=$'\t' read -r _ path label positive drop missing _ <<< "$line"
    case "$name" in
        rotterdam) target=0.67 ;;
        mgus2) target=0.72 ;;
        *) target="" ;;
    esac
    target="${CHORUS_TARGET:-$target}"
    if [ -z "$target" ]; then
        echo "$0: no target accuracy for $name: set CHORUS_TARGET" >&2
        exit 2
    fi
    local data=(--data "$root/$path" --label "$label" --missing "$missing")
    [ "$positive" != - ] && data+=(--positive "$positive")
    [ "$drop" != - ] && data+=(--drop "$drop")
    pace 2000
    "$root/chorus" testnet "${common[@]}" "${pace_options[@]}" "${data[@]}" --model logreg \
        --optimizer sgd:lr=0.01,momentum=0 --max-drift 10 --target-accuracy "$target" --eval-every 0.5s \
        --out "$out/testnet-$name$suffix$pace_suffix" --json > "$out/testnet-$name$suffix$pace_suffix.json"
    written+=("$out/testnet-$name$suffix$pace_suffix.json")
}

written=()
case "$which" in
    flchain) run_flchain ;;
    fashion-mnist) run_fashion ;;
    all) run_flchain; run_fashion ;;
    *) run_table "$which" ;;
esac

/usr/bin/python3 - "${written[@]}" <<'PY'
import json, os, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    name = os.path.basename(path)[: -len(".json")]
    print(f"\n{name}: {d['nodes']} nodes, {d['model']}, {d['optimizer']}, K={d['exchangeEvery']}, "
          f"{d['durationSeconds']} s per run, target {d['targetAccuracy']}, seed {d['seed']}")
    print(f"{'run':<18} {'final acc (median)':>18} {'min':>7} {'to target: median':>18} {'max':>8} "
          f"{'reached':>8} {'mean of nodes':>14} {'held from':>10} {'bytes/node':>11}")
    for r in d["runs"]:
        t, f = r["timeToTarget"], r["finalAccuracy"]
        med = "never" if t["median"] is None else f"{t['median']:.1f} s"
        mx = "never" if t["max"] is None else f"{t['max']:.1f} s"
        mean = "never" if t.get("meanOfNodes") is None else f"{t['meanOfNodes']:.1f} s"
        held = "never" if t.get("meanOfNodesHeld") is None else f"{t['meanOfNodesHeld']:.1f} s"
        print(f"{r['label']:<18} {f['median']:>18.4f} {f['min']:>7.4f} {med:>18} {mx:>8} "
              f"{str(t['reached']) + '/' + str(r['nodes']):>8} {mean:>14} {held:>10} {r['bytesSentPerNode']['median']:>11}")
PY
