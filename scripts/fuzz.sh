#!/usr/bin/env bash
# `./build fuzz [SECONDS] [FILTER]`: runs every @FuzzTest method of every *FuzzTest class in fuzzing mode for SECONDS
# each (default 60), one Maven run per target since Jazzer fuzzes one target per JVM. FILTER, a grep pattern, keeps
# the targets whose `module package.Class#method` matches it. Prints a table and ends with one line
# `fuzz: N targets, M executions, K findings`; exits non-zero when K > 0. A finding's crashing input is written by
# Jazzer into the target's inputs directory (src/test/resources/<package>/<Class>Inputs/<method>/crash-*), where the
# regression run of every build replays it; the generated corpus stays in <module>/.cifuzz-corpus (not committed).
# Logs: target/fuzz/<Class>#<method>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
filter="${2:-.}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: ./build fuzz [SECONDS] [FILTER]  (SECONDS: a positive whole number, default 60)" >&2
    exit 2
fi

# Lists "module class method" for each @FuzzTest method: the method is the first `void name(` after the annotation.
list_targets() {
    local file module class
    find . -path '*/src/test/java/*FuzzTest.java' -not -path './node_modules/*' | sort | while read -r file; do
        module="${file#./}"
        module="${module%%/*}"
        class="${file#*/src/test/java/}"
        class="${class%.java}"
        class="${class//\//.}"
        awk '/@FuzzTest/ { want = 1; next } want && match($0, /void [A-Za-z0-9_]+\(/) {
                 name = substr($0, RSTART + 5, RLENGTH - 6); print name; want = 0 }' "$file" |
            while read -r method; do
                echo "$module $class $method"
            done
    done
}

mkdir -p target/fuzz
targets=$(list_targets | awk '{ print $1 " " $2 "#" $3 }' | grep -E -- "$filter" | tr '#' ' ' || true)
if [ -z "$targets" ]; then
    echo "fuzz: no *FuzzTest target matches '$filter'" >&2
    exit 2
fi

# One build first, so that each target's run only tests.
modules=$(echo "$targets" | awk '{ print $1 }' | sort -u | paste -sd, -)
echo "fuzz: building $modules" >&2
mvn -B -ntp -q -pl "$modules" -am verify -DskipTests > target/fuzz/build.log 2>&1 || {
    cat target/fuzz/build.log >&2
    echo "fuzz: build failed (target/fuzz/build.log)" >&2
    exit 1
}

rows=()
n=0
total_execs=0
total_findings=0
while read -r module class method; do
    [ -n "$module" ] || continue
    short="${class##*.}#$method"
    log="target/fuzz/$short.log"
    echo "fuzz: $short for ${seconds}s" >&2
    set +e
    # Jazzer writes a finding's DEDUP_TOKEN to standard output, so the build's check of test output is off here.
    # jazzer.internal.arg.N are libFuzzer's arguments (0 is argv[0]); jazzer-junit appends them after the
    # annotation's own max_total_time, and libFuzzer keeps the last value of a flag. One input running longer than
    # 30 s is a finding (a hang), so that it cannot stall the run.
    JAZZER_FUZZ=1 mvn -B -ntp -o -pl "$module" -am verify \
        -Dspotless.skip=true -Dchorus.test.stdout=off \
        -Dtest="$class#$method" -Dsurefire.failIfNoSpecifiedTests=false \
        -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1="-max_total_time=$seconds" \
        -Djazzer.internal.arg.2=-timeout=30 \
        > "$log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$log" | tail -n 1)
    if [ -z "$execs" ]; then
        execs=$(sed -n 's/^#\([0-9]*\)[[:space:]].*/\1/p' "$log" | tail -n 1)
    fi
    execs="${execs:-0}"
    cov=$(sed -n 's/^#[0-9]*[[:space:]].* cov: \([0-9]*\) ft: \([0-9]*\).*/\1\/\2/p' "$log" | tail -n 1)
    cov="${cov:--}"
    findings=0
    crash=""
    if [ "$rc" -ne 0 ]; then
        findings=1
        crash=$(sed -n "s/.*Test unit written to \(.*\)/\1/p" "$log" | tail -n 1)
        crash="${crash:-see $log}"
    fi
    rows+=("$(printf '%-58s %12s %12s %8s  %s' "$short" "$execs" "$cov" "$findings" "$crash")")
    n=$((n + 1))
    total_execs=$((total_execs + execs))
    total_findings=$((total_findings + findings))
done <<< "$targets"

printf '%-58s %12s %12s %8s  %s\n' "target" "executions" "cov/ft" "findings" "crash input"
printf '%s\n' "${rows[@]}"
echo "fuzz: $n targets, $total_execs executions, $total_findings findings"
[ "$total_findings" -eq 0 ]
