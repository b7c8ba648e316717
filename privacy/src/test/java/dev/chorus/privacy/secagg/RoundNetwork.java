package dev.chorus.privacy.secagg;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * An in-memory group round: n members and a relay, a queue of encoded messages and a manual clock. Members can drop
 * out from a phase on (their messages of that phase and later are lost); hooks let a test tamper with what the relay
 * sends or intercept what members send, as a dishonest relay would.
 */
final class RoundNetwork {

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** A clock that moves only when told. */
    static final class ManualClock implements InstantSource {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }
    }

    final RoundConfig config;
    final ManualClock clock = new ManualClock();
    final RelayRound relay;
    final List<MemberRound> members = new ArrayList<>();
    final float[][] values;
    final long[] counts;
    final int[] dropPhase;
    /** Every message each member emitted, dropped or not. */
    final List<List<SecAggMessage>> emitted = new ArrayList<>();
    /** Every encoded message that reached the relay. */
    final List<byte[]> relayReceived = new ArrayList<>();

    final List<String> refusals = new ArrayList<>();
    final Deque<RelayRound.Outbound> toMembers = new ArrayDeque<>();
    SecAggMessage.Result result;
    BiFunction<Integer, SecAggMessage, SecAggMessage> tamper = (to, m) -> m;
    Predicate<SecAggMessage> intercept = m -> false;

    RoundNetwork(int n, int threshold, int dimension, long seed) {
        this(n, threshold, dimension, seed, 32);
    }

    /** A round whose masked words are {@code wordBits} bits. */
    RoundNetwork(int n, int threshold, int dimension, long seed, int wordBits) {
        Random random = new Random(seed);
        List<RoundConfig.Member> group = new ArrayList<>();
        List<Ed25519PrivateKeyParameters> identities = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] key = new byte[32];
            random.nextBytes(key);
            Ed25519PrivateKeyParameters identity = new Ed25519PrivateKeyParameters(key, 0);
            identities.add(identity);
            group.add(new RoundConfig.Member(
                    "node-" + i, identity.generatePublicKey().getEncoded()));
        }
        byte[] roundId = new byte[16];
        random.nextBytes(roundId);
        byte[] groupSeed = new byte[32];
        random.nextBytes(groupSeed);
        int degree = CommunicationGraph.defaultDegree(n);
        this.config = new RoundConfig(
                roundId,
                group,
                threshold < 0 ? degree / 2 + 1 : threshold,
                degree,
                new RoundConfig.Inputs(dimension, 1.0, wordBits),
                TIMEOUT,
                groupSeed);
        this.relay = new RelayRound(config, clock);
        this.values = new float[n][dimension];
        this.counts = new long[n];
        this.dropPhase = new int[n];
        Arrays.fill(dropPhase, Integer.MAX_VALUE);
        for (int u = 0; u < n; u++) {
            for (int i = 0; i < dimension; i++) {
                values[u][i] = (float) (random.nextDouble() * 2 - 1);
            }
            counts[u] = 1 + random.nextInt(1000);
            members.add(new MemberRound(config, u, identities.get(u), values[u], counts[u], new SecureRandom(), clock));
            emitted.add(new ArrayList<>());
        }
    }

    static int phaseOf(SecAggMessage m) {
        return switch (m) {
            case SecAggMessage.Advertise a -> 0;
            case SecAggMessage.ShareKeys k -> 1;
            case SecAggMessage.MaskedInput y -> 2;
            case SecAggMessage.ConsistencySignature s -> 3;
            default -> 4;
        };
    }

    /** Runs the round to its end: delivers until quiet, then moves the clock one phase and ticks everyone. */
    void run() {
        for (int step = 0; step < 12 && !finished(); step++) {
            pump();
            if (finished()) {
                return;
            }
            clock.advance(TIMEOUT);
            relay.tick();
            pump();
            members.forEach(MemberRound::tick);
        }
    }

    boolean finished() {
        return relay.outcome().isPresent()
                && members.stream().allMatch(m -> m.outcome().isPresent());
    }

    void pump() {
        boolean moved = true;
        while (moved) {
            moved = false;
            for (int u = 0; u < members.size(); u++) {
                for (SecAggMessage m : members.get(u).drainOutbox()) {
                    moved = true;
                    emitted.get(u).add(m);
                    if (phaseOf(m) < dropPhase[u] && !intercept.test(m)) {
                        toRelay(m.encode());
                    }
                }
            }
            for (RelayRound.Outbound o : relay.drainOutbox()) {
                moved = true;
                toMembers.add(o);
            }
            while (!toMembers.isEmpty()) {
                moved = true;
                RelayRound.Outbound o = toMembers.poll();
                SecAggMessage m = tamper.apply(o.recipient(), o.message());
                if (m instanceof SecAggMessage.Result r) {
                    result = r;
                }
                try {
                    members.get(o.recipient()).receive(m.encode());
                } catch (RefusedMessageException e) {
                    refusals.add("member " + o.recipient() + ": " + e.getMessage());
                }
            }
        }
    }

    void toRelay(byte[] wire) {
        relayReceived.add(wire);
        try {
            relay.receive(wire);
        } catch (RefusedMessageException e) {
            refusals.add("relay: " + e.getMessage());
        }
    }

    /**
     * The sum (mod 2^b, b the round's word) of the quantized inputs of {@code survivors}, their sample count (mod
     * 2^32) in the last word.
     */
    int[] plainSum(Iterable<Integer> survivors) {
        Quantizer q = config.quantizer();
        int[] sum = new int[config.dimension() + 1];
        for (int u : survivors) {
            int[] x = q.quantize(values[u]);
            for (int i = 0; i < x.length; i++) {
                sum[i] += x[i];
            }
            sum[x.length] += (int) counts[u];
        }
        for (int i = 0; i < config.dimension(); i++) {
            sum[i] = (int) q.reduce(sum[i]);
        }
        return sum;
    }

    boolean emittedPhase(int member, int phase) {
        return emitted.get(member).stream().anyMatch(m -> phaseOf(m) == phase);
    }
}
