#!/usr/bin/env bash
# Daemon figures: time from spawn to /health, /ready and the first connected peer; resident memory of
# idle connected nodes; training steps/s with the HTTP API on and scraped against off (interleaved).
# Writes bench/out/daemon.csv and daemon.json and prints the table. Extra arguments go to
# 'chorus bench daemon' (e.g. --rounds 9, --repetitions 9, --set model.spec=mlp:64).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$root/bench/out"
cd "$root"
echo "daemon: load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" >&2
./chorus bench daemon --out "$root/bench/out/daemon.csv" --out "$root/bench/out/daemon.json" "$@"
