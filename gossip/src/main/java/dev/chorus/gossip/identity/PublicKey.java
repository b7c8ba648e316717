package dev.chorus.gossip.identity;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A libp2p public key: its type and the type-specific {@code Data} bytes. Only Ed25519 keys can verify
 * signatures; keys of other types can be carried and turned into peer IDs.
 */
public final class PublicKey {
    public static final int ED25519_KEY_BYTES = 32;
    public static final int ED25519_SIGNATURE_BYTES = 64;
    /** Bound on a received key protobuf; RSA-4096 keys are about 550 bytes. */
    static final int MAX_PROTOBUF_BYTES = 2048;

    private final KeyType type;
    private final byte[] data;

    private PublicKey(KeyType type, byte[] data) {
        this.type = type;
        this.data = data;
    }

    public static PublicKey ed25519(byte[] raw) {
        if (raw.length != ED25519_KEY_BYTES) {
            throw new InvalidKeyException("Ed25519 public key must be 32 bytes, got " + raw.length);
        }
        return new PublicKey(KeyType.ED25519, raw.clone());
    }

    /** Decodes the {@code PublicKey} protobuf {@code {Type = 1; Data = 2}}. */
    public static PublicKey fromProtobuf(byte[] protobuf) {
        if (protobuf.length > MAX_PROTOBUF_BYTES) {
            throw new InvalidKeyException("public key protobuf of " + protobuf.length + " bytes is too large");
        }
        KeyType type = null;
        byte[] data = null;
        try {
            ProtobufReader r = new ProtobufReader(protobuf);
            while (r.next()) {
                switch (r.field()) {
                    case 1 -> type = KeyType.fromCode(r.varint());
                    case 2 -> data = r.bytes();
                    default -> r.skip();
                }
            }
        } catch (CorruptedFrameException e) {
            throw new InvalidKeyException("malformed public key protobuf: " + e.getMessage(), e);
        }
        if (type == null || data == null) {
            throw new InvalidKeyException("public key protobuf lacks " + (type == null ? "Type" : "Data"));
        }
        return type == KeyType.ED25519 ? ed25519(data) : new PublicKey(type, data);
    }

    public KeyType type() {
        return type;
    }

    public byte[] raw() {
        return data.clone();
    }

    /** Deterministic encoding: fields in tag order, both present. */
    public byte[] toProtobuf() {
        return new ProtobufWriter().varint(1, type.code()).bytes(2, data).toByteArray();
    }

    public PeerId toPeerId() {
        return PeerId.fromPublicKey(this);
    }

    /**
     * Verifies an Ed25519 signature (RFC 8032); false for a bad signature of any length, and for a key whose 32 bytes
     * are not a point of the curve (a key a peer made up cannot verify anything). By the process's {@linkplain
     * Ed25519Engines implementation}.
     */
    public boolean verify(byte[] message, byte[] signature) {
        if (type != KeyType.ED25519) {
            throw new InvalidKeyException("verification of " + type + " keys is not supported");
        }
        if (signature.length != ED25519_SIGNATURE_BYTES) {
            return false;
        }
        return Ed25519Engines.current().engine().verify(data, message, signature);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PublicKey k && k.type == type && Arrays.equals(k.data, data);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return type + ":" + HexFormat.of().formatHex(data);
    }
}
