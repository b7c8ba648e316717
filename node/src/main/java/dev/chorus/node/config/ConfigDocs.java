package dev.chorus.node.config;

import java.util.List;

/**
 * Generates {@code docs/config.md} from {@link ConfigSchema}. A test regenerates it and fails when
 * the committed file differs; {@code chorus config docs --out docs/config.md} rewrites it.
 */
public final class ConfigDocs {

    private ConfigDocs() {}

    /** The whole Markdown page. */
    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Configuration reference (`node.yaml`)\n\n");
        sb.append("<!-- Generated from dev.chorus.node.config.ConfigSchema by `chorus config docs --out"
                + " docs/config.md`; do not edit by hand. -->\n\n");
        sb.append("`chorus init` writes a commented starter file; `chorus node run --config node.yaml` reads it. The"
                + " file is validated once at start: an unknown key, a value of the wrong type or out of range, a"
                + " missing data file, an unreadable key file or a bad multiaddr stops the node with one line that"
                + " names the file, the line and the key, and exit code 2.\n\n");
        sb.append("Any key can be overridden on the command line with `--set KEY=VALUE` (repeatable; the value in"
                + " YAML syntax, e.g. `--set network.bootstrap=[/ip4/10.0.0.5/tcp/4001/p2p/12D3Koo...]`). A path"
                + " given with `--set` is relative to the working directory; `identity.key_file` is always relative"
                + " to `data_dir`.\n\n");
        for (String section : ConfigSchema.sections()) {
            sb.append("## ")
                    .append(section.isEmpty() ? "Top level" : "`" + section + "`")
                    .append("\n\n");
            sb.append("| key | type | default | description |\n");
            sb.append("| --- | --- | --- | --- |\n");
            for (ConfigKey k : ConfigSchema.keys()) {
                if (!k.section().equals(section)) {
                    continue;
                }
                sb.append("| `").append(k.name()).append("` | ").append(type(k)).append(" | ");
                sb.append(defaultCell(k)).append(" | ").append(k.description().replace("|", "\\|"));
                sb.append(" |\n");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String type(ConfigKey k) {
        String t = k.type().label();
        if (k.type() == ConfigType.CHOICE) {
            t += " "
                    + String.join(
                            ", ", k.choices().stream().map(c -> "`" + c + "`").toList());
        }
        if (k.min() != null) {
            t += ", at least " + k.min().longValue();
        }
        return t;
    }

    private static String defaultCell(ConfigKey k) {
        if (k.required()) {
            return "(required)";
        }
        String d = k.defaultText();
        return d == null ? "(none)" : "`" + d + "`";
    }

    /** The lines of a list default in YAML flow style, for the starter file. */
    static String yaml(Object value) {
        if (value instanceof List<?> list) {
            return list.isEmpty()
                    ? "[]"
                    : "[" + String.join(", ", list.stream().map(String::valueOf).toList()) + "]";
        }
        return String.valueOf(value);
    }
}
