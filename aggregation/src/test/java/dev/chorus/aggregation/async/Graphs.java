package dev.chorus.aggregation.async;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/** Fixed communication graphs for simulations: adjacency lists of node ids {@code n0, n1, ...}. */
final class Graphs {

    private Graphs() {}

    static String id(int i) {
        return "n" + i;
    }

    static int index(String id) {
        return Integer.parseInt(id.substring(1));
    }

    static List<List<String>> ring(int n) {
        List<List<String>> graph = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            graph.add(List.of(id((i + n - 1) % n), id((i + 1) % n)));
        }
        return graph;
    }

    /** A connected random {@code degree}-regular graph on {@code n} nodes, by the pairing model with retries. */
    static List<List<String>> randomRegular(int n, int degree, SplittableRandom random) {
        if ((n * degree) % 2 != 0 || degree >= n) {
            throw new IllegalArgumentException("no " + degree + "-regular graph on " + n + " nodes");
        }
        for (int attempt = 0; attempt < 10_000; attempt++) {
            int[] stubs = new int[n * degree];
            for (int i = 0; i < stubs.length; i++) {
                stubs[i] = i / degree;
            }
            for (int i = stubs.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = stubs[i];
                stubs[i] = stubs[j];
                stubs[j] = t;
            }
            List<Set<Integer>> adjacency = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                adjacency.add(new HashSet<>());
            }
            boolean simple = true;
            for (int k = 0; k < stubs.length && simple; k += 2) {
                int a = stubs[k];
                int b = stubs[k + 1];
                simple = a != b && adjacency.get(a).add(b) && adjacency.get(b).add(a);
            }
            if (simple && connected(adjacency)) {
                List<List<String>> graph = new ArrayList<>();
                for (Set<Integer> neighbours : adjacency) {
                    graph.add(neighbours.stream().sorted().map(Graphs::id).toList());
                }
                return graph;
            }
        }
        throw new IllegalStateException("no connected regular graph found");
    }

    private static boolean connected(List<Set<Integer>> adjacency) {
        boolean[] seen = new boolean[adjacency.size()];
        ArrayList<Integer> stack = new ArrayList<>(List.of(0));
        seen[0] = true;
        int count = 1;
        while (!stack.isEmpty()) {
            int v = stack.removeLast();
            for (int w : adjacency.get(v)) {
                if (!seen[w]) {
                    seen[w] = true;
                    count++;
                    stack.add(w);
                }
            }
        }
        return count == adjacency.size();
    }
}
