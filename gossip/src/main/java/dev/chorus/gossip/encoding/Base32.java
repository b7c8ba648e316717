package dev.chorus.gossip.encoding;

import java.io.ByteArrayOutputStream;

/** RFC 4648 base32, lower case, no padding: multibase prefix {@code b}, the default text form of CIDs. */
public final class Base32 {
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

    private Base32() {}

    public static String encode(byte[] data) {
        StringBuilder sb = new StringBuilder((data.length * 8 + 4) / 5);
        int buffer = 0;
        int bits = 0;
        for (byte b : data) {
            buffer = (buffer << 8) | (b & 0xFF);
            bits += 8;
            while (bits >= 5) {
                sb.append(ALPHABET.charAt((buffer >>> (bits - 5)) & 31));
                bits -= 5;
            }
        }
        if (bits > 0) {
            sb.append(ALPHABET.charAt((buffer << (5 - bits)) & 31));
        }
        return sb.toString();
    }

    /** Case-insensitive; rejects padding and characters outside the alphabet. */
    public static byte[] decode(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() * 5 / 8);
        int buffer = 0;
        int bits = 0;
        for (int i = 0; i < text.length(); i++) {
            int d = ALPHABET.indexOf(Character.toLowerCase(text.charAt(i)));
            if (d < 0) {
                throw new IllegalArgumentException("invalid base32 character '" + text.charAt(i) + "' at index " + i);
            }
            buffer = (buffer << 5) | d;
            bits += 5;
            if (bits >= 8) {
                out.write((buffer >>> (bits - 8)) & 0xFF);
                bits -= 8;
            }
        }
        if (bits >= 5 || (buffer & ((1 << bits) - 1)) != 0) {
            throw new IllegalArgumentException("base32 text has trailing bits");
        }
        return out.toByteArray();
    }
}
