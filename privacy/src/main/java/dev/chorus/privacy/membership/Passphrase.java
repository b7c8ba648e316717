package dev.chorus.privacy.membership;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * Where a CA's passphrase comes from: a file that only its owner can read, or the environment. Never a command-line
 * argument, which every account on the machine can see in the process list.
 */
public final class Passphrase {

    /** The environment variable read when no passphrase file is given. */
    public static final String ENVIRONMENT_VARIABLE = "CHORUS_CA_PASSPHRASE";

    /** The largest passphrase file read; a passphrase is one line. */
    private static final int MAX_FILE_BYTES = 4096;

    private Passphrase() {}

    /**
     * The passphrase from {@code fileOrNull} (its first line, without the line break; the file must be readable by
     * its owner only), else from {@value #ENVIRONMENT_VARIABLE} in {@code env}. An empty passphrase is refused.
     */
    public static char[] resolve(Path fileOrNull, Map<String, String> env) {
        if (fileOrNull != null) {
            return fromFile(fileOrNull);
        }
        String value = env.get(ENVIRONMENT_VARIABLE);
        if (value == null) {
            throw new MembershipException("no passphrase: give --passphrase-file FILE or set " + ENVIRONMENT_VARIABLE);
        }
        if (value.isEmpty()) {
            throw new MembershipException(ENVIRONMENT_VARIABLE + " is empty; an empty passphrase protects nothing");
        }
        return value.toCharArray();
    }

    private static char[] fromFile(Path file) {
        OwnerOnly.check(file, "passphrase file");
        byte[] bytes = Pem.read(file);
        CharBuffer chars = null;
        try {
            if (bytes.length > MAX_FILE_BYTES) {
                throw new MembershipException(
                        "passphrase file " + file + " is " + bytes.length + " bytes long; a passphrase is one line");
            }
            chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            int end = 0;
            while (end < chars.length() && chars.charAt(end) != '\n' && chars.charAt(end) != '\r') {
                end++;
            }
            if (end == 0) {
                throw new MembershipException("passphrase file " + file + " is empty (its first line is blank)");
            }
            char[] out = new char[end];
            chars.get(out, 0, end);
            return out;
        } catch (CharacterCodingException e) {
            throw new MembershipException("passphrase file " + file + " is not UTF-8 text", e);
        } finally {
            Arrays.fill(bytes, (byte) 0);
            if (chars != null) {
                chars.clear();
                while (chars.hasRemaining()) {
                    chars.put('\0');
                }
            }
        }
    }
}
