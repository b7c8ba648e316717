package dev.chorus.node.secagg;

import dev.chorus.aggregation.GroupRounds;
import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.protocol.ErrorCode;
import dev.chorus.node.protocol.PeerStanding;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.secagg.MemberRound;
import dev.chorus.privacy.secagg.RefusedMessageException;
import dev.chorus.privacy.secagg.RelayRound;
import dev.chorus.privacy.secagg.RoundConfig;
import dev.chorus.privacy.secagg.RoundOutcome;
import dev.chorus.privacy.secagg.SecAggException;
import dev.chorus.privacy.secagg.SecAggMessage;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's side of secure group rounds over {@code /chorus/secagg/3.0.0}: it offers the strategy's input to the
 * relay of its group, runs its {@link MemberRound} when the relay starts the round, and relays the rounds the plan
 * gives it ({@link RelayRound}). No coordinator: each round's groups and relays follow from the roster, the round's
 * number and the consortium's seed ({@link GroupPlan}). Rounds are numbered by offer windows of the wall clock, so
 * members agree on a round's number as long as their clocks agree to well within a window: a node's first round in a
 * window is the window's first, and when a round ends before its window does, its members go on at once to the
 * window's next round (in groups drawn afresh), so a short round does not idle until the window ends.
 *
 * <p>A round: a member offers (OFFER) to its relay; once every member of the group has offered, or when the round's
 * window closes, the relay sends the group of those that offered (START), or cancels the round with fewer than three;
 * a straggler therefore delays its group by at most the window. Then the five SecAgg+ phases
 * run member to relay to members (ROUND frames) with a deadline each. The relay checks that a round message naming
 * member i came over member i's connection. All state lives on one thread; the network's callbacks hand frames to it.
 */
public final class SecureGroupService implements GroupRounds, AutoCloseable {

    public static final String PROTOCOL = "/chorus/secagg/3.0.0";
    /**
     * Listed (through identify) by a node that takes the relay's role, {@code averaging.secure_relay}; it carries no
     * data, and a stream opened on it is reset. Every member reads its peers' roles from their identify records, so
     * all derive the same relays.
     */
    public static final String RELAY_PROTOCOL = "/chorus/secagg/relay/1.0.0";

    private static final Logger LOG = LoggerFactory.getLogger(SecureGroupService.class);
    private static final long TICK_MILLIS = 20;
    private static final int MAX_INBOUND_STREAMS = 8;
    /**
     * How many windows ahead of its clock a relay takes offers: members offer in the window of their own clock, and
     * the clocks of two machines may differ by a little; the bound keeps the relay's table small.
     */
    private static final int MAX_WINDOWS_AHEAD = 2;

    /**
     * What the service runs on: the host, the identity that signs, the audit log, the peers' standing (shared with the
     * model exchange, so a peer banned from one is banned from both), time and randomness.
     */
    public record Context(
            Host host,
            PrivateKey identity,
            EgressRecorder egress,
            PeerStanding standing,
            InstantSource clock,
            SecureRandom random) {
        public Context {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(egress, "egress");
            Objects.requireNonNull(standing, "standing");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(random, "random");
        }
    }

    /**
     * An offer awaiting its START.
     *
     * @param terms what this member asked of the round's encoding
     */
    private record Pending(long round, String relay, float[] input, long samples, Terms terms, long startBy) {}

    private static final class RelayJob {
        final long number;
        final TreeSet<String> offers = new TreeSet<>();
        /** The largest of the terms offered; null before the first offer. */
        Terms terms;

        RoundConfig config;
        RelayRound round;
        long startedMillis;
        boolean started;
        boolean counted;

        RelayJob(long number) {
            this.number = number;
        }
    }

    /** The members that can take part in a round, in sorted order, and those of them that relay. */
    private record Roster(List<String> members, Set<String> relays) {}

    private final Context ctx;
    private final SecAggSettings settings;
    /** Whether this node takes the relay's role now ({@code averaging.secure_relay}). */
    private final RelayRole role;

    private final int dimension;
    /** How a relay sends the decoded sum back: the model exchange's dtype. */
    private final Dtype sumDtype;
    /** The masked word this node asks for: 16 bits when its model exchange rounds to fewer than 32, else 32. */
    private final int wordBits;

