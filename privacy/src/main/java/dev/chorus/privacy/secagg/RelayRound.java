package dev.chorus.privacy.secagg;

import dev.chorus.privacy.secagg.SecAggMessage.Advertise;
import dev.chorus.privacy.secagg.SecAggMessage.ConsistencySignature;
import dev.chorus.privacy.secagg.SecAggMessage.MaskedInput;
import dev.chorus.privacy.secagg.SecAggMessage.RevealedShare;
import dev.chorus.privacy.secagg.SecAggMessage.SealedShare;
import dev.chorus.privacy.secagg.SecAggMessage.ShareKeys;
import dev.chorus.privacy.secagg.SecAggMessage.UnmaskShares;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The relay's side of a group round: it routes the members' messages, closes each phase when every expected member
 * has sent or the phase's deadline (the round's start + (p + 1) * timeout) passes, and finally unmasks the sum. It
 * learns the sum, the total sample count and who took part in each phase; the shares it routes are encrypted to
 * their recipients, and the masked inputs are uniform to anyone without the masks.
 *
 * <p>The transport must authenticate that a message naming member i comes from member i's node; this class checks
 * everything the message itself can show: round, membership, phase, duplicates, signatures, shapes.
 */
public final class RelayRound {

    /** A message for one member. */
    public record Outbound(int recipient, SecAggMessage message) {}

    private final RoundConfig config;
    private final InstantSource clock;
    private final Instant start;
    private final CommunicationGraph graph;
    private final List<Outbound> outbox = new ArrayList<>();
    private final Map<Integer, Advertise> advertised = new TreeMap<>();
    private final Map<Integer, ShareKeys> shared = new TreeMap<>();
    private final Map<Integer, int[]> masked = new TreeMap<>();
    private final Map<Integer, ConsistencySignature> signed = new TreeMap<>();
    private final Map<Integer, UnmaskShares> revealed = new TreeMap<>();
    private int phase;
    private int[] survivors;
    private RoundOutcome outcome;

    /** The relay of {@code config}'s round, which starts now. */
    public RelayRound(RoundConfig config, InstantSource clock) {
        this.config = config;
        this.clock = clock;
        this.start = clock.instant();
        this.graph = config.graph();
    }

    /** The messages for members queued since the last call. */
    public List<Outbound> drainOutbox() {
        List<Outbound> out = List.copyOf(outbox);
        outbox.clear();
        return out;
    }

    /** How the round ended at the relay (the sum is the relay's to know); empty while it runs. */
    public Optional<RoundOutcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    /** Closes the current phase if its deadline has passed: the members that have not sent are dropouts. */
    public void tick() {
        if (outcome == null && !clock.instant().isBefore(config.deadline(start, phase))) {
            closePhase();
        }
    }

    /** Decodes and takes one member's message; a {@link RefusedMessageException} says why it was refused. */
    public void receive(byte[] wire) {
        receive(RoundConfig.decode(wire));
    }

    /** Takes one member's message; a {@link RefusedMessageException} leaves the state unchanged. */
    public void receive(SecAggMessage message) {
        tick();
        config.requireThisRound(message);
        if (outcome != null) {
            throw new RefusedMessageException("the round is over");
        }
        switch (message) {
            case Advertise a -> onAdvertise(a);
            case ShareKeys k -> onShareKeys(k);
            case MaskedInput m -> onMasked(m);
            case ConsistencySignature s -> onSignature(s);
            case UnmaskShares u -> onUnmask(u);
            default ->
                throw new RefusedMessageException(
                        "the relay does not take " + message.getClass().getSimpleName() + " messages");
        }
    }

    private void check(int expectedPhase, int member, Map<Integer, ?> received, Set<Integer> allowed, String what) {
        if (member >= config.size()) {
            throw new RefusedMessageException(what + " from member " + member + ", who is not in the group");
        }
        if (phase != expectedPhase) {
            throw new RefusedMessageException(what + " from member " + member + " belongs to phase " + expectedPhase
                    + " but the round is in phase " + phase);
        }
        if (received.containsKey(member)) {
            throw new RefusedMessageException("a duplicate " + what + " from member " + member);
        }
        if (allowed != null && !allowed.contains(member)) {
            throw new RefusedMessageException(
                    what + " from member " + member + ", who did not take part in the previous phase");
        }
    }

