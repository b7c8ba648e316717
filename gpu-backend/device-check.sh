#!/usr/bin/env bash
# The CUDA backend's check on a GPU machine: the test suite (the conformance suite on the device,
# the tests tagged gpu, and every other test of this module) and the benchmarks (MLP training
# throughput and GEMM TFLOP/s, Chorus on CUDA side by side with PyTorch). See docs/gpu.md.
#
# The GPU machine has no Java, so the check runs from a bundle built here first:
#
#   gpu-backend/device-check.sh bundle   build the jars and a jlink'ed JDK 25 runtime into
#                                        gpu-backend/device-bundle/ (git-ignored, at most 64 MiB)
#   gpu-backend/device-check.sh run      on the GPU machine: test, then bench
#   gpu-backend/device-check.sh test     the JUnit suite only (also works here, without a GPU)
#   gpu-backend/device-check.sh bench    the benchmarks only
#
# Results go to $OUT when set (the device tool's output folder), else gpu-backend/device-out/:
# tests.txt, junit/ (XML report), results.jsonl, summary.txt, nvidia-smi.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
bundle="$here/device-bundle"
out="${OUT:-$here/device-out}"
max_mib=64

build_bundle() {
    : "${JAVA_HOME:=/usr/lib/jvm/temurin-25-jdk-amd64}"
    export JAVA_HOME
    local mvn=(mvn -q -B -ntp)
    echo "== building the jars" >&2
    (cd "$root" && "${mvn[@]}" -o -pl gpu-backend -am -DskipTests package \
        dependency:copy-dependencies -DincludeScope=test -Dmdep.stripVersion=true)
    rm -rf "$bundle"
    mkdir -p "$bundle/lib"
    # Only what the CUDA backend, its tests and its benchmarks load: ND4J and OpenBLAS (about
    # 110 MiB) are not needed, since the CUDA backend uses none of learning's CPU backends.
    cp "$here/target/chorus-gpu-backend-"*[0-9T].jar "$bundle/lib/chorus-gpu-backend.jar"
    "$JAVA_HOME/bin/jar" --create --file "$bundle/lib/chorus-gpu-backend-tests.jar" -C "$here/target/test-classes" .
    cp "$here/target/dependency/chorus-learning.jar" "$bundle/lib/chorus-learning.jar"
    cp "$here/target/dependency/chorus-learning-tests.jar" "$bundle/lib/chorus-learning-tests.jar"
    cp "$here/target/dependency/assertj-core.jar" "$bundle/lib/assertj-core.jar"
    # JUnit's console launcher (it carries the Jupiter engine, params and opentest4j).
    (cd "$root" && "${mvn[@]}" -pl gpu-backend dependency:copy \
        -Dartifact=org.junit.platform:junit-platform-console-standalone:1.13.4 \
        -DoutputDirectory="$bundle/lib" -Dmdep.stripVersion=true)
    local modules
    modules="$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 25 \
        "$bundle"/lib/*.jar 2>/dev/null | tail -n 1)"
    # What jdeps cannot see: the launcher scans jars through the zip file system (jdk.zipfs) and
    # writes its XML report with java.xml.
    modules="$modules,jdk.zipfs,java.xml,java.logging"
    echo "== jlink $modules" >&2
    "$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
        --compress zip-9 --output "$bundle/jre"
    local mib
    mib="$(du -sm "$bundle" | cut -f1)"
    echo "== $bundle: ${mib} MiB" >&2
    du -sh "$bundle/jre" "$bundle"/lib/* >&2
    if [ "$mib" -gt "$max_mib" ]; then
        echo "the bundle is ${mib} MiB, over the ${max_mib} MiB that may travel to the GPU machine" >&2
        exit 1
    fi
}

java_cmd() {
    local java="$bundle/jre/bin/java"
    if [ ! -x "$java" ]; then
        echo "no bundle at $bundle: run 'gpu-backend/device-check.sh bundle' first (and carry" \
            "gpu-backend/device-bundle to the GPU machine)" >&2
        exit 2
    fi
    echo "$java"
}

classpath() {
    local l="$bundle/lib"
    echo "$l/chorus-gpu-backend.jar:$l/chorus-gpu-backend-tests.jar:$l/chorus-learning.jar:$l/chorus-learning-tests.jar:$l/assertj-core.jar"
}

# cuBLAS ships with the toolkit or with PyTorch's wheels; point the backend at one if the loader
# does not know it.
find_cublas() {
    if [ -n "${CHORUS_CUBLAS:-}" ] || ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[23]'; then
        return
    fi
    local lib="" dir name
    for dir in /usr/local/cuda/lib64 /usr/local/cuda-13*/lib64 /usr/local/cuda-12*/lib64; do
        for name in libcublas.so.13 libcublas.so.12; do
            if [ -z "$lib" ] && [ -e "$dir/$name" ]; then
                lib="$dir/$name"
            fi
        done
    done
    if [ -z "$lib" ]; then
        # PyTorch's CUDA wheels bring cuBLAS as nvidia/cublas/lib or nvidia/cu13/lib.
        for dir in $(python3 -c 'import nvidia; print(" ".join(nvidia.__path__))' 2>/dev/null); do
            [ -n "$lib" ] || lib="$(find "$dir" -maxdepth 3 -name 'libcublas.so.1[23]' 2>/dev/null | sort -r | head -n 1)"
        done
    fi
    if [ -z "$lib" ]; then
        lib="$(find /usr /opt -name 'libcublas.so.1[23]' 2>/dev/null | sort -r | head -n 1 || true)"
    fi
    if [ -n "$lib" ]; then
        export CHORUS_CUBLAS="$lib"
        export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        echo "== cuBLAS: $lib" >&2
    else
        echo "== no libcublas.so.13 or .12 found; the CUDA tests will be skipped with that reason" >&2
    fi
}

