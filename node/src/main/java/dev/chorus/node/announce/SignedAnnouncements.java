package dev.chorus.node.announce;

import dev.chorus.gossip.identity.KeyType;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.identity.PublicKey;
import dev.chorus.node.protocol.ErrorCode;
import dev.chorus.node.protocol.ExchangeException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wire form of a {@link ModelAnnouncement}, signed with the node's Ed25519 identity key (layout in
 * {@code docs/protocol.md}). The signature covers {@code "chorus-announcement:"} followed by the body; on receipt
 * the key must be Ed25519, the peer id in the body must be the key's, and the signature must verify.
 */
public final class SignedAnnouncements {

    public static final int MAGIC = 0x4341; // "CA"
    public static final int VERSION = 1;
    /** The largest encoded announcement accepted. */
    public static final int MAX_BYTES = 2048;

    private static final byte[] CONTEXT = "chorus-announcement:".getBytes(StandardCharsets.US_ASCII);

    private SignedAnnouncements() {}

    /** Encodes and signs {@code a}; the key must be the one of {@code a.peer()}. */
    public static byte[] sign(ModelAnnouncement a, PrivateKey key) {
        if (!key.peerId().toBase58().equals(a.peer())) {
            throw new IllegalArgumentException("announcement for " + a.peer() + " signed by " + key.peerId());
        }
        byte[] body = body(a);
        byte[] signature = key.sign(concat(CONTEXT, body));
        byte[] pub = key.publicKey().toProtobuf();
        ByteBuffer b = ByteBuffer.allocate(4 + 2 + body.length + 2 + pub.length + 2 + signature.length);
        b.putShort((short) MAGIC).put((byte) VERSION).put((byte) 0);
        b.putShort((short) body.length).put(body);
        b.putShort((short) pub.length).put(pub);
        b.putShort((short) signature.length).put(signature);
        return b.array();
    }

    /**
     * Verifies and decodes an announcement.
     *
     * @throws ExchangeException ({@link ErrorCode#MALFORMED}) for bad bytes or a bad signature
     */
    public static ModelAnnouncement verify(byte[] message) {
        if (message.length > MAX_BYTES) {
            throw new ExchangeException(ErrorCode.TOO_LARGE, "announcement of " + message.length + " bytes");
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(message);
            if ((b.getShort() & 0xffff) != MAGIC || (b.get() & 0xff) != VERSION || b.get() != 0) {
                throw new ExchangeException(ErrorCode.MALFORMED, "not a version-1 announcement");
            }
            byte[] body = field(b);
            byte[] pub = field(b);
            byte[] signature = field(b);
            if (b.hasRemaining()) {
                throw new ExchangeException(ErrorCode.MALFORMED, "trailing bytes after the signature");
            }
            PublicKey key;
            try {
                key = PublicKey.fromProtobuf(pub);
            } catch (RuntimeException e) {
                throw new ExchangeException(ErrorCode.MALFORMED, "bad public key: " + e.getMessage());
            }
            if (signature.length != PublicKey.ED25519_SIGNATURE_BYTES || key.type() != KeyType.ED25519) {
                throw new ExchangeException(ErrorCode.MALFORMED, "announcements are signed with Ed25519");
            }
            if (!key.verify(concat(CONTEXT, body), signature)) {
                throw new ExchangeException(ErrorCode.MALFORMED, "bad signature");
            }
            ModelAnnouncement a = parseBody(body);
            PeerId signer = key.toPeerId();
            if (!signer.toBase58().equals(a.peer())) {
                throw new ExchangeException(
                        ErrorCode.MALFORMED, "announcement for " + a.peer() + " signed by " + signer);
            }
            return a;
        } catch (BufferUnderflowException e) {
            throw new ExchangeException(ErrorCode.MALFORMED, "truncated announcement");
        } catch (ExchangeException e) {
            throw e;
        } catch (RuntimeException e) { // e.g. a key that is not a curve point
            throw new ExchangeException(ErrorCode.MALFORMED, "unverifiable announcement: " + e.getMessage());
        }
    }

    private static byte[] body(ModelAnnouncement a) {
        byte[] peer = a.peer().getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(MAX_BYTES);
        b.put((byte) peer.length).put(peer);
        b.put(a.architecture()).putLong(a.version()).putLong(a.sampleCount()).put(a.digest());
        b.putLong(a.timestampMillis());
        b.put((byte) a.metrics().size());
        for (var e : a.metrics().entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.US_ASCII);
            b.put((byte) name.length).put(name).putDouble(e.getValue());
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    private static ModelAnnouncement parseBody(byte[] body) {
        ByteBuffer b = ByteBuffer.wrap(body);
        String peer = new String(bytes(b, b.get() & 0xff), StandardCharsets.US_ASCII);
        byte[] arch = bytes(b, 32);
        long version = b.getLong();
        long samples = b.getLong();
        byte[] digest = bytes(b, 32);
        long timestamp = b.getLong();
        int n = b.get() & 0xff;
        if (n > ModelAnnouncement.MAX_METRICS) {
            throw new ExchangeException(ErrorCode.MALFORMED, n + " metrics");
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String name = new String(bytes(b, b.get() & 0xff), StandardCharsets.US_ASCII);
            metrics.put(name, b.getDouble());
        }
        if (b.hasRemaining()) {
            throw new ExchangeException(ErrorCode.MALFORMED, "trailing bytes in the announcement body");
        }
        try {
            return new ModelAnnouncement(peer, arch, version, samples, digest, timestamp, metrics);
        } catch (IllegalArgumentException e) {
            throw new ExchangeException(ErrorCode.MALFORMED, e.getMessage());
        }
    }

    private static byte[] field(ByteBuffer b) {
        return bytes(b, b.getShort() & 0xffff);
    }

    private static byte[] bytes(ByteBuffer b, int n) {
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
