package dev.chorus.gossip.encoding;

import java.util.Arrays;

/** base58btc (the Bitcoin alphabet), the text form of libp2p peer IDs. */
public final class Base58 {
    private static final char[] ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".toCharArray();
    private static final int[] INDEX = new int[128];

    static {
        Arrays.fill(INDEX, -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            INDEX[ALPHABET[i]] = i;
        }
    }

    private Base58() {}

    /**
     * Schoolbook base conversion on small digits (each input byte multiplies the digits so far by 256): quadratic in
     * the length, which the callers bound (a peer ID is at most a few dozen bytes), and allocation-free apart from
     * the result.
     */
    public static String encode(byte[] data) {
        int zeros = 0;
        while (zeros < data.length && data[zeros] == 0) {
            zeros++;
        }
        // log(256) / log(58) < 1.366: enough base-58 digits for the non-zero part.
        byte[] digits = new byte[(data.length - zeros) * 1366 / 1000 + 1];
        int used = 0;
        for (int i = zeros; i < data.length; i++) {
            int carry = data[i] & 0xff;
            for (int j = 0; j < used; j++) {
                carry += (digits[j] & 0xff) << 8;
                digits[j] = (byte) (carry % 58);
                carry /= 58;
            }
            while (carry > 0) {
                digits[used++] = (byte) (carry % 58);
                carry /= 58;
            }
        }
        char[] out = new char[zeros + used];
        Arrays.fill(out, 0, zeros, ALPHABET[0]);
        for (int j = 0; j < used; j++) {
            out[zeros + j] = ALPHABET[digits[used - 1 - j]];
        }
        return new String(out);
    }

    /** @throws IllegalArgumentException naming the first character outside the alphabet */
    public static byte[] decode(String text) {
        int zeros = 0;
        while (zeros < text.length() && text.charAt(zeros) == ALPHABET[0]) {
            zeros++;
        }
        // log(58) / log(256) < 0.733: enough bytes for the rest, little-endian while building.
        byte[] bytes = new byte[(text.length() - zeros) * 733 / 1000 + 1];
        int used = 0;
        for (int i = zeros; i < text.length(); i++) {
            char c = text.charAt(i);
            int carry = c < 128 ? INDEX[c] : -1;
            if (carry < 0) {
                throw new IllegalArgumentException("invalid base58 character '" + c + "' at index " + i);
            }
            for (int j = 0; j < used; j++) {
                carry += (bytes[j] & 0xff) * 58;
                bytes[j] = (byte) carry;
                carry >>>= 8;
            }
            while (carry > 0) {
                bytes[used++] = (byte) carry;
                carry >>>= 8;
            }
        }
        byte[] out = new byte[zeros + used];
        for (int j = 0; j < used; j++) {
            out[zeros + j] = bytes[used - 1 - j];
        }
        return out;
    }
}
