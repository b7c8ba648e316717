package dev.chorus.aggregation;

import dev.chorus.testsupport.TestLog;
import java.util.stream.LongStream;

/** The seeds of the property tests: fixed, and in each parameterized test's name, so that any failure can be replayed. */
public final class Seeds {

    private Seeds() {}

    /** Twenty fixed seeds; a test takes them as {@code @MethodSource("dev.chorus.aggregation.Seeds#seeds")}. */
    public static LongStream seeds() {
        return LongStream.rangeClosed(1, 20).map(i -> i * 0x9E3779B97F4A7C15L);
    }

    /** Logs {@code seed} at debug (see {@link TestLog}). */
    public static void print(String test, long seed) {
        TestLog.figures(test + " seed=" + seed);
    }
}
