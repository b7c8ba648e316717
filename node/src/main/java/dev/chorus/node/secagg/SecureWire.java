package dev.chorus.node.secagg;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.protocol.ExchangeException;
import dev.chorus.node.protocol.Quantization;
import dev.chorus.privacy.secagg.SecAggMessage;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The frames of {@code /chorus/secagg/3.0.0}: one frame per stream, the stream's whole content (docs/protocol.md).
 * A frame is a kind byte, the round's number (unsigned 64-bit, big-endian), and the kind's body:
 *
 * <ul>
 *   <li>{@code OFFER} (1), member to relay: the member's {@link Terms}, three bytes: its weight scale e (its weight
 *       is at most 2^e), its range exponent ρ (signed), its word bits (16 or 32); "count me in for this round".
 *   <li>{@code START} (2), relay to member: the round's terms (three bytes as in OFFER, each the largest offered),
 *       then the group, as a 16-bit count and each member's peer ID in binary (a length byte, then the multihash), in
 *       the group's agreed order.
 *   <li>{@code ROUND} (3), either way: one encoded {@code SecAggMessage} of the round.
 *   <li>{@code SUM} (4), relay to member, in place of the round's last message: the survivors' decoded sum, which
 *       the group may know, in the relay's model exchange dtype: a dtype code byte, the contributors (16 bits), their
 *       total sample count (32 bits), the dimension (32 bits), then the values in chunks of {@value #SUM_CHUNK} (an
 *       int8 chunk after its binary32 scale), little-endian as on the model exchange.
 * </ul>
 */
public final class SecureWire {

    public static final byte OFFER = 1;
    public static final byte START = 2;
    public static final byte ROUND = 3;
    public static final byte SUM = 4;
    /** Values per chunk of a SUM, each int8 chunk with a scale of its own. */
    public static final int SUM_CHUNK = 4096;
    /** The longest binary peer ID a START may list. */
    static final int MAX_PEER_ID = 64;
    /** The largest weight scale: a weight rides in one 32-bit word of the sum. */
    public static final int MAX_SCALE = Terms.MAX_SCALE;

    private SecureWire() {}

    /** A malformed frame; the message names what is wrong. */
    public static final class MalformedFrameException extends RuntimeException {
        MalformedFrameException(String message) {
            super(message);
        }
    }

    /** A decoded frame: for START the members, for ROUND the round message's bytes. */
    public sealed interface Frame {
        long round();
    }

    /** @param terms what the member asks of the round's encoding */
    public record Offer(long round, Terms terms) implements Frame {}

    /** @param terms the round's terms, the largest of the offers'; members: none cancels the round */
    public record Start(long round, Terms terms, List<String> members) implements Frame {
        public Start {
            members = List.copyOf(members);
        }
    }

    public record Round(long round, byte[] message) implements Frame {}

    /** The survivors' decoded sum: {@code contributors} inputs holding {@code sampleCount} examples in all. */
    public record Sum(long round, int contributors, long sampleCount, float[] values) implements Frame {}

    public static byte[] offer(long round, Terms terms) {
        return ByteBuffer.allocate(12)
                .put(OFFER)
                .putLong(round)
                .put(termBytes(terms))
                .array();
    }

    public static byte[] start(long round, Terms terms, List<String> members) {
        List<byte[]> ids = new ArrayList<>();
        int length = 1 + 8 + 3 + 2;
        for (String m : members) {
            byte[] id = PeerId.parse(m).toBytes();
            ids.add(id);
            length += 1 + id.length;
        }
        ByteBuffer b = ByteBuffer.allocate(length)
                .put(START)
                .putLong(round)
                .put(termBytes(terms))
                .putShort((short) ids.size());
        for (byte[] id : ids) {
            b.put((byte) id.length).put(id);
        }
        return b.array();
    }

    public static byte[] round(long round, byte[] message) {
        return ByteBuffer.allocate(9 + message.length)
                .put(ROUND)
                .putLong(round)
                .put(message)
                .array();
    }

