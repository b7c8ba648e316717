package dev.chorus.privacy.secagg;

import java.util.ArrayList;
import java.util.List;

/**
 * The messages of one group round, each bound to its round ID. Members send to the relay, the relay to members.
 *
 * <p>Encoding: one tag byte, the round ID, then the fields in order; integers are 4-byte big-endian, byte strings and
 * lists are prefixed by their 4-byte length. {@link #decode} refuses unknown tags, any length over its limit (checked
 * before allocating), a message that ends early and bytes after the end.
 */
public sealed interface SecAggMessage {

    /** The longest round ID. */
    int MAX_ROUND_ID = 64;
    /** The largest group a message can describe. */
    int MAX_MEMBERS = 4096;
    /** The longest masked vector or sum, in 32-bit words (a model of 16 M parameters). */
    int MAX_WORDS = 1 << 24;
    /** An Ed25519 signature. */
    int SIGNATURE_BYTES = 64;
    /** The longest reason in an abort. */
    int MAX_REASON = 1024;

    byte[] roundId();

    byte[] encode();

    /** Phase 0, member to relay: its two X25519 public keys, signed with its identity key. */
    record Advertise(byte[] roundId, int member, byte[] maskKey, byte[] shareKey, byte[] signature)
            implements SecAggMessage {
        public byte[] encode() {
            return head(1, roundId)
                    .u32(member)
                    .bytes(maskKey)
                    .bytes(shareKey)
                    .bytes(signature)
                    .toBytes();
        }
    }

    /** Phase 0, relay to every member: the advertisements it received. */
    record AdvertiseSet(byte[] roundId, List<Advertise> advertisements) implements SecAggMessage {
        public byte[] encode() {
            Wire.Writer w = head(2, roundId).u32(advertisements.size());
            for (Advertise a : advertisements) {
                w.u32(a.member()).bytes(a.maskKey()).bytes(a.shareKey()).bytes(a.signature());
            }
            return w.toBytes();
        }
    }

    /** One encrypted share pair; {@code peer} is the recipient in {@link ShareKeys}, the sender in {@link
     * ShareDelivery}. */
    record SealedShare(int peer, byte[] ciphertext) {}

    /** Phase 1, member to relay: its shares, each encrypted to one neighbour. */
    record ShareKeys(byte[] roundId, int member, List<SealedShare> shares) implements SecAggMessage {
        public byte[] encode() {
            return sealed(head(3, roundId).u32(member), shares);
        }
    }

    /** Phase 1, relay to a member: the shares addressed to it. */
    record ShareDelivery(byte[] roundId, int member, List<SealedShare> shares) implements SecAggMessage {
        public byte[] encode() {
            return sealed(head(4, roundId).u32(member), shares);
        }
    }

    /**
     * Phase 2, member to relay: the masked quantized input, its sample count in the last word. With 16-bit words
     * ({@code wordBits} 16) every word but the last travels as its low 16 bits (type 12); with 32-bit words, whole
     * (type 5).
     */
    record MaskedInput(byte[] roundId, int member, int wordBits, int[] masked) implements SecAggMessage {
        public MaskedInput {
            if (wordBits != 16 && wordBits != 32) {
                throw new SecAggException("a masked word is 16 or 32 bits, not " + wordBits);
            }
        }

        /** 32-bit words. */
        public MaskedInput(byte[] roundId, int member, int[] masked) {
            this(roundId, member, 32, masked);
        }

        public byte[] encode() {
            return wordBits == 32
                    ? head(5, roundId).u32(member).words(masked).toBytes()
                    : head(12, roundId).u32(member).narrowWords(masked).toBytes();
        }
    }

    /** Phase 3, relay to members: the members whose masked input arrived, ascending. */
    record SurvivorSet(byte[] roundId, int[] survivors) implements SecAggMessage {
        public byte[] encode() {
            return head(6, roundId).words(survivors).toBytes();
        }
    }

    /** Phase 3, member to relay: its signature over the round ID and the survivor set it was sent. */
    record ConsistencySignature(byte[] roundId, int member, byte[] signature) implements SecAggMessage {
        public byte[] encode() {
            return head(7, roundId).u32(member).bytes(signature).toBytes();
        }
    }

    /** Phase 3, relay to members: every signature it received. */
    record ConsistencySignatures(byte[] roundId, List<ConsistencySignature> signatures) implements SecAggMessage {
        public byte[] encode() {
            Wire.Writer w = head(8, roundId).u32(signatures.size());
            for (ConsistencySignature s : signatures) {
                w.u32(s.member()).bytes(s.signature());
            }
            return w.toBytes();
        }
    }

    /** One revealed share: of {@code owner}'s self-mask seed or mask key. */
    record RevealedShare(int owner, Recovery.Secret secret, byte[] share) {}

