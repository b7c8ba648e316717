#!/usr/bin/env bash
# libp2p benchmarks: one-stream throughput (Java, js-libp2p, raw TCP side by side), the JDK's
# ChaCha20-Poly1305, stream churn, idle-connection memory. Writes bench/out/p2p.json and p2p.csv and
# prints the table. Extra arguments go to 'chorus bench p2p' (e.g. --runs 9, --no-js).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
js="$root/gossip/src/test/js"
if command -v node >/dev/null 2>&1 && [ ! -d "$js/node_modules" ]; then
    echo "p2p-throughput: installing the js-libp2p peer (npm ci --ignore-scripts in $js)" >&2
    (cd "$js" && npm ci --ignore-scripts --no-audit --no-fund >&2)
fi
mkdir -p "$root/bench/out"
cd "$root"
echo "p2p-throughput: load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" >&2
./chorus bench p2p --js-dir "$js" --out "$root/bench/out/p2p.csv" --out "$root/bench/out/p2p.json" "$@"
