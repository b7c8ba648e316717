package dev.chorus.cli.bench;

import java.util.Arrays;
import java.util.List;

/**
 * One benchmark figure: the value of every timed run and their median.
 *
 * @param name what was measured
 * @param unit the unit of the runs and the median
 * @param runs one value per timed run (a single value for one-shot measurements)
 * @param note how it was measured, or why it is missing; empty when there is nothing to say
 */
public record Measurement(String name, String unit, List<Double> runs, String note) {
    public Measurement {
        runs = List.copyOf(runs);
    }

    public static Measurement skipped(String name, String unit, String why) {
        return new Measurement(name, unit, List.of(), why);
    }

    public boolean present() {
        return !runs.isEmpty();
    }

    /** The median of the runs (the mean of the middle two for an even count); NaN when there are none. */
    public double median() {
        if (runs.isEmpty()) {
            return Double.NaN;
        }
        double[] s = runs.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
