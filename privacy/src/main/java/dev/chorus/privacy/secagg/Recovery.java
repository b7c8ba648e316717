package dev.chorus.privacy.secagg;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Dropout recovery (Bonawitz et al., CCS 2017, the unmasking round): which secret a share holder reveals for each of
 * its neighbours, and the reconstruction of what the unmasking needs from the shares revealed.
 *
 * <p>For each member u, a holder reveals exactly one of its two shares: of the self-mask seed b_u if u's masked input
 * arrived (u is a survivor), of the pairwise mask key sk_u if it did not (u is a dropout). Revealing both would give
 * y_u's every mask, hence x_u, to whoever collects them; so the rule depends only on the survivor set, which all
 * holders must agree on.
 */
public final class Recovery {

    /** The secret a holder reveals a share of. */
    public enum Secret {
        SELF_MASK_SEED,
        MASK_KEY
    }

    /** The reconstructed secrets: self-mask seeds of survivors and mask keys of dropouts, keyed by member. */
    public record Recovered(Map<Integer, byte[]> selfMaskSeeds, Map<Integer, byte[]> maskKeys) {}

    private Recovery() {}

    /** The secret of {@code owner} whose share a holder reveals, given the members whose masked input arrived. */
    public static Secret toReveal(int owner, Set<Integer> survivors) {
        return survivors.contains(owner) ? Secret.SELF_MASK_SEED : Secret.MASK_KEY;
    }

    /**
     * The self-mask seed of every survivor and the mask key of every dropout adjacent to a survivor, each from at
     * least {@code threshold} shares. Every needed secret is checked to have enough shares before any is
     * reconstructed, so a round that cannot finish aborts with {@link SecAggAbortedException} having reconstructed
     * nothing. Shares of both secrets of one member also abort the round.
     */
    public static Recovered recover(
            CommunicationGraph graph,
            Set<Integer> survivors,
            Map<Integer, List<ShamirShare>> selfSeedShares,
            Map<Integer, List<ShamirShare>> maskKeyShares,
            int threshold) {
        Set<Integer> everyone = new TreeSet<>();
        for (int u = 0; u < graph.size(); u++) {
            everyone.add(u);
        }
        return recover(graph, everyone, survivors, selfSeedShares, maskKeyShares, threshold);
    }

    /**
     * As {@link #recover(CommunicationGraph, Set, Map, Map, int)} when only {@code participants} took part in the key
     * exchange: a member outside it shared no secret and no survivor masked with it, so its key is not needed.
     */
    public static Recovered recover(
            CommunicationGraph graph,
            Set<Integer> participants,
            Set<Integer> survivors,
            Map<Integer, List<ShamirShare>> selfSeedShares,
            Map<Integer, List<ShamirShare>> maskKeyShares,
            int threshold) {
        for (int owner : maskKeyShares.keySet()) {
            if (selfSeedShares.containsKey(owner) || survivors.contains(owner)) {
                throw new SecAggAbortedException("shares of member " + owner
                        + "'s mask key were revealed although its masked input arrived; revealing both of its"
                        + " secrets would unmask its input");
            }
        }
        Set<Integer> dropouts = neededDropouts(graph, survivors, participants);
        checkEnough("self-mask seed", survivors, selfSeedShares, threshold);
        checkEnough("mask key", dropouts, maskKeyShares, threshold);
        return new Recovered(
                reconstruct(survivors, selfSeedShares, threshold), reconstruct(dropouts, maskKeyShares, threshold));
    }

    /** The dropouts whose pairwise masks are in the sum: those with a surviving neighbour. */
    static Set<Integer> neededDropouts(CommunicationGraph graph, Set<Integer> survivors) {
        Set<Integer> everyone = new TreeSet<>();
        for (int u = 0; u < graph.size(); u++) {
            everyone.add(u);
        }
        return neededDropouts(graph, survivors, everyone);
    }

    /** The dropouts among {@code participants} (the members that took part in the key exchange) whose pairwise
     * masks are in the sum. */
    static Set<Integer> neededDropouts(CommunicationGraph graph, Set<Integer> survivors, Set<Integer> participants) {
        Set<Integer> out = new TreeSet<>();
        for (int survivor : survivors) {
            for (int neighbour : graph.neighbours(survivor)) {
                if (!survivors.contains(neighbour) && participants.contains(neighbour)) {
                    out.add(neighbour);
                }
            }
        }
        return out;
    }

    private static void checkEnough(
            String what, Set<Integer> owners, Map<Integer, List<ShamirShare>> shares, int threshold) {
        Set<Integer> missing = new TreeSet<>();
        for (int owner : owners) {
            if (shares.getOrDefault(owner, List.of()).size() < threshold) {
                missing.add(owner);
            }
        }
        if (!missing.isEmpty()) {
            throw new SecAggAbortedException("fewer than " + threshold + " shares of the " + what + " of members "
                    + missing + " arrived; the round cannot be unmasked and is abandoned");
        }
    }

    private static Map<Integer, byte[]> reconstruct(
            Set<Integer> owners, Map<Integer, List<ShamirShare>> shares, int threshold) {
        Map<Integer, byte[]> out = new HashMap<>();
        for (int owner : owners) {
            out.put(owner, Shamir.reconstruct(shares.get(owner), threshold));
        }
        return out;
    }
}
