package dev.chorus.node.secagg;

import dev.chorus.gossip.identity.PeerId;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The frames of {@code /chorus/secagg/1.0.0}: one frame per stream, the stream's whole content (docs/protocol.md).
 * A frame is a kind byte, the round's number (unsigned 64-bit, big-endian), and the kind's body:
 *
 * <ul>
 *   <li>{@code OFFER} (1), member to relay: no body; "count me in for this round".
 *   <li>{@code START} (2), relay to member: the group, as a 16-bit count and each member's peer ID in binary (a
 *       length byte, then the multihash), in the group's agreed order.
 *   <li>{@code ROUND} (3), either way: one encoded {@code SecAggMessage} of the round.
 * </ul>
 */
public final class SecureWire {

    public static final byte OFFER = 1;
    public static final byte START = 2;
    public static final byte ROUND = 3;
    /** The longest binary peer ID a START may list. */
    static final int MAX_PEER_ID = 64;

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

    public record Offer(long round) implements Frame {}

    public record Start(long round, List<String> members) implements Frame {
        public Start {
            members = List.copyOf(members);
        }
    }

    public record Round(long round, byte[] message) implements Frame {}

    public static byte[] offer(long round) {
        return ByteBuffer.allocate(9).put(OFFER).putLong(round).array();
    }

    public static byte[] start(long round, List<String> members) {
        List<byte[]> ids = new ArrayList<>();
        int length = 1 + 8 + 2;
        for (String m : members) {
            byte[] id = PeerId.parse(m).toBytes();
            ids.add(id);
            length += 1 + id.length;
        }
        ByteBuffer b = ByteBuffer.allocate(length).put(START).putLong(round).putShort((short) ids.size());
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
                    requireEnd(b);
                    yield new Offer(round);
                }
                case START -> new Start(round, members(b, maxMembers));
                case ROUND -> {
                    if (!b.hasRemaining()) {
                        throw new MalformedFrameException("a ROUND frame carries no message");
                    }
                    yield new Round(round, Arrays.copyOfRange(bytes, b.position(), bytes.length));
                }
                default -> throw new MalformedFrameException("unknown frame kind " + kind);
            };
        } catch (BufferUnderflowException e) {
            throw new MalformedFrameException("the frame ends early (" + bytes.length + " bytes)");
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

    private static void requireEnd(ByteBuffer b) {
        if (b.hasRemaining()) {
            throw new MalformedFrameException(b.remaining() + " bytes after the frame");
        }
    }
}
