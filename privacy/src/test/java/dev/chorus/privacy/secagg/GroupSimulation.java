package dev.chorus.privacy.secagg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * A whole secure-aggregation round in memory: n members with mask keys, self-mask seeds and inputs, the Shamir
 * shares each sends its graph neighbours, masking, the shares that the responders reveal, recovery and unmasking.
 * Members drop out at two points: before sending their masked input, and after it but before revealing shares.
 */
final class GroupSimulation {

    final int size;
    final int threshold;
    final CommunicationGraph graph;
    final Quantizer quantizer;
    final String roundId;
    final float[][] values;
    final int[][] inputs;
    private final byte[][] maskPrivateKeys;
    private final Map<Integer, byte[]> maskPublicKeys = new HashMap<>();
    private final byte[][] selfSeeds;
    /** owner -> holder -> the holder's share of the owner's self-mask seed (and below, of its mask key). */
    private final List<Map<Integer, ShamirShare>> selfSeedShares = new ArrayList<>();

    private final List<Map<Integer, ShamirShare>> maskKeyShares = new ArrayList<>();

    GroupSimulation(int size, int degree, int threshold, int dimension, Random random) {
        this.size = size;
        this.threshold = threshold;
        byte[] groupSeed = bytes(random);
        this.graph = CommunicationGraph.of(size, degree, groupSeed, random.nextInt(1000));
        this.quantizer = new Quantizer(1.0, size);
        this.roundId = "round-" + random.nextInt(1000);
        this.values = new float[size][dimension];
        this.inputs = new int[size][];
        this.maskPrivateKeys = new byte[size][];
        this.selfSeeds = new byte[size][];
        for (int u = 0; u < size; u++) {
            for (int i = 0; i < dimension; i++) {
                values[u][i] = (float) (random.nextDouble() * 2.4 - 1.2);
            }
            inputs[u] = quantizer.quantize(values[u]);
            X25519.KeyPair keys = X25519.fromPrivateKey(bytes(random));
            maskPrivateKeys[u] = keys.privateKey();
            maskPublicKeys.put(u, keys.publicKey());
            selfSeeds[u] = bytes(random);
            selfSeedShares.add(shareAmongNeighbours(u, selfSeeds[u], random));
            maskKeyShares.add(shareAmongNeighbours(u, maskPrivateKeys[u], random));
        }
    }

    /** Member u's masked input, with masks for all its neighbours (all took part in the key exchange). */
    int[] maskedInput(int u) {
        Map<Integer, byte[]> pairwise = new HashMap<>();
        for (int v : graph.neighbours(u)) {
            pairwise.put(v, Masking.pairwiseSeed(maskPrivateKeys[u], maskPublicKeys.get(v), roundId, u, v));
        }
        return Masking.mask(u, inputs[u], selfSeeds[u], pairwise, roundId);
    }

    /** The unmasked sum when {@code dropBefore} never send their masked input and {@code dropAfter} reveal nothing. */
    int[] run(Set<Integer> dropBefore, Set<Integer> dropAfter) {
        Set<Integer> survivors = survivors(dropBefore);
        Map<Integer, int[]> masked = new HashMap<>();
        for (int u : survivors) {
            masked.put(u, maskedInput(u));
        }
        Map<Integer, List<ShamirShare>> revealedSelf = new HashMap<>();
        Map<Integer, List<ShamirShare>> revealedKeys = new HashMap<>();
        for (int holder : survivors) {
            if (dropAfter.contains(holder)) {
                continue;
            }
            for (int owner : graph.neighbours(holder)) {
                boolean survived = Recovery.toReveal(owner, survivors) == Recovery.Secret.SELF_MASK_SEED;
                Map<Integer, List<ShamirShare>> into = survived ? revealedSelf : revealedKeys;
                List<Map<Integer, ShamirShare>> from = survived ? selfSeedShares : maskKeyShares;
                into.computeIfAbsent(owner, o -> new ArrayList<>())
                        .add(from.get(owner).get(holder));
            }
        }
        Recovery.Recovered recovered = Recovery.recover(graph, survivors, revealedSelf, revealedKeys, threshold);
        return new Unmasking(graph, roundId, maskPublicKeys).sum(masked, recovered);
    }

    /** Whether every secret the unmasking needs has at least {@code threshold} responding holders. */
    boolean recoverable(Set<Integer> dropBefore, Set<Integer> dropAfter) {
        Set<Integer> survivors = survivors(dropBefore);
        Set<Integer> needed = new TreeSet<>(survivors);
        needed.addAll(Recovery.neededDropouts(graph, survivors));
        for (int owner : needed) {
            int holders = 0;
            for (int holder : graph.neighbours(owner)) {
                holders += survivors.contains(holder) && !dropAfter.contains(holder) ? 1 : 0;
            }
            if (holders < threshold) {
                return false;
            }
        }
        return true;
    }

    Set<Integer> survivors(Set<Integer> dropBefore) {
        Set<Integer> out = new TreeSet<>();
        for (int u = 0; u < size; u++) {
            if (!dropBefore.contains(u)) {
                out.add(u);
            }
        }
        return out;
    }

    /** The plain sum (mod 2^32) of the quantized inputs of {@code members}. */
    int[] plainSum(Set<Integer> members) {
        int[] sum = new int[inputs[0].length];
        for (int u : members) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += inputs[u][i];
            }
        }
        return sum;
    }

    byte[] selfSeed(int u) {
        return selfSeeds[u];
    }

    private Map<Integer, ShamirShare> shareAmongNeighbours(int owner, byte[] secret, Random random) {
        int[] neighbours = graph.neighbours(owner);
        int[] indices = new int[neighbours.length];
        for (int i = 0; i < neighbours.length; i++) {
            indices[i] = neighbours[i] + 1;
        }
        Map<Integer, ShamirShare> byHolder = new HashMap<>();
        for (ShamirShare share : Shamir.split(secret, threshold, indices, random)) {
            byHolder.put(share.index() - 1, share);
        }
        return byHolder;
    }

    static byte[] bytes(Random random) {
        byte[] out = new byte[32];
        random.nextBytes(out);
        return out;
    }
}