    public static byte[] sum(long round, Dtype dtype, int contributors, long sampleCount, float[] values) {
        if (contributors < 0 || contributors > 0xFFFF || sampleCount < 0 || sampleCount > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(contributors + " contributors, " + sampleCount + " samples");
        }
        byte[] body = Quantization.encodeChunked(dtype, values, SUM_CHUNK);
        return ByteBuffer.allocate(20 + body.length)
                .put(SUM)
                .putLong(round)
                .put((byte) dtype.code())
                .putShort((short) contributors)
                .putInt((int) sampleCount)
                .putInt(values.length)
                .put(body)
                .array();
    }

    /**
     * The frame in {@code bytes}.
     *
     * @param maxMembers the largest group a START may list
     * @throws MalformedFrameException naming the fault: an unknown kind, a truncated frame, trailing bytes, a group
     *     too large, an invalid peer ID
     */
    public static Frame decode(byte[] bytes, int maxMembers) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            byte kind = b.get();
            long round = b.getLong();
            return switch (kind) {
                case OFFER -> {
                    Terms terms = terms(b);
                    requireEnd(b);
                    yield new Offer(round, terms);
                }
                case START -> {
                    Terms terms = terms(b);
                    yield new Start(round, terms, members(b, maxMembers));
                }
                case ROUND -> {
                    if (!b.hasRemaining()) {
                        throw new MalformedFrameException("a ROUND frame carries no message");
                    }
                    yield new Round(round, Arrays.copyOfRange(bytes, b.position(), bytes.length));
                }
                case SUM -> sum(round, b, bytes, maxMembers);
                default -> throw new MalformedFrameException("unknown frame kind " + kind);
            };
        } catch (BufferUnderflowException e) {
            throw new MalformedFrameException("the frame ends early (" + bytes.length + " bytes)");
        }
    }

    private static Sum sum(long round, ByteBuffer b, byte[] bytes, int maxMembers) {
        int code = Byte.toUnsignedInt(b.get());
        int contributors = Short.toUnsignedInt(b.getShort());
        long samples = Integer.toUnsignedLong(b.getInt());
        int dimension = b.getInt();
        if (contributors > maxMembers) {
            throw new MalformedFrameException(
                    "a SUM of " + contributors + " contributors; a group has at most " + maxMembers);
        }
        if (dimension < 1 || dimension > SecAggMessage.MAX_WORDS) {
            throw new MalformedFrameException("a SUM of " + dimension + " values");
        }
        try {
            Dtype dtype = Dtype.fromCode(code);
            return new Sum(
                    round,
                    contributors,
                    samples,
                    Quantization.decodeChunked(dtype, bytes, b.position(), dimension, SUM_CHUNK));
        } catch (ExchangeException e) {
            throw new MalformedFrameException("a SUM's values: " + e.getMessage());
        }
    }

    private static List<String> members(ByteBuffer b, int maxMembers) {
        int n = Short.toUnsignedInt(b.getShort());
        if (n > maxMembers) {
            throw new MalformedFrameException("a START lists " + n + " members; a group has at most " + maxMembers);
        }
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = Byte.toUnsignedInt(b.get());
            if (len == 0 || len > MAX_PEER_ID) {
                throw new MalformedFrameException("member " + i + "'s peer ID has " + len + " bytes");
            }
            byte[] id = new byte[len];
            b.get(id);
            try {
                out.add(PeerId.fromBytes(id).toBase58());
            } catch (RuntimeException e) {
                throw new MalformedFrameException("member " + i + "'s peer ID is invalid: " + e.getMessage());
            }
        }
        requireEnd(b);
        if (Set.copyOf(out).size() != out.size()) {
            throw new MalformedFrameException("a START lists a member twice");
        }
        return out;
    }

    private static byte[] termBytes(Terms terms) {
        return new byte[] {(byte) terms.scale(), (byte) terms.rangeExponent(), (byte) terms.wordBits()};
    }

    private static Terms terms(ByteBuffer b) {
        int scale = Byte.toUnsignedInt(b.get());
        int rangeExponent = b.get();
        int wordBits = Byte.toUnsignedInt(b.get());
        try {
            return new Terms(scale, rangeExponent, wordBits);
        } catch (IllegalArgumentException e) {
            throw new MalformedFrameException("the round's terms: " + e.getMessage());
        }
    }

    private static void requireEnd(ByteBuffer b) {
        if (b.hasRemaining()) {
            throw new MalformedFrameException(b.remaining() + " bytes after the frame");
        }
    }
}
