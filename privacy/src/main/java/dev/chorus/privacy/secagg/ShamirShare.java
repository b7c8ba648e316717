package dev.chorus.privacy.secagg;

import java.math.BigInteger;

/**
 * One Shamir share: the point (index, value) of the sharing polynomial over GF({@link Shamir#PRIME}). The index is
 * the receiving member's position plus one (never 0, where the secret sits); the value is a field element.
 */
public record ShamirShare(int index, BigInteger value) {

    /** The encoded length: a 33-byte big-endian value (the prime has 257 bits). */
    public static final int VALUE_BYTES = 33;

    public ShamirShare {
        if (index < 1 || index > Shamir.MAX_INDEX) {
            throw new SecAggException("share index " + index + " is outside 1.." + Shamir.MAX_INDEX);
        }
        if (value.signum() < 0 || value.compareTo(Shamir.PRIME) >= 0) {
            throw new SecAggException("share " + index + " has a value outside the field");
        }
    }

    /** The value as {@value #VALUE_BYTES} big-endian bytes, for encryption to the share's holder. */
    public byte[] valueBytes() {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[VALUE_BYTES];
        int n = Math.min(raw.length, VALUE_BYTES);
        System.arraycopy(raw, raw.length - n, out, VALUE_BYTES - n, n);
        return out;
    }

    /** The share of {@code index} whose value is {@code valueBytes} as {@link #valueBytes} writes it. */
    public static ShamirShare of(int index, byte[] valueBytes) {
        if (valueBytes.length != VALUE_BYTES) {
            throw new SecAggException("share " + index + " value is " + valueBytes.length + " bytes; it must be 33");
        }
        return new ShamirShare(index, new BigInteger(1, valueBytes));
    }

    @Override
    public String toString() {
        // A share is a secret held for someone else: never in a log line.
        return "ShamirShare[index=" + index + "]";
    }
}
