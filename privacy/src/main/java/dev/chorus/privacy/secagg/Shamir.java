package dev.chorus.privacy.secagg;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Shamir's t-of-n secret sharing (Shamir, "How to share a secret", CACM 1979) of a 32-byte secret: a random polynomial
 * of degree t-1 with the secret as its constant term, evaluated at each holder's index; any t shares give the secret
 * back by Lagrange interpolation at 0, and t-1 shares are uniformly distributed whatever the secret.
 *
 * <p>The field is GF(p) with p = 2^256 + 297, the smallest prime above 2^256, so that a whole 32-byte secret (an
 * X25519 private key or a self-mask seed) is one field element and one polynomial: no splitting into limbs, one
 * interpolation per secret, and a share of 33 bytes. (GF(2^8) byte-wise would need 32 polynomials per secret; GF(2^255
 * - 19) cannot hold every 256-bit string.) Indices run from 1 to {@value #MAX_INDEX}; 0 is the secret.
 */
public final class Shamir {

    /** p = 2^256 + 297. */
    public static final BigInteger PRIME = BigInteger.ONE.shiftLeft(256).add(BigInteger.valueOf(297));

    /** The largest share index: far more members than a group holds, and small enough to check cheaply. */
    public static final int MAX_INDEX = 1 << 16;

    /** The secret's length, in bytes. */
    public static final int SECRET_BYTES = 32;

    private static final BigInteger SECRET_LIMIT = BigInteger.ONE.shiftLeft(256);

    private Shamir() {}

    /** Shares of {@code secret} for indices 1..{@code shares}, any {@code threshold} of which reconstruct it. */
    public static List<ShamirShare> split(byte[] secret, int threshold, int shares, Random random) {
        int[] indices = new int[shares];
        for (int i = 0; i < shares; i++) {
            indices[i] = i + 1;
        }
        return split(secret, threshold, indices, random);
    }

    /**
     * Shares of {@code secret} at the given distinct {@code indices} (1..{@value #MAX_INDEX}), any {@code threshold}
     * of which reconstruct it. {@code random} draws the polynomial: a {@link java.security.SecureRandom} outside
     * tests.
     */
    public static List<ShamirShare> split(byte[] secret, int threshold, int[] indices, Random random) {
        if (secret.length != SECRET_BYTES) {
            throw new SecAggException("a shared secret is " + SECRET_BYTES + " bytes, not " + secret.length);
        }
        if (threshold < 1 || threshold > indices.length) {
            throw new SecAggException("threshold " + threshold + " is outside 1.." + indices.length);
        }
        checkDistinct(indices);
        BigInteger[] coefficients = new BigInteger[threshold];
        coefficients[0] = new BigInteger(1, secret);
        for (int i = 1; i < threshold; i++) {
            coefficients[i] = randomElement(random);
        }
        List<ShamirShare> out = new ArrayList<>(indices.length);
        for (int index : indices) {
            out.add(new ShamirShare(index, evaluate(coefficients, BigInteger.valueOf(index))));
        }
        return out;
    }

    /**
     * The secret from at least {@code threshold} shares with distinct indices: Lagrange interpolation at 0 over the
     * first {@code threshold}; every further share must lie on the same polynomial, else the shares are refused as
     * inconsistent (a corrupted or mixed-up share).
     */
    public static byte[] reconstruct(List<ShamirShare> shares, int threshold) {
        if (threshold < 1) {
            throw new SecAggException("threshold " + threshold + " is below 1");
        }
        if (shares.size() < threshold) {
            throw new SecAggException(
                    "reconstruction needs " + threshold + " shares; only " + shares.size() + " were given");
        }
        checkDistinct(shares.stream().mapToInt(ShamirShare::index).toArray());
        List<ShamirShare> basis = shares.subList(0, threshold);
        for (ShamirShare extra : shares.subList(threshold, shares.size())) {
            if (!interpolate(basis, BigInteger.valueOf(extra.index())).equals(extra.value())) {
                throw new SecAggException("share " + extra.index() + " does not lie on the polynomial of the others");
            }
        }
        BigInteger secret = interpolate(basis, BigInteger.ZERO);
        if (secret.compareTo(SECRET_LIMIT) >= 0) {
            throw new SecAggException("the shares do not encode a 32-byte secret (inconsistent shares)");
        }
        return toSecretBytes(secret);
    }

    /** The value at {@code x} of the polynomial through {@code points} (Lagrange), over GF(p). */
    static BigInteger interpolate(List<ShamirShare> points, BigInteger x) {
        BigInteger sum = BigInteger.ZERO;
        for (int i = 0; i < points.size(); i++) {
            BigInteger xi = BigInteger.valueOf(points.get(i).index());
            BigInteger numerator = BigInteger.ONE;
            BigInteger denominator = BigInteger.ONE;
            for (int j = 0; j < points.size(); j++) {
                if (j != i) {
                    BigInteger xj = BigInteger.valueOf(points.get(j).index());
                    numerator = numerator.multiply(x.subtract(xj)).mod(PRIME);
                    denominator = denominator.multiply(xi.subtract(xj)).mod(PRIME);
                }
            }
            BigInteger term = points.get(i).value().multiply(numerator).multiply(denominator.modInverse(PRIME));
            sum = sum.add(term).mod(PRIME);
        }
        return sum;
    }

    private static BigInteger evaluate(BigInteger[] coefficients, BigInteger x) {
        BigInteger y = BigInteger.ZERO;
        for (int i = coefficients.length - 1; i >= 0; i--) {
            y = y.multiply(x).add(coefficients[i]).mod(PRIME);
        }
        return y;
    }

    /** A uniform element of GF(p), by rejection from 257-bit strings (accepted with probability above 1/2). */
    private static BigInteger randomElement(Random random) {
        while (true) {
            BigInteger candidate = new BigInteger(PRIME.bitLength(), random);
            if (candidate.compareTo(PRIME) < 0) {
                return candidate;
            }
        }
    }

    private static void checkDistinct(int[] indices) {
        Set<Integer> seen = new HashSet<>();
        for (int index : indices) {
            if (index < 1 || index > MAX_INDEX) {
                throw new SecAggException("share index " + index + " is outside 1.." + MAX_INDEX);
            }
            if (!seen.add(index)) {
                throw new SecAggException("share index " + index + " appears twice");
            }
        }
    }

    private static byte[] toSecretBytes(BigInteger secret) {
        byte[] raw = secret.toByteArray();
        byte[] out = new byte[SECRET_BYTES];
        int n = Math.min(raw.length, SECRET_BYTES);
        System.arraycopy(raw, raw.length - n, out, SECRET_BYTES - n, n);
        return out;
    }
}
