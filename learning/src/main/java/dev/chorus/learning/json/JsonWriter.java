package dev.chorus.learning.json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/**
 * Writes one JSON value (RFC 8259) to an {@link Appendable}, token by token, checking that the
 * calls nest: a {@link #name} only inside an object and before each of its values, a value only
 * where one is expected, and every container closed.
 *
 * <p>Strings are escaped as RFC 8259 section 7 requires: quote, backslash and the control
 * characters U+0000..U+001F; U+2028 and U+2029 are escaped too, so the output is also valid
 * JavaScript. Numbers: JSON has no NaN or infinity, so a non-finite {@code double} is written as
 * {@code null}; a reader sees "no value" rather than a parse error.
 */
public final class JsonWriter {

    private enum Scope {
        EMPTY_OBJECT,
        OBJECT,
        OBJECT_AFTER_NAME,
        EMPTY_ARRAY,
        ARRAY
    }

    private final Appendable out;
    private final String indent;
    private final Deque<Scope> scopes = new ArrayDeque<>();
    private boolean wroteTopLevel;

    private JsonWriter(Appendable out, String indent) {
        this.out = Objects.requireNonNull(out, "out");
        this.indent = indent;
    }

    /** A writer of compact JSON, without any whitespace. */
    public static JsonWriter compact(Appendable out) {
        return new JsonWriter(out, "");
    }

    /** A writer that puts each member and element on its own line, indented by two spaces. */
    public static JsonWriter pretty(Appendable out) {
        return new JsonWriter(out, "  ");
    }

    public JsonWriter beginObject() {
        beforeValue();
        write('{');
        scopes.push(Scope.EMPTY_OBJECT);
        return this;
    }

    public JsonWriter endObject() {
        Scope scope = scopes.peek();
        if (scope != Scope.EMPTY_OBJECT && scope != Scope.OBJECT) {
            throw new IllegalStateException("endObject() outside an object or after a name without value");
        }
        scopes.pop();
        if (scope == Scope.OBJECT) {
            newline();
        }
        write('}');
        return this;
    }

    public JsonWriter beginArray() {
        beforeValue();
        write('[');
        scopes.push(Scope.EMPTY_ARRAY);
        return this;
    }

    public JsonWriter endArray() {
        Scope scope = scopes.peek();
        if (scope != Scope.EMPTY_ARRAY && scope != Scope.ARRAY) {
            throw new IllegalStateException("endArray() outside an array");
        }
        scopes.pop();
        if (scope == Scope.ARRAY) {
            newline();
        }
        write(']');
        return this;
    }

    /** The name of the next member of the current object. */
    public JsonWriter name(String name) {
        Objects.requireNonNull(name, "name");
        Scope scope = scopes.peek();
        if (scope != Scope.EMPTY_OBJECT && scope != Scope.OBJECT) {
            throw new IllegalStateException("name(\"" + name + "\") outside an object or twice in a row");
        }
        if (scope == Scope.OBJECT) {
            write(',');
        }
        newline();
        quote(name);
        write(indent.isEmpty() ? ":" : ": ");
        scopes.pop();
        scopes.push(Scope.OBJECT_AFTER_NAME);
        return this;
    }

    public JsonWriter value(String value) {
        if (value == null) {
            return nullValue();
        }
        beforeValue();
        quote(value);
        return this;
    }

    public JsonWriter value(long value) {
        beforeValue();
        write(Long.toString(value));
        return this;
    }

    /** A number; NaN and the infinities, which JSON cannot represent, are written as {@code null}. */
    public JsonWriter value(double value) {
        if (!Double.isFinite(value)) {
            return nullValue();
        }
        beforeValue();
        write(numberText(value));
        return this;
    }

    public JsonWriter value(boolean value) {
        beforeValue();
        write(value ? "true" : "false");
        return this;
    }

    public JsonWriter nullValue() {
        beforeValue();
        write("null");
        return this;
    }

    /** Shorthand for {@code name(name).value(value)}. */
    public JsonWriter member(String name, String value) {
        return name(name).value(value);
    }

    public JsonWriter member(String name, long value) {
        return name(name).value(value);
    }

    public JsonWriter member(String name, double value) {
        return name(name).value(value);
    }

    public JsonWriter member(String name, boolean value) {
        return name(name).value(value);
    }

    /** Checks that the written value is complete: one top-level value, every container closed. */
    public void finish() {
        if (!scopes.isEmpty() || !wroteTopLevel) {
            throw new IllegalStateException("incomplete JSON document: " + scopes.size() + " open containers");
        }
    }

    /** The JSON string literal for {@code s}, with quotes. */
    public static String quoted(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        JsonWriter w = compact(sb);
        w.value(s);
        return sb.toString();
    }

    /**
     * The shortest text that reads back as the same double: integral values within 2^53 without a
     * fraction, others as {@link Double#toString}, which JSON's number grammar accepts.
     */
    static String numberText(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 0x1p53) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    private void beforeValue() {
        Scope scope = scopes.peek();
        if (scope == null) {
            if (wroteTopLevel) {
                throw new IllegalStateException("a JSON document holds one top-level value");
            }
            wroteTopLevel = true;
            return;
        }
        switch (scope) {
            case OBJECT_AFTER_NAME -> {
                scopes.pop();
                scopes.push(Scope.OBJECT);
            }
            case EMPTY_ARRAY -> {
                scopes.pop();
                scopes.push(Scope.ARRAY);
                newline();
            }
            case ARRAY -> {
                write(',');
                newline();
            }
            case EMPTY_OBJECT, OBJECT -> throw new IllegalStateException("a value inside an object needs a name first");
        }
    }

    private void newline() {
        if (indent.isEmpty()) {
            return;
        }
        write('\n');
        for (int i = 0; i < scopes.size(); i++) {
            write(indent);
        }
    }

    private void quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
        write(sb);
    }

    private void write(CharSequence s) {
        try {
            out.append(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void write(char c) {
        try {
            out.append(c);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
