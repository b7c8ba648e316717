package dev.chorus.node.logging;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link ChorusLogging#configure} sets up.
 *
 * @param format the format of every line (standard error and file alike)
 * @param rootLevel the level of every logger without a level of its own
 * @param levels logger name to level, applied after the built-in library levels (so they can be
 *     overridden), in order
 * @param file the log file, rolled by size, or null for standard error only
 * @param maxFileBytes the size at which the log file is rolled
 */
public record LogSettings(
        LogFormat format, String rootLevel, Map<String, String> levels, Path file, long maxFileBytes) {

    /** A log file is rolled when it reaches 10 MiB. */
    public static final long MAX_FILE_BYTES = 10L * 1024 * 1024;

    /** The level names, lowest first; {@code off} silences a logger. */
    public static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

    /** Libraries that are chatty at info: kept quiet unless a level says otherwise. */
    public static final Map<String, String> LIBRARY_LEVELS = Map.of(
            "org.bytedeco", "error",
            "org.nd4j", "warn",
            "io.netty", "warn",
            "io.vertx", "warn");

    /** The root level of a command other than {@code node run}: warnings and errors only. */
    public static final String COMMAND_LEVEL = "warn";

    public LogSettings {
        if (maxFileBytes < 1024) {
            throw new IllegalArgumentException("maxFileBytes must be at least 1024, got " + maxFileBytes);
        }
        checkLevel(rootLevel);
        levels.values().forEach(LogSettings::checkLevel);
        levels = Collections.unmodifiableMap(new LinkedHashMap<>(levels));
    }

    /** Settings with log files rolled at {@link #MAX_FILE_BYTES}. */
    public LogSettings(LogFormat format, String rootLevel, Map<String, String> levels, Path file) {
        this(format, rootLevel, levels, file, MAX_FILE_BYTES);
    }

    /** Settings for a command: the given format, warnings and errors on standard error. */
    public static LogSettings command(LogFormat format) {
        return new LogSettings(format, COMMAND_LEVEL, Map.of(), null);
    }

    /** Whether {@code text} names a level (lower case, as {@link #LEVELS} lists them). */
    public static boolean isLevel(String text) {
        return LEVELS.contains(text);
    }

    private static void checkLevel(String level) {
        if (!isLevel(level)) {
            throw new IllegalArgumentException(
                    "expected one of " + String.join(", ", LEVELS) + ", got '" + level + "'");
        }
    }
}
