package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.GroupRounds;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.node.protocol.PeerStanding;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.secagg.Quantizer;
import dev.chorus.privacy.secagg.SecAggMessage;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Group rounds between real hosts on loopback: the sum, what the relay sees, dropouts at every phase, and a round
 * below its threshold.
 */
class SecureGroupServiceTest {

    private static final int DIMENSION = 1000;
    private static final double RANGE = 4;
    private static final SecAggSettings SETTINGS =
            new SecAggSettings(8, Duration.ofMillis(300), Duration.ofMillis(1500), RANGE, 0.6, 0, 7, true);

    /** Each node's sample count; the round weighs inputs by it unless a test says otherwise. */
    private long[] samples = {100, 101, 102, 103, 104, 105, 106, 107};

    private SecAggSettings settings = SETTINGS;

    /** Whether each node takes the relay's role ({@code averaging.secure_relay}); all do unless a test says so. */
    private RelayRole.Setting[] relaying = relayingAll(RelayRole.Setting.ALWAYS);

    /** Each node's bandwidth in bytes per second, both ways; 0: unlimited. */
    private long[] bandwidth = new long[8];

    /** Every node's clock. */
    private InstantSource clock = InstantSource.system();

    /** The dtype in which relays send sums back. */
    private dev.chorus.node.protocol.Dtype sumDtype = dev.chorus.node.protocol.Dtype.F32;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final List<Host> hosts = new ArrayList<>();
    private final List<SecureGroupService> services = new ArrayList<>();
    private final List<PeerStanding> standings = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private void startGroup(int n) {
        for (int i = 0; i < n; i++) {
            PrivateKey key = PrivateKey.generate();
            Host host = Host.start(HostConfig.defaults(key)
                            .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                            .withGracePeriod(Duration.ofMillis(100))
                            .withBandwidthLimit(bandwidth[i]))
                    .join();
            closing.add(host);
            hosts.add(host);
            SecureGroupService s = new SecureGroupService(
                    new SecureGroupService.Context(
                            host, key, EgressRecorder.NONE, standing(), clock, new SecureRandom()),
                    settings,
                    DIMENSION,
                    sumDtype,
                    relaying[i]);
            s.start();
            closing.add(s);
            services.add(s);
        }
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                hosts.get(i).connect(hosts.get(j).listenAddrs().get(0)).join();
            }
        }
        // Every node must see the same roster, or the nodes derive different plans for the first round.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!hosts.stream().allMatch(h -> identifiedPeers(h) == n - 1) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(hosts).allSatisfy(h -> assertThat(identifiedPeers(h)).isEqualTo(n - 1));
    }

    /**
     * Sets every node's clock 100 ms into an offer window of 20 s, and that window: a round then starts when its whole
     * group has offered, never at the window's end, however slowly the offers go out.
     *
     * @return the window, in milliseconds
     */
    private long startInALongWindow() {
        long window = 20_000;
        settings = SETTINGS.withOfferWindow(Duration.ofMillis(window));
        long now = System.currentTimeMillis();
        clock = Clock.offset(Clock.systemUTC(), Duration.ofMillis(100 - Math.floorMod(now, window)));
        return window;
    }

    private static RelayRole.Setting[] relayingAll(RelayRole.Setting setting) {
        RelayRole.Setting[] out = new RelayRole.Setting[8];
        java.util.Arrays.fill(out, setting);
        return out;
    }

    private PeerStanding standing() {
        PeerStanding s = new PeerStanding(PeerStanding.Config.defaults(), InstantSource.system());
        standings.add(s);
        return s;
    }

    private static long identifiedPeers(Host h) {
        return h.connections().stream()
                .filter(c -> c.isOpen() && c.identifyInfo() != null)
                .count();
    }

    /** The inputs of {@code n} nodes, seeded {@code first}, {@code first + 1}, ... */
    private static List<float[]> inputs(int n, long first) {
        List<float[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(input(first + i));
        }
        return out;
    }

    private static float[] input(long seed) {
        Random r = new Random(seed);
        float[] x = new float[DIMENSION];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (r.nextGaussian() * 1.5);
        }
        return x;
    }

    /**
     * Offers every node's input at once and waits for each node's outcome. A node whose offer found no round (its
     * offer fell on the other side of a window's half from the others', so that it went to another round's relay)
     * offers again, as the strategy does at its next round.
     */
    private List<GroupRounds.GroupOutcome> runRound(List<float[]> inputs) throws InterruptedException {
        List<Integer> everyone = new ArrayList<>();
        for (int i = 0; i < services.size(); i++) {
            everyone.add(i);
        }
        return runRound(inputs, everyone);
    }

    /** As {@link #runRound(List)} for the nodes {@code who} alone; the others' outcomes are left null. */
    private List<GroupRounds.GroupOutcome> runRound(List<float[]> inputs, List<Integer> who)
            throws InterruptedException {
        awaitAFreshWindow();
        for (int i : who) {
            assertThat(services.get(i).offer(inputs.get(i), samples[i]))
                    .as("offer of node %d", i)
                    .isTrue();
        }
        List<GroupRounds.GroupOutcome> out = new ArrayList<>(services.size());
        for (int i = 0; i < services.size(); i++) {
            out.add(null);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (who.stream().anyMatch(i -> out.get(i) == null) && System.nanoTime() < deadline) {
            for (int i : who) {
                if (out.get(i) != null) {
                    continue;
                }
                GroupRounds.GroupOutcome o = services.get(i).poll();
                if (o instanceof GroupRounds.Abandoned a && a.reason().contains("cancelled")) {
                    services.get(i).offer(inputs.get(i), samples[i]);
                } else {
                    out.set(i, o);
                }
            }
            Thread.sleep(20);
        }
        for (int i : who) {
            assertThat(out.get(i)).as("the round of node %d ended", i).isNotNull();
        }
        return out;
    }

    /**
     * Waits, where the offer window is short, until one has just begun, so that every node's offer falls into the
     * same window and so into the same round. Offers sent just before a window's end can reach their relay after it:
     * the late node then goes to a round of its own, and by the time it offers again the others' round is over. A
     * long window ({@link #startInALongWindow}) has been set to have just begun.
     */
    private void awaitAFreshWindow() throws InterruptedException {
        long window = settings.offerWindow().toMillis();
        if (window > 1_000) {
            return;
        }
        // A clock that does not advance would never reach the next window: fail rather than hang.
        long deadline = System.nanoTime() + Duration.ofMillis(4 * window).toNanos();
        while (Math.floorMod(clock.millis(), window) > window / 4) {
            assertThat(System.nanoTime())
                    .as("the test's clock reaches the first quarter of a %d-ms window within four windows", window)
                    .isLessThan(deadline);
            Thread.sleep(2);
        }
    }

    /** The mean of the clipped inputs of {@code who}, weighted by their sample counts when the settings say so. */
    private double[] mean(List<float[]> inputs, List<Integer> who) {
        double[] m = new double[DIMENSION];
        double total = 0;
        for (int i : who) {
            double w = settings.bySampleCount() ? samples[i] : 1;
            total += w;
            float[] x = inputs.get(i);
            for (int j = 0; j < DIMENSION; j++) {
                m[j] += w * Math.max(-RANGE, Math.min(RANGE, x[j]));
            }
        }
        for (int j = 0; j < DIMENSION; j++) {
            m[j] /= total;
        }
        return m;
    }

    /** Every outcome completed with {@code samples} in all and a mean within {@link #tolerance} of {@code expected}. */
    private static void assertEveryMean(List<GroupRounds.GroupOutcome> outcomes, double[] expected, long samples) {
        for (GroupRounds.GroupOutcome o : outcomes) {
            assertThat(o).isInstanceOf(GroupRounds.Completed.class);
            GroupRounds.Completed c = (GroupRounds.Completed) o;
            assertThat(c.sampleCount()).isEqualTo(samples);
            for (int j = 0; j < DIMENSION; j++) {
                assertThat((double) c.mean()[j])
                        .isCloseTo(expected[j], org.assertj.core.data.Offset.offset(tolerance(5)));
            }
        }
    }

    /** Half a quantization step per input, and float rounding in the mean. */
    private static double tolerance(int members) {
        return new Quantizer(RANGE, members).step() + 1e-6;
    }

    @Test
    void everyMemberGetsTheMeanAndTheRelaySeesOnlyUniformWords() throws Exception {
        startGroup(5);
        Map<String, List<int[]>> maskedBySender = new ConcurrentHashMap<>();
        for (SecureGroupService s : services) {
            s.tapRelay((peer, frame) -> {
                SecureWire.Round r = (SecureWire.Round) SecureWire.decode(frame, 8);
                if (SecAggMessage.decode(r.message()) instanceof SecAggMessage.MaskedInput m) {
                    maskedBySender.computeIfAbsent(peer, p -> new ArrayList<>()).add(m.masked());
                }
            });
        }
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            inputs.add(input(i));
        }
        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs);

        double[] expected = mean(inputs, List.of(0, 1, 2, 3, 4));
        assertEveryMean(outcomes, expected, 100 + 101 + 102 + 103 + 104);
        assertThat(outcomes).allSatisfy(o -> assertThat(((GroupRounds.Completed) o).contributors())
                .isEqualTo(5));
        // The relay's view: each member's masked input, over the network (the relay's own never leaves it).
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < hosts.size(); i++) {
            index.put(hosts.get(i).peerId().toBase58(), i);
        }
        assertThat(maskedBySender.keySet()).hasSize(5); // the relay's own comes through its tap too
        for (Map.Entry<String, List<int[]>> e : maskedBySender.entrySet()) {
            int[] masked = e.getValue().get(0);
            float[] x = inputs.get(index.get(e.getKey()));
            assertThat(Math.abs(correlation(masked, x)))
                    .as("correlation with the member's input")
                    .isLessThan(0.15);
            assertThat(chiSquareTopBits(masked))
                    .as("uniformity of the masked words")
                    .isLessThan(45);
        }
    }

    /** Every member ends with sum_i n_i x_i / sum_i n_i, however far apart the counts are. */
    @Test
    void inputsCountInProportionToTheirSampleCounts() throws Exception {
        samples = new long[] {1, 3, 1000, 40000, 7};
        startGroup(5);
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            inputs.add(input(40 + i));
        }
        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs);

        List<Integer> all = List.of(0, 1, 2, 3, 4);
        double[] expected = mean(inputs, all);
        assertEveryMean(outcomes, expected, 41011);
        // The weighted mean is far from the plain one here: node 3 holds nearly every example.
        settings = SETTINGS.withSampleWeighting(false);
        double[] plain = mean(inputs, all);
        assertThat(Math.abs(plain[0] - expected[0])).isGreaterThan(0.01);
    }

    /**
     * With a dtype narrower than f32 the masked words are 16-bit (uniform in Z_2^16, half the bytes), and the relay
     * sends the sum back in that dtype: int8 rounds the mean as the model exchange's int8 would.
     */
    @Test
    void aNarrowDtypeMasksIn16BitWordsAndTheRelaySendsTheSumBackInIt() throws Exception {
        sumDtype = dev.chorus.node.protocol.Dtype.INT8;
        startGroup(5);
        List<SecAggMessage.MaskedInput> masked = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Integer> frameBytes = java.util.Collections.synchronizedList(new ArrayList<>());
        for (SecureGroupService s : services) {
            s.tapRelay((peer, frame) -> {
                SecureWire.Round r = (SecureWire.Round) SecureWire.decode(frame, 8);
                if (SecAggMessage.decode(r.message()) instanceof SecAggMessage.MaskedInput m) {
                    masked.add(m);
                    frameBytes.add(frame.length);
                }
            });
        }
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            inputs.add(input(60 + i));
        }
        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs);
        assertThat(masked).hasSize(5).allSatisfy(m -> {
            assertThat(m.wordBits()).isEqualTo(16);
            assertThat(m.masked()).hasSize(DIMENSION + 1);
            for (int j = 0; j < DIMENSION; j++) {
                assertThat(m.masked()[j]).isBetween(0, 0xFFFF);
            }
            assertThat(chiSquareTopBits(m.masked(), 16))
                    .as("uniformity of the 16-bit words")
                    .isLessThan(45);
        });
        // Two bytes a parameter, against four: the frame is about half of a 32-bit one.
        assertThat(frameBytes).allSatisfy(b -> assertThat(b).isBetween(2 * DIMENSION, 2 * DIMENSION + 200));

        double[] expected = mean(inputs, List.of(0, 1, 2, 3, 4));
        double largest = 0;
        for (double v : expected) {
            largest = Math.max(largest, Math.abs(v));
        }
        // Half an int8 step of the chunk's largest value, which bounds the mean's as well, and the 16-bit words' own.
        double bound = largest / 254 + new Quantizer(RANGE, 5, 16).step() + 1e-6;
        for (GroupRounds.GroupOutcome o : outcomes) {
            assertThat(o).isInstanceOf(GroupRounds.Completed.class);
            GroupRounds.Completed c = (GroupRounds.Completed) o;
            assertThat(c.sampleCount()).isEqualTo(100 + 101 + 102 + 103 + 104);
            double worst = 0;
            for (int j = 0; j < DIMENSION; j++) {
                worst = Math.max(worst, Math.abs(c.mean()[j] - expected[j]));
            }
            assertThat(worst).isLessThanOrEqualTo(bound);
            assertThat(worst).as("rounded to int8, not sent as words").isGreaterThan(tolerance(5));
        }
    }

    @Test
    void withUniformWeightingEveryInputCountsTheSame() throws Exception {
        samples = new long[] {1, 3, 1000, 40000, 7};
        settings = SETTINGS.withSampleWeighting(false);
        startGroup(5);
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            inputs.add(input(50 + i));
        }
        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs);

        double[] expected = mean(inputs, List.of(0, 1, 2, 3, 4));
        assertEveryMean(outcomes, expected, 41011);
    }

    @Test
    void aMemberThatDeclinesTheRelaysRoleNeverRelaysWhileAnotherMemberTakesIt() throws Exception {
        relaying = relayingAll(RelayRole.Setting.ALWAYS);
        java.util.Arrays.fill(relaying, 0, 3, RelayRole.Setting.NEVER);
        startGroup(5);
        List<float[]> inputs = inputs(5, 0);
        double[] expected = mean(inputs, List.of(0, 1, 2, 3, 4));
        // Rounds rotate the relay's role: over six rounds, a plan over all five would hand it to a decliner.
        for (int round = 0; round < 6; round++) {
            assertEveryMean(runRound(inputs), expected, 510);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(services.get(i).counters().relayed.get())
                    .as("rounds relayed by node %d", i)
                    .isZero();
        }
        assertThat(services.get(3).counters().relayed.get()
                        + services.get(4).counters().relayed.get())
                .isGreaterThanOrEqualTo(6);
    }

    @Test
    void aGroupWhoseRoundEndsWithinItsWindowRunsTheWindowsNextRoundAtOnceWithTheNextRelay() throws Exception {
        // A long window that has just begun on every node's clock: a node that ran one round a window would find no
        // round for its second offer until the window ends.
        long window = startInALongWindow();
        long windowStart = clock.millis() - 100;
        startGroup(5);
        List<float[]> inputs = inputs(5, 0);
        double[] expected = mean(inputs, List.of(0, 1, 2, 3, 4));
        for (int round = 0; round < 5; round++) {
            assertEveryMean(runRound(inputs), expected, 510);
        }
        assertThat(clock.millis() - windowStart)
                .as("all five rounds ran in one window")
                .isLessThan(window);
        for (int i = 0; i < 5; i++) {
            assertThat(services.get(i).counters().relayed.get())
                    .as("the relay's role went round the group once: node %d", i)
                    .isEqualTo(1);
        }
    }

    @Test
    void aGroupInWhichNoMemberRelaysStillRunsItsRounds() throws Exception {
        relaying = relayingAll(RelayRole.Setting.NEVER);
        startGroup(4);
        List<float[]> inputs = inputs(4, 0);
        assertEveryMean(runRound(inputs), mean(inputs, List.of(0, 1, 2, 3)), 406);
    }

    /**
     * Set to auto, a node behind a link of 20 kB/s among unlimited ones relays its turns, finds them several times
     * slower than the rounds others relay for it (every masked input comes in over its link), and declines the role;
     * once identify has told its peers, no round falls to it, and the others keep the role.
     */
    @Test
    void aNodeBehindAThinLinkSetToAutoDeclinesTheRelaysRoleAndTheOthersKeepIt() throws Exception {
        // Rounds chained in one long window hand the role round the group in turn.
        startInALongWindow();
        relaying = relayingAll(RelayRole.Setting.AUTO);
        bandwidth[0] = 20_000;
        startGroup(8);
        List<float[]> inputs = inputs(8, 0);
        SecAggCounters thin = services.get(0).counters();
        for (int round = 0; round < 40 && thin.relayDeclines() == 0; round++) {
            assertThat(runRound(inputs)).allMatch(o -> o instanceof GroupRounds.Completed);
        }
        assertThat(thin.relayDeclines())
                .as("declines of the node behind the thin link")
                .isEqualTo(1);
        assertThat(thin.relaying()).isFalse();
        String id = hosts.get(0).peerId().toBase58();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!noPeerListsAsRelay(id) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(noPeerListsAsRelay(id))
                .as("every peer heard that it declined")
                .isTrue();
        long relayed = thin.relayed.get();
        for (int round = 0; round < 8; round++) {
            assertThat(runRound(inputs)).allMatch(o -> o instanceof GroupRounds.Completed);
        }
        assertThat(thin.relayed.get()).as("rounds relayed after it declined").isEqualTo(relayed);
        for (int i = 1; i < 8; i++) {
            assertThat(services.get(i).counters().relayDeclines())
                    .as("declines of node %d", i)
                    .isZero();
            assertThat(services.get(i).counters().relaying())
                    .as("node %d relays", i)
                    .isTrue();
        }
    }

    /** Whether no other host's identify record of {@code id} lists the relay protocol any more. */
    private boolean noPeerListsAsRelay(String id) {
        for (Host h : hosts.subList(1, hosts.size())) {
            for (var c : h.connections()) {
                var info = c.identifyInfo();
                if (c.remotePeer().toBase58().equals(id)
                        && (info == null || info.protocols().contains(SecureGroupService.RELAY_PROTOCOL))) {
                    return false;
                }
            }
        }
        return true;
    }

    @Test
    void theWeightScaleIsTheLeastPowerOfTwoAtOrAboveTheCount() {
        assertThat(SecureGroupService.scaleOf(0)).isZero();
        assertThat(SecureGroupService.scaleOf(1)).isZero();
        assertThat(SecureGroupService.scaleOf(2)).isEqualTo(1);
        assertThat(SecureGroupService.scaleOf(3)).isEqualTo(2);
        assertThat(SecureGroupService.scaleOf(4)).isEqualTo(2);
        assertThat(SecureGroupService.scaleOf(5)).isEqualTo(3);
        assertThat(SecureGroupService.scaleOf(1024)).isEqualTo(10);
        assertThat(SecureGroupService.scaleOf(1025)).isEqualTo(11);
        assertThat(SecureGroupService.scaleOf(1L << 32)).isEqualTo(32);
        assertThat(SecureGroupService.scaleOf(Long.MAX_VALUE)).isEqualTo(SecureWire.MAX_SCALE);
    }

    @ParameterizedTest(name = "silent after {0} messages")
    @ValueSource(ints = {0, 1, 2, 3, 4})
    void aMemberThatFallsSilentInAnyPhaseIsRecovered(int messages) throws Exception {
        startGroup(6);
        services.get(5).goSilentAfter(messages);
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            inputs.add(input(10 + i));
        }
        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs);

        assertThat(outcomes.get(5)).isInstanceOf(GroupRounds.Abandoned.class);
        // Its masked input goes out as its third message: from then on it is in the sum, though it gets no result.
        List<Integer> contributors = messages >= 3 ? List.of(0, 1, 2, 3, 4, 5) : List.of(0, 1, 2, 3, 4);
        double[] expected = mean(inputs, contributors);
        for (int i = 0; i < 5; i++) {
            assertThat(outcomes.get(i)).as("node %d", i).isInstanceOf(GroupRounds.Completed.class);
            GroupRounds.Completed c = (GroupRounds.Completed) outcomes.get(i);
            assertThat(c.contributors()).isEqualTo(contributors.size());
            for (int j = 0; j < DIMENSION; j++) {
                assertThat((double) c.mean()[j])
                        .isCloseTo(expected[j], org.assertj.core.data.Offset.offset(tolerance(6)));
            }
        }
        long recovered = services.stream()
                .mapToLong(s -> s.counters().dropoutsRecovered())
                .sum();
        assertThat(recovered).isEqualTo(6 - contributors.size());
    }

    /**
     * A member's connections are closed once the relay has {@code messages} of its round messages (1: its key
     * advertisement; 3: its masked input too): the others' round completes without it, its masked input in the sum
     * exactly when it arrived.
     */
    @ParameterizedTest(name = "connections closed after {0} messages")
    @ValueSource(ints = {1, 2, 3, 4})
    void aMemberWhoseConnectionsDieInAnyPhaseIsRecovered(int messages) throws Exception {
        // Every member in the round: with the usual short window, offers sent just before a window's end could reach
        // the relay after it, and the late member would go to a round of its own.
        startInALongWindow();
        startGroup(6);
        java.util.concurrent.atomic.AtomicReference<String> victim =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        for (int i = 0; i < services.size(); i++) {
            String relay = hosts.get(i).peerId().toBase58();
            services.get(i).tapRelay((peer, frame) -> {
                if (!peer.equals(relay) && victim.compareAndSet(null, peer) || peer.equals(victim.get())) {
                    if (seen.incrementAndGet() == messages) {
                        Host h = hosts.stream()
                                .filter(x -> x.peerId().toBase58().equals(peer))
                                .findFirst()
                                .orElseThrow();
                        Thread.ofPlatform().start(() -> h.connections().forEach(c -> c.close(Duration.ZERO)));
                    }
                }
            });
        }
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            inputs.add(input(30 + i));
        }
        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs);

        int v = -1;
        for (int i = 0; i < hosts.size(); i++) {
            if (hosts.get(i).peerId().toBase58().equals(victim.get())) {
                v = i;
            }
        }
        assertThat(outcomes.get(v)).as("the cut-off member").isInstanceOf(GroupRounds.Abandoned.class);
        // The connections close on another thread, so the member may get one more message out before they do: its
        // masked input (its third message) is in the sum exactly when the relay received it.
        assertThat(seen.get())
                .as("messages the relay had from the cut-off member")
                .isGreaterThanOrEqualTo(messages);
        boolean maskedInputArrived = seen.get() >= 3;
        List<Integer> contributors = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            if (i != v || maskedInputArrived) {
                contributors.add(i);
            }
        }
        double[] expected = mean(inputs, contributors);
        for (int i = 0; i < 6; i++) {
            if (i == v) {
                continue;
            }
            assertThat(outcomes.get(i)).as("node %d", i).isInstanceOf(GroupRounds.Completed.class);
            GroupRounds.Completed c = (GroupRounds.Completed) outcomes.get(i);
            assertThat(c.contributors()).isEqualTo(contributors.size());
            for (int j = 0; j < DIMENSION; j++) {
                assertThat((double) c.mean()[j])
                        .isCloseTo(expected[j], org.assertj.core.data.Offset.offset(tolerance(6)));
            }
        }
    }

    /**
     * A member offers and then leaves before the others offer: the relay's group shrinks by one while the offers it
     * holds still count the member who left. The round must wait for every member still present, and so start with
     * all five of them (and the one who left, a dropout), not as soon as the number of offers equals the group's size.
     */
    @Test
    void aMemberWhoLeavesAfterOfferingDoesNotCostAnotherMemberItsPlace() throws Exception {
        long window = 20_000;
        settings = SETTINGS.withOfferWindow(Duration.ofMillis(window));
        java.util.concurrent.atomic.AtomicLong shift = new java.util.concurrent.atomic.AtomicLong();
        clock = () -> java.time.Instant.now().plusMillis(shift.get());
        startGroup(6);
        List<String> everyone = new ArrayList<>(new java.util.TreeSet<>(
                hosts.stream().map(h -> h.peerId().toBase58()).toList()));
        // A window whose first round keeps its relay when the victim leaves, so that the victim's offer and the
        // others' meet at one relay; every node's clock is then set 100 ms into it.
        int victim = -1;
        String relay = null;
        long now = System.currentTimeMillis();
        for (long w = Math.floorDiv(now, window) + 1; victim < 0 && w < Math.floorDiv(now, window) + 1000; w++) {
            long round = GroupPlan.firstRound(w);
            relay = relayOf(everyone, round);
            for (int i = 0; i < hosts.size() && victim < 0; i++) {
                String id = hosts.get(i).peerId().toBase58();
                List<String> rest = everyone.stream().filter(x -> !x.equals(id)).toList();
                if (!id.equals(relay) && relayOf(rest, round).equals(relay)) {
                    victim = i;
                    shift.set(w * window + 100 - now);
                }
            }
        }
        assertThat(victim)
                .as("a member whose leaving keeps the relay, in 1000 windows")
                .isNotNegative();
        String relayId = relay;
        SecureGroupService relayService = services.get(java.util.stream.IntStream.range(0, hosts.size())
                .filter(i -> hosts.get(i).peerId().toBase58().equals(relayId))
                .findFirst()
                .orElseThrow());

        List<float[]> inputs = inputs(6, 60);
        long received = relayService.counters().bytesReceived();
        assertThat(services.get(victim).offer(inputs.get(victim), samples[victim]))
                .isTrue();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (relayService.counters().bytesReceived() == received && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(relayService.counters().bytesReceived())
                .as("the relay has the offer")
                .isGreaterThan(received);
        Host leaving = hosts.get(victim);
        leaving.connections().forEach(c -> c.close(Duration.ZERO));
        deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int v = victim;
        List<Integer> survivors = java.util.stream.IntStream.range(0, 6)
                .filter(i -> i != v)
                .boxed()
                .toList();
        while (!survivors.stream().allMatch(i -> identifiedPeers(hosts.get(i)) == 4) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(survivors)
                .allSatisfy(i -> assertThat(identifiedPeers(hosts.get(i))).isEqualTo(4));

        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs, survivors);
        double[] expected = mean(inputs, survivors);
        for (int i : survivors) {
            assertThat(outcomes.get(i)).as("node %d", i).isInstanceOf(GroupRounds.Completed.class);
            GroupRounds.Completed c = (GroupRounds.Completed) outcomes.get(i);
            assertThat(c.contributors()).as("node %d", i).isEqualTo(5);
            for (int j = 0; j < DIMENSION; j++) {
                assertThat((double) c.mean()[j])
                        .isCloseTo(expected[j], org.assertj.core.data.Offset.offset(tolerance(6)));
            }
        }
    }

    /** The relay of {@code round} for a roster of {@code members}, every one of them relaying. */
    private String relayOf(List<String> members, long round) {
        List<String> group = GroupPlan.of(members, round, settings.groupSize(), settings.planSeed())
                .groupOf(members.getFirst());
        return GroupPlan.relayOf(group, round, java.util.Set.copyOf(members));
    }

    @Test
    void aRoundBelowItsThresholdIsAbandonedByEveryMember() throws Exception {
        startGroup(5); // k = 4, t = 3
        for (int i = 2; i < 5; i++) {
            services.get(i).goSilentAfter(1);
        }
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            inputs.add(input(20 + i));
        }
        List<GroupRounds.GroupOutcome> outcomes = runRound(inputs);
        assertThat(outcomes).allSatisfy(o -> assertThat(o).isInstanceOf(GroupRounds.Abandoned.class));
        assertThat(services.stream()
                        .mapToLong(s -> s.counters().relayAbandoned())
                        .sum())
                .isEqualTo(1);
    }

    @Test
    void aPeerThatSendsMalformedOrOversizedFramesIsBannedAndLaterStreamsAreReset() throws Exception {
        startGroup(3);
        Host hostile = outsiderConnectedToTheFirst();
        dev.chorus.gossip.identity.PeerId target = hosts.get(0).peerId();
        String attacker = hostile.peerId().toBase58();
        byte[] oversized = new byte[9 + 4 * (DIMENSION + 1) + 64 * 1024 + 256 * 8 + 1];
        List<byte[]> frames = List.of(
                new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 1},
                new byte[] {1, 0},
                SecureWire.round(1, new byte[] {42, 42}),
                oversized,
                new byte[] {2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0},
                new byte[] {9, 9});
        sendEach(hostile, target, frames);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!standings.get(0).banned(attacker) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(standings.get(0).banned(attacker))
                .as("banned after six malformed or oversized frames")
                .isTrue();
        long refused = services.get(0).counters().refused();
        // A banned peer's stream is reset as soon as it arrives: while the dialer still negotiates it (the open fails),
        // or just after (the stream closes without an answer).
        hostile.newStream(target, SecureGroupService.PROTOCOL)
                .thenCompose(after -> after.write(SecureWire.offer(1, new Terms(0, 0, 32)))
                        .handle((v, e) -> null)
                        .thenCompose(v -> after.closeFuture()))
                .handle((v, e) -> null)
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(services.get(0).counters().refused()).isGreaterThan(refused);
        assertThat(standings.get(1).banned(attacker)).isFalse();
    }

    @Test
    void anOversizedFrameIsHeldAgainstItsSenderButAResetStreamIsNot() throws Exception {
        startGroup(3);
        Host hostile = outsiderConnectedToTheFirst();
        dev.chorus.gossip.identity.PeerId target = hosts.get(0).peerId();
        String attacker = hostile.peerId().toBase58();
        // A stream the sender resets before finishing it is a lost stream, not a fault.
        dev.chorus.gossip.core.Stream cut =
                hostile.newStream(target, SecureGroupService.PROTOCOL).join();
        cut.write(new byte[] {1, 0}).handle((v, e) -> null).join();
        cut.reset();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (services.get(0).counters().refused() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(services.get(0).counters().refused()).isEqualTo(1);
        assertThat(services.get(0).counters().refused(SecAggCounters.Refusal.LOST))
                .isEqualTo(1);
        assertThat(standings.get(0).penalty(attacker)).isZero();
        // One byte over the largest frame the service reads: the sender's fault, counted as TOO_LARGE.
        byte[] oversized = new byte[9 + 4 * (DIMENSION + 1) + 64 * 1024 + 256 * 8 + 1];
        dev.chorus.gossip.core.Stream big =
                hostile.newStream(target, SecureGroupService.PROTOCOL).join();
        big.write(oversized)
                .thenCompose(v -> big.closeWrite())
                .handle((v, e) -> null)
                .join();
        big.closeFuture().handle((v, e) -> null).get(10, java.util.concurrent.TimeUnit.SECONDS);
        deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (standings.get(0).penalty(attacker) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(standings.get(0).penalty(attacker))
                .isCloseTo(
                        PeerStanding.penalty(dev.chorus.node.protocol.ErrorCode.TOO_LARGE),
                        org.assertj.core.data.Offset.offset(0.01));
        assertThat(services.get(0).counters().refused()).isEqualTo(2);
        assertThat(services.get(0).counters().refused(SecAggCounters.Refusal.MALFORMED))
                .isEqualTo(1);
    }

    @Test
    void wellFormedFramesOutOfTurnOrNotThisNodesToTakeAreCountedApartAndHeldAgainstNobody() throws Exception {
        startGroup(3);
        Host stranger = outsiderConnectedToTheFirst();
        dev.chorus.gossip.identity.PeerId target = hosts.get(0).peerId();
        Terms terms = new Terms(0, 0, 32);
        List<byte[]> frames = List.of(
                // A START and a SUM for a round this node never offered to: a cancel or a sum that crossed its end.
                SecureWire.start(5, terms, List.of()),
                SecureWire.sum(5, dev.chorus.node.protocol.Dtype.F32, 3, 30, new float[DIMENSION]),
                // An offer for a round whose window closed long ago: not this node's to relay any more.
                SecureWire.offer(1, terms));
        sendEach(stranger, target, frames);
        SecAggCounters c = services.get(0).counters();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (c.refused() < frames.size() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(c.refused(SecAggCounters.Refusal.OUT_OF_TURN)).isEqualTo(2);
        assertThat(c.refused(SecAggCounters.Refusal.MISDIRECTED)).isEqualTo(1);
        assertThat(c.refused(SecAggCounters.Refusal.MALFORMED)).isZero();
        assertThat(c.refused()).isEqualTo(3);
        assertThat(standings.get(0).penalty(stranger.peerId().toBase58())).isZero();
    }

    @Test
    void anOfferForAGroupThisNodeDoesNotRelayIsCancelledAtOnce() throws Exception {
        startGroup(3);
        java.util.concurrent.BlockingQueue<byte[]> received = new java.util.concurrent.LinkedBlockingQueue<>();
        Host member = outsider();
        member.setHandler(
                SecureGroupService.PROTOCOL, st -> st.readToEnd(1 << 16).thenAccept(received::add));
        member.connect(hosts.get(0).listenAddrs().get(0)).join();
        String self = hosts.get(0).peerId().toBase58();
        String me = member.peerId().toBase58();
        List<String> roster = new ArrayList<>(List.of(me));
        Set<String> relays = new java.util.HashSet<>();
        for (Host h : hosts) {
            roster.add(h.peerId().toBase58());
            relays.add(h.peerId().toBase58());
        }
        java.util.Collections.sort(roster);
        // A round of the next window (so that it is still open when the offer arrives) that another node relays.
        long window =
                Math.floorDiv(System.currentTimeMillis(), SETTINGS.offerWindow().toMillis()) + 1;
        long round = window * GroupPlan.ROUNDS_PER_WINDOW;
        while (GroupPlan.relayOf(
                        GroupPlan.of(roster, round, SETTINGS.groupSize(), SETTINGS.planSeed())
                                .groupOf(me),
                        round,
                        relays)
                .equals(self)) {
            round++;
        }
        Terms terms = new Terms(0, 0, 32);
        dev.chorus.gossip.core.Stream st = member.newStream(hosts.get(0).peerId(), SecureGroupService.PROTOCOL)
                .join();
        st.write(SecureWire.offer(round, terms))
                .thenCompose(v -> st.closeWrite())
                .join();

        byte[] answer = received.poll(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(answer).as("an answer to the offer").isNotNull();
        assertThat(SecureWire.decode(answer, SETTINGS.groupSize()))
                .isEqualTo(new SecureWire.Start(round, terms, List.of()));
        SecAggCounters c = services.get(0).counters();
        assertThat(c.refused(SecAggCounters.Refusal.MISDIRECTED)).isEqualTo(1);
        assertThat(c.relayed()).isZero();
        assertThat(standings.get(0).penalty(me)).isZero();
    }

    /** A host outside the group, connected to the group's first node (a peer it may send anything to). */
    private Host outsiderConnectedToTheFirst() {
        Host h = outsider();
        h.connect(hosts.get(0).listenAddrs().get(0)).join();
        return h;
    }

    /** A host outside the group, closed after the test. */
    private Host outsider() {
        Host h = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .join();
        closing.add(h);
        return h;
    }

    /** Sends each frame on a stream of its own, as the service does, and waits for each stream to end. */
    private static void sendEach(Host from, dev.chorus.gossip.identity.PeerId to, List<byte[]> frames)
            throws Exception {
        for (byte[] f : frames) {
            dev.chorus.gossip.core.Stream st =
                    from.newStream(to, SecureGroupService.PROTOCOL).join();
            st.write(f).thenCompose(v -> st.closeWrite()).handle((v, e) -> null).join();
            st.closeFuture().handle((v, e) -> null).get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void twoNodesMakeNoGroup() {
        startGroup(2);
        assertThat(services.get(0).offer(input(1), 1)).isFalse();
        assertThat(services.get(0).counters().tooFewPeers()).isEqualTo(1);
    }

    private static double correlation(int[] words, float[] x) {
        int n = x.length;
        double mw = 0, mx = 0;
        for (int i = 0; i < n; i++) {
            mw += Integer.toUnsignedLong(words[i]);
            mx += x[i];
        }
        mw /= n;
        mx /= n;
        double sw = 0, sx = 0, c = 0;
        for (int i = 0; i < n; i++) {
            double dw = Integer.toUnsignedLong(words[i]) - mw;
            double dx = x[i] - mx;
            sw += dw * dw;
            sx += dx * dx;
            c += dw * dx;
        }
        return c / Math.sqrt(sw * sx);
    }

    /** Pearson's chi-square of the words' top four bits against uniform (15 degrees of freedom; 99.9th pct ~37.7). */
    private static double chiSquareTopBits(int[] words) {
        return chiSquareTopBits(words, 32);
    }

    /** Pearson's chi-square of the top four bits of the first {@link #DIMENSION} words, each of {@code bits} bits. */
    private static double chiSquareTopBits(int[] words, int bits) {
        int[] counts = new int[16];
        for (int i = 0; i < DIMENSION; i++) {
            counts[(words[i] >>> (bits - 4)) & 0xF]++;
        }
        double expected = DIMENSION / 16.0;
        double chi = 0;
        for (int c : counts) {
            chi += (c - expected) * (c - expected) / expected;
        }
        return chi;
    }
}
