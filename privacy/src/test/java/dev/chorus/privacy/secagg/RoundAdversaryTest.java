package dev.chorus.privacy.secagg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A dishonest relay, forged keys, and what the relay sees. */
class RoundAdversaryTest {

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void aRelayThatSendsDifferentSurvivorSetsIsCaughtBeforeAnyShareIsRevealed(long seed) {
        // n = 8, k = 7, t = 5: the relay tells members 0..3 that member 7 dropped and 4..7 that it survived, then
        // forwards every signature to everyone. Neither half has t signatures over its own set.
        RoundNetwork net = new RoundNetwork(8, 5, 16, seed);
        List<SecAggMessage.ConsistencySignature> signatures = new ArrayList<>();
        net.tamper = (to, m) -> {
            if (m instanceof SecAggMessage.SurvivorSet s && to < 4) {
                return new SecAggMessage.SurvivorSet(s.roundId(), Arrays.copyOf(s.survivors(), 7));
            }
            return m;
        };
        net.intercept = m -> {
            if (m instanceof SecAggMessage.ConsistencySignature s) {
                signatures.add(s);
                if (signatures.size() == 8) {
                    SecAggMessage all = new SecAggMessage.ConsistencySignatures(s.roundId(), List.copyOf(signatures));
                    IntStream.range(0, 8).forEach(v -> net.toMembers.add(new RelayRound.Outbound(v, all)));
                }
                return true;
            }
            return false;
        };
        net.run();
        for (int u = 0; u < 8; u++) {
            RoundOutcome.Abandoned abandoned = assertInstanceOf(
                    RoundOutcome.Abandoned.class, net.members.get(u).outcome().orElseThrow());
            assertTrue(abandoned.reason().startsWith("consistency check failed"), abandoned.reason());
            assertFalse(net.emittedPhase(u, 4), "member " + u + " revealed shares");
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void aForgedAdvertisementIsDroppedAndTheOthersStillAggregate(long seed) {
        RoundNetwork net = new RoundNetwork(6, -1, 16, seed);
        net.intercept = m -> {
            if (m instanceof SecAggMessage.Advertise a && a.member() == 2) {
                byte[] forged = a.signature().clone();
                forged[0] ^= 1;
                net.toRelay(new SecAggMessage.Advertise(a.roundId(), 2, a.maskKey(), a.shareKey(), forged).encode());
                return true;
            }
            return false;
        };
        net.run();
        assertTrue(
                net.refusals.stream().anyMatch(r -> r.contains("member 2") && r.contains("signature")),
                net.refusals::toString);
        Set<Integer> others = new TreeSet<>(Set.of(0, 1, 3, 4, 5));
        assertArrayEquals(net.plainSum(others), net.result.sum());
        assertInstanceOf(
                RoundOutcome.Abandoned.class, net.members.get(2).outcome().orElseThrow());
        for (int u : others) {
            assertEquals(
                    5, ((RoundOutcome.Completed) net.members.get(u).outcome().orElseThrow()).contributors());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void membersDropAForgedAdvertisementThatTheRelayForwards(long seed) {
        RoundNetwork net = new RoundNetwork(6, -1, 16, seed);
        net.tamper = (to, m) -> {
            if (m instanceof SecAggMessage.AdvertiseSet s) {
                List<SecAggMessage.Advertise> ads = new ArrayList<>();
                for (SecAggMessage.Advertise a : s.advertisements()) {
                    // The relay swaps in a share key of its own for member 2 but cannot sign it.
                    ads.add(
                            a.member() != 2
                                    ? a
                                    : new SecAggMessage.Advertise(
                                            a.roundId(), 2, a.maskKey(), new byte[32], a.signature()));
                }
                return new SecAggMessage.AdvertiseSet(s.roundId(), ads);
            }
            return m;
        };
        net.run();
        for (int u = 0; u < 6; u++) {
            for (SecAggMessage m : net.emitted.get(u)) {
                if (m instanceof SecAggMessage.ShareKeys k) {
                    assertTrue(k.shares().stream().noneMatch(s -> s.peer() == 2), "member " + u + " shared with 2");
                }
            }
            assertFalse(net.members.get(u).outcome().orElseThrow() instanceof RoundOutcome.Completed c
                    && c.contributors() == 6);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void aTamperedShareCiphertextMakesItsRecipientAbandon(long seed) {
        RoundNetwork net = new RoundNetwork(6, -1, 16, seed);
        net.tamper = (to, m) -> {
            if (m instanceof SecAggMessage.ShareDelivery d && to == 1) {
                List<SecAggMessage.SealedShare> shares = new ArrayList<>(d.shares());
                byte[] flipped = shares.get(0).ciphertext().clone();
                flipped[5] ^= 1;
                shares.set(0, new SecAggMessage.SealedShare(shares.get(0).peer(), flipped));
                return new SecAggMessage.ShareDelivery(d.roundId(), d.member(), shares);
            }
            return m;
        };
        net.run();
        RoundOutcome.Abandoned abandoned = assertInstanceOf(
                RoundOutcome.Abandoned.class, net.members.get(1).outcome().orElseThrow());
        assertTrue(abandoned.reason().contains("does not open"), abandoned.reason());
        assertFalse(net.emittedPhase(1, 2), "member 1 sent a masked input");
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void whatTheRelayReceivesHoldsNoInputInTheClear(long seed) {
        int dimension = 4096;
        RoundNetwork net = new RoundNetwork(10, -1, dimension, seed);
        net.run();
        assertInstanceOf(RoundOutcome.Completed.class, net.relay.outcome().orElseThrow());
        Quantizer q = net.config.quantizer();
        long[] byteCounts = new long[256];
        int ciphertexts = 0;
        for (byte[] wire : net.relayReceived) {
            switch (SecAggMessage.decode(wire)) {
                case SecAggMessage.MaskedInput y -> {
                    int[] x = q.quantize(net.values[y.member()]);
                    int[] masked = Arrays.copyOf(y.masked(), dimension);
                    assertTrue(chiSquareTopNibble(masked) < 60, "masked words are not uniform");
                    assertTrue(Math.abs(correlation(x, masked)) < 0.1, "masked words follow the input");
                }
                case SecAggMessage.ShareKeys k -> {
                    for (SecAggMessage.SealedShare s : k.shares()) {
                        assertEquals(ShareCipher.CIPHERTEXT_BYTES, s.ciphertext().length);
                        for (byte b : s.ciphertext()) {
                            byteCounts[b & 0xFF]++;
                        }
                        ciphertexts++;
                    }
                }
                default -> {}
            }
        }
        assertTrue(ciphertexts > 0);
        // Share values are below 2^256 + 297, so their leading bytes are 0 or 1 in the clear: ciphertext bytes are
        // uniform instead.
        double expected = Arrays.stream(byteCounts).sum() / 256.0;
        double chi = 0;
        for (long c : byteCounts) {
            chi += (c - expected) * (c - expected) / expected;
        }
        assertTrue(chi < 400, "share ciphertext bytes are not uniform: chi-square " + chi);
    }

    /** Chi-square of the top four bits of the words against uniform (15 degrees of freedom; 60 is p < 1e-6). */
    private static double chiSquareTopNibble(int[] words) {
        long[] buckets = new long[16];
        for (int w : words) {
            buckets[w >>> 28]++;
        }
        double expected = words.length / 16.0;
        double chi = 0;
        for (long c : buckets) {
            chi += (c - expected) * (c - expected) / expected;
        }
        return chi;
    }

    private static double correlation(int[] a, int[] b) {
        int n = a.length;
        double ma = 0;
        double mb = 0;
        for (int i = 0; i < n; i++) {
            ma += Integer.toUnsignedLong(a[i]);
            mb += Integer.toUnsignedLong(b[i]);
        }
        ma /= n;
        mb /= n;
        double sab = 0;
        double saa = 0;
        double sbb = 0;
        for (int i = 0; i < n; i++) {
            double da = Integer.toUnsignedLong(a[i]) - ma;
            double db = Integer.toUnsignedLong(b[i]) - mb;
            sab += da * db;
            saa += da * da;
            sbb += db * db;
        }
        return sab / Math.sqrt(saa * sbb);
    }
}