    private final String self;
    private final Ed25519PrivateKeyParameters signingKey;
    private final int maxFrame;
    private final ScheduledExecutorService loop;
    private final SecAggCounters counters = new SecAggCounters();
    private final TreeMap<Long, RelayJob> relayJobs = new TreeMap<>();
    private Pending pending;
    private MemberRound member;
    private long memberRoundNumber;
    /** When this member's running round started, by the service's clock. */
    private long memberStartedMillis;

    private String memberRelay;
    /** The running round's terms: the sum holds each member's input times its weight over 2^E, E their scale. */
    private Terms memberTerms;

    private int memberSent;
    private int silentAfter = Integer.MAX_VALUE;
    private GroupOutcome outcome;
    private DropoutSchedule dropouts = DropoutSchedule.NONE;
    private int forcedSilence = -1;
    private long lastOffered = Long.MIN_VALUE;
    private volatile BiConsumer<String, byte[]> relayTap = (peer, frame) -> {};

    /**
     * @param dimension the model's parameter count
     * @param sumDtype the dtype in which this node, as a relay, sends the survivors' sum back to the members (the
     *     model exchange's, {@code averaging.dtype}): the sum is the group's to know, so it may travel in fewer
     *     bytes than the masked words; it also sets the masked word this node asks for ({@link Terms#wordBits()}):
     *     16 bits for a dtype narrower than f32, whose rounding is coarser than a 16-bit word's
     * @param relays whether this node takes the relay's role in its groups ({@code averaging.secure_relay}): always,
     *     never, or as its own rounds show ({@link RelayRole}); a node that does not still relays a group none of
     *     whose members does
     */
    public SecureGroupService(
            Context ctx, SecAggSettings settings, int dimension, Dtype sumDtype, RelayRole.Setting relays) {
        this.ctx = ctx;
        this.settings = Objects.requireNonNull(settings, "settings");
        this.role = new RelayRole(Objects.requireNonNull(relays, "relays"));
        counters.relaying = role.relays();
        if (dimension < 1 || dimension > SecAggMessage.MAX_WORDS) {
            throw new IllegalArgumentException("dimension " + dimension + " is outside 1.." + SecAggMessage.MAX_WORDS);
        }
        this.dimension = dimension;
        this.sumDtype = Objects.requireNonNull(sumDtype, "sumDtype");
        this.wordBits = sumDtype == Dtype.F32 ? 32 : 16;
        this.self = ctx.host().peerId().toBase58();
        byte[] key = ctx.identity().toProtobuf();
        // PrivateKey's protobuf Data is seed(32) ++ public(32), at the end of the message.
        this.signingKey = new Ed25519PrivateKeyParameters(Arrays.copyOfRange(key, key.length - 64, key.length - 32));
        Arrays.fill(key, (byte) 0);
        long frame = 9L + 4L * (dimension + 1) + 64 * 1024 + 256L * settings.groupSize();
        this.maxFrame = (int) Math.min(Integer.MAX_VALUE - 8, frame);
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "chorus-secagg");
            t.setDaemon(true);
            return t;
        });
    }

    /** Serves the protocol and starts the round clock. */
    public void start() {
        ctx.host().setHandler(PROTOCOL, this::serve, MAX_INBOUND_STREAMS);
        if (role.relays()) {
            ctx.host().setHandler(RELAY_PROTOCOL, Stream::reset, 1);
        }
        loop.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        ctx.host().removeHandler(PROTOCOL);
        ctx.host().removeHandler(RELAY_PROTOCOL);
        loop.shutdownNow();
    }

    /** The counters of rounds, dropouts and bytes. */
    public SecAggCounters counters() {
        return counters;
    }

    /**
     * Experiments only: in a fraction of the rounds this node joins, evenly spaced, it goes silent part way through
     * (after 0 to 4 of its messages, in turn), as a member whose connection dies mid-round would; see {@link
     * DropoutSchedule}.
     *
     * @param fraction the fraction of rounds joined, in [0, 1)
     * @param phase where this node starts in the schedule, in [0, 1): nodes given phases spread over [0, 1) drop out
     *     in different rounds, and the one nearest 1 in the first round it joins (when {@code fraction} is at least
     *     {@code 1 - phase})
     */
    public synchronized void injectDropouts(double fraction, double phase) {
        this.dropouts = new DropoutSchedule(fraction, phase);
    }

    /** Tests only: in every round this node joins from now on, it goes silent after its first {@code messages}. */
    synchronized void goSilentAfter(int messages) {
        this.forcedSilence = messages;
    }

    /** Tests only: sees every ROUND frame this node receives as a relay, with its sender. */
    public void tapRelay(BiConsumer<String, byte[]> tap) {
        this.relayTap = Objects.requireNonNull(tap, "tap");
    }

    // ------------------------------------------------------------------ the strategy's port

    @Override
    public synchronized boolean offer(float[] input, long sampleCount) {
        if (pending != null || member != null) {
            return false;
        }
        long current =
                Math.floorDiv(ctx.clock().millis(), settings.offerWindow().toMillis());
        // The current window's first round, or, when this node's last offer was in the current window, the next
        // round of that window, where the members of every group that ended its round meet. Never the same round
        // twice, and never a later window's, so that every member's round numbers keep to the clock's. An offer that
        // arrives after its round started is answered at once with a cancelling START, and offered again: the member
        // then meets the others at the round after.
        long lastWindow = GroupPlan.windowOf(lastOffered);
        long round;
        if (lastWindow > current) {
            return false; // the clock went back
        } else if (lastWindow == current) {
            if (GroupPlan.placeOf(lastOffered) == GroupPlan.ROUNDS_PER_WINDOW - 1) {
                return false; // the window's chain is used up
            }
            round = lastOffered + 1;
        } else {
            round = GroupPlan.firstRound(current);
        }
        Roster roster = roster();
        List<String> group = GroupPlan.of(roster.members(), round, settings.groupSize(), settings.planSeed())
                .groupOf(self);
        if (group.size() < SecAggSettings.MIN_GROUP) {
            counters.tooFewPeers.incrementAndGet();
            return false;
        }
        String relay = GroupPlan.relayOf(group, round, roster.relays());
        long window = settings.offerWindow().toMillis();
        long startBy = (current + 1) * window + settings.phaseTimeout().toMillis() + window;
        Terms terms = new Terms(
                settings.bySampleCount() ? scaleOf(sampleCount) : 0,
                Terms.rangeExponentOf(input, settings.range()),
                wordBits);
        pending = new Pending(round, relay, input, sampleCount, terms, startBy);
        lastOffered = round;
        counters.offers.incrementAndGet();
        send(relay, SecureWire.offer(round, terms), "secagg-offer", false);
        return true;
    }

    /**
     * The weight scale of a member holding {@code samples} examples: the least e with samples <= 2^e. The relay learns
     * it, and so each member's sample count to within a factor of two, not the count itself.
     */
    static int scaleOf(long samples) {
        return samples <= 1 ? 0 : Math.min(SecureWire.MAX_SCALE, 64 - Long.numberOfLeadingZeros(samples - 1));
    }

    /**
     * What a member puts into the sum: its input clipped to the round's range [-R, R], times its weight over the
     * round's largest, {@code samples / 2^E} (at most 1, so the product stays within [-R, R]); with uniform weights
     * the clipped input. The sum then decodes to sum_i w_i x_i / 2^E, and the mean is that times 2^E over the total
     * weight.
     */
    private float[] weighted(float[] input, long samples, Terms terms) {
        double range = terms.range(settings.range());
        double w = settings.bySampleCount() ? samples / Math.scalb(1.0, terms.scale()) : 1;
        float[] out = new float[input.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) (w * Math.max(-range, Math.min(range, input[i])));
        }
        return out;
    }

    @Override
    public synchronized GroupOutcome poll() {
        GroupOutcome out = outcome;
        outcome = null;
        return out;
    }

    // ------------------------------------------------------------------ inbound

    private void serve(Stream s) {
        String peer = s.remotePeer().toBase58();
        if (ctx.standing().banned(peer)) {
            counters.countRefused(SecAggCounters.Refusal.BANNED);
            s.reset();
            return;
        }
        s.readToEnd(maxFrame).whenComplete((bytes, err) -> {
            if (err != null) {
                LOG.debug("secure aggregation frame from {} refused: {}", peer, String.valueOf(err));
                // Over the stream's limit is the sender's fault; a lost connection is not.
                if (dev.chorus.gossip.core.StreamLimitExceededException.isCauseOf(err)) {
                    counters.countRefused(SecAggCounters.Refusal.MALFORMED);
                    fault(peer, ErrorCode.TOO_LARGE);
                } else {
                    counters.countRefused(SecAggCounters.Refusal.LOST);
                }
                s.reset();
                return;
            }
            counters.bytesReceived.addAndGet(bytes.length);
            s.closeWrite();
            loop.execute(() -> handle(peer, bytes));
        });
    }

    private synchronized void handle(String peer, byte[] bytes) {
        try {
            SecureWire.Frame frame = SecureWire.decode(bytes, settings.groupSize());
            switch (frame) {
                case SecureWire.Offer o -> onOffer(peer, o.round(), o.terms());
                case SecureWire.Start st -> onStart(peer, st);
                case SecureWire.Round r -> onRound(peer, r, bytes);
                case SecureWire.Sum sum -> onSum(peer, sum);
            }
        } catch (RefusedMessageException e) {
            // A well-formed message out of turn (late for a round that ended, say) is not a fault: it only counts.
            counters.countRefused(SecAggCounters.Refusal.OUT_OF_TURN);
            LOG.debug("secure aggregation message from {} refused: {}", peer, e.getMessage());
        } catch (Misdirected e) {
            // Rosters seen differently for a moment (a connection not yet up on one side) send honest offers astray.
            counters.countRefused(SecAggCounters.Refusal.MISDIRECTED);
            LOG.debug("secure aggregation frame from {} refused: {}", peer, e.getMessage());
        } catch (SecureWire.MalformedFrameException | SecAggException e) {
            // Malformed bytes are the sender's fault, as on the model exchange.
            counters.countRefused(SecAggCounters.Refusal.MALFORMED);
            LOG.debug("malformed secure aggregation frame from {}: {}", peer, e.getMessage());
            fault(peer, ErrorCode.MALFORMED);
        } catch (RuntimeException e) {
            // Every refusal this service means is typed above; anything else is a frame it could not handle. It counts
            // as malformed (so tests see it) but is not held against the sender, and is logged at debug level only, so
            // that a peer cannot fill the log with it.
            counters.countRefused(SecAggCounters.Refusal.MALFORMED);
            LOG.debug("secure aggregation frame from {} could not be handled", peer, e);
        }
    }

    private void fault(String peer, ErrorCode code) {
        if (!peer.equals(self) && ctx.standing().fault(peer, code)) {
            LOG.warn(
                    "peer {} banned from secure aggregation and model exchange for {} after repeated faults (last: {})",
                    peer,
                    ctx.standing().config().banDuration(),
                    code);
        }
    }

    private void onOffer(String peer, long round, Terms terms) {
        long current =
                Math.floorDiv(ctx.clock().millis(), settings.offerWindow().toMillis());
        long offeredWindow = GroupPlan.windowOf(round);
        if (offeredWindow < current - 1 || offeredWindow > current + MAX_WINDOWS_AHEAD) {
            throw new Misdirected(
                    "an offer for round " + round + " of window " + offeredWindow + " during window " + current);
        }
        Roster roster = roster();
        List<String> group = GroupPlan.of(roster.members(), round, settings.groupSize(), settings.planSeed())
                .groupOf(peer);
        if (!group.contains(self)
                || !GroupPlan.relayOf(group, round, roster.relays()).equals(self)) {
            // The member's roster differs from this one (a connection is still coming up on one side). A cancel lets
            // it offer again at once, as for a late offer, rather than wait out the round's start.
            counters.countRefused(SecAggCounters.Refusal.MISDIRECTED);
            LOG.debug("an offer from {} for round {}, whose group this node does not relay", peer, round);
            cancelOffer(peer, round, terms);
            return;
        }
        RelayJob job = relayJobs.get(round);
        if (job == null && offeredWindow < current) {
            job = new RelayJob(round);
            job.started = true; // its window has closed: too late
        } else if (job == null) {
            job = new RelayJob(round);
            relayJobs.put(round, job);
        }
        if (job.started || job.offers.size() >= settings.groupSize()) {
            // Too late for this round: say so at once, so that the member offers again to the next one.
            counters.lateOffers.incrementAndGet();
            cancelOffer(peer, round, terms);
            return;
        }
        job.offers.add(peer);
        job.terms = job.terms == null ? terms : job.terms.max(terms);
        // The whole group offered: waiting for the window's end would gain nothing. Every member of the group as it is
        // now, not as many offers as it has members: a member that offered and then left still counts among the
        // offers, and would otherwise take the place of one that has yet to offer.
        if (job.offers.containsAll(group)) {
            job.started = true;
            startRelay(round, job);
        }
    }

    /** Answers an offer with a START that lists nobody, so that the member offers to another round at once. */
    private void cancelOffer(String peer, long round, Terms terms) {
        send(peer, SecureWire.start(round, terms, List.of()), "secagg-start", true);
    }

    private void onStart(String peer, SecureWire.Start start) {
        if (pending == null
                || pending.round() != start.round()
                || !pending.relay().equals(peer)) {
            throw new RefusedMessageException(
                    "a START for round " + start.round() + " that this node did not ask for (or no longer waits for)");
        }
        Pending p = pending;
        pending = null;
        int index = start.members().indexOf(self);
        if (index < 0 || start.members().size() < SecAggSettings.MIN_GROUP) {
            counters.unanswered.incrementAndGet();
            outcome = new Abandoned(
                    "round " + p.round() + " was cancelled: " + start.members().size() + " offers");
            return;
        }
        if (!start.terms().covers(p.terms())) {
            // A weight above 1, or a range or word narrower than this input's, could wrap the sum or clip the input:
            // the relay got it wrong.
            counters.memberAbandoned.incrementAndGet();
            outcome = new Abandoned("round " + p.round() + ": the relay's terms " + start.terms()
                    + " do not cover this node's " + p.terms());
            return;
        }
        try {
            RoundConfig config =
                    RoundDerivation.derive(p.round(), peer, start.members(), start.terms(), settings, dimension);
            float[] input = weighted(p.input(), p.samples(), start.terms());
            member = new MemberRound(config, index, signingKey, input, p.samples(), ctx.random(), ctx.clock());
        } catch (RuntimeException e) {
            counters.memberAbandoned.incrementAndGet();
            outcome = new Abandoned("round " + p.round() + " could not start: " + e.getMessage());
            return;
        }
        memberRoundNumber = p.round();
        memberStartedMillis = ctx.clock().millis();
        memberRelay = peer;
        memberTerms = start.terms();
        memberSent = 0;
        silentAfter = forcedSilence >= 0 ? forcedSilence : dropouts.nextRound();
        counters.joined.incrementAndGet();
        flushMember();
    }

    private void onRound(String peer, SecureWire.Round frame, byte[] bytes) {
        SecAggMessage message = SecAggMessage.decode(frame.message());
        int sender = senderIndex(message);
        if (sender >= 0) {
            RelayJob job = relayJobs.get(frame.round());
            if (job == null || job.round == null) {
                throw new RefusedMessageException("no round " + frame.round() + " relayed here");
            }
            List<RoundConfig.Member> members = job.config.members();
            if (sender >= members.size() || !members.get(sender).id().equals(peer)) {
                throw new Misdirected("a message for member " + sender + " came from " + peer);
            }
            relayTap.accept(peer, bytes);
            job.round.receive(message);
            flushRelay(job);
            return;
        }
        if (member == null || frame.round() != memberRoundNumber || !peer.equals(memberRelay)) {
            throw new RefusedMessageException("a relay message for round " + frame.round() + " that is not ours");
        }
        member.receive(message);
        flushMember();
    }

    private void onSum(String peer, SecureWire.Sum sum) {
        if (member == null || sum.round() != memberRoundNumber || !peer.equals(memberRelay)) {
            throw new RefusedMessageException("a sum for round " + sum.round() + " that is not ours");
        }
        member.acceptSum(sum.values(), sum.sampleCount(), sum.contributors());
        flushMember();
    }

    /** The member a member-to-relay message names; -1 for the relay's own messages. */
    private static int senderIndex(SecAggMessage m) {
        return switch (m) {
            case SecAggMessage.Advertise a -> a.member();
            case SecAggMessage.ShareKeys k -> k.member();
            case SecAggMessage.MaskedInput x -> x.member();
            case SecAggMessage.ConsistencySignature c -> c.member();
            case SecAggMessage.UnmaskShares u -> u.member();
            default -> -1;
        };
    }

    // ------------------------------------------------------------------ the clock

    private synchronized void tick() {
        try {
            long now = ctx.clock().millis();
            long window = settings.offerWindow().toMillis();
            Iterator<Map.Entry<Long, RelayJob>> it = relayJobs.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, RelayJob> e = it.next();
                RelayJob job = e.getValue();
                if (!job.started && now >= (GroupPlan.windowOf(e.getKey()) + 1) * window) {
                    job.started = true;
                    startRelay(e.getKey(), job);
                }
                if (job.started && job.round == null) {
                    it.remove(); // cancelled: too few offers
                } else if (job.round != null) {
                    job.round.tick();
                    flushRelay(job);
                    if (job.round.outcome().isPresent()) {
                        it.remove();
                    }
                }
            }
            if (pending != null && now > pending.startBy()) {
                counters.unanswered.incrementAndGet();
                outcome = new Abandoned("the relay " + pending.relay() + " never started round " + pending.round());
                pending = null;
            }
            if (member != null) {
                member.tick();
                flushMember();
            }
            role.tick(now).ifPresent(this::changeRole);
        } catch (RuntimeException e) {
            LOG.warn("secure aggregation tick failed", e);
        }
    }

    private void startRelay(long round, RelayJob job) {
        List<String> members = List.copyOf(job.offers);
        RoundConfig config = null;
        if (members.size() >= SecAggSettings.MIN_GROUP) {
            try {
                config = RoundDerivation.derive(round, self, members, job.terms, settings, dimension);
            } catch (RuntimeException e) {
                LOG.debug("round {} cannot start: {}", round, e.getMessage());
            }
        }
        List<String> group = config == null ? List.of() : members;
        for (String m : members) {
            send(m, SecureWire.start(round, job.terms, group), "secagg-start", true);
        }
        if (config == null) {
            counters.relayCancelled.incrementAndGet();
            return;
        }
        job.config = config;
        job.round = new RelayRound(config, ctx.clock());
        job.startedMillis = ctx.clock().millis();
        counters.relayed.incrementAndGet();
    }

    private void flushRelay(RelayJob job) {
        long round = job.number;
        byte[] sumFrame = null;
        for (RelayRound.Outbound o : job.round.drainOutbox()) {
            String to = job.config.members().get(o.recipient()).id();
            if (o.message() instanceof SecAggMessage.Result
                    && job.round.outcome().orElse(null) instanceof RoundOutcome.Completed c) {
                // The sum is the group's to know: it goes back decoded, in the exchange's dtype, not as words.
                if (sumFrame == null) {
                    sumFrame = SecureWire.sum(round, sumDtype, c.contributors(), c.sampleCount(), c.sum());
                }
                send(to, sumFrame, "sum", true);
                continue;
            }
            send(to, SecureWire.round(round, o.message().encode()), kindOf(o.message()), true);
        }
        job.round.outcome().ifPresent(out -> {
            if (job.counted) {
                return;
            }
            job.counted = true;
            counters.relayMillis.addAndGet(ctx.clock().millis() - job.startedMillis);
            switch (out) {
                case RoundOutcome.Completed c -> {
                    counters.relayCompleted.incrementAndGet();
                    counters.dropoutsRecovered.addAndGet(job.config.size() - c.contributors());
                }
                case RoundOutcome.Abandoned a -> {
                    counters.relayAbandoned.incrementAndGet();
                    LOG.debug("relayed round {} abandoned: {}", round, a.reason());
                }
            }
        });
    }

    private void flushMember() {
        for (SecAggMessage m : member.drainOutbox()) {
            if (memberSent >= silentAfter) {
                counters.injectedDropouts.incrementAndGet();
                member = null;
                outcome = new Abandoned("dropped out of round " + memberRoundNumber + " (injected)");
                return;
            }
            memberSent++;
            send(memberRelay, SecureWire.round(memberRoundNumber, m.encode()), kindOf(m), false);
        }
        member.outcome().ifPresent(out -> {
            long now = ctx.clock().millis();
            role.roundEnded(now - memberStartedMillis, memberRelay.equals(self), now)
                    .ifPresent(this::changeRole);
            switch (out) {
                case RoundOutcome.Completed c -> outcome = mean(c);
                case RoundOutcome.Abandoned a -> {
                    counters.memberAbandoned.incrementAndGet();
                    outcome = new Abandoned(a.reason());
                }
            }
            member = null;
        });
    }

    /**
     * Lists or withdraws the relay protocol, which identify pushes to the peers; until each has it, a member may
     * offer to the relay of the old plan, which answers with a cancel, and offers again.
     */
    private void changeRole(RelayRole.Change change) {
        counters.relaying = change.relays();
        if (change.relays()) {
            ctx.host().setHandler(RELAY_PROTOCOL, Stream::reset, 1);
            LOG.debug("secure aggregation: {}", change.reason());
        } else {
            counters.relayDeclines.incrementAndGet();
            ctx.host().removeHandler(RELAY_PROTOCOL);
            LOG.info("secure aggregation: {}", change.reason());
        }
    }

    /** The group's mean from its sum: sum_i w_i x_i / 2^E, times 2^E, over the total weight. */
    private GroupOutcome mean(RoundOutcome.Completed c) {
        double total = settings.bySampleCount() ? c.sampleCount() : c.contributors();
        if (total <= 0) {
            counters.memberAbandoned.incrementAndGet();
            return new Abandoned("round " + memberRoundNumber + ": no member of the group holds a training example");
        }
        double factor = Math.scalb(1.0, memberTerms.scale()) / total;
        float[] mean = new float[c.sum().length];
        for (int i = 0; i < mean.length; i++) {
            mean[i] = (float) (c.sum()[i] * factor);
        }
        counters.memberCompleted.incrementAndGet();
        return new Completed(mean, c.contributors(), c.sampleCount());
    }

    // ------------------------------------------------------------------ outbound

    /** Sends one frame on a stream of its own; to this node itself, it is handled on the loop without the network. */
    private void send(String peer, byte[] frame, String kind, boolean asRelay) {
        if (peer.equals(self)) {
            loop.execute(() -> handle(self, frame));
            return;
        }
        ctx.egress().record(peer, PROTOCOL, kind, frame, EgressRecorder.NO_VERSION);
        (asRelay ? counters.bytesSentAsRelay : counters.bytesSentAsMember).addAndGet(frame.length);
        ctx.host()
                .newStream(PeerId.parse(peer), PROTOCOL)
                .thenCompose(s -> s.write(frame).thenCompose(v -> s.closeWrite()))
                .whenComplete((v, err) -> {
                    if (err != null) {
                        counters.sendFailures.incrementAndGet();
                        LOG.debug("secure aggregation {} to {} failed: {}", kind, peer, String.valueOf(err));
                    }
                });
    }

    /** The egress audit log's kind for a round message. */
    static String kindOf(SecAggMessage m) {
        return switch (m) {
            case SecAggMessage.Advertise a -> "key-advertisement";
            case SecAggMessage.AdvertiseSet a -> "key-advertisements";
            case SecAggMessage.ShareKeys k -> "share";
            case SecAggMessage.ShareDelivery d -> "share";
            case SecAggMessage.MaskedInput x -> "masked-input";
            case SecAggMessage.SurvivorSet s -> "survivor-set";
            case SecAggMessage.ConsistencySignature c -> "consistency-signature";
            case SecAggMessage.ConsistencySignatures c -> "consistency-signatures";
            case SecAggMessage.UnmaskShares u -> "unmask-shares";
            case SecAggMessage.Result r -> "masked-sum";
            case SecAggMessage.Abort a -> "abort";
        };
    }

    /** A well-formed frame that is not this node's to take by its own view of the roster and the clock. */
    private static final class Misdirected extends RuntimeException {
        Misdirected(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * This node and the connected peers that speak the protocol and are admitted to it, in sorted order; of them, the
     * relays are those that list {@link #RELAY_PROTOCOL} (a peer whose identify record has not arrived yet counts as
     * one, as it counts as speaking the protocol).
     */
    private Roster roster() {
        TreeSet<String> out = new TreeSet<>();
        Set<String> relaying = new HashSet<>();
        out.add(self);
        if (role.relays()) {
            relaying.add(self);
        }
        for (Connection c : ctx.host().connections()) {
            var info = c.identifyInfo();
            if (c.isOpen()
                    && c.permits(PROTOCOL)
                    && (info == null || info.protocols().contains(PROTOCOL))) {
                String id = c.remotePeer().toBase58();
                out.add(id);
                if (info == null || info.protocols().contains(RELAY_PROTOCOL)) {
                    relaying.add(id);
                }
            }
        }
        return new Roster(new ArrayList<>(out), relaying);
    }
}
