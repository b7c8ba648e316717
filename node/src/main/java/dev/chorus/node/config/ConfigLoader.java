package dev.chorus.node.config;

import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multiaddr.MultiaddrException;
import dev.chorus.node.logging.LogSettings;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads {@code node.yaml} against {@link ConfigSchema}, applies command-line overrides ({@code
 * KEY=VALUE}, the value in YAML syntax), and validates everything once. The YAML is composed into
 * a node tree rather than constructed into objects, so that every value keeps its line number and
 * no YAML tag can instantiate a class. Every error is a {@link ConfigException} with one line that
 * names the key and where it was set.
 */
public final class ConfigLoader {

    /** The largest config file read; a config is a few kilobytes. */
    static final long MAX_BYTES = 1 << 20;

    private ConfigLoader() {}

    /** Loads and validates {@code file} with {@code overrides} ({@code key=value}) applied on top. */
    public static NodeConfig load(Path file, List<String> overrides) {
        Path abs = file.toAbsolutePath().normalize();
        String name = file.toString();
        String text = read(abs, name);
        Path dir = abs.getParent();
        ConfigValues values = new ConfigValues(dir, name);
        Node root = compose(new StringReader(text), name, null);
        if (root != null) {
            if (!(root instanceof MappingNode map)) {
                throw new ConfigException(name + ":" + line(root) + ": the file must be a mapping of keys to values");
            }
            readMapping(map, "", name, dir, values);
        }
        Path cwd = Path.of("").toAbsolutePath();
        for (String o : overrides) {
            applyOverride(o, cwd, values);
        }
        return NodeConfig.from(abs, values);
    }

