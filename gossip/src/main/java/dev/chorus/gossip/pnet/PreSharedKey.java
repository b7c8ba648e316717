package dev.chorus.gossip.pnet;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.bouncycastle.crypto.digests.SHAKEDigest;
import org.bouncycastle.crypto.engines.Salsa20Engine;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * The 256-bit secret of a libp2p private network (libp2p/specs pnet/Private-Networks-PSK-V1.md), and its file
 * format, v1, as go-libp2p and js-libp2p read it:
 *
 * <pre>
 * /key/swarm/psk/1.0.0/
 * /base16/
 * &lt;64 hexadecimal digits&gt;
 * </pre>
 *
 * The second line may also be {@code /base64/}, with the key in standard base64. The spec's {@code /bin/} encoding
 * (raw bytes, which may contain line breaks) is refused; js-libp2p does not read it either. A file that group or
 * others may access is refused, as the identity key file is. {@link #toString()} shows a fingerprint, never the key.
 */
public final class PreSharedKey {
    /** Key length in bytes. */
    public static final int KEY_BYTES = 32;

    /** The first line of a v1 key file: the path-based multicodec of the format. */
    public static final String HEADER = "/key/swarm/psk/1.0.0/";

    static final String BASE16 = "/base16/";
    static final String BASE64 = "/base64/";

    /** A key file is three short lines; anything much larger is the wrong file. */
    private static final int MAX_FILE_BYTES = 1024;

    private static final Set<PosixFilePermission> OWNER_ONLY =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    private final byte[] key;

    private PreSharedKey(byte[] key) {
        this.key = key;
    }

    /** A key from its 32 raw bytes (copied). */
    public static PreSharedKey of(byte[] key) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("a pre-shared key is " + KEY_BYTES + " bytes, got " + key.length);
        }
        return new PreSharedKey(key.clone());
    }

    /** A new random key. */
    public static PreSharedKey generate() {
        byte[] key = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return new PreSharedKey(key);
    }

    /** The raw key, for the cipher; callers must not let it out of this package. */
    byte[] bytes() {
        return key;
    }

    // ---------------------------------------------------------------- the file format

    /**
     * Parses the content of a v1 key file. Lines end in {@code \n} or {@code \r\n}; one line break may follow the key.
     *
     * @param source names the content in error messages, e.g. the file's path
     * @throws PreSharedKeyException naming {@code source} and the line at fault
     */
    public static PreSharedKey parse(byte[] content, String source) {
        List<String> lines = lines(content, source);
        if (lines.isEmpty()) {
            throw error(source, 1, "the file is empty; expected " + HEADER + " (a libp2p pre-shared key, v1)");
        }
        if (!lines.get(0).equals(HEADER)) {
            throw error(source, 1, "expected " + HEADER + " (a libp2p pre-shared key, v1), got " + shown(lines.get(0)));
        }
        if (lines.size() < 2) {
            throw error(source, 2, "the encoding is missing; expected " + BASE16 + " or " + BASE64);
        }
        String encoding = lines.get(1);
        if (lines.size() < 3) {
            throw error(source, 3, "the key is missing");
        }
        byte[] key =
                switch (encoding) {
                    case BASE16 -> base16(lines.get(2), source);
                    case BASE64 -> base64(lines.get(2), source);
                    case "/bin/" ->
                        throw error(
                                source,
                                2,
                                "the /bin/ encoding is not supported; write the key as " + BASE16 + " (64 hexadecimal"
                                        + " digits)");
                    default ->
                        throw error(source, 2, "expected " + BASE16 + " or " + BASE64 + ", got " + shown(encoding));
                };
        if (lines.size() > 3) {
            throw error(source, 4, "unexpected content after the key; a key file has three lines");
        }
        return new PreSharedKey(key);
    }

    /** Parses a key file's text; see {@link #parse(byte[], String)}. */
    public static PreSharedKey parse(String text, String source) {
        return parse(text.getBytes(StandardCharsets.UTF_8), source);
    }

    /** The file's lines, each without its line break; a line break after the last line adds no empty line. */
    private static List<String> lines(byte[] content, String source) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= content.length; i++) {
            if (i < content.length && content[i] != '\n') {
                int b = content[i] & 0xff;
                boolean crBeforeNewline = b == '\r' && i + 1 < content.length && content[i + 1] == '\n';
                if ((b < 0x20 || b > 0x7e) && !crBeforeNewline) {
                    throw error(
                            source,
                            lines.size() + 1,
                            String.format(
                                    Locale.ROOT,
                                    "unexpected byte 0x%02x: a pre-shared key file is three lines of ASCII text",
                                    b));
                }
                continue;
            }
            if (i == content.length && start == content.length) {
                break; // nothing after the last line break
            }
            int end = i > start && content[i - 1] == '\r' ? i - 1 : i;
            lines.add(new String(content, start, end - start, StandardCharsets.US_ASCII));
            start = i + 1;
        }
        return lines;
    }

    private static byte[] base16(String line, String source) {
        if (line.length() != 2 * KEY_BYTES) {
            throw error(
                    source,
                    3,
                    "expected " + 2 * KEY_BYTES + " hexadecimal digits (a " + KEY_BYTES + "-byte key), got "
                            + line.length() + " characters");
        }
        for (int i = 0; i < line.length(); i++) {
            if (Character.digit(line.charAt(i), 16) < 0) {
                throw error(source, 3, "character " + (i + 1) + " is not a hexadecimal digit");
            }
        }
        return HexFormat.of().parseHex(line);
    }

    private static byte[] base64(String line, String source) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(line);
        } catch (IllegalArgumentException e) {
            throw error(source, 3, "not valid base64: " + e.getMessage());
        }
        if (key.length != KEY_BYTES) {
            throw error(source, 3, "the key is " + key.length + " bytes; it must be " + KEY_BYTES);
        }
        return key;
    }

    /** A line of the file in a message: quoted, and cut short (a wrong file may have long lines). */
    private static String shown(String line) {
        return "'" + (line.length() > 40 ? line.substring(0, 40) + "..." : line) + "'";
    }

    private static PreSharedKeyException error(String source, int line, String problem) {
        return new PreSharedKeyException(source + ":" + line + ": " + problem);
    }

    /** The key as the content of a v1 key file, base16 (lower case, as js-libp2p requires), ending in a line break. */
    public byte[] encode() {
        String text = HEADER + "\n" + BASE16 + "\n" + HexFormat.of().formatHex(key) + "\n";
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Loads a v1 key file.
     *
     * @throws PreSharedKeyException when the file is missing, unreadable, accessible to group or others, or not a v1
     *     key file (the message names the file, and the line at fault)
     */
    public static PreSharedKey load(Path path) {
        if (Files.isDirectory(path)) {
            throw new PreSharedKeyException("pre-shared key file " + path + " is a directory");
        }
        try {
            checkPermissions(path);
            long size = Files.size(path);
            if (size > MAX_FILE_BYTES) {
                throw new PreSharedKeyException(path + ": " + size + " bytes is too large for a pre-shared key file");
            }
            byte[] content = Files.readAllBytes(path);
            try {
                return parse(content, path.toString());
            } finally {
                Arrays.fill(content, (byte) 0);
            }
        } catch (NoSuchFileException e) {
            throw new PreSharedKeyException("pre-shared key file " + path + " does not exist", e);
        } catch (IOException e) {
            throw new PreSharedKeyException("cannot read pre-shared key file " + path + ": " + reason(e), e);
        }
    }

    /**
     * Writes the key to a new file with mode 0600 (creating missing parent directories).
     *
     * @throws PreSharedKeyException when the file exists or cannot be created
     */
    public void write(Path path) {
        byte[] content = encode();
        try {
            Path parent = path.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            boolean posix = Files.getFileStore(parent).supportsFileAttributeView("posix");
            FileAttribute<?>[] attrs = posix
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                    : new FileAttribute<?>[0];
            Files.createFile(path, attrs);
            if (posix) {
                // The umask may have narrowed the mode further, never widened it; set it exactly.
                Files.setPosixFilePermissions(path, OWNER_ONLY);
            }
            try (OutputStream out = Files.newOutputStream(path, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
                out.write(content);
            }
        } catch (FileAlreadyExistsException e) {
            throw new PreSharedKeyException("pre-shared key file " + path + " already exists", e);
        } catch (IOException e) {
            throw new PreSharedKeyException("cannot create pre-shared key file " + path + ": " + reason(e), e);
        } finally {
            Arrays.fill(content, (byte) 0);
        }
    }

    private static void checkPermissions(Path path) throws IOException {
        if (!Files.getFileStore(path).supportsFileAttributeView("posix")) {
            return;
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
        Set<PosixFilePermission> extra = EnumSet.copyOf(perms);
        extra.removeAll(OWNER_ONLY);
        extra.remove(PosixFilePermission.OWNER_EXECUTE);
        if (!extra.isEmpty()) {
            throw new PreSharedKeyException("pre-shared key file " + path + " has permissions "
                    + PosixFilePermissions.toString(perms) + "; it must be readable by its owner only (chmod 600 "
                    + path + ")");
        }
    }

    /** Why a file operation failed, in a few lower-case words, without Java class names. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        String text = e instanceof FileSystemException fs ? fs.getReason() : e.getMessage();
        if (text == null || text.isBlank()) {
            return "input/output error";
        }
        return text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }

    // ---------------------------------------------------------------- identification without the key

    /**
     * A fingerprint to tell keys apart without showing them: 16 bytes in hex, computed as kubo computes the "swarm
     * key fingerprint" it logs (the Salsa20 keystream of 64 bytes for the nonce {@code "finprint"}, hashed with
     * SHAKE-128), so that the same key shows the same fingerprint.
     */
    public String fingerprint() {
        Salsa20Engine salsa = new Salsa20Engine();
        salsa.init(true, new ParametersWithIV(new KeyParameter(key), "finprint".getBytes(StandardCharsets.US_ASCII)));
        byte[] stream = new byte[64];
        salsa.processBytes(stream, 0, stream.length, stream, 0);
        SHAKEDigest shake = new SHAKEDigest(128);
        shake.update(stream, 0, stream.length);
        byte[] out = new byte[16];
        shake.doFinal(out, 0, out.length);
        return HexFormat.of().formatHex(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PreSharedKey other && MessageDigest.isEqual(key, other.key);
    }

    @Override
    public int hashCode() {
        return fingerprint().hashCode();
    }

    @Override
    public String toString() {
        return "PreSharedKey[fingerprint " + fingerprint() + "]";
    }
}
