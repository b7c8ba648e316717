package dev.chorus.gossip.identity;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import io.netty.handler.codec.CorruptedFrameException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/** An Ed25519 identity key. Its protobuf {@code Data} is {@code seed(32) ++ public(32)}. */
public final class PrivateKey {
    private final Ed25519PrivateKeyParameters key;
    private final PublicKey publicKey;
    private final byte[] seed;
    private final byte[] publicKeyBytes;
    private volatile Signing signing;

    private PrivateKey(Ed25519PrivateKeyParameters key) {
        this.key = key;
        this.seed = key.getEncoded();
        this.publicKeyBytes = key.generatePublicKey().getEncoded();
        this.publicKey = PublicKey.ed25519(publicKeyBytes);
    }

    public static PrivateKey generate(SecureRandom random) {
        return new PrivateKey(new Ed25519PrivateKeyParameters(random));
    }

    public static PrivateKey generate() {
        return generate(new SecureRandom());
    }

    public static PrivateKey fromSeed(byte[] seed) {
        if (seed.length != 32) {
            throw new InvalidKeyException("Ed25519 seed must be 32 bytes, got " + seed.length);
        }
        return new PrivateKey(new Ed25519PrivateKeyParameters(seed, 0));
    }

    /**
     * Decodes a {@code PrivateKey} protobuf. Accepts the 64-byte {@code seed ++ public} form and the
     * older 96-byte form (which repeats the public key); the embedded public key must match the seed.
     */
    public static PrivateKey fromProtobuf(byte[] protobuf) {
        if (protobuf.length > PublicKey.MAX_PROTOBUF_BYTES) {
            throw new InvalidKeyException("private key protobuf of " + protobuf.length + " bytes is too large");
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
            throw new InvalidKeyException("malformed private key protobuf: " + e.getMessage(), e);
        }
        if (type == null || data == null) {
            throw new InvalidKeyException("private key protobuf lacks " + (type == null ? "Type" : "Data"));
        }
        if (type != KeyType.ED25519) {
            throw new InvalidKeyException("only Ed25519 identity keys are supported, got " + type);
        }
        if (data.length != 64 && data.length != 96) {
            throw new InvalidKeyException("Ed25519 private key data must be 64 bytes, got " + data.length);
        }
        PrivateKey k = fromSeed(Arrays.copyOfRange(data, 0, 32));
        byte[] embedded = Arrays.copyOfRange(data, 32, 64);
        if (!MessageDigest.isEqual(embedded, k.publicKey.raw())) {
            throw new InvalidKeyException("Ed25519 private key data holds a public key that does not match its seed");
        }
        return k;
    }

    public PublicKey publicKey() {
        return publicKey;
    }

    public PeerId peerId() {
        return publicKey.toPeerId();
    }

    /** The Ed25519 signature of {@code message}, by the process's {@linkplain Ed25519Engines implementation}. */
    public byte[] sign(byte[] message) {
        Ed25519Engine engine = Ed25519Engines.current().engine();
        Signing s = signing;
        if (s == null || s.engine() != engine) {
            s = new Signing(engine, engine.signer(seed, publicKeyBytes));
            signing = s;
        }
        return s.signer().sign(message);
    }

    /** This key set up for the engine in use, kept until the engine changes. */
    private record Signing(Ed25519Engine engine, Ed25519Engine.Signer signer) {}

    public byte[] toProtobuf() {
        byte[] data = new byte[64];
        System.arraycopy(key.getEncoded(), 0, data, 0, 32);
        System.arraycopy(publicKey.raw(), 0, data, 32, 32);
        byte[] out = new ProtobufWriter()
                .varint(1, KeyType.ED25519.code())
                .bytes(2, data)
                .toByteArray();
        Arrays.fill(data, (byte) 0);
        return out;
    }

    @Override
    public String toString() {
        return "PrivateKey(" + peerId() + ")";
    }
}
