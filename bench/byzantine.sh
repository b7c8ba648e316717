#!/usr/bin/env bash
# The Byzantine experiment: 16 nodes in one JVM, Dirichlet(0.5) label skew, 20% of them attackers (none for the
# baseline). For each attack, four testnet runs side by side: `async` and `fragmented` with screening (`clip`) and
# without (`off`), and `sync` defended (a robust rule and screening, `clip`) and with the plain mean. Prints a table of the honest nodes' final
# accuracy and time to target and writes bench/out/byzantine-<data>[-seed<SEED>].json (and .md, the table).
#
#   bench/byzantine.sh [flchain|fashion-mnist|all] [DURATION] [SEED] [ATTACKS]
#
# ATTACKS: comma-separated, default none,signflip:5,scale:1000,noise:10,alie,ipm:0.5,labelflip,stale,freeride.
# CHORUS_ROBUST: the sync run's rule, default trimmed:3 (three of 16 is the attackers' count).
# CHORUS_SCREENING_OFF: the undefended screening mode, default off (clip-all compares with clipping alone).
# CHORUS_SYNC_EVERY: steps per round of the sync runs, default 50 (the gossip runs exchange every 2 steps).
# CHORUS_SYNC_DURATION: the sync runs' duration, default DURATION.
# CHORUS_ONLY: gossip or sync runs only the invocations of those strategies (default: both).
# Data: ../shared/datasets (or CHORUS_DATASETS). Each invocation takes about 2 x DURATION plus its warm-ups.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
which="${1:-flchain}"
duration="${2:-15s}"
seed="${3:-1}"
attacks="${4:-none,signflip:5,scale:1000,noise:10,alie,ipm:0.5,labelflip,stale,freeride}"
robust="${CHORUS_ROBUST:-trimmed:3}"
undefended="${CHORUS_SCREENING_OFF:-off}"
suffix=""
if [ "$seed" != 1 ]; then suffix="-seed$seed"; fi
datasets="${CHORUS_DATASETS:-$root/../shared/datasets}"
out="$root/bench/out"
mkdir -p "$out"

common=(--nodes 16 --partition dirichlet:0.5 --warmup "${CHORUS_WARMUP:-3s}" --seed "$seed"
    --weighting samples --lr-schedule cosine:0 --dtype int8 --json)
# Steps per round: 2 for the gossip strategies (the straggler experiment's); sync's rounds are a barrier over all 16
# nodes in one JVM, which at 2 steps a round trains a few steps a second, so it gets CHORUS_SYNC_EVERY (default 50).
gossip_every=(--exchange-every 2 --duration "$duration")
sync_every=(--exchange-every "${CHORUS_SYNC_EVERY:-50}" --duration "${CHORUS_SYNC_DURATION:-$duration}")
only="${CHORUS_ONLY:-all}"

# data_options DATA: sets data_opts to the data set's options (the straggler experiment's, bench/testnet-experiment.sh).
data_options() {
    case "$1" in
        flchain) data_opts=(--data "$datasets/flchain.csv" --label death --positive 1 --drop futime,chapter
            --missing impute --model logreg --optimizer sgd:lr=0.01,momentum=0 --max-drift 10
            --target-accuracy 0.80 --eval-every 1s) ;;
        fashion-mnist) data_opts=(--data "$datasets/fashion-mnist" --model mlp:32 --optimizer sgd:lr=0.1,momentum=0
            --max-drift 100 --target-accuracy 0.80 --eval-rows 2000 --eval-every 1s) ;;
        *) echo "usage: $0 [flchain|fashion-mnist|all] [DURATION] [SEED] [ATTACKS]" >&2; exit 2 ;;
    esac
}

# run DATA ATTACK NAME OPTIONS...: one testnet invocation, its JSON kept as DIR/ATTACK-NAME.json.
run() {
    local data="$1" attack="$2" name="$3"
    shift 3
    local dir="$out/byzantine-$data$suffix"
    local file="$dir/${attack//:/_}-$name.json"
    mkdir -p "$dir"
    local byz=()
    if [ "$attack" != none ]; then byz=(--byzantine "0.2:$attack"); fi
    data_options "$data"
    local rc=0
    "$root/chorus" testnet "${common[@]}" "${data_opts[@]}" "${byz[@]}" "$@" \
        --out "$dir/${attack//:/_}-$name" > "$file.part" 2> "$dir/${attack//:/_}-$name.log" || rc=$?
    if [ "$rc" != 0 ]; then
        echo "  $attack $name: failed (exit $rc), see $dir/${attack//:/_}-$name.log" >&2
        rm -f "$file.part"
        return 0
    fi
    mv "$file.part" "$file"
    echo "  $attack $name: done" >&2
}

written=()
experiment() {
    local data="$1"
    echo "byzantine: $data, $duration per gossip run, ${CHORUS_SYNC_DURATION:-$duration} per sync run, seed $seed" >&2
    IFS=',' read -r -a list <<< "$attacks"
    for attack in "${list[@]}"; do
        if [ "$only" != sync ]; then
            run "$data" "$attack" gossip-clip "${gossip_every[@]}" --compare async,fragmented --screening clip
            run "$data" "$attack" gossip-"$undefended" "${gossip_every[@]}" --compare async,fragmented \
                --screening "$undefended"
        fi
        if [ "$only" != gossip ]; then
            run "$data" "$attack" sync-robust "${sync_every[@]}" --compare sync --robust "$robust" --screening clip
            run "$data" "$attack" sync-mean "${sync_every[@]}" --compare sync
        fi
    done
    written+=("$out/byzantine-$data$suffix")
}

case "$which" in
    flchain|fashion-mnist) experiment "$which" ;;
    all) experiment flchain; experiment fashion-mnist ;;
    *) data_options "$which" ;;
esac

/usr/bin/python3 "$root/bench/byzantine_table.py" "$robust" "$undefended" "${written[@]}"
