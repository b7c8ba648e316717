package dev.chorus.privacy.secagg;

import java.util.Map;
import java.util.Set;

/**
 * The aggregator's side: the sum of the survivors' inputs from their masked vectors and the secrets that
 * {@link Recovery} reconstructed (Bonawitz et al., CCS 2017, the unmasking round, over the SecAgg+ graph).
 *
 * <p>sum = sum over survivors v of (y_v - PRG(b_v)) - for each dropout u and each surviving neighbour v of u, the
 * mask that v added for the pair: s_uv is recomputed from u's reconstructed mask key and v's public mask key. Masks
 * between two survivors cancel by themselves; masks between two dropouts never entered the sum.
 */
public final class Unmasking {

    private final CommunicationGraph graph;
    private final String roundId;
    private final Map<Integer, byte[]> maskPublicKeys;

    /**
     * The unmasking of one round over {@code graph}, where {@code maskPublicKeys} holds the public mask key of every
     * member that took part in the key exchange, as it was announced: no survivor masked with any other member.
     */
    public Unmasking(CommunicationGraph graph, String roundId, Map<Integer, byte[]> maskPublicKeys) {
        this.graph = graph;
        this.roundId = roundId;
        this.maskPublicKeys = Map.copyOf(maskPublicKeys);
    }

    /** The sum (mod 2^32) of the quantized inputs of the members in {@code masked}. */
    public int[] sum(Map<Integer, int[]> masked, Recovery.Recovered recovered) {
        if (masked.isEmpty()) {
            throw new SecAggAbortedException("no masked input arrived; there is nothing to sum");
        }
        Set<Integer> survivors = masked.keySet();
        if (!recovered.selfMaskSeeds().keySet().equals(survivors)) {
            throw new SecAggException("self-mask seeds were recovered for "
                    + recovered.selfMaskSeeds().keySet() + " but masked inputs arrived from " + survivors);
        }
        int dimension = masked.values().iterator().next().length;
        int[] sum = new int[dimension];
        for (Map.Entry<Integer, int[]> entry : masked.entrySet()) {
            int[] y = entry.getValue();
            if (y.length != dimension) {
                throw new SecAggException(
                        "member " + entry.getKey() + " sent " + y.length + " words; expected " + dimension);
            }
            for (int i = 0; i < dimension; i++) {
                sum[i] += y[i];
            }
            MaskPrg.subtract(sum, recovered.selfMaskSeeds().get(entry.getKey()), Masking.selfLabel(roundId));
        }
        removeDropoutMasks(sum, survivors, recovered.maskKeys());
        return sum;
    }

    private void removeDropoutMasks(int[] sum, Set<Integer> survivors, Map<Integer, byte[]> maskKeys) {
        byte[] label = Masking.pairwiseLabel(roundId);
        for (int dropout : Recovery.neededDropouts(graph, survivors, maskPublicKeys.keySet())) {
            byte[] key = maskKeys.get(dropout);
            if (key == null) {
                throw new SecAggAbortedException("the mask key of dropout " + dropout + " was not recovered");
            }
            for (int v : graph.neighbours(dropout)) {
                if (!survivors.contains(v)) {
                    continue;
                }
                byte[] seed = Masking.pairwiseSeed(key, publicKey(v), roundId, dropout, v);
                // v added +PRG(s_uv) when the dropout u is above it and -PRG(s_uv) when below; take out the same.
                if (dropout > v) {
                    MaskPrg.subtract(sum, seed, label);
                } else {
                    MaskPrg.add(sum, seed, label);
                }
            }
        }
    }

    private byte[] publicKey(int member) {
        byte[] key = maskPublicKeys.get(member);
        if (key == null) {
            throw new SecAggException("no public mask key for member " + member);
        }
        return key;
    }
}
