package dev.chorus.learning.json;

/** Malformed JSON text, or a JSON document of an unexpected shape. */
public final class JsonException extends RuntimeException {

    public JsonException(String message) {
        super(message);
    }
}