    private void onAdvertise(Advertise a) {
        check(0, a.member(), advertised, null, "a key advertisement");
        byte[] statement = RoundSignatures.advertisement(config.roundId(), a.member(), a.maskKey(), a.shareKey());
        if (!RoundSignatures.verify(config.members().get(a.member()).identityKey(), statement, a.signature())) {
            throw new RefusedMessageException("the key advertisement of member " + a.member()
                    + " does not carry its identity key's signature; it is dropped");
        }
        advertised.put(a.member(), a);
        closeIfComplete(advertised.size() == config.size());
    }

    private void onShareKeys(ShareKeys k) {
        check(1, k.member(), shared, advertised.keySet(), "shares");
        // An honest member shares with exactly its neighbours that advertised keys; anything else would leave the
        // members with different views of who masked with whom.
        Set<Integer> expected = new TreeSet<>();
        for (int v : graph.neighbours(k.member())) {
            if (advertised.containsKey(v)) {
                expected.add(v);
            }
        }
        Set<Integer> named = new TreeSet<>();
        for (SealedShare s : k.shares()) {
            named.add(s.peer());
        }
        if (named.size() != k.shares().size() || !named.equals(expected)) {
            throw new RefusedMessageException(
                    "member " + k.member() + " sent shares to " + named + "; its neighbours with keys are " + expected);
        }
        shared.put(k.member(), k);
        closeIfComplete(shared.size() == advertised.size());
    }

    private void onMasked(MaskedInput m) {
        check(2, m.member(), masked, shared.keySet(), "a masked input");
        if (m.wordBits() != config.wordBits()) {
            throw new RefusedMessageException("the masked input of member " + m.member() + " is in " + m.wordBits()
                    + "-bit words; the round's are " + config.wordBits() + "-bit");
        }
        if (m.masked().length != config.dimension() + 1) {
            throw new RefusedMessageException("the masked input of member " + m.member() + " has " + m.masked().length
                    + " words, not " + (config.dimension() + 1));
        }
        masked.put(m.member(), m.masked().clone());
        closeIfComplete(masked.size() == shared.size());
    }

    private void onSignature(ConsistencySignature s) {
        check(3, s.member(), signed, masked.keySet(), "a survivor-set signature");
        byte[] statement = RoundSignatures.survivors(config.roundId(), survivors);
        if (!RoundSignatures.verify(config.members().get(s.member()).identityKey(), statement, s.signature())) {
            throw new RefusedMessageException("member " + s.member() + "'s signature is not over the survivor set");
        }
        signed.put(s.member(), s);
        closeIfComplete(signed.size() == survivors.length);
    }

    private void onUnmask(UnmaskShares u) {
        check(4, u.member(), revealed, signed.keySet(), "unmasking shares");
        Set<Integer> u3 = masked.keySet();
        Set<Integer> owners = new TreeSet<>();
        for (RevealedShare r : u.shares()) {
            boolean received = shared.containsKey(r.owner()) && graph.areNeighbours(u.member(), r.owner());
            if (!received || !owners.add(r.owner()) || r.secret() != Recovery.toReveal(r.owner(), u3)) {
                throw new RefusedMessageException("member " + u.member() + " revealed a share of member " + r.owner()
                        + " that it does not hold, twice, or of the wrong secret");
            }
            try {
                ShamirShare.of(u.member() + 1, r.share());
            } catch (SecAggException e) {
                throw new RefusedMessageException(
                        "member " + u.member() + "'s share of member " + r.owner() + " is not a field element: "
                                + e.getMessage(),
                        e);
            }
        }
        revealed.put(u.member(), u);
        closeIfComplete(revealed.size() == signed.size());
    }

    private void closeIfComplete(boolean complete) {
        if (complete) {
            closePhase();
        }
    }

    private void closePhase() {
        switch (phase) {
            case 0 -> closeAdvertise();
            case 1 -> closeShares();
            case 2 -> closeMasked();
            case 3 -> closeSignatures();
            default -> closeUnmask();
        }
    }

    private boolean enough(int count, String what) {
        if (count < config.threshold()) {
            abort(count + " members " + what + " in phase " + phase + "; " + config.threshold() + " are needed");
            return false;
        }
        return true;
    }