    /** Phase 4, member to relay: its shares of its neighbours' secrets, one per neighbour. */
    record UnmaskShares(byte[] roundId, int member, List<RevealedShare> shares) implements SecAggMessage {
        public byte[] encode() {
            Wire.Writer w = head(9, roundId).u32(member).u32(shares.size());
            for (RevealedShare s : shares) {
                w.u32(s.owner()).u8(s.secret().ordinal()).bytes(s.share());
            }
            return w.toBytes();
        }
    }

    /** Phase 4, relay to every member: the survivors' sum, their total sample count in the last word. */
    record Result(byte[] roundId, int[] sum) implements SecAggMessage {
        public byte[] encode() {
            return head(10, roundId).words(sum).toBytes();
        }
    }

    /** Relay to members: the round is abandoned. */
    record Abort(byte[] roundId, String reason) implements SecAggMessage {
        public byte[] encode() {
            return head(11, roundId).text(reason).toBytes();
        }
    }

    /** The message encoded in {@code bytes}; a {@link SecAggException} says what is wrong with a malformed one. */
    static SecAggMessage decode(byte[] bytes) {
        Wire.Reader r = new Wire.Reader(bytes);
        int tag = r.u8();
        byte[] roundId = r.bytes(MAX_ROUND_ID, "the round ID");
        SecAggMessage out =
                switch (tag) {
                    case 1 -> advertise(r, roundId);
                    case 2 -> {
                        List<Advertise> ads = new ArrayList<>();
                        for (int i = r.count(MAX_MEMBERS, 4, "the advertisements"); i > 0; i--) {
                            ads.add(advertise(r, roundId));
                        }
                        yield new AdvertiseSet(roundId, List.copyOf(ads));
                    }
                    case 3 -> new ShareKeys(roundId, member(r), sealedShares(r));
                    case 4 -> new ShareDelivery(roundId, member(r), sealedShares(r));
                    case 5 -> new MaskedInput(roundId, member(r), r.words(MAX_WORDS + 1, "the masked input"));
                    case 6 -> new SurvivorSet(roundId, r.words(MAX_MEMBERS, "the survivor set"));
                    case 7 -> new ConsistencySignature(roundId, member(r), r.exact(SIGNATURE_BYTES, "a signature"));
                    case 8 -> {
                        List<ConsistencySignature> sigs = new ArrayList<>();
                        for (int i = r.count(MAX_MEMBERS, 4, "the signatures"); i > 0; i--) {
                            sigs.add(new ConsistencySignature(
                                    roundId, member(r), r.exact(SIGNATURE_BYTES, "a signature")));
                        }
                        yield new ConsistencySignatures(roundId, List.copyOf(sigs));
                    }
                    case 9 -> unmaskShares(r, roundId);
                    case 10 -> new Result(roundId, r.words(MAX_WORDS + 1, "the sum"));
                    case 11 -> new Abort(roundId, r.text(MAX_REASON, "the reason"));
                    case 12 ->
                        new MaskedInput(roundId, member(r), 16, r.narrowWords(MAX_WORDS + 1, "the masked input"));
                    default -> throw new SecAggException("unknown message type " + tag);
                };
        r.end();
        return out;
    }

    private static Wire.Writer head(int tag, byte[] roundId) {
        return new Wire.Writer().u8(tag).bytes(roundId);
    }

    private static byte[] sealed(Wire.Writer w, List<SealedShare> shares) {
        w.u32(shares.size());
        for (SealedShare s : shares) {
            w.u32(s.peer()).bytes(s.ciphertext());
        }
        return w.toBytes();
    }

    private static int member(Wire.Reader r) {
        return r.index(MAX_MEMBERS, "member");
    }

    private static Advertise advertise(Wire.Reader r, byte[] roundId) {
        return new Advertise(
                roundId,
                member(r),
                r.exact(X25519.KEY_LENGTH, "a mask key"),
                r.exact(X25519.KEY_LENGTH, "a share key"),
                r.exact(SIGNATURE_BYTES, "a signature"));
    }

    private static List<SealedShare> sealedShares(Wire.Reader r) {
        List<SealedShare> out = new ArrayList<>();
        for (int i = r.count(MAX_MEMBERS, 8, "the shares"); i > 0; i--) {
            out.add(new SealedShare(member(r), r.exact(ShareCipher.CIPHERTEXT_BYTES, "a share ciphertext")));
        }
        return List.copyOf(out);
    }

    private static UnmaskShares unmaskShares(Wire.Reader r, byte[] roundId) {
        int member = member(r);
        List<RevealedShare> out = new ArrayList<>();
        for (int i = r.count(MAX_MEMBERS, 9, "the revealed shares"); i > 0; i--) {
            int owner = member(r);
            int kind = r.u8();
            if (kind >= Recovery.Secret.values().length) {
                throw new SecAggException("unknown secret kind " + kind);
            }
            out.add(new RevealedShare(
                    owner, Recovery.Secret.values()[kind], r.exact(ShamirShare.VALUE_BYTES, "a share")));
        }
        return new UnmaskShares(roundId, member, List.copyOf(out));
    }
}
