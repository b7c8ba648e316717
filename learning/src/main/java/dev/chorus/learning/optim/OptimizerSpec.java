package dev.chorus.learning.optim;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An optimizer named on the command line: {@code sgd} or {@code adam}, optionally followed by
 * {@code :key=value,...}. Keys are those documented by {@link Sgd} ({@code lr}, {@code momentum},
 * {@code weight_decay}, {@code nesterov}) and {@link Adam} ({@code lr}, {@code beta1}, {@code
 * beta2}, {@code eps}, {@code weight_decay}); omitted keys take the documented defaults. Examples:
 * {@code sgd}, {@code sgd:lr=0.05,momentum=0.9}, {@code adam:lr=0.001}.
 *
 * <p>A spec is validated when built, so {@link #create()} never fails; it can make any number of
 * independent optimizers (one per simulated node, say).
 *
 * @param options the given keys and their values, in the order given
 */
public record OptimizerSpec(Kind kind, Map<String, String> options) {

    /** The optimizer families. */
    public enum Kind {
        SGD(List.of("lr", "momentum", "weight_decay", "nesterov")),
        ADAM(List.of("lr", "beta1", "beta2", "eps", "weight_decay"));

        private final List<String> keys;

        Kind(List<String> keys) {
            this.keys = keys;
        }

        /** The option keys this optimizer accepts. */
        public List<String> keys() {
            return keys;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final String EXPECTED =
            "expected sgd[:lr=..,momentum=..,weight_decay=..,nesterov=true|false] or adam[:lr=..,beta1=..,beta2=..,"
                    + "eps=..,weight_decay=..]";

    public OptimizerSpec {
        if (kind == null) {
            throw new IllegalArgumentException("missing optimizer kind; " + EXPECTED);
        }
        options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
        for (String key : options.keySet()) {
            if (!kind.keys().contains(key)) {
                throw new IllegalArgumentException("unknown " + kind.label() + " option '" + key + "'; expected "
                        + String.join(", ", kind.keys()));
            }
        }
        // Build one optimizer now so that range errors surface at parse time.
        build(kind, options).close();
    }

    /**
     * Parses the command-line form (case-insensitive, blanks around parts ignored).
     *
     * @throws IllegalArgumentException naming the bad part of {@code text}
     */
    public static OptimizerSpec parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("missing optimizer spec; " + EXPECTED);
        }
        String spec = text.trim().toLowerCase(Locale.ROOT);
        int colon = spec.indexOf(':');
        String name = (colon < 0 ? spec : spec.substring(0, colon)).trim();
        Kind kind =
                switch (name) {
                    case "sgd" -> Kind.SGD;
                    case "adam" -> Kind.ADAM;
                    default -> throw new IllegalArgumentException("unknown optimizer '" + text + "'; " + EXPECTED);
                };
        Map<String, String> options = new LinkedHashMap<>();
        if (colon >= 0) {
            for (String part : spec.substring(colon + 1).split(",", -1)) {
                int eq = part.indexOf('=');
                if (eq <= 0 || eq == part.length() - 1) {
                    throw new IllegalArgumentException(
                            "optimizer option '" + part.trim() + "' in '" + text + "' is not key=value");
                }
                String key = part.substring(0, eq).trim();
                if (options.put(key, part.substring(eq + 1).trim()) != null) {
                    throw new IllegalArgumentException("optimizer option '" + key + "' given twice in '" + text + "'");
                }
            }
        }
        return new OptimizerSpec(kind, options);
    }

    /** A new optimizer with fresh state. */
    public Optimizer create() {
        return build(kind, options);
    }

    private static Optimizer build(Kind kind, Map<String, String> options) {
        return switch (kind) {
            case SGD ->
                new Sgd(
                        number(kind, options, "lr", Sgd.DEFAULT_LEARNING_RATE),
                        number(kind, options, "momentum", 0f),
                        number(kind, options, "weight_decay", 0f),
                        bool(kind, options, "nesterov"));
            case ADAM ->
                new Adam(
                        number(kind, options, "lr", Adam.DEFAULT_LEARNING_RATE),
                        number(kind, options, "beta1", Adam.DEFAULT_BETA1),
                        number(kind, options, "beta2", Adam.DEFAULT_BETA2),
                        number(kind, options, "eps", Adam.DEFAULT_EPSILON),
                        number(kind, options, "weight_decay", 0f));
        };
    }

    private static float number(Kind kind, Map<String, String> options, String key, float fallback) {
        String value = options.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            float parsed = Float.parseFloat(value);
            if (Float.isFinite(parsed)) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(kind.label() + " option " + key + "='" + value + "' is not a finite number");
    }

    private static boolean bool(Kind kind, Map<String, String> options, String key) {
        String value = options.getOrDefault(key, "false");
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new IllegalArgumentException(
                        kind.label() + " option " + key + "='" + value + "' is not true or false");
        };
    }

    /** The command-line form of this spec, which {@link #parse} accepts. */
    @Override
    public String toString() {
        if (options.isEmpty()) {
            return kind.label();
        }
        return kind.label() + ":"
                + options.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(","));
    }
}
