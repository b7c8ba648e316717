package dev.chorus.node.averaging;

import dev.chorus.aggregation.robust.CenteredClipping;
import dev.chorus.aggregation.robust.CoordinateWiseMedian;
import dev.chorus.aggregation.robust.Krum;
import dev.chorus.aggregation.robust.MultiKrum;
import dev.chorus.aggregation.robust.NormClipping;
import dev.chorus.aggregation.robust.RobustAggregator;
import dev.chorus.aggregation.robust.TrimmedMean;
import java.util.Locale;
import java.util.Optional;

/**
 * The robust rule {@code averaging.robust} names, parsed once: which {@link RobustAggregator} replaces the weighted
 * mean where a strategy combines several models at once ({@code sync}'s round, {@code fedbuff}'s buffer), and how
 * many models it needs per aggregation for its bound to hold (docs/aggregation.md). The forms are
 * {@value #FORMS}.
 */
public sealed interface RobustRule {

    /** Every form the config accepts, as errors and help texts list them. */
    String FORMS = "none, median, trimmed:B, clip:TAU, centered-clip:TAU, krum:F, multikrum:F,M";

    /** The weighted mean, no robust rule (the default). */
    RobustRule NONE = new None();

    /** No robust rule: the strategy's weighted mean. */
    record None() implements RobustRule {
        @Override
        public String text() {
            return "none";
        }

        @Override
        public int minInputs() {
            return 1;
        }

        @Override
        public String requirement() {
            return "";
        }
    }

    /** {@link CoordinateWiseMedian}: tolerates {@code f < n/2}; needs 3 models to tolerate one. */
    record Median() implements RobustRule {
        @Override
        public String text() {
            return "median";
        }

        @Override
        public int minInputs() {
            return 3;
        }

        @Override
        public String requirement() {
            return "n >= 3 (with fewer the median is the mean and tolerates no faulty model)";
        }
    }

    /** {@link TrimmedMean} dropping {@code trimmed} values at each end of every coordinate. */
    record Trimmed(int trimmed) implements RobustRule {
        @Override
        public String text() {
            return "trimmed:" + trimmed;
        }

        @Override
        public int minInputs() {
            return 2 * trimmed + 1;
        }

        @Override
        public String requirement() {
            return "n > 2B = " + 2 * trimmed;
        }
    }

    /** {@link NormClipping} at norm {@code threshold}: bounds each model's (or delta's) norm; any {@code n}. */
    record Clip(double threshold) implements RobustRule {
        @Override
        public String text() {
            return "clip:" + threshold;
        }

        @Override
        public int minInputs() {
            return 1;
        }

        @Override
        public String requirement() {
            return "n >= 1";
        }
    }

    /** {@link CenteredClipping} at radius {@code threshold}, from the median, {@link #ITERATIONS} times. */
    record CenteredClip(double threshold) implements RobustRule {

        /** Clipping rounds: the paper's one suffices from the previous aggregate; from the median, a few more. */
        public static final int ITERATIONS = 3;

        @Override
        public String text() {
            return "centered-clip:" + threshold;
        }

        @Override
        public int minInputs() {
            return 3;
        }

        @Override
        public String requirement() {
            return "n >= 3 (its bound needs f < n/2)";
        }
    }

    /** {@link Krum} tolerating {@code faulty} models: needs {@code n >= 2f + 3}. */
    record KrumRule(int faulty) implements RobustRule {
        @Override
        public String text() {
            return "krum:" + faulty;
        }

        @Override
        public int minInputs() {
            return 2 * faulty + 3;
        }

        @Override
        public String requirement() {
            return "n >= 2f + 3 = " + minInputs();
        }
    }

    /** {@link MultiKrum} tolerating {@code faulty} models, averaging {@code selected}: {@code n >= 2f+3, M <= n-f}. */
    record MultiKrumRule(int faulty, int selected) implements RobustRule {
        @Override
        public String text() {
            return "multikrum:" + faulty + "," + selected;
        }

