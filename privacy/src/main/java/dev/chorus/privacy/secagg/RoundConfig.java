package dev.chorus.privacy.secagg;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * What every member and the relay of one group round agree on before it starts.
 *
 * @param roundId the round's ID (1..{@value SecAggMessage#MAX_ROUND_ID} bytes); every message and signature is bound
 *     to it
 * @param members the group in its agreed order: member i is {@code members.get(i)}
 * @param threshold t: the fewest members that may take part in any phase, and the Shamir threshold; at most the
 *     degree, since a member's secrets are shared among its neighbours only, and more than half of it (see the
 *     check below)
 * @param degree k, the number of graph neighbours of each member
 * @param inputs what each member puts into the sum: its length, its range and its words
 * @param phaseTimeout the length of each phase: phase p (0..4) closes at the round's start + (p + 1) * timeout
 * @param groupSeed the group's 32-byte seed, from which the communication graph is drawn
 */
public record RoundConfig(
        byte[] roundId,
        List<Member> members,
        int threshold,
        int degree,
        Inputs inputs,
        Duration phaseTimeout,
        byte[] groupSeed) {

    /** A group member: its node ID and its Ed25519 identity public key (32 bytes). */
    public record Member(String id, byte[] identityKey) {}

    /**
     * What each member puts into the sum.
     *
     * @param dimension the length of every input vector
     * @param range R: inputs are clipped to [-R, R] per coordinate
     * @param wordBits the bits of each masked word of the input, 16 or 32 (the sample count's word is always 32)
     */
    public record Inputs(int dimension, double range, int wordBits) {
        public Inputs {
            if (dimension < 1 || dimension > SecAggMessage.MAX_WORDS) {
                throw new SecAggException("dimension " + dimension + " is outside 1.." + SecAggMessage.MAX_WORDS);
            }
            if (!(range > 0) || Double.isInfinite(range)) {
                throw new SecAggException("clipping range " + range + " must be a positive finite number");
            }
            if (wordBits != 16 && wordBits != 32) {
                throw new SecAggException("a masked word is 16 or 32 bits, not " + wordBits);
            }
        }

        /** 32-bit words. */
        public Inputs(int dimension, double range) {
            this(dimension, range, 32);
        }
    }

    public RoundConfig {
        roundId = roundId.clone();
        members = List.copyOf(members);
        groupSeed = groupSeed.clone();
        if (roundId.length < 1 || roundId.length > SecAggMessage.MAX_ROUND_ID) {
            throw new SecAggException("a round ID is 1.." + SecAggMessage.MAX_ROUND_ID + " bytes");
        }
        if (members.size() < 3 || members.size() > SecAggMessage.MAX_MEMBERS) {
            throw new SecAggException("a group round needs 3.." + SecAggMessage.MAX_MEMBERS + " members");
        }
        // Each honest holder reveals one of a member's two shares, so with 2t > k no relay, whatever survivor sets
        // it claims, can gather t shares of both of a member's secrets from its k neighbours.
        if (2 * threshold <= degree || threshold > degree) {
            throw new SecAggException(
                    "threshold " + threshold + " must exceed half the degree " + degree + " and not exceed it");
        }
        java.util.Objects.requireNonNull(inputs, "inputs");
        if (phaseTimeout.isNegative() || phaseTimeout.isZero()) {
            throw new SecAggException("the phase timeout must be positive");
        }
        graphOf(roundId, members.size(), degree, groupSeed);
    }

    public int size() {
        return members.size();
    }

    /** The length of every input vector. */
    public int dimension() {
        return inputs.dimension();
    }

    /** R: inputs are clipped to [-R, R] per coordinate. */
    public double range() {
        return inputs.range();
    }

    /** The bits of each masked word of an input, 16 or 32. */
    public int wordBits() {
        return inputs.wordBits();
    }

    /** The moment phase {@code phase} closes, for a round that started at {@code start}. */
    Instant deadline(Instant start, int phase) {
        return start.plus(phaseTimeout.multipliedBy(phase + 1L));
    }

    CommunicationGraph graph() {
        return graphOf(roundId, members.size(), degree, groupSeed);
    }

    /** The round ID as the string the masking functions bind to: lower-case hex. */
    String roundLabel() {
        return HexFormat.of().formatHex(roundId);
    }

    /**
     * The message encoded in {@code wire}, refused ({@link RefusedMessageException}) when it is malformed; what
     * either side of the round does before looking at a message.
     */
    static SecAggMessage decode(byte[] wire) {
        try {
            return SecAggMessage.decode(wire);
        } catch (SecAggException e) {
            throw new RefusedMessageException("malformed message: " + e.getMessage(), e);
        }
    }

    /** Refuses ({@link RefusedMessageException}) a message bound to another round than this one. */
    void requireThisRound(SecAggMessage message) {
        if (!Arrays.equals(message.roundId(), roundId)) {
            throw new RefusedMessageException("the message is for round "
                    + HexFormat.of().formatHex(message.roundId()) + ", not this round " + roundLabel());
        }
    }

    Quantizer quantizer() {
        return new Quantizer(inputs.range(), members.size(), inputs.wordBits());
    }

    private static CommunicationGraph graphOf(byte[] roundId, int n, int degree, byte[] groupSeed) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(roundId);
            return CommunicationGraph.of(
                    n, degree, groupSeed, ByteBuffer.wrap(digest).getLong());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
