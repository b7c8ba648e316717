package dev.chorus.gossip.record;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import dev.chorus.gossip.encoding.Varint;
import dev.chorus.gossip.identity.InvalidKeyException;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.identity.PublicKey;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A libp2p signed envelope (RFC 0002): {@code Envelope { PublicKey public_key = 1; bytes payload_type = 2; bytes
 * payload = 3; bytes signature = 5; }}. The signature covers the domain, the payload type and the payload, each
 * prefixed with its length as an unsigned varint, so that a signature made for one domain cannot be replayed in
 * another; the domain itself is not in the envelope, the receiver names the one it expects.
 */
public final class SignedEnvelope {

    /** The most bytes an envelope may take: a peer record with its addresses fits in far less. */
    public static final int MAX_BYTES = 8192;

    private final PublicKey publicKey;
    private final byte[] payloadType;
    private final byte[] payload;
    private final byte[] signature;

    private SignedEnvelope(PublicKey publicKey, byte[] payloadType, byte[] payload, byte[] signature) {
        this.publicKey = publicKey;
        this.payloadType = payloadType;
        this.payload = payload;
        this.signature = signature;
    }

    /** Signs {@code payload} of {@code payloadType} with {@code key} for {@code domain}. */
    public static SignedEnvelope seal(PrivateKey key, String domain, byte[] payloadType, byte[] payload) {
        byte[] sig = key.sign(signedBytes(domain, payloadType, payload));
        return new SignedEnvelope(key.publicKey(), payloadType.clone(), payload.clone(), sig);
    }

    /**
     * Decodes an envelope; it is not verified yet ({@link #verify}).
     *
     * @throws RecordException when it is larger than {@link #MAX_BYTES}, malformed, or lacks a field
     */
    public static SignedEnvelope decode(byte[] bytes) {
        if (bytes.length > MAX_BYTES) {
            throw new RecordException("signed envelope of " + bytes.length + " bytes, more than " + MAX_BYTES);
        }
        PublicKey key = null;
        byte[] type = null;
        byte[] payload = null;
        byte[] sig = null;
        try {
            ProtobufReader r = new ProtobufReader(bytes);
            while (r.next()) {
                switch (r.field()) {
                    case 1 -> key = PublicKey.fromProtobuf(r.bytes());
                    case 2 -> type = r.bytes();
                    case 3 -> payload = r.bytes();
                    case 5 -> sig = r.bytes();
                    default -> r.skip();
                }
            }
        } catch (CorruptedFrameException | InvalidKeyException e) {
            throw new RecordException("malformed signed envelope: " + e.getMessage(), e);
        }
        if (key == null || type == null || payload == null || sig == null) {
            throw new RecordException("signed envelope lacks its "
                    + (key == null
                            ? "public key"
                            : type == null ? "payload type" : payload == null ? "payload" : "signature"));
        }
        return new SignedEnvelope(key, type, payload, sig);
    }

    public byte[] encode() {
        return new ProtobufWriter()
                .bytes(1, publicKey.toProtobuf())
                .bytes(2, payloadType)
                .bytes(3, payload)
                .bytes(5, signature)
                .toByteArray();
    }

    /** Whether the signature is the public key's over this envelope's content for {@code domain}. */
    public boolean verify(String domain) {
        return publicKey.verify(signedBytes(domain, payloadType, payload), signature);
    }

    /** The bytes the signature covers: domain, payload type and payload, each after its length as a varint. */
    static byte[] signedBytes(String domain, byte[] payloadType, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : new byte[][] {domain.getBytes(StandardCharsets.UTF_8), payloadType, payload}) {
            out.writeBytes(Varint.encode(part.length));
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    public PublicKey publicKey() {
        return publicKey;
    }

    public byte[] payloadType() {
        return payloadType.clone();
    }

    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SignedEnvelope e
                && publicKey.equals(e.publicKey)
                && Arrays.equals(payloadType, e.payloadType)
                && Arrays.equals(payload, e.payload)
                && Arrays.equals(signature, e.signature);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(payload) * 31 + publicKey.hashCode();
    }
}
