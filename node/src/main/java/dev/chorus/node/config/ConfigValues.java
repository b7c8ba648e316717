package dev.chorus.node.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The typed values read for each key, with where each came from (a file and line, or a
 * command-line flag) so that a later check can still name the place. Absent keys give their
 * default.
 */
final class ConfigValues {

    /** A value and its origin; {@code base} is the directory a relative path resolves against. */
    record Entry(Object value, String origin, Path base) {}

    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final Path defaultBase;
    private final String defaultOrigin;

    ConfigValues(Path defaultBase, String defaultOrigin) {
        this.defaultBase = defaultBase;
        this.defaultOrigin = defaultOrigin;
    }

    void put(String key, Object value, String origin, Path base) {
        entries.put(key, new Entry(value, origin, base));
    }

    boolean isSet(String key) {
        return entries.containsKey(key);
    }

    /** Where {@code key} was set, for messages: {@code node.yaml:12} or {@code --set}. */
    String origin(String key) {
        Entry e = entries.get(key);
        return e == null ? defaultOrigin : e.origin();
    }

    /** {@code origin: key: problem}, the one line every configuration error has. */
    ConfigException error(String key, String problem) {
        return new ConfigException(origin(key) + ": " + key + ": " + problem);
    }

    Object raw(String key) {
        Entry e = entries.get(key);
        if (e != null) {
            return e.value();
        }
        ConfigKey k = ConfigSchema.key(key);
        if (k.required()) {
            throw new ConfigException(defaultOrigin + ": " + key + ": required key is missing");
        }
        return k.defaultValue();
    }

    String string(String key) {
        return (String) raw(key);
    }

    int integer(String key) {
        return Math.toIntExact((Long) raw(key));
    }

    long longValue(String key) {
        return (Long) raw(key);
    }

    double number(String key) {
        return (Double) raw(key);
    }

    /** A number of seconds as a duration, to the millisecond. */
    java.time.Duration seconds(String key) {
        return java.time.Duration.ofMillis(Math.round(1000 * number(key)));
    }

    boolean bool(String key) {
        return (Boolean) raw(key);
    }

    @SuppressWarnings("unchecked")
    List<String> list(String key) {
        return (List<String>) raw(key);
    }

    /** One path of the list {@code key}, resolved against the directory the key's value came from. */
    Path resolve(String key, String value) {
        Path p = Path.of(value);
        if (p.isAbsolute()) {
            return p.normalize();
        }
        Entry e = entries.get(key);
        return (e != null ? e.base() : defaultBase).resolve(p).normalize();
    }

    /** The path value of {@code key}, resolved against the directory it is relative to. */
    Path path(String key, Path relativeTo) {
        Entry e = entries.get(key);
        Path p = Path.of(string(key));
        if (p.isAbsolute()) {
            return p.normalize();
        }
        Path base = relativeTo != null ? relativeTo : e != null ? e.base() : defaultBase;
        return base.resolve(p).normalize();
    }
}
