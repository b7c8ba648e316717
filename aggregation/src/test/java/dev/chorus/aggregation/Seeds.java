package dev.chorus.aggregation;

import java.util.stream.LongStream;

/** The seeds of the property tests, printed by each test so that any failure can be replayed. */
public final class Seeds {

    private Seeds() {}

    /** Twenty fixed seeds; a test takes them as {@code @MethodSource("dev.chorus.aggregation.Seeds#seeds")}. */
    public static LongStream seeds() {
        return LongStream.rangeClosed(1, 20).map(i -> i * 0x9E3779B97F4A7C15L);
    }

    public static void print(String test, long seed) {
        System.out.println(test + " seed=" + seed);
    }
}