run_tests() {
    local java
    java="$(java_cmd)"
    mkdir -p "$out/junit"
    find_cublas
    echo "== JUnit: every test of gpu-backend, tag gpu included" >&2
    # From the module folder: some tests read src/main/cuda.
    local status=0
    (cd "$here" && "$java" --enable-native-access=ALL-UNNAMED -jar "$bundle/lib/junit-platform-console-standalone.jar" \
        execute --class-path "$(classpath)" --select-package dev.chorus.gpu --details=tree --disable-banner --disable-ansi-colors \
        --reports-dir "$out/junit") 2>&1 | tee "$out/tests.txt" || status=$?
    return "$status"
}

run_bench() {
    local java
    java="$(java_cmd)"
    mkdir -p "$out"
    find_cublas
    nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true
    local results="$out/results.jsonl"
    : >"$results"
    local jvm=("$java" --enable-native-access=ALL-UNNAMED -Xmx16g -cp "$(classpath)")
    echo "== Chorus training (CUDA)" >&2
    "${jvm[@]}" dev.chorus.gpu.bench.CudaTrainingBenchmark --seconds "${SECONDS_PER_CONFIG:-3}" | tee -a "$results"
    echo "== PyTorch training" >&2
    python3 "$here/bench/torch_cuda_mlp.py" --seconds "${SECONDS_PER_CONFIG:-3}" | tee -a "$results"
    echo "== Chorus GEMM" >&2
    "${jvm[@]}" dev.chorus.gpu.bench.CudaGemmBenchmark | tee -a "$results"
    echo "== PyTorch GEMM" >&2
    python3 "$here/bench/torch_gemm.py" | tee -a "$results"
    python3 "$here/bench/summarize.py" "$results" | tee "$out/summary.txt"
}

case "${1:-}" in
    bundle) build_bundle ;;
    test) run_tests ;;
    bench) run_bench ;;
    run)
        status=0
        run_tests || status=$?
        run_bench || status=$?
        exit "$status"
        ;;
    *)
        sed -n '2,18p' "$0" >&2
        exit 2
        ;;
esac
