package dev.chorus.testnet;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A share of the nodes and how strongly they are impaired: {@code FRACTION:VALUE}, e.g. {@code 0.2:5} (a fifth of
 * the nodes, five times slower) or {@code 0.2:10} (a fifth, 10 Mbit/s links).
 *
 * @param fraction the share of the nodes, in [0, 1]
 * @param value the strength (a slow-down factor, or megabits per second)
 */
public record Impairment(double fraction, double value) {

    public static final Impairment NONE = new Impairment(0, 1);

    public Impairment {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("fraction must lie in [0, 1], got " + fraction);
        }
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("value must be a positive number, got " + value);
        }
    }

    /**
     * Parses {@code FRACTION:VALUE}; {@code option} names the option in error messages, and VALUE must be at least
     * {@code min} ({@code inclusive}) or greater than it.
     */
    public static Impairment parse(String option, String text, String valueName, double min, boolean inclusive) {
        String s = text == null ? "" : text.strip();
        int colon = s.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(
                    option + " expects FRACTION:" + valueName + ", e.g. 0.2:5, got \"" + text + "\"");
        }
        double fraction = number(option, s.substring(0, colon), text);
        double value = number(option, s.substring(colon + 1), text);
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException(
                    option + " fraction must lie in [0, 1], got " + s.substring(0, colon) + " in \"" + text + "\"");
        }
        if (!(inclusive ? value >= min : value > min) || Double.isInfinite(value)) {
            String rule = min == 0 && !inclusive
                    ? "must be positive"
                    : (inclusive ? "must be at least " : "must be greater than ") + plain(min);
            throw new IllegalArgumentException(option + " " + valueName + " " + rule + ", got "
                    + s.substring(colon + 1).strip() + " in \"" + text + "\"");
        }
        return new Impairment(fraction, value);
    }

    static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }

    private static double number(String option, String part, String text) {
        try {
            return Double.parseDouble(part.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": \"" + part + "\" is not a number in \"" + text + "\"");
        }
    }

    /** How many of {@code nodes} are impaired: the fraction rounded to the nearest count. */
    public int count(int nodes) {
        return (int) Math.round(fraction * nodes);
    }

    /**
     * Which nodes are impaired, drawn from {@code seed}: a sorted array of distinct indices. Different {@code salt}s
     * give independent draws, so stragglers and slow links may overlap as chance has it.
     */
    public int[] choose(int nodes, long seed, long salt) {
        int[] order = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            order[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + salt);
        for (int i = nodes - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int[] chosen = Arrays.copyOf(order, count(nodes));
        Arrays.sort(chosen);
        return chosen;
    }
}
