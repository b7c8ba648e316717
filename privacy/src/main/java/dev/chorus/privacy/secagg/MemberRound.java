package dev.chorus.privacy.secagg;

import dev.chorus.privacy.secagg.SecAggMessage.Advertise;
import dev.chorus.privacy.secagg.SecAggMessage.AdvertiseSet;
import dev.chorus.privacy.secagg.SecAggMessage.ConsistencySignature;
import dev.chorus.privacy.secagg.SecAggMessage.ConsistencySignatures;
import dev.chorus.privacy.secagg.SecAggMessage.RevealedShare;
import dev.chorus.privacy.secagg.SecAggMessage.SealedShare;
import dev.chorus.privacy.secagg.SecAggMessage.ShareDelivery;
import dev.chorus.privacy.secagg.SecAggMessage.SurvivorSet;
import java.security.SecureRandom;
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
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * One member's side of a group round, as a state machine: feed it the relay's messages ({@link #receive}) and clock
 * ticks ({@link #tick}); it queues the messages it sends to the relay ({@link #drainOutbox}) and ends with an
 * {@link #outcome}. Phase p's answer from the relay must arrive before the round's start + (p + 2) * timeout (the
 * relay closes phase p at start + (p + 1) * timeout); a member that hears nothing by then abandons the round.
 *
 * <p>Nothing is revealed that the phase does not need: the unmasking shares go out only after at least t survivors
 * signed the very survivor set this member was sent, and for each neighbour only the share that {@link Recovery}
 * names for that set.
 */
public final class MemberRound {

    private enum Phase {
        ADVERTISE,
        SHARE,
        MASKED,
        CONSISTENCY,
        UNMASK,
        DONE
    }

    private final RoundConfig config;
    private final int me;
    private final Ed25519PrivateKeyParameters identity;
    private final int[] input;
    private final SecureRandom random;
    private final InstantSource clock;
    private final Instant start;
    private final CommunicationGraph graph;
    private final X25519.KeyPair maskKeys;
    private final X25519.KeyPair shareKeys;
    private final byte[] selfSeed = new byte[Shamir.SECRET_BYTES];
    private final List<SecAggMessage> outbox = new ArrayList<>();
    /** Members with a valid advertisement (U1), by index. */
    private final Map<Integer, Advertise> keys = new TreeMap<>();
    /** Owner -> this member's shares of its self-mask seed and mask key. */
    private final Map<Integer, ShamirShare[]> held = new TreeMap<>();

    private Phase phase = Phase.ADVERTISE;
    private int[] survivors;
    private RoundOutcome outcome;

    /**
     * Member {@code member} of {@code config}'s group, contributing {@code input} (clipped to the config's range) and
     * its {@code sampleCount}; the round starts now, and the member's key advertisement is the first message queued.
     */
    public MemberRound(
            RoundConfig config,
            int member,
            Ed25519PrivateKeyParameters identity,
            float[] input,
            long sampleCount,
            SecureRandom random,
            InstantSource clock) {
        if (member < 0 || member >= config.size()) {
            throw new SecAggException("member " + member + " is outside 0.." + (config.size() - 1));
        }
        if (!Arrays.equals(
                identity.generatePublicKey().getEncoded(),
                config.members().get(member).identityKey())) {
            throw new SecAggException("the identity key does not belong to member " + member);
        }
        if (input.length != config.dimension()) {
            throw new SecAggException(
                    "the input has " + input.length + " values; the round sums " + config.dimension());
        }
        long maxCount = 0xFFFF_FFFFL / config.size();
        if (sampleCount < 0 || sampleCount > maxCount) {
            throw new SecAggException("sample count " + sampleCount + " is outside 0.." + maxCount);
        }
        this.config = config;
        this.me = member;
        this.identity = identity;
        // The sample count rides in one more word, masked like the rest, so that the relay learns only the total.
        this.input = Arrays.copyOf(config.quantizer().quantize(input), input.length + 1);
        this.input[input.length] = (int) sampleCount;
        this.random = random;
        this.clock = clock;
        this.start = clock.instant();
        this.graph = config.graph();
        this.maskKeys = X25519.generate(random);
        this.shareKeys = X25519.generate(random);
        random.nextBytes(selfSeed);
        byte[] mask = maskKeys.publicKey();
        byte[] share = shareKeys.publicKey();
        byte[] signature =
                RoundSignatures.sign(identity, RoundSignatures.advertisement(config.roundId(), me, mask, share));
        outbox.add(new Advertise(config.roundId(), me, mask, share, signature));
    }

    /** The messages for the relay queued since the last call. */
    public List<SecAggMessage> drainOutbox() {
        List<SecAggMessage> out = List.copyOf(outbox);
        outbox.clear();
        return out;
    }

    /** How the round ended for this member; empty while it runs. */
    public Optional<RoundOutcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    /** Abandons the round if the relay's answer to the current phase is overdue. */
    public void tick() {
        if (outcome == null && !clock.instant().isBefore(config.deadline(start, phase.ordinal() + 1))) {
            abandon("nothing arrived from the relay for phase " + phase.ordinal() + " by its deadline");
        }
    }

    /** Decodes and takes one message from the relay; a {@link RefusedMessageException} says why it was refused. */
    public void receive(byte[] wire) {
        receive(RoundConfig.decode(wire));
    }

    /** Takes one message from the relay; a {@link RefusedMessageException} leaves the state unchanged. */
    public void receive(SecAggMessage message) {
        tick();
        config.requireThisRound(message);
        if (outcome != null) {
            throw new RefusedMessageException("the round is over for member " + me);
        }
        switch (message) {
            case AdvertiseSet s -> onAdvertisements(expect(Phase.ADVERTISE, s));
            case ShareDelivery d -> onShares(expect(Phase.SHARE, d));
            case SurvivorSet s -> onSurvivors(expect(Phase.MASKED, s));
            case ConsistencySignatures s -> onSignatures(expect(Phase.CONSISTENCY, s));
            case SecAggMessage.Result r -> onResult(expect(Phase.UNMASK, r));
            case SecAggMessage.Abort a -> abandon("the relay abandoned the round: " + a.reason());
            default ->
                throw new RefusedMessageException(
                        "a member does not take " + message.getClass().getSimpleName() + " messages");
        }
    }

    private <M extends SecAggMessage> M expect(Phase expected, M message) {
        if (phase != expected) {
            throw new RefusedMessageException(message.getClass().getSimpleName() + " belongs to phase "
                    + expected.ordinal() + " but member " + me + " is in phase " + phase.ordinal()
                    + ": a duplicate or out of order");
        }
        return message;
    }

    private void onAdvertisements(AdvertiseSet set) {
        Map<Integer, Advertise> valid = new TreeMap<>();
        Set<Integer> seen = new TreeSet<>();
        for (Advertise a : set.advertisements()) {
            if (a.member() >= config.size() || !seen.add(a.member())) {
                throw new RefusedMessageException(
                        "the advertisement set names member " + a.member() + " twice or outside the group");
            }
            byte[] statement = RoundSignatures.advertisement(config.roundId(), a.member(), a.maskKey(), a.shareKey());
            // A bad signature drops that member only: the relay cannot substitute keys it could decrypt with.
            if (RoundSignatures.verify(config.members().get(a.member()).identityKey(), statement, a.signature())) {
                valid.put(a.member(), a);
            }
        }
        Advertise own = valid.get(me);
        if (own == null
                || !Arrays.equals(own.maskKey(), maskKeys.publicKey())
                || !Arrays.equals(own.shareKey(), shareKeys.publicKey())) {
            abandon("the relay did not forward this member's own keys");
            return;
        }
        keys.putAll(valid);
        List<Integer> holders = new ArrayList<>();
        for (int v : graph.neighbours(me)) {
            if (keys.containsKey(v)) {
                holders.add(v);
            }
        }
        if (keys.size() < config.threshold() || holders.size() < config.threshold()) {
            abandon("only " + keys.size() + " members and " + holders.size() + " neighbours advertised valid keys; "
                    + config.threshold() + " are needed");
            return;
        }
        outbox.add(new SecAggMessage.ShareKeys(config.roundId(), me, sealShares(holders)));
        phase = Phase.SHARE;
    }

    private List<SealedShare> sealShares(List<Integer> holders) {
        int[] indices = holders.stream().mapToInt(v -> v + 1).toArray();
        List<ShamirShare> self = Shamir.split(selfSeed, config.threshold(), indices, random);
        List<ShamirShare> key = Shamir.split(maskKeys.privateKey(), config.threshold(), indices, random);
        List<SealedShare> out = new ArrayList<>();
        for (int i = 0; i < holders.size(); i++) {
            int v = holders.get(i);
            byte[] plain = new byte[2 * ShamirShare.VALUE_BYTES];
            System.arraycopy(self.get(i).valueBytes(), 0, plain, 0, ShamirShare.VALUE_BYTES);
            System.arraycopy(key.get(i).valueBytes(), 0, plain, ShamirShare.VALUE_BYTES, ShamirShare.VALUE_BYTES);
            byte[] sealed =
                    ShareCipher.seal(shareKeys.privateKey(), keys.get(v).shareKey(), config.roundId(), me, v, plain);
            Arrays.fill(plain, (byte) 0);
            out.add(new SealedShare(v, sealed));
        }
        return out;
    }

    private void onShares(ShareDelivery delivery) {
        if (delivery.member() != me) {
            throw new RefusedMessageException("shares for member " + delivery.member() + " came to member " + me);
        }
        Map<Integer, ShamirShare[]> opened = new TreeMap<>();
        for (SealedShare s : delivery.shares()) {
            int from = s.peer();
            if (!keys.containsKey(from) || !graph.areNeighbours(me, from) || opened.containsKey(from)) {
                throw new RefusedMessageException(
                        "a share from member " + from + ", not a neighbour with valid keys or named twice");
            }
            try {
                byte[] plain = ShareCipher.open(
                        shareKeys.privateKey(), keys.get(from).shareKey(), config.roundId(), from, me, s.ciphertext());
                opened.put(from, new ShamirShare[] {
                    ShamirShare.of(me + 1, Arrays.copyOfRange(plain, 0, ShamirShare.VALUE_BYTES)),
                    ShamirShare.of(me + 1, Arrays.copyOfRange(plain, ShamirShare.VALUE_BYTES, plain.length))
                });
            } catch (SecAggException e) {
                abandon(e.getMessage() + ": the relay or the sender tampered with it");
                return;
            }
        }
        if (opened.size() < config.threshold()) {
            abandon("shares arrived from " + opened.size() + " neighbours; " + config.threshold() + " are needed");
            return;
        }
        held.putAll(opened);
        Map<Integer, byte[]> pairwise = new HashMap<>();
        for (int v : held.keySet()) {
            pairwise.put(
                    v, Masking.pairwiseSeed(maskKeys.privateKey(), keys.get(v).maskKey(), config.roundLabel(), me, v));
        }
        int[] masked = Masking.mask(me, input, selfSeed, pairwise, config.roundLabel());
        if (config.wordBits() < 32) {
            // The masks are added modulo 2^32; modulo 2^b they are as uniform, and the sum reduces alike.
            int low = (1 << config.wordBits()) - 1;
            for (int i = 0; i < config.dimension(); i++) {
                masked[i] &= low;
            }
        }
        outbox.add(new SecAggMessage.MaskedInput(config.roundId(), me, config.wordBits(), masked));
        phase = Phase.MASKED;
    }

    private void onSurvivors(SurvivorSet set) {
        int[] u3 = set.survivors();
        for (int i = 0; i < u3.length; i++) {
            if ((i > 0 && u3[i] <= u3[i - 1]) || !keys.containsKey(u3[i])) {
                throw new RefusedMessageException(
                        "the survivor set is not ascending or names member " + u3[i] + ", who has no valid keys");
            }
        }
        if (Arrays.binarySearch(u3, me) < 0) {
            abandon("this member's masked input is not in the survivor set");
            return;
        }
        if (u3.length < config.threshold()) {
            abandon(u3.length + " members survived; " + config.threshold() + " are needed");
            return;
        }
        survivors = u3.clone();
        byte[] signature = RoundSignatures.sign(identity, RoundSignatures.survivors(config.roundId(), survivors));
        outbox.add(new ConsistencySignature(config.roundId(), me, signature));
        phase = Phase.CONSISTENCY;
    }

    private void onSignatures(ConsistencySignatures signatures) {
        byte[] statement = RoundSignatures.survivors(config.roundId(), survivors);
        Set<Integer> signers = new TreeSet<>();
        for (ConsistencySignature s : signatures.signatures()) {
            int v = s.member();
            if (v < config.size()
                    && Arrays.binarySearch(survivors, v) >= 0
                    && RoundSignatures.verify(config.members().get(v).identityKey(), statement, s.signature())) {
                signers.add(v);
            }
        }
        // Fewer than t signatures over this member's set: the relay may have told members different survivor sets,
        // and revealing shares for this one could hand it both secrets of some member. Reveal nothing.
        if (signers.size() < config.threshold()) {
            abandon("consistency check failed: " + signers.size() + " survivors signed the survivor set this member"
                    + " was sent; " + config.threshold() + " are needed");
            return;
        }
        Set<Integer> u3 = new TreeSet<>();
        for (int s : survivors) {
            u3.add(s);
        }
        List<RevealedShare> reveal = new ArrayList<>();
        for (Map.Entry<Integer, ShamirShare[]> e : held.entrySet()) {
            Recovery.Secret secret = Recovery.toReveal(e.getKey(), u3);
            ShamirShare share = e.getValue()[secret == Recovery.Secret.SELF_MASK_SEED ? 0 : 1];
            reveal.add(new RevealedShare(e.getKey(), secret, share.valueBytes()));
        }
        outbox.add(new SecAggMessage.UnmaskShares(config.roundId(), me, reveal));
        phase = Phase.UNMASK;
    }

    /**
     * Takes the survivors' sum as the relay decoded it, in place of a {@link SecAggMessage.Result}: the sum is the
     * group's, not a secret, so a relay may send it in fewer bytes than the masked words (a node sends it in the
     * model exchange's dtype). A {@link RefusedMessageException} leaves the state unchanged.
     *
     * @param sum the decoded sum of the survivors' inputs
     * @param sampleCount their total sample count
     * @param contributors how many inputs the sum holds; must be the survivor set's size
     */
    public void acceptSum(float[] sum, long sampleCount, int contributors) {
        tick();
        if (outcome != null) {
            throw new RefusedMessageException("the round is over for member " + me);
        }
        if (phase != Phase.UNMASK) {
            throw new RefusedMessageException("a sum in phase " + phase.ordinal() + ", before the unmasking");
        }
        if (sum.length != config.dimension()) {
            throw new RefusedMessageException("the sum has " + sum.length + " values, not " + config.dimension());
        }
        if (contributors != survivors.length) {
            throw new RefusedMessageException(
                    "the sum names " + contributors + " contributors; " + survivors.length + " survived");
        }
        if (sampleCount < 0 || sampleCount > 0xFFFF_FFFFL) {
            throw new RefusedMessageException("sample count " + sampleCount + " is outside a 32-bit word");
        }
        for (int i = 0; i < sum.length; i++) {
            if (!Float.isFinite(sum[i])) {
                throw new RefusedMessageException("coordinate " + i + " of the sum is " + sum[i]);
            }
        }
        outcome = new RoundOutcome.Completed(sum.clone(), sampleCount, survivors.length);
        phase = Phase.DONE;
    }

    private void onResult(SecAggMessage.Result result) {
        int[] sum = result.sum();
        if (sum.length != config.dimension() + 1) {
            throw new RefusedMessageException("the sum has " + sum.length + " words, not " + (config.dimension() + 1));
        }
        try {
            float[] decoded =
                    config.quantizer().dequantizeSum(Arrays.copyOf(sum, config.dimension()), survivors.length);
            outcome = new RoundOutcome.Completed(
                    decoded, Integer.toUnsignedLong(sum[config.dimension()]), survivors.length);
            phase = Phase.DONE;
        } catch (SecAggException e) {
            abandon("the sum does not decode: " + e.getMessage());
        }
    }

    private void abandon(String reason) {
        outcome = new RoundOutcome.Abandoned(reason);
        phase = Phase.DONE;
    }
}
