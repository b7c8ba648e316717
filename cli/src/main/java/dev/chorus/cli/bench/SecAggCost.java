package dev.chorus.cli.bench;

import dev.chorus.node.secagg.SecureWire;
import dev.chorus.node.secagg.Terms;
import dev.chorus.privacy.secagg.CommunicationGraph;
import dev.chorus.privacy.secagg.MemberRound;
import dev.chorus.privacy.secagg.Quantizer;
import dev.chorus.privacy.secagg.RelayRound;
import dev.chorus.privacy.secagg.RoundConfig;
import dev.chorus.privacy.secagg.RoundOutcome;
import dev.chorus.privacy.secagg.SecAggMessage;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * One group round of secure aggregation played out in this thread, with no network: every member's and the relay's
 * work timed apart (so each figure is one core's), and every frame a member sends counted as it would go on the wire
 * ({@code /chorus/secagg/3.0.0}: the OFFER and each round message in a ROUND frame). Plain averaging of the same
 * vector sends it once as 32-bit floats: {@code 4 d} bytes, the baseline of the byte ratio.
 */
public final class SecAggCost {

    /** What one round cost. */
    public record Round(double memberBytesVsPlain, double memberSeconds, double relaySeconds, int contributors) {}

    private SecAggCost() {}

    /**
     * Runs one round of {@code n} members over vectors of {@code d} values, with the default degree and t at 0.6 of
     * it (the node's defaults), and checks that the sum is the one expected.
     *
     * @return the bytes a member sent against plain averaging (the mean over members), the time of the slowest
     *     member, and the relay's time
     */
    public static Round run(int n, int d, long seed) {
        return run(n, d, seed, 32);
    }

    /** {@link #run(int, int, long)} with masked words of {@code wordBits} bits (16 or 32). */
    public static Round run(int n, int d, long seed, int wordBits) {
        Random r = new Random(seed);
        SecureRandom random = new SecureRandom();
        List<Ed25519PrivateKeyParameters> keys = new ArrayList<>();
        List<RoundConfig.Member> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] k = new byte[32];
            r.nextBytes(k);
            Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(k);
            keys.add(key);
            members.add(new RoundConfig.Member(
                    "member-" + i, key.generatePublicKey().getEncoded()));
        }
        int degree = CommunicationGraph.defaultDegree(n);
        int threshold = Math.min(degree, Math.max(degree / 2 + 1, (int) Math.ceil(0.6 * degree)));
        byte[] roundId = new byte[32];
        byte[] groupSeed = new byte[32];
        r.nextBytes(roundId);
        r.nextBytes(groupSeed);
        RoundConfig config = new RoundConfig(
                roundId,
                members,
                threshold,
                degree,
                new RoundConfig.Inputs(d, 4.0, wordBits),
                Duration.ofMinutes(10),
                groupSeed);
        InstantSource clock = InstantSource.system();
        long[] memberNanos = new long[n];
        long[] memberBytes = new long[n];
        float[] expected = new float[d];
        MemberRound[] rounds = new MemberRound[n];
        for (int i = 0; i < n; i++) {
            float[] x = new float[d];
            for (int j = 0; j < d; j++) {
                x[j] = (float) r.nextGaussian();
                expected[j] += Math.max(-4f, Math.min(4f, x[j]));
            }
            long t0 = System.nanoTime();
            rounds[i] = new MemberRound(config, i, keys.get(i), x, 1, random, clock);
            memberNanos[i] += System.nanoTime() - t0;
            memberBytes[i] += SecureWire.offer(0, new Terms(0, 2, wordBits)).length;
        }
        long t0 = System.nanoTime();
        RelayRound relay = new RelayRound(config, clock);
        long relayNanos = System.nanoTime() - t0;
        relayNanos += pump(rounds, relay, memberNanos, memberBytes);
        RoundOutcome outcome = relay.outcome().orElseThrow(() -> new IllegalStateException("the round did not end"));
        if (!(outcome instanceof RoundOutcome.Completed c) || c.contributors() != n) {
            throw new IllegalStateException("the round ended with " + outcome);
        }
        double step = new Quantizer(4.0, n, wordBits).step();
        for (int j = 0; j < d; j++) {
            if (Math.abs(c.sum()[j] - expected[j]) > n * step + 1e-3) {
                throw new IllegalStateException(
                        "coordinate " + j + " of the sum is " + c.sum()[j] + ", not " + expected[j]);
            }
        }
        long slowest = 0;
        double bytes = 0;
        for (int i = 0; i < n; i++) {
            slowest = Math.max(slowest, memberNanos[i]);
            bytes += memberBytes[i];
        }
        return new Round(bytes / n / (4.0 * d), slowest / 1e9, relayNanos / 1e9, c.contributors());
    }

    /** Carries messages until the relay's round ends; returns the relay's time and adds up each member's. */
    private static long pump(MemberRound[] rounds, RelayRound relay, long[] memberNanos, long[] memberBytes) {
        long relayNanos = 0;
        boolean moved = true;
        while (moved && relay.outcome().isEmpty()) {
            moved = false;
            for (int i = 0; i < rounds.length; i++) {
                long t0 = System.nanoTime();
                List<SecAggMessage> out = rounds[i].drainOutbox();
                memberNanos[i] += System.nanoTime() - t0;
                for (SecAggMessage m : out) {
                    byte[] wire = m.encode();
                    memberBytes[i] += SecureWire.round(0, wire).length;
                    long t1 = System.nanoTime();
                    relay.receive(wire);
                    relayNanos += System.nanoTime() - t1;
                    moved = true;
                }
            }
            long t1 = System.nanoTime();
            List<RelayRound.Outbound> toMembers = relay.drainOutbox();
            relayNanos += System.nanoTime() - t1;
            for (RelayRound.Outbound o : toMembers) {
                long t2 = System.nanoTime();
                byte[] wire = o.message().encode();
                relayNanos += System.nanoTime() - t2;
                long t3 = System.nanoTime();
                rounds[o.recipient()].receive(wire);
                memberNanos[o.recipient()] += System.nanoTime() - t3;
                moved = true;
            }
        }
        return relayNanos;
    }
}