    private void closeAdvertise() {
        if (enough(advertised.size(), "advertised keys")) {
            SecAggMessage set = new SecAggMessage.AdvertiseSet(config.roundId(), List.copyOf(advertised.values()));
            advertised.keySet().forEach(v -> outbox.add(new Outbound(v, set)));
            phase = 1;
        }
    }

    private void closeShares() {
        if (!enough(shared.size(), "shared their keys")) {
            return;
        }
        Map<Integer, List<SealedShare>> inbox = new TreeMap<>();
        shared.keySet().forEach(v -> inbox.put(v, new ArrayList<>()));
        for (ShareKeys k : shared.values()) {
            for (SealedShare s : k.shares()) {
                if (inbox.containsKey(s.peer())) {
                    inbox.get(s.peer()).add(new SealedShare(k.member(), s.ciphertext()));
                }
            }
        }
        inbox.forEach((v, shares) ->
                outbox.add(new Outbound(v, new SecAggMessage.ShareDelivery(config.roundId(), v, shares))));
        phase = 2;
    }

    private void closeMasked() {
        if (enough(masked.size(), "sent masked inputs")) {
            survivors = masked.keySet().stream().mapToInt(Integer::intValue).toArray();
            SecAggMessage set = new SecAggMessage.SurvivorSet(config.roundId(), survivors);
            masked.keySet().forEach(v -> outbox.add(new Outbound(v, set)));
            phase = 3;
        }
    }

    private void closeSignatures() {
        if (enough(signed.size(), "signed the survivor set")) {
            SecAggMessage all = new SecAggMessage.ConsistencySignatures(config.roundId(), List.copyOf(signed.values()));
            signed.keySet().forEach(v -> outbox.add(new Outbound(v, all)));
            phase = 4;
        }
    }

    private void closeUnmask() {
        if (!enough(revealed.size(), "revealed shares")) {
            return;
        }
        Map<Integer, List<ShamirShare>> seeds = new HashMap<>();
        Map<Integer, List<ShamirShare>> keys = new HashMap<>();
        for (UnmaskShares u : revealed.values()) {
            for (RevealedShare r : u.shares()) {
                Map<Integer, List<ShamirShare>> into = r.secret() == Recovery.Secret.SELF_MASK_SEED ? seeds : keys;
                into.computeIfAbsent(r.owner(), o -> new ArrayList<>()).add(ShamirShare.of(u.member() + 1, r.share()));
            }
        }
        Map<Integer, byte[]> maskKeys = new HashMap<>();
        shared.keySet().forEach(v -> maskKeys.put(v, advertised.get(v).maskKey()));
        int d = config.dimension();
        int[] sum;
        float[] decoded;
        try {
            Recovery.Recovered recovered =
                    Recovery.recover(graph, shared.keySet(), masked.keySet(), seeds, keys, config.threshold());
            sum = new Unmasking(graph, config.roundLabel(), maskKeys).sum(masked, recovered);
            Quantizer quantizer = config.quantizer();
            for (int i = 0; i < d; i++) {
                // Summed modulo 2^32; the inputs' words are the round's, so only their low bits are the sum.
                sum[i] = (int) quantizer.reduce(sum[i]);
            }
            decoded = quantizer.dequantizeSum(Arrays.copyOf(sum, d), survivors.length);
        } catch (SecAggException e) {
            abort(e.getMessage());
            return;
        }
        outcome = new RoundOutcome.Completed(decoded, Integer.toUnsignedLong(sum[d]), survivors.length);
        SecAggMessage result = new SecAggMessage.Result(config.roundId(), sum);
        for (int v = 0; v < config.size(); v++) {
            outbox.add(new Outbound(v, result));
        }
        phase = 5;
    }

    private void abort(String reason) {
        // The reason travels in an Abort message, whose decoder takes at most MAX_REASON bytes.
        String text = reason.length() > SecAggMessage.MAX_REASON / 4
                ? reason.substring(0, SecAggMessage.MAX_REASON / 4)
                : reason;
        outcome = new RoundOutcome.Abandoned(text);
        SecAggMessage abort = new SecAggMessage.Abort(config.roundId(), text);
        for (int v = 0; v < config.size(); v++) {
            outbox.add(new Outbound(v, abort));
        }
        phase = 5;
    }
}
