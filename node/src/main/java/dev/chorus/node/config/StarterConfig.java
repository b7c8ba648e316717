package dev.chorus.node.config;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The commented {@code node.yaml} that {@code chorus init} writes, generated from {@link
 * ConfigSchema}: every key with its description; keys given a value are set, the others are
 * commented out with their default.
 */
public final class StarterConfig {

    private StarterConfig() {}

    /** The file text, with {@code values} (key to YAML text) set and every other key commented out. */
    public static String render(Map<String, String> values) {
        Map<String, String> set = new LinkedHashMap<>(values);
        for (String k : set.keySet()) {
            if (ConfigSchema.key(k) == null) {
                throw new IllegalArgumentException("not a config key: " + k);
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# Chorus node configuration. Every key, its type and its default: docs/config.md.\n");
        sb.append("# Relative paths are resolved against the directory of this file.\n");
        sb.append("# Lines starting with '#' are comments; remove the '#' before a key to set it.\n");
        for (String section : ConfigSchema.sections()) {
            String indent = section.isEmpty() ? "" : "  ";
            sb.append('\n');
            if (!section.isEmpty()) {
                sb.append(section).append(":\n");
            }
            for (ConfigKey k : ConfigSchema.keys()) {
                if (!k.section().equals(section)) {
                    continue;
                }
                sb.append(indent).append("# ").append(k.description().replace("`", "'"));
                if (k.required()) {
                    sb.append(" (required)");
                }
                sb.append('\n');
                String v = set.get(k.name());
                if (v != null) {
                    sb.append(indent).append(k.leaf()).append(": ").append(v).append('\n');
                } else if (k.defaultValue() != null) {
                    sb.append(indent)
                            .append("# ")
                            .append(k.leaf())
                            .append(": ")
                            .append(ConfigDocs.yaml(k.defaultValue()))
                            .append('\n');
                } else {
                    sb.append(indent).append("# ").append(k.leaf()).append(":\n");
                }
            }
        }
        return sb.toString();
    }
}
