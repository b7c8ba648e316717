package dev.chorus.node.secagg;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PublicKey;
import dev.chorus.privacy.secagg.CommunicationGraph;
import dev.chorus.privacy.secagg.RoundConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link RoundConfig} of a group round, derived by the relay and by every member alike from what they share: the
 * round's number, the relay, the group (in its agreed order), the round's {@link Terms} and the settings. Nothing of
 * it travels but the group and the terms, so a relay cannot pick the graph, the threshold or the seed; a member whose
 * settings differ, or that was told other terms or another group than the others, derives another round ID and
 * refuses the round's messages.
 */
final class RoundDerivation {

    private RoundDerivation() {}

    /**
     * @throws IllegalArgumentException when a member's peer ID carries no Ed25519 key, or the group is too small
     */
    static RoundConfig derive(
            long round, String relay, List<String> members, Terms terms, SecAggSettings settings, int dimension) {
        int n = members.size();
        if (n < SecAggSettings.MIN_GROUP) {
            throw new IllegalArgumentException(
                    "a group round needs " + SecAggSettings.MIN_GROUP + " members, not " + n);
        }
        List<RoundConfig.Member> group = new ArrayList<>(n);
        for (String m : members) {
            PublicKey key = PeerId.parse(m)
                    .publicKey()
                    .orElseThrow(() -> new IllegalArgumentException("peer " + m + " has no inline Ed25519 key"));
            group.add(new RoundConfig.Member(m, key.raw()));
        }
        int k = degree(n, settings.degree());
        int t = threshold(k, settings.thresholdFraction());
        byte[] roundId = roundId(round, relay, members, terms, settings.bySampleCount());
        byte[] seed = digest("chorus/secagg/group-seed", roundId);
        RoundConfig.Inputs inputs = new RoundConfig.Inputs(dimension, terms.range(settings.range()), terms.wordBits());
        return new RoundConfig(roundId, group, t, k, inputs, settings.phaseTimeout(), seed);
    }

    /** k: the configured degree (or the default) capped at n - 1, and made even when n is odd. */
    static int degree(int n, int configured) {
        int k = configured == 0 ? CommunicationGraph.defaultDegree(n) : Math.min(configured, n - 1);
        if (k % 2 != 0 && n % 2 != 0) {
            k--;
        }
        return Math.max(2, k);
    }

    /**
     * t: at least k/2 + 1 (so that no relay can collect both of a member's secrets) and the configured fraction of k,
     * at most k.
     */
    static int threshold(int k, double fraction) {
        int t = Math.max(k / 2 + 1, (int) Math.ceil(fraction * k - 1e-9));
        return Math.min(t, k);
    }

    private static byte[] roundId(long round, String relay, List<String> members, Terms terms, boolean bySampleCount) {
        ByteBuffer head = ByteBuffer.allocate(8).putLong(round);
        // The weighting travels in the ID: a member that weighs otherwise than the others would skew their mean.
        StringBuilder names = new StringBuilder(relay)
                .append('\n')
                .append(bySampleCount ? "samples" : "uniform")
                .append('\n')
                .append(terms.scale())
                .append('\n')
                .append(terms.rangeExponent())
                .append('\n')
                .append(terms.wordBits());
        for (String m : members) {
            names.append('\n').append(m);
        }
        byte[] text = names.toString().getBytes(StandardCharsets.UTF_8);
        byte[] body =
                ByteBuffer.allocate(8 + text.length).put(head.array()).put(text).array();
        return digest("chorus/secagg/round-id", body);
    }

    private static byte[] digest(String label, byte[] body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(label.getBytes(StandardCharsets.US_ASCII));
            sha.update(body);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
