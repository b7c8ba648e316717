package dev.chorus.node.api;

import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;

/**
 * The API's bearer token: 32 random bytes, written hex in a file of mode 0600 that only the node's user reads. A
 * request shows it as {@code Authorization: Bearer TOKEN}; the comparison takes the same time wherever the first
 * differing byte is, so timing the replies does not reveal the token a byte at a time.
 */
public final class ApiToken {

    /** A token shorter than this (in characters) is refused: it could be guessed. */
    static final int MIN_LENGTH = 32;

    private static final String BEARER = "Bearer ";

    private final byte[] expected;

    private ApiToken(String token) {
        this.expected = (BEARER + token).getBytes(StandardCharsets.UTF_8);
    }

    /** A token held in memory (tests, and a file already read). */
    public static ApiToken of(String token) {
        if (token.length() < MIN_LENGTH || !token.matches("[A-Za-z0-9_.~+/=-]+")) {
            throw new IllegalArgumentException(
                    "a token must be at least " + MIN_LENGTH + " characters of letters, digits or -._~+/=");
        }
        return new ApiToken(token);
    }

    /**
     * Reads the token from {@code file}, creating the file first (mode 0600, a new random token) when it is missing.
     *
     * @throws IOException when the file cannot be created or read, or holds no usable token
     */
    public static ApiToken loadOrCreate(Path file) throws IOException {
        if (!Files.exists(file)) {
            create(file);
        }
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        try {
            return of(text);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes a new random token to {@code file}, mode 0600 from its first instant.
     *
     * @throws java.nio.file.FileAlreadyExistsException when it exists: a token in use is never replaced silently
     */
    public static void create(Path file) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        byte[] text = (HexFormat.of().formatHex(random) + "\n").getBytes(StandardCharsets.US_ASCII);
        try (FileChannel out =
                OwnerOnlyFiles.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
            ByteBuffer buf = ByteBuffer.wrap(text);
            while (buf.hasRemaining()) {
                out.write(buf);
            }
            out.force(true);
        }
    }

    /** Whether an {@code Authorization} header's value carries this token; null never does. */
    boolean matches(String authorization) {
        if (authorization == null) {
            return false;
        }
        // MessageDigest.isEqual compares every byte whatever the first difference (only the length can show).
        return MessageDigest.isEqual(expected, authorization.strip().getBytes(StandardCharsets.UTF_8));
    }
}
