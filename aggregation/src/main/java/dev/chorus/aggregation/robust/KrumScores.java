package dev.chorus.aggregation.robust;

import dev.chorus.aggregation.ParameterVectors;
import java.util.Arrays;
import java.util.List;

/** Krum's score of each input: the sum of squared distances to its {@code n - f - 2} nearest other inputs. */
final class KrumScores {

    private KrumScores() {}

    static void requireEnoughInputs(int n, int faulty, String rule) {
        if (n < 2 * faulty + 3) {
            throw new IllegalArgumentException(rule + " tolerating " + faulty + " faulty inputs needs at least "
                    + (2 * faulty + 3) + ", got " + n);
        }
    }

    static double[] scores(List<float[]> inputs, int faulty) {
        int n = inputs.size();
        double[][] distance = new double[n][n];
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                double d = ParameterVectors.squaredDistance(inputs.get(a), inputs.get(b));
                distance[a][b] = d;
                distance[b][a] = d;
            }
        }
        int neighbours = n - faulty - 2;
        double[] scores = new double[n];
        double[] others = new double[n - 1];
        for (int a = 0; a < n; a++) {
            int m = 0;
            for (int b = 0; b < n; b++) {
                if (b != a) {
                    others[m++] = distance[a][b];
                }
            }
            Arrays.sort(others);
            double s = 0;
            for (int k = 0; k < neighbours; k++) {
                s += others[k];
            }
            scores[a] = s;
        }
        return scores;
    }

    /** Indices of the {@code m} lowest scores, ties broken by the lower index. */
    static int[] lowest(double[] scores, int m) {
        Integer[] order = new Integer[scores.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> scores[x] != scores[y] ? Double.compare(scores[x], scores[y]) : x - y);
        int[] chosen = new int[m];
        for (int i = 0; i < m; i++) {
            chosen[i] = order[i];
        }
        return chosen;
    }
}
