#!/usr/bin/env bash
# Lists cycles between Java packages in the built jars, as jdeps sees the bytecode (the ArchUnit rule in
# cli/src/test/java/dev/chorus/architecture checks the same from the classes; this is the independent view).
# Usage: scripts/package-cycles.sh   (after ./build package -DskipTests); exits 1 when there is a cycle.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/java-home.sh"
chorus_find_java_home
jars=("$root/cli/target/chorus.jar" "$root"/cli/target/lib/chorus-*.jar)
for j in "${jars[@]}"; do
    [ -f "$j" ] || { echo "package-cycles: $j is missing; run ./build package -DskipTests first" >&2; exit 2; }
done
"$JAVA_HOME/bin/jdeps" -verbose:package --multi-release 25 -e 'dev\.chorus\..*' "${jars[@]}" | python3 -c '
import collections, re, sys
graph = collections.defaultdict(set)
for line in sys.stdin:
    m = re.match(r"\s+(dev\.chorus[\w.]*)\s+->\s+(dev\.chorus[\w.]*)\s", line)
    if m and m.group(1) != m.group(2):
        graph[m.group(1)].add(m.group(2))
nodes = sorted(set(graph) | {b for a in graph for b in graph[a]})
# Tarjan: every strongly connected component of more than one package is a cycle.
index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in sorted(graph[v]):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            cycles.append(sorted(comp))
for v in nodes:
    if v not in index:
        visit(v)
edges = sum(len(s) for s in graph.values())
print(f"{len(nodes)} packages, {edges} dependencies between them")
for c in cycles:
    print("cycle: " + " <-> ".join(c))
print("no cycle" if not cycles else f"{len(cycles)} cycle(s)")
sys.exit(1 if cycles else 0)
'
