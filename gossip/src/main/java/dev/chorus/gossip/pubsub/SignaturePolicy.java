package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.InvalidKeyException;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.identity.PublicKey;
import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;

/**
 * How messages are authored and checked (pubsub/README.md, "Signature Policy Options"). Every peer of a
 * topic must use the same policy.
 */
public enum SignaturePolicy {
    /**
     * {@code from}, an 8-byte {@code seqno} and an Ed25519 {@code signature} over {@code "libp2p-pubsub:"}
     * ++ the message encoded as fields 1 to 4 in order; {@code key} optional but, when present, it must be
     * the key of {@code from}. The default of go and js.
     */
    STRICT_SIGN,
    /** {@code from}, {@code seqno}, {@code signature} and {@code key} must all be absent. */
    STRICT_NO_SIGN;

    static final byte[] SIGN_PREFIX = "libp2p-pubsub:".getBytes(StandardCharsets.UTF_8);
    static final int SEQNO_BYTES = 8;

    /** Builds a message on {@code topic} as this policy prescribes. */
    public PubsubMessage author(PrivateKey key, String topic, byte[] data, RandomGenerator random) {
        if (this == STRICT_NO_SIGN) {
            return new PubsubMessage(null, data, null, topic, null, null);
        }
        byte[] seqno = new byte[SEQNO_BYTES];
        long v = random.nextLong();
        for (int i = 7; i >= 0; i--) {
            seqno[i] = (byte) v;
            v >>>= 8;
        }
        PubsubMessage unsigned = new PubsubMessage(key.peerId().toBytes(), data, seqno, topic, null, null);
        byte[] signature = key.sign(signingBytes(unsigned));
        return new PubsubMessage(
                unsigned.from(), data, seqno, topic, signature, key.publicKey().toProtobuf());
    }

    /** {@code "libp2p-pubsub:"} ++ fields 1 to 4 of {@code m}. */
    public static byte[] signingBytes(PubsubMessage m) {
        return m.prefixedUnsigned(SIGN_PREFIX);
    }

    /** Null when {@code m} satisfies the policy, else why it does not. */
    public String check(PubsubMessage m) {
        if (this == STRICT_NO_SIGN) {
            if (m.from() != null || m.seqno() != null || m.signature() != null || m.key() != null) {
                return "StrictNoSign message carries from, seqno, signature or key";
            }
            return null;
        }
        if (m.from() == null || m.seqno() == null || m.signature() == null) {
            return "StrictSign message lacks from, seqno or signature";
        }
        if (m.seqno().length != SEQNO_BYTES) {
            return "seqno of " + m.seqno().length + " bytes, expected 8";
        }
        PeerId author;
        try {
            author = PeerId.fromBytes(m.from());
        } catch (RuntimeException e) {
            return "from is not a peer ID";
        }
        PublicKey key;
        try {
            if (m.key() != null) {
                key = PublicKey.fromProtobuf(m.key());
                if (!key.toPeerId().equals(author)) {
                    return "key does not match from";
                }
            } else {
                key = author.publicKey().orElse(null);
                if (key == null) {
                    return "no key to verify the signature";
                }
            }
            if (!key.verify(signingBytes(m), m.signature())) {
                return "bad signature";
            }
        } catch (InvalidKeyException e) {
            return "unusable key: " + e.getMessage();
        }
        return null;
    }
}
