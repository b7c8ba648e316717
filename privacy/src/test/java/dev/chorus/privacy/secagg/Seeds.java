package dev.chorus.privacy.secagg;

import java.util.stream.LongStream;

/**
 * The seeds of the property tests. Each test names its seed in its display name ({@code @ParameterizedTest(name =
 * "seed {0}")}), so a failure in the report says which seed to replay, and nothing is printed.
 */
public final class Seeds {

    private Seeds() {}

    /** Twenty fixed seeds; a test takes them as {@code @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")}. */
    public static LongStream seeds() {
        return LongStream.rangeClosed(1, 20).map(i -> i * 0x9E3779B97F4A7C15L);
    }
}
