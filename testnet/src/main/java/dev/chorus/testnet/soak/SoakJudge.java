package dev.chorus.testnet.soak;

import dev.chorus.testnet.faults.FaultReport;
import dev.chorus.testnet.soak.SoakSample.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Judges a soak's samples: after the warm-up, the rolling median (over {@link #window} rounds) of each node's
 * resident memory, threads, descriptors and heap after GC must stay within {@code tolerance} of the first such
 * median (a leak drifts away from it for good; a transient, such as a model in flight counted in the live heap,
 * passes through a median), and each node must keep training. The report's table has one row per
 * sampling round, summed over the nodes; its figures give, per resource, the worst node's drift, the drift of the
 * sum and the sum's trend (least squares, per hour), which tells a slow leak from noise even when both stay inside
 * the band.
 */
public final class SoakJudge {

    /** The most rounds per rolling median. */
    static final int WINDOW = 5;

    private static final List<String> COLUMNS =
            List.of("minute", "resident MiB", "threads", "fds", "heap after GC MiB", "steps", "fewest peers");

    private SoakJudge() {}

    /**
     * The report of a soak.
     *
     * @param samples every node's samples, in the order taken; each round's samples share its {@code minutes}
     * @param nodes the testnet's node count
     * @param warmupMinutes samples before this are shown but not judged
     * @param tolerance the largest drift allowed, as a fraction of the reference value (0.10: within 10%)
     * @param stopped why the sampling stopped before its end, or null when it ran its course
     */
    public static FaultReport judge(
            List<SoakSample> samples, int nodes, double warmupMinutes, double tolerance, String stopped) {
        FaultReport report = new FaultReport("soak:", "soak", COLUMNS);
        Map<Double, List<SoakSample>> rounds = rounds(samples);
        for (Map.Entry<Double, List<SoakSample>> r : rounds.entrySet()) {
            List<SoakSample> round = r.getValue();
            report.row(
                    String.format(Locale.ROOT, "%.1f", r.getKey()),
                    String.format(
                            Locale.ROOT, "%.0f", SoakSample.display(Metric.RESIDENT, sum(round, Metric.RESIDENT))),
                    (long) sum(round, Metric.THREADS),
                    (long) sum(round, Metric.FDS),
                    String.format(Locale.ROOT, "%.1f", SoakSample.display(Metric.HEAP, sum(round, Metric.HEAP))),
                    round.stream().mapToLong(SoakSample::steps).sum(),
                    round.stream().mapToInt(SoakSample::peers).min().orElse(0));
        }
        report.figure("nodes", nodes);
        report.figure("warm-up minutes", warmupMinutes);
        report.figure("tolerance", tolerance);
        if (stopped != null) {
            report.fail("the soak stopped early: " + stopped);
        }
        List<Double> judged =
                rounds.keySet().stream().filter(m -> m >= warmupMinutes).toList();
        if (judged.size() < 2) {
            report.fail("fewer than two sampling rounds after the " + fmt(warmupMinutes) + "-minute warm-up ("
                    + judged.size() + "); nothing to judge");
            return report;
        }
        report.figure("minutes judged", judged.getLast() - judged.getFirst());
        for (Metric m : Metric.values()) {
            judgeMetric(report, rounds, judged, m, nodes, tolerance);
        }
        judgeTraining(report, rounds, judged, nodes);
        report.passBecause(String.format(
                Locale.ROOT,
                "every node's resident memory, threads, descriptors and heap after GC (medians over %d rounds) stayed"
                        + " within %.0f%% of their values at minute %s for %s minutes, and every node trained on",
                window(judged.size()),
                tolerance * 100,
                fmt(judged.get(window(judged.size()) - 1)),
                fmt(judged.getLast() - judged.getFirst())));
        return report;
    }

    private static void judgeMetric(
            FaultReport report,
            Map<Double, List<SoakSample>> rounds,
            List<Double> judged,
            Metric m,
            int nodes,
            double tolerance) {
        int w = window(judged.size());
        double worst = 0;
        int worstNode = -1;
        for (int n = 0; n < nodes; n++) {
            double[] v = new double[judged.size()];
            for (int i = 0; i < v.length; i++) {
                SoakSample s = of(rounds.get(judged.get(i)), n);
                v[i] = s == null ? Double.NaN : s.value(m);
            }
            double[] smooth = medians(v, w);
            double ref = smooth[w - 1];
            for (int i = w; i < v.length; i++) {
                double drift = drift(smooth[i], ref);
                if (Math.abs(drift) > Math.abs(worst) || worstNode < 0) {
                    worst = drift;
                    worstNode = n;
                }
            }
            for (int i = w; i < v.length; i++) {
                double drift = drift(smooth[i], ref);
                if (Math.abs(drift) > tolerance) {
                    // The first time a node leaves the band; its worst drift shows in the figures.
                    report.fail(String.format(
                            Locale.ROOT,
                            "node-%03d %s: median %s at minute %s, %+.1f%% from %s at minute %s, past ±%.0f%%",
                            n,
                            m.label(),
                            show(m, smooth[i]),
                            fmt(judged.get(i)),
                            drift * 100,
                            show(m, ref),
                            fmt(judged.get(w - 1)),
                            tolerance * 100));
                    break;
                }
            }
        }
        double[] t = new double[judged.size()];
        double[] y = new double[judged.size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = judged.get(i);
            y[i] = sum(rounds.get(judged.get(i)), m);
        }
        double[] smooth = medians(y, w);
        double ref = smooth[w - 1];
        double sumDrift = 0;
        for (int i = w; i < y.length; i++) {
            sumDrift = Math.max(sumDrift, Math.abs(drift(smooth[i], ref)));
        }
        report.figure(m.label() + ", all nodes, at minute " + fmt(t[w - 1]), show(m, ref));
        report.figure(m.label() + ", all nodes, largest drift %", 100 * sumDrift);
        report.figure(m.label() + ", all nodes, trend % per hour", 100 * 60 * slope(t, y) / ref);
        report.figure(
                m.label() + ", worst node's largest drift %",
                String.format(Locale.ROOT, "%+.1f (node-%03d)", 100 * worst, worstNode));
    }

