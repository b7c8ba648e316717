package dev.chorus.privacy.secagg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Whole rounds over the in-memory network, for groups of 3 to 16, with and without dropouts. */
class RoundPropertyTest {

    private static final int DIMENSION = 48;

    /** Every group size from 3 to 16, each with three seeds, with 32-bit and with 16-bit masked words. */
    static Stream<Arguments> groups() {
        return IntStream.rangeClosed(3, 16).boxed().flatMap(n -> Seeds.seeds()
                .limit(3)
                .boxed()
                .flatMap(seed -> Stream.of(Arguments.of(n, seed ^ n, 32), Arguments.of(n, seed ^ n, 16))));
    }

    @ParameterizedTest(name = "n {0}, seed {1}, {2}-bit words")
    @MethodSource("groups")
    void withoutDropoutsEveryMemberGetsTheExactSum(int n, long seed, int wordBits) {
        RoundNetwork net = new RoundNetwork(n, -1, DIMENSION, seed, wordBits);
        net.run();
        Set<Integer> all = new TreeSet<>(IntStream.range(0, n).boxed().toList());
        assertArrayEquals(net.plainSum(all), net.result.sum());
        double bound = n * net.config.quantizer().step() / 2 + 1e-5;
        long samples = 0;
        for (long c : net.counts) {
            samples += c;
        }
        for (MemberRound member : net.members) {
            RoundOutcome.Completed done = assertInstanceOf(
                    RoundOutcome.Completed.class, member.outcome().orElseThrow());
            assertEquals(n, done.contributors());
            assertEquals(samples, done.sampleCount());
            for (int i = 0; i < DIMENSION; i++) {
                double plain = 0;
                for (int u = 0; u < n; u++) {
                    plain += net.values[u][i];
                }
                assertEquals(plain, done.sum()[i], bound);
            }
        }
        assertTrue(net.refusals.isEmpty(), () -> net.refusals.toString());
    }

    @ParameterizedTest(name = "n {0}, seed {1}, {2}-bit words")
    @MethodSource("groups")
    void withDropoutsTheSurvivorsSumOrACleanAbandon(int n, long seed, int wordBits) {
        RoundNetwork net = withDropouts(n, seed, wordBits);
        net.run();
        Set<Integer> survivors = expectedSurvivors(net);
        if (survivors == null) {
            assertInstanceOf(RoundOutcome.Abandoned.class, net.relay.outcome().orElseThrow());
            for (MemberRound member : net.members) {
                assertInstanceOf(RoundOutcome.Abandoned.class, member.outcome().orElseThrow());
            }
            return;
        }
        assertInstanceOf(
                RoundOutcome.Completed.class,
                net.relay.outcome().orElseThrow(),
                () -> net.relay.outcome() + " " + net.refusals);
        assertArrayEquals(net.plainSum(survivors), net.result.sum());
        for (int u : survivors) {
            if (net.dropPhase[u] == Integer.MAX_VALUE) {
                RoundOutcome.Completed done = assertInstanceOf(
                        RoundOutcome.Completed.class,
                        net.members.get(u).outcome().orElseThrow());
                assertEquals(survivors.size(), done.contributors());
            }
        }
    }

    /**
     * A round where, at each phase, up to a third of the group stops sending. A phase loses members with
     * probability 1/2 only, so that rounds that lose some members and still complete are as common as those that
     * must be abandoned.
     */
    private static RoundNetwork withDropouts(int n, long seed, int wordBits) {
        RoundNetwork net = new RoundNetwork(n, -1, DIMENSION, seed, wordBits);
        Random random = new Random(seed);
        List<Integer> active = new ArrayList<>(IntStream.range(0, n).boxed().toList());
        for (int phase = 0; phase <= 4; phase++) {
            int drops = random.nextBoolean() ? random.nextInt(n / 3 + 1) : 0;
            for (int d = 0; d < drops && !active.isEmpty(); d++) {
                net.dropPhase[active.remove(random.nextInt(active.size()))] = phase;
            }
        }
        return net;
    }

    @Test
    void theDropoutSchedulesReachBothEndings() {
        int completedWithDropouts = 0;
        int abandoned = 0;
        for (Arguments group : groups().toList()) {
            RoundNetwork net = withDropouts((Integer) group.get()[0], (Long) group.get()[1], (Integer) group.get()[2]);
            boolean dropped = Arrays.stream(net.dropPhase).anyMatch(p -> p != Integer.MAX_VALUE);
            Set<Integer> survivors = expectedSurvivors(net);
            completedWithDropouts += survivors != null && dropped ? 1 : 0;
            abandoned += survivors == null ? 1 : 0;
        }
        assertTrue(completedWithDropouts >= 5, "only " + completedWithDropouts + " rounds complete with dropouts");
        assertTrue(abandoned >= 5, "only " + abandoned + " rounds are abandoned");
    }

    /**
     * The survivors the protocol's rules give for the network's dropouts, or null when the round must be abandoned:
     * at least t members in every phase, a member shares only with t neighbours holding keys and masks only with t
     * neighbours' shares, and every secret the unmasking needs has t holders that revealed.
     */
    static Set<Integer> expectedSurvivors(RoundNetwork net) {
        CommunicationGraph graph = net.config.graph();
        int t = net.config.threshold();
        int n = net.config.size();
        Set<Integer> u1 = filter(n, u -> net.dropPhase[u] > 0);
        Set<Integer> u2 = filter(n, u -> u1.contains(u) && net.dropPhase[u] > 1 && adjacent(graph, u, u1) >= t);
        Set<Integer> u3 = filter(n, u -> u2.contains(u) && net.dropPhase[u] > 2 && adjacent(graph, u, u2) >= t);
        Set<Integer> u4 = filter(n, u -> u3.contains(u) && net.dropPhase[u] > 3);
        Set<Integer> u5 = filter(n, u -> u4.contains(u) && net.dropPhase[u] > 4);
        if (u1.size() < t || u2.size() < t || u3.size() < t || u4.size() < t || u5.size() < t) {
            return null;
        }
        Set<Integer> needed = new TreeSet<>(u3);
        needed.addAll(Recovery.neededDropouts(graph, u3, u2));
        for (int owner : needed) {
            if (adjacent(graph, owner, u5) < t) {
                return null;
            }
        }
        return u3;
    }

    private static int adjacent(CommunicationGraph graph, int u, Set<Integer> set) {
        int count = 0;
        for (int v : graph.neighbours(u)) {
            count += set.contains(v) ? 1 : 0;
        }
        return count;
    }

    private static Set<Integer> filter(int n, java.util.function.IntPredicate keep) {
        Set<Integer> out = new TreeSet<>();
        for (int u = 0; u < n; u++) {
            if (keep.test(u)) {
                out.add(u);
            }
        }
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void oneDropoutAfterSharingStillCompletes(long seed) {
        RoundNetwork net = new RoundNetwork(10, -1, DIMENSION, seed);
        net.dropPhase[(int) Long.remainderUnsigned(seed, 10)] = 2;
        net.run();
        Set<Integer> survivors = expectedSurvivors(net);
        assertFalse(survivors == null);
        assertArrayEquals(net.plainSum(survivors), net.result.sum());
    }
}
