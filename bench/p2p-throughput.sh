#!/usr/bin/env bash
# libp2p benchmarks: one-stream throughput (Java, js-libp2p, raw TCP side by side), ChaCha20-Poly1305
# (the JDK's and OpenSSL's libcrypto), stream churn, idle-connection memory, model exchanges, gossipsub
# round trips and rates (Java and js-libp2p). Writes bench/out/p2p.json and p2p.csv and prints the
# table, which ends with the line 'java/js=R java/raw=R cipher=NAME'.
# The Java hosts' Noise cipher and Ed25519 are chosen as network.crypto does: P2P_CRYPTO=auto|jdk|openssl
# (or --crypto MODE). Extra arguments go to 'chorus bench p2p' (e.g. --runs 9, --no-js, --sections pubsub).
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
crypto=()
if [ -n "${P2P_CRYPTO:-}" ]; then
    crypto=(--crypto "$P2P_CRYPTO")
fi
./chorus bench p2p --js-dir "$js" --out "$root/bench/out/p2p.csv" --out "$root/bench/out/p2p.json" "${crypto[@]}" "$@"
