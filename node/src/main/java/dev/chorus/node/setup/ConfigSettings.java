package dev.chorus.node.setup;

import dev.chorus.node.config.ConfigSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The {@code --set KEY=VALUE} options of commands that write node configs: checked against the schema. */
public final class ConfigSettings {

    private ConfigSettings() {}

    /**
     * The values by key, in the order given (a repeated key: the last value).
     *
     * @param settings the {@code KEY=VALUE} items
     * @param own keys the command sets itself, refused with {@code "--set: KEY is " + why}
     * @throws UserError for an item without {@code =}, an unknown key or one of {@code own}
     */
    public static Map<String, String> parse(List<String> settings, Set<String> own, String why) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String s : settings) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new UserError("--set: expected KEY=VALUE, got '" + s + "'");
            }
            String key = s.substring(0, eq).trim();
            if (ConfigSchema.key(key) == null) {
                throw new UserError("--set: " + key + ": unknown key (docs/config.md lists them)");
            }
            if (own.contains(key)) {
                throw new UserError("--set: " + key + " is " + why);
            }
            out.put(key, s.substring(eq + 1).trim());
        }
        return out;
    }
}
