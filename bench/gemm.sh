#!/usr/bin/env bash
# SGEMM GFLOP/s of the CPU backend at 1024 and 4096 on 1 and 2 threads, as a fraction of the
# CPU's peak: with the OpenBLAS that Chorus ships (0.3.30, managed in the root pom) and, side by
# side in the same run, with the OpenBLAS 0.3.19 that ND4J 1.0.0-M2.1 brings on its own.
# Writes bench/out/gemm-openblas-*.csv. The environment is used as it is; where it forces an
# OpenBLAS kernel (OPENBLAS_CORETYPE, as some shared machines do to protect old OpenBLAS builds),
# both versions are run a second time without it (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset in
# those two commands only), which is what a user's machine without the variable gets.
#
#   bench/gemm.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/java-home.sh"
chorus_find_java_home
out="$root/bench/out"
mkdir -p "$out"
"$root/chorus" --version >/dev/null   # builds the jars on first use
lib="$root/cli/target/lib"
old="$out/openblas-0.3.19"
if [ ! -f "$old/openblas-0.3.19-1.5.7-linux-x86_64.jar" ]; then
    (cd "$root" && PATH="$JAVA_HOME/bin:$PATH" mvn -q -B -ntp dependency:copy \
        -Dartifact=org.bytedeco:openblas:0.3.19-1.5.7:jar:linux-x86_64 -DoutputDirectory="$old")
fi
flags=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
echo "== OpenBLAS 0.3.30 (as shipped)"
"$JAVA_HOME/bin/java" "${flags[@]}" -cp "$root/cli/target/classes:$lib/*" dev.chorus.cli.Main \
    bench gemm --csv "$out/gemm-openblas-0.3.30.csv"
echo "== OpenBLAS 0.3.19 (ND4J's own)"
cp_old="$root/cli/target/classes"
for j in "$lib"/*.jar; do
    case "$j" in *openblas-0.3.30*) continue ;; esac
    cp_old="$cp_old:$j"
done
"$JAVA_HOME/bin/java" "${flags[@]}" -cp "$cp_old:$old/openblas-0.3.19-1.5.7-linux-x86_64.jar" dev.chorus.cli.Main \
    bench gemm --csv "$out/gemm-openblas-0.3.19.csv"
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    echo "== OpenBLAS 0.3.30 (as shipped), kernel detected (OPENBLAS_CORETYPE unset)"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$JAVA_HOME/bin/java" "${flags[@]}" -cp "$root/cli/target/classes:$lib/*" \
        dev.chorus.cli.Main bench gemm --csv "$out/gemm-openblas-0.3.30-detected.csv"
    echo "== OpenBLAS 0.3.19 (ND4J's own), kernel detected (OPENBLAS_CORETYPE unset)"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$JAVA_HOME/bin/java" "${flags[@]}" \
        -cp "$cp_old:$old/openblas-0.3.19-1.5.7-linux-x86_64.jar" dev.chorus.cli.Main \
        bench gemm --csv "$out/gemm-openblas-0.3.19-detected.csv"
fi
