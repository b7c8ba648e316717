package dev.chorus.gossip.pubsub;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Computes the id of a message; every peer of a topic must use the same function, since ids appear in
 * IHAVE, IWANT and IDONTWANT and drive de-duplication.
 */
@FunctionalInterface
public interface MessageIdFunction {
    /** Returns null when the message lacks what the function needs (it is then rejected). */
    MessageId apply(PubsubMessage message);

    /**
     * The spec's default, go's form: {@code from} (peer ID multihash bytes) ++ {@code seqno}. Note that js
     * defaults to the key protobuf ++ seqno instead, so js peers must be configured with this function.
     */
    MessageIdFunction FROM_AND_SEQNO = m -> {
        if (m.from() == null || m.seqno() == null) {
            return null;
        }
        byte[] id = Arrays.copyOf(m.from(), m.from().length + m.seqno().length);
        System.arraycopy(m.seqno(), 0, id, m.from().length, m.seqno().length);
        return MessageId.wrap(id);
    };

    /** Content addressing: plain SHA-256 of {@code data} (32 bytes). Required with {@code StrictNoSign}. */
    MessageIdFunction SHA256_OF_DATA = m -> {
        try {
            return MessageId.wrap(MessageDigest.getInstance("SHA-256").digest(m.dataOrEmpty()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    };
}
