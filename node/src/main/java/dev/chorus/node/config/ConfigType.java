package dev.chorus.node.config;

/** The value types a configuration key can have, with the name the docs show. */
public enum ConfigType {
    STRING("string"),
    INT("integer"),
    LONG("integer (64-bit)"),
    DOUBLE("number"),
    BOOLEAN("boolean"),
    PATH("path"),
    CHOICE("one of"),
    STRING_LIST("list of strings"),
    MULTIADDR_LIST("list of multiaddrs"),
    LOGGER_LEVEL_LIST("list of logger=level");

    private final String label;

    ConfigType(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
