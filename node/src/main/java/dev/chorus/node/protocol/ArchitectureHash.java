package dev.chorus.node.protocol;

import dev.chorus.learning.model.Sequential;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The 32-byte identity of a model architecture: SHA-256 over a canonical text of the layer stack, the input and
 * output shapes and the parameter count. Two nodes exchange parameters only when their hashes are equal, so a
 * vector of the right length but a different layout is refused as well.
 */
public final class ArchitectureHash {

    public static final int BYTES = 32;

    private ArchitectureHash() {}

    /** The hash of {@code model}'s layers (as {@link Sequential#describe()} lists them) and shapes. */
    public static byte[] of(Sequential model) {
        return of(model.describe(), model.inputSize(), model.classes(), model.parameterCount());
    }

    /**
     * @param spec a canonical description of the layer stack
     * @param inputs the input width
     * @param outputs the number of classes
     * @param parameters the length of the flat parameter vector
     */
    public static byte[] of(String spec, int inputs, int outputs, int parameters) {
        String canonical = String.format(
                Locale.ROOT,
                "chorus-architecture/1\nspec=%s\ninputs=%d\noutputs=%d\nparameters=%d\n",
                spec,
                inputs,
                outputs,
                parameters);
        return sha256().digest(canonical.getBytes(StandardCharsets.UTF_8));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