        @Override
        public int minInputs() {
            return Math.max(2 * faulty + 3, selected + faulty);
        }

        @Override
        public String requirement() {
            return "n >= 2f + 3 = " + (2 * faulty + 3) + " and M <= n - f, so n >= " + minInputs();
        }
    }

    /** The canonical form, as {@link #parse} reads it. */
    String text();

    /** The fewest models per aggregation for which the rule's bound holds. */
    int minInputs();

    /** What {@link #minInputs()} stems from, for messages. */
    String requirement();

    /** Whether this is {@link #NONE}. */
    default boolean isNone() {
        return this instanceof None;
    }

    /** The aggregator, or empty for {@link #NONE} (the strategy's weighted mean). */
    default Optional<RobustAggregator> create() {
        return Optional.ofNullable(
                switch (this) {
                    case None n -> null;
                    case Median m -> new CoordinateWiseMedian();
                    case Trimmed t -> new TrimmedMean(t.trimmed());
                    case Clip c -> new NormClipping(c.threshold());
                    case CenteredClip c -> new CenteredClipping(c.threshold(), CenteredClip.ITERATIONS);
                    case KrumRule k -> new Krum(k.faulty());
                    case MultiKrumRule k -> new MultiKrum(k.faulty(), k.selected());
                });
    }

    /**
     * Why {@code inputs} models per aggregation are too few for this rule, or empty when they suffice.
     *
     * @param inputs the models each aggregation combines
     * @param source where that number comes from, e.g. {@code averaging.participants lists 4 nodes}
     */
    default Optional<String> problemWith(int inputs, String source) {
        if (inputs >= minInputs()) {
            return Optional.empty();
        }
        return Optional.of(text() + " needs " + requirement() + " models per aggregation, but " + source);
    }

    /**
     * The rule {@code text} names, ignoring case and surrounding blanks; null or blank is {@link #NONE}.
     *
     * @throws IllegalArgumentException naming the valid forms when the text is none of them
     */
    static RobustRule parse(String text) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (s.isEmpty()) {
            return NONE;
        }
        int colon = s.indexOf(':');
        String name = colon < 0 ? s : s.substring(0, colon).strip();
        String args = colon < 0 ? null : s.substring(colon + 1).strip();
        return switch (name) {
            case "none", "median" -> {
                if (args != null) {
                    throw invalid(text, name + " takes no argument");
                }
                yield name.equals("none") ? NONE : new Median();
            }
            case "trimmed" -> new Trimmed(count(text, "trimmed:B", args, 1));
            case "clip" -> new Clip(threshold(text, "clip:TAU", args));
            case "centered-clip" -> new CenteredClip(threshold(text, "centered-clip:TAU", args));
            case "krum" -> new KrumRule(count(text, "krum:F", args, 0));
            case "multikrum" -> {
                String[] parts = args == null ? new String[0] : args.split(",", -1);
                if (parts.length != 2) {
                    throw invalid(text, "multikrum:F,M takes the faulty count F and the selected count M");
                }
                yield new MultiKrumRule(
                        count(text, "multikrum:F,M", parts[0].strip(), 0),
                        count(text, "multikrum:F,M", parts[1].strip(), 1));
            }
            default -> throw invalid(text, "unknown robust rule");
        };
    }

    private static int count(String text, String form, String arg, int min) {
        if (arg != null) {
            try {
                int n = Integer.parseInt(arg);
                if (n >= min) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw invalid(text, form + " needs a whole number >= " + min);
    }

    private static double threshold(String text, String form, String arg) {
        if (arg != null) {
            try {
                double tau = Double.parseDouble(arg);
                if (tau > 0 && Double.isFinite(tau)) {
                    return tau;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw invalid(text, form + " needs a finite number TAU > 0");
    }

    private static IllegalArgumentException invalid(String text, String problem) {
        return new IllegalArgumentException(
                problem + ": \"" + (text == null ? "" : text.strip()) + "\"; expected one of " + FORMS);
    }
}