    private static String read(Path abs, String name) {
        try {
            if (Files.size(abs) > MAX_BYTES) {
                throw new ConfigException(name + ": config file is larger than " + MAX_BYTES + " bytes");
            }
            byte[] bytes = Files.readAllBytes(abs);
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(bytes))
                    .toString();
        } catch (NoSuchFileException e) {
            throw new ConfigException(name + ": config file not found");
        } catch (CharacterCodingException e) {
            throw new ConfigException(name + ": config file is not UTF-8 text");
        } catch (IOException e) {
            throw new ConfigException(name + ": cannot read config file: " + e.getMessage());
        }
    }

    private static Node compose(Reader reader, String origin, String key) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(10);
        options.setCodePointLimit((int) MAX_BYTES);
        Yaml yaml = new Yaml(new SafeConstructor(options));
        try {
            return yaml.compose(reader);
        } catch (MarkedYAMLException e) {
            String where = key == null ? origin + ":" + (e.getProblemMark().getLine() + 1) : origin;
            String prefix = key == null ? "" : key + ": ";
            throw new ConfigException(where + ": " + prefix + "not valid YAML: " + oneLine(e.getProblem() + ""), e);
        } catch (YAMLException e) {
            throw new ConfigException(origin + ": not valid YAML: " + oneLine(e.getMessage()), e);
        }
    }

    private static void readMapping(MappingNode map, String prefix, String file, Path dir, ConfigValues values) {
        Set<String> seen = new HashSet<>();
        for (NodeTuple t : map.getValue()) {
            Node keyNode = t.getKeyNode();
            int line = line(keyNode);
            if (!(keyNode instanceof ScalarNode ks)) {
                throw new ConfigException(file + ":" + line + ": keys must be plain names");
            }
            String name = prefix.isEmpty() ? ks.getValue() : prefix + "." + ks.getValue();
            if (!seen.add(ks.getValue())) {
                throw new ConfigException(file + ":" + line + ": " + name + ": key appears twice");
            }
            Node value = t.getValueNode();
            if (ConfigSchema.sections().contains(name) && !name.isEmpty()) {
                if (isNull(value)) {
                    continue;
                }
                if (!(value instanceof MappingNode section)) {
                    throw new ConfigException(file + ":" + line + ": " + name + ": expected a section of keys ("
                            + String.join(", ", keysOf(name)) + ")");
                }
                readMapping(section, name, file, dir, values);
                continue;
            }
            ConfigKey key = ConfigSchema.key(name);
            if (key == null) {
                throw new ConfigException(file + ":" + line + ": " + name + ": unknown key" + known(prefix));
            }
            if (isNull(value)) {
                continue;
            }
            String origin = file + ":" + line(value);
            values.put(name, convert(key, value, origin, file), origin, dir);
        }
    }

    private static void applyOverride(String override, Path cwd, ConfigValues values) {
        int eq = override.indexOf('=');
        if (eq <= 0) {
            throw new ConfigException("--set " + override + ": expected KEY=VALUE");
        }
        String name = override.substring(0, eq).strip();
        String origin = "--set " + name;
        ConfigKey key = ConfigSchema.key(name);
        if (key == null) {
            throw new ConfigException(origin + ": " + name + ": unknown key (see docs/config.md)");
        }
        Node value = compose(new StringReader(override.substring(eq + 1)), origin, name);
        if (value == null || isNull(value)) {
            throw new ConfigException(origin + ": " + name + ": a value is required");
        }
        values.put(name, convert(key, value, origin, null), origin, cwd);
    }

    /**
     * The Java value of {@code node} for {@code key}, or an error that names the expected type.
     * {@code file} is the config file (list items then name their own line), or null for a flag.
     */
    static Object convert(ConfigKey key, Node node, String origin, String file) {
        String where = origin + ": " + key.name() + ": ";
        return switch (key.type()) {
            case STRING_LIST, MULTIADDR_LIST, LOGGER_LEVEL_LIST -> {
                if (!(node instanceof SequenceNode seq)) {
                    throw new ConfigException(where + "expected a " + key.type().label()
                            + " ([a, b] or one '- item' per line), got " + describe(node));
                }
                List<String> out = new ArrayList<>();
                int i = 0;
                for (Node item : seq.getValue()) {
                    String itemOrigin = file == null ? origin : file + ":" + line(item);
                    String itemWhere = itemOrigin + ": " + key.name() + "[" + i + "]: ";
                    if (!(item instanceof ScalarNode s) || isNull(item)) {
                        throw new ConfigException(itemWhere + "expected a string, got " + describe(item));
                    }
                    if (key.type() == ConfigType.MULTIADDR_LIST) {
                        try {
                            Multiaddr.parse(s.getValue());
                        } catch (MultiaddrException e) {
                            throw new ConfigException(itemWhere + "bad multiaddr: " + e.getMessage(), e);
                        }
                    }
                    if (key.type() == ConfigType.LOGGER_LEVEL_LIST) {
                        checkLoggerLevel(s.getValue(), itemWhere);
                    }
                    out.add(s.getValue());
                    i++;
                }
                yield List.copyOf(out);
            }
            default -> {
                if (!(node instanceof ScalarNode s)) {
                    throw new ConfigException(where + "expected " + expected(key) + ", got " + describe(node));
                }
                yield scalar(key, s, where);
            }
        };
    }

    /** {@code logger=level}: a logger name (or a package prefix) and one of {@link LogSettings#LEVELS}. */
    private static void checkLoggerLevel(String item, String where) {
        int eq = item.indexOf('=');
        String logger = eq < 0 ? "" : item.substring(0, eq).strip();
        if (eq < 0 || !logger.matches("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*")) {
            throw new ConfigException(
                    where + "expected logger=level (e.g. io.netty=debug), got '" + oneLine(item) + "'");
        }
        String level = item.substring(eq + 1).strip();
        if (!LogSettings.isLevel(level)) {
            throw new ConfigException(where + "unknown level '" + oneLine(level) + "' for " + logger
                    + " (expected one of " + String.join(", ", LogSettings.LEVELS) + ")");
        }
    }

    private static Object scalar(ConfigKey key, ScalarNode s, String where) {
        String text = s.getValue();
        Tag tag = s.getTag();
        switch (key.type()) {
            case STRING, PATH -> {
                // network.mdns takes the words on and off (or an interface's name), which YAML reads as booleans.
                boolean words = key.name().equals(ConfigSchema.MDNS);
                if ((tag.equals(Tag.BOOL) && !words) || text.isEmpty()) {
                    throw new ConfigException(where + "expected " + expected(key) + ", got " + describe(s));
                }
                return text;
            }
            case CHOICE -> {
                if (!key.choices().contains(text)) {
                    throw new ConfigException(
                            where + "expected one of " + String.join(", ", key.choices()) + ", got '" + text + "'");
                }
                return text;
            }
            case BOOLEAN -> {
                if (!tag.equals(Tag.BOOL)) {
                    throw new ConfigException(where + "expected true or false, got " + describe(s));
                }
                return text.equalsIgnoreCase("true") || text.equalsIgnoreCase("yes") || text.equalsIgnoreCase("on");
            }
            case INT, LONG -> {
                if (!tag.equals(Tag.INT)) {
                    throw new ConfigException(where + "expected an integer, got " + describe(s));
                }
                long v;
                try {
                    v = Long.parseLong(text.replace("_", ""));
                } catch (NumberFormatException e) {
                    throw new ConfigException(where + "expected a decimal integer, got '" + text + "'");
                }
                if (key.type() == ConfigType.INT && (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE)) {
                    throw new ConfigException(where + text + " is out of range for an integer");
                }
                checkMin(key, v, where);
                return v;
            }
            case DOUBLE -> {
                if (!tag.equals(Tag.INT) && !tag.equals(Tag.FLOAT)) {
                    throw new ConfigException(where + "expected a number, got " + describe(s));
                }
                double v;
                try {
                    v = Double.parseDouble(text.replace("_", ""));
                } catch (NumberFormatException e) {
                    throw new ConfigException(where + "expected a decimal number, got '" + text + "'");
                }
                if (!Double.isFinite(v)) {
                    throw new ConfigException(where + "expected a finite number, got '" + text + "'");
                }
                checkMin(key, v, where);
                return v;
            }
            default -> throw new IllegalStateException("not a scalar type: " + key.type());
        }
    }

    private static void checkMin(ConfigKey key, double v, String where) {
        if (key.min() != null && v < key.min()) {
            throw new ConfigException(where + "must be at least " + stripZero(key.min()) + ", got " + stripZero(v));
        }
    }

    private static String stripZero(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static String expected(ConfigKey key) {
        return switch (key.type()) {
            case STRING -> "a string";
            case PATH -> "a path";
            case CHOICE -> "one of " + String.join(", ", key.choices());
            default -> key.type().label();
        };
    }

    private static String describe(Node node) {
        if (node instanceof ScalarNode s) {
            if (s.getTag().equals(Tag.BOOL)) {
                return "the boolean " + s.getValue();
            }
            if (s.getTag().equals(Tag.INT) || s.getTag().equals(Tag.FLOAT)) {
                return "the number " + s.getValue();
            }
            if (s.getTag().equals(Tag.NULL)) {
                return "nothing";
            }
            return "'" + oneLine(s.getValue()) + "'";
        }
        return node instanceof SequenceNode ? "a list" : "a section";
    }

    private static boolean isNull(Node node) {
        return node instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    private static int line(Node node) {
        return node.getStartMark().getLine() + 1;
    }

    private static List<String> keysOf(String section) {
        return ConfigSchema.keys().stream()
                .filter(k -> k.section().equals(section))
                .map(ConfigKey::leaf)
                .toList();
    }

    private static String known(String section) {
        Set<String> names = new TreeSet<>();
        for (ConfigKey k : ConfigSchema.keys()) {
            if (section.isEmpty()) {
                names.add(k.section().isEmpty() ? k.name() : k.section());
            } else if (k.section().equals(section)) {
                names.add(k.leaf());
            }
        }
        return " (known " + (section.isEmpty() ? "keys and sections" : "keys in " + section) + ": "
                + String.join(", ", names) + ")";
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip();
    }
}
