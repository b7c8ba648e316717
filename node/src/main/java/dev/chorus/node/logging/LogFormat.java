package dev.chorus.node.logging;

import java.io.Console;
import java.util.Locale;

/** How log lines are written: readable text, JSON lines, or text on a terminal and JSON elsewhere. */
public enum LogFormat {
    TEXT,
    JSON,
    AUTO;

    /** The name used on the command line and in {@code node.yaml}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The format named {@code text}, {@code json} or {@code auto}. */
    public static LogFormat parse(String label) {
        for (LogFormat f : values()) {
            if (f.label().equals(label)) {
                return f;
            }
        }
        throw new IllegalArgumentException("expected text, json or auto, got '" + label + "'");
    }

    /** {@link #TEXT} or {@link #JSON}: {@link #AUTO} is text when the process runs on a terminal. */
    public LogFormat resolve() {
        if (this != AUTO) {
            return this;
        }
        Console console = System.console();
        return console != null && console.isTerminal() ? TEXT : JSON;
    }
}
