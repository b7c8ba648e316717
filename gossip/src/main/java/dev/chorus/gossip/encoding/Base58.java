package dev.chorus.gossip.encoding;

import java.math.BigInteger;
import java.util.Arrays;

/** base58btc (the Bitcoin alphabet), the text form of libp2p peer IDs. */
public final class Base58 {
    private static final char[] ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".toCharArray();
    private static final int[] INDEX = new int[128];
    private static final BigInteger BASE = BigInteger.valueOf(58);

    static {
        Arrays.fill(INDEX, -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            INDEX[ALPHABET[i]] = i;
        }
    }

    private Base58() {}

    public static String encode(byte[] data) {
        int zeros = 0;
        while (zeros < data.length && data[zeros] == 0) {
            zeros++;
        }
        StringBuilder sb = new StringBuilder();
        BigInteger n = new BigInteger(1, data);
        while (n.signum() > 0) {
            BigInteger[] qr = n.divideAndRemainder(BASE);
            sb.append(ALPHABET[qr[1].intValue()]);
            n = qr[0];
        }
        sb.append("1".repeat(zeros));
        return sb.reverse().toString();
    }

    /** @throws IllegalArgumentException naming the first character outside the alphabet */
    public static byte[] decode(String text) {
        BigInteger n = BigInteger.ZERO;
        int zeros = 0;
        boolean leading = true;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int d = c < 128 ? INDEX[c] : -1;
            if (d < 0) {
                throw new IllegalArgumentException("invalid base58 character '" + c + "' at index " + i);
            }
            if (leading && d == 0) {
                zeros++;
            } else {
                leading = false;
            }
            n = n.multiply(BASE).add(BigInteger.valueOf(d));
        }
        byte[] mag = n.signum() == 0 ? new byte[0] : n.toByteArray();
        int strip = mag.length > 0 && mag[0] == 0 ? 1 : 0;
        byte[] out = new byte[zeros + mag.length - strip];
        System.arraycopy(mag, strip, out, zeros, mag.length - strip);
        return out;
    }
}