    /**
     * Rounds per rolling median: five (five minutes at the default pace), fewer in a short soak so that at least
     * two medians follow the reference. A median over a few rounds passes a transient (a model in flight counts in
     * the live heap for one sample) and keeps a leak, which persists.
     */
    static int window(int judgedRounds) {
        return Math.max(1, Math.min(WINDOW, judgedRounds / 3));
    }

    /** {@code out[i]}: the median of {@code v[i-w+1..i]}, NaN entries left out; undefined (NaN) for i < w - 1. */
    static double[] medians(double[] v, int w) {
        double[] out = new double[v.length];
        java.util.Arrays.fill(out, Double.NaN);
        for (int i = w - 1; i < v.length; i++) {
            double[] win = java.util.Arrays.stream(v, i - w + 1, i + 1)
                    .filter(x -> !Double.isNaN(x))
                    .sorted()
                    .toArray();
            if (win.length > 0) {
                out[i] =
                        win.length % 2 == 1 ? win[win.length / 2] : (win[win.length / 2 - 1] + win[win.length / 2]) / 2;
            }
        }
        return out;
    }

    /** {@code (v - ref) / ref}; 0 when both are 0 or v is unknown, infinite from a reference of 0. */
    private static double drift(double v, double ref) {
        if (Double.isNaN(v) || v == ref) {
            return 0;
        }
        return ref > 0 ? (v - ref) / ref : Double.POSITIVE_INFINITY;
    }

    private static void judgeTraining(
            FaultReport report, Map<Double, List<SoakSample>> rounds, List<Double> judged, int nodes) {
        for (int n = 0; n < nodes; n++) {
            SoakSample first = of(rounds.get(judged.getFirst()), n);
            SoakSample last = of(rounds.get(judged.getLast()), n);
            if (first == null || last == null) {
                report.fail(String.format(Locale.ROOT, "node-%03d missing from a judged round", n));
            } else if (last.steps() <= first.steps()) {
                report.fail(String.format(
                        Locale.ROOT,
                        "node-%03d stopped training: %d steps at minute %s and at minute %s",
                        n,
                        last.steps(),
                        fmt(judged.getFirst()),
                        fmt(judged.getLast())));
            }
        }
    }

    /** Every sample as CSV, a header line first: bytes and counts as measured. */
    public static String csv(List<SoakSample> samples) {
        StringBuilder sb =
                new StringBuilder("node,minute,resident_bytes,threads,open_fds,heap_after_gc_bytes,steps,peers\n");
        for (SoakSample s : samples) {
            sb.append(String.format(
                    Locale.ROOT,
                    "node-%03d,%.2f,%d,%d,%d,%d,%d,%d\n",
                    s.node(),
                    s.minutes(),
                    s.residentBytes(),
                    s.threads(),
                    s.openFds(),
                    s.heapAfterGcBytes(),
                    s.steps(),
                    s.peers()));
        }
        return sb.toString();
    }

    /** The samples grouped by round, in time order. */
    static Map<Double, List<SoakSample>> rounds(List<SoakSample> samples) {
        Map<Double, List<SoakSample>> rounds = new TreeMap<>();
        for (SoakSample s : samples) {
            rounds.computeIfAbsent(s.minutes(), k -> new ArrayList<>()).add(s);
        }
        return rounds;
    }

    static double sum(List<SoakSample> round, Metric m) {
        double total = 0;
        for (SoakSample s : round) {
            total += s.value(m);
        }
        return total;
    }

    private static SoakSample of(List<SoakSample> round, int node) {
        for (SoakSample s : round) {
            if (s.node() == node) {
                return s;
            }
        }
        return null;
    }

    /** The least-squares slope of {@code y} against {@code t}. */
    static double slope(double[] t, double[] y) {
        double mt = 0;
        double my = 0;
        for (int i = 0; i < t.length; i++) {
            mt += t[i] / t.length;
            my += y[i] / t.length;
        }
        double num = 0;
        double den = 0;
        for (int i = 0; i < t.length; i++) {
            num += (t[i] - mt) * (y[i] - my);
            den += (t[i] - mt) * (t[i] - mt);
        }
        return den == 0 ? 0 : num / den;
    }

    private static String show(Metric m, double raw) {
        return m.unit().isEmpty()
                ? String.format(Locale.ROOT, "%.0f", raw)
                : String.format(Locale.ROOT, "%.1f %s", SoakSample.display(m, raw), m.unit());
    }

    private static String fmt(double minutes) {
        return String.format(Locale.ROOT, "%.1f", minutes);
    }
}
