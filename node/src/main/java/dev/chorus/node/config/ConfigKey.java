package dev.chorus.node.config;

import java.util.List;

/**
 * One configuration key.
 *
 * @param name the dotted name ({@code data.path} is key {@code path} in section {@code data})
 * @param type the value's type
 * @param defaultValue the value when the key is absent, in its Java form ({@code String},
 *     {@code Long}, {@code Double}, {@code Boolean}, {@code List<String>}); null when there is none
 * @param required whether the key must be set
 * @param min the smallest number allowed (numbers only), or null
 * @param choices the allowed values ({@link ConfigType#CHOICE} only), else empty
 * @param description one or two sentences for the docs and the starter file
 */
public record ConfigKey(
        String name,
        ConfigType type,
        Object defaultValue,
        boolean required,
        Double min,
        List<String> choices,
        String description) {

    public ConfigKey {
        choices = List.copyOf(choices);
    }

    /** The section ({@code data} for {@code data.path}), or "" for a top-level key. */
    public String section() {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(0, dot);
    }

    /** The last part of the name ({@code path} for {@code data.path}). */
    public String leaf() {
        return name.substring(name.lastIndexOf('.') + 1);
    }

    /** The default as it would be written in YAML, or null when there is none. */
    public String defaultText() {
        if (defaultValue == null) {
            return null;
        }
        if (defaultValue instanceof List<?> list) {
            return list.isEmpty()
                    ? "[]"
                    : "[" + String.join(", ", list.stream().map(String::valueOf).toList()) + "]";
        }
        return defaultValue.toString();
    }
}
