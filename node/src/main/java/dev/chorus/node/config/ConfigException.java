package dev.chorus.node.config;

/**
 * A configuration that cannot be used: an unknown key, a wrong type, a value out of range, a file
 * that is missing or unreadable. The message is one line that names the key and, for a key read
 * from a file, the file and line ({@code node.yaml:12: data.path: ...}).
 */
public final class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
