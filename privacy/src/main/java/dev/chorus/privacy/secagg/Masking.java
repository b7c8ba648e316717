package dev.chorus.privacy.secagg;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The member's side of masking (Bonawitz et al., CCS 2017; Bell et al., CCS 2020, with masks only between
 * graph neighbours): its quantized input x_u becomes
 *
 * <pre>
 *   y_u = x_u + PRG(b_u) + sum over neighbours v &gt; u of PRG(s_uv) - sum over neighbours v &lt; u of PRG(s_uv)   (mod 2^32)
 * </pre>
 *
 * <p>Each pairwise mask appears once with + (at the lower-numbered member of the pair) and once
 * with - (at the other), so the pairwise masks cancel in the sum over any set of members closed under
 * neighbourhood; the self mask PRG(b_u) keeps y_u hidden even when u's pairwise keys are reconstructed because u was
 * wrongly taken for a dropout (it arrived late). Members are numbered 0..n-1 in the group's agreed order.
 */
public final class Masking {

    /** The HKDF salt of pairwise seeds, apart from every other use of the X25519 secret. */
    static final String PAIRWISE_SALT = "chorus/secagg/pairwise/v1";

    static final String SELF_PURPOSE = "self";
    static final String PAIRWISE_PURPOSE = "pairwise";

    private Masking() {}

    /**
     * s_uv = HKDF-SHA256(salt = {@value #PAIRWISE_SALT}, ikm = X25519(sk_u, pk_v), info = round ID, min(u, v), max(u,
     * v), 32 bytes). Both members of the pair compute the same seed; the round ID makes it fresh in each round even if
     * keys were reused, and the pair's indices keep two pairs that share a secret apart.
     */
    public static byte[] pairwiseSeed(byte[] privateKey, byte[] peerPublicKey, String roundId, int u, int v) {
        if (u == v) {
            throw new SecAggException("member " + u + " has no pairwise seed with itself");
        }
        byte[] secret = X25519.sharedSecret(privateKey, peerPublicKey);
        byte[] info =
                (roundId + "\u0000" + Math.min(u, v) + "\u0000" + Math.max(u, v)).getBytes(StandardCharsets.UTF_8);
        try {
            return Hkdf.derive(PAIRWISE_SALT.getBytes(StandardCharsets.US_ASCII), secret, info, 32);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    /**
     * y_u for {@code member} with quantized {@code input}, self-mask seed {@code selfSeed} and the pairwise seeds
     * {@code pairwiseSeeds} keyed by neighbour (every neighbour that took part in the key exchange, whether or not it
     * is still there: its mask is removed later through its reconstructed key if it drops).
     */
    public static int[] mask(
            int member, int[] input, byte[] selfSeed, Map<Integer, byte[]> pairwiseSeeds, String roundId) {
        int[] masked = input.clone();
        MaskPrg.add(masked, selfSeed, selfLabel(roundId));
        byte[] label = pairwiseLabel(roundId);
        for (Map.Entry<Integer, byte[]> entry : pairwiseSeeds.entrySet()) {
            int neighbour = entry.getKey();
            if (neighbour == member) {
                throw new SecAggException("member " + member + " cannot mask with itself");
            }
            if (neighbour > member) {
                MaskPrg.add(masked, entry.getValue(), label);
            } else {
                MaskPrg.subtract(masked, entry.getValue(), label);
            }
        }
        return masked;
    }

    static byte[] selfLabel(String roundId) {
        return MaskPrg.label(SELF_PURPOSE, roundId);
    }

    static byte[] pairwiseLabel(String roundId) {
        return MaskPrg.label(PAIRWISE_PURPOSE, roundId);
    }
}
