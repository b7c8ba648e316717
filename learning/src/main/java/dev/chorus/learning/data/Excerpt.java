package dev.chorus.learning.data;

import java.util.Collection;
import java.util.Iterator;
import java.util.function.UnaryOperator;

/**
 * Short forms of data values for error messages, so that a 40 MB field or a column of 100,000
 * distinct values still gives a one-line message a person can read: a value is cut after {@value
 * #MAX_CHARS} characters, a list after {@value #MAX_ITEMS} items.
 */
public final class Excerpt {

    /** Characters of a value shown in a message. */
    public static final int MAX_CHARS = 60;

    /** Items of a list shown in a message. */
    public static final int MAX_ITEMS = 10;

    private Excerpt() {}

    /** {@code value} in double quotes, cut after {@value #MAX_CHARS} characters: {@code "abc..." (12345 characters)}. */
    public static String quote(String value) {
        return "\"" + cut(value) + "\"" + (value.length() > MAX_CHARS ? " (" + value.length() + " characters)" : "");
    }

    /** {@code name} unquoted (a column name), cut like {@link #quote}. */
    public static String name(String name) {
        return name.length() > MAX_CHARS ? cut(name) + " (" + name.length() + " characters)" : name;
    }

    /** The values, each {@linkplain #quote quoted}, comma-separated, the first {@value #MAX_ITEMS} then "and N more". */
    public static String quoted(Collection<String> values) {
        return join(values, Excerpt::quote);
    }

    /** The names, each {@linkplain #name cut}, comma-separated, the first {@value #MAX_ITEMS} then "and N more". */
    public static String names(Collection<String> names) {
        return join(names, Excerpt::name);
    }

    /** The items as they are (already short), comma-separated, the first {@value #MAX_ITEMS} then "and N more". */
    public static String list(Collection<String> items) {
        return join(items, item -> item);
    }

    private static String join(Collection<String> values, UnaryOperator<String> form) {
        StringBuilder sb = new StringBuilder();
        Iterator<String> it = values.iterator();
        for (int i = 0; i < MAX_ITEMS && it.hasNext(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            String value = it.next();
            sb.append(form.apply(value));
        }
        if (values.size() > MAX_ITEMS) {
            sb.append(" and ").append(values.size() - MAX_ITEMS).append(" more");
        }
        return sb.toString();
    }

    private static String cut(String value) {
        return value.length() > MAX_CHARS ? value.substring(0, MAX_CHARS) + "..." : value;
    }
}
