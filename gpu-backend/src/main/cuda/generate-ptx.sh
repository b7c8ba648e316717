#!/usr/bin/env bash
# Compiles every kernel file in this folder to PTX with nvcc. The PTX is committed under
# src/main/resources/dev/chorus/gpu/kernels/ and loaded by the CUDA backend at run time, so that
# neither the build nor the user needs nvcc; PtxUpToDateTest reruns this script into a scratch
# folder whenever nvcc is on the PATH and fails if the committed PTX differs.
#
#   generate-ptx.sh [OUTPUT_DIR]     (default: the committed resource folder)
#
# compute_75 (Turing) is the oldest target CUDA 13 supports; the driver compiles the PTX for the
# actual device when the module is loaded. No fast-math flags: the conformance suite holds the
# transcendental functions to 1e-5.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../resources/dev/chorus/gpu/kernels}"
mkdir -p "$out"
for cu in "$here"/*.cu; do
    name="$(basename "$cu" .cu)"
    # Run from this folder with relative names, so that no absolute path ends up in the PTX.
    (cd "$here" && nvcc -ptx -arch=compute_75 -std=c++17 -O3 -Werror all-warnings \
        -o "$out/$name.ptx" "$name.cu")
done
