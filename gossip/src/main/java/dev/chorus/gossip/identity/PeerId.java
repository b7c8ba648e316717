package dev.chorus.gossip.identity;

import dev.chorus.gossip.encoding.Base32;
import dev.chorus.gossip.encoding.Base58;
import dev.chorus.gossip.encoding.Varint;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;

/**
 * A peer ID: the multihash of a public-key protobuf (identity multihash up to 42 bytes, as for Ed25519;
 * sha2-256 above). Text form is base58btc of the multihash; {@link #parse} also accepts the CIDv1 form
 * (multibase {@code b} base32 or {@code z} base58btc, codec {@code libp2p-key}).
 */
public final class PeerId implements Comparable<PeerId> {
    static final int IDENTITY = 0x00;
    static final int SHA2_256 = 0x12;
    static final int LIBP2P_KEY_CODEC = 0x72;
    private static final int MAX_INLINE_KEY_BYTES = 42;
    /** Longer than any valid multihash of the two kinds above. */
    private static final int MAX_BYTES = 64;

    private final byte[] bytes;
    /** The base58 text, computed on first use (a benign race: every thread computes the same string). */
    private String text;

    private PeerId(byte[] bytes) {
        this.bytes = bytes;
    }

    public static PeerId fromPublicKey(PublicKey key) {
        byte[] pb = key.toProtobuf();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (pb.length <= MAX_INLINE_KEY_BYTES) {
            out.write(IDENTITY);
            out.writeBytes(Varint.encode(pb.length));
            out.writeBytes(pb);
        } else {
            out.write(SHA2_256);
            out.write(32);
            out.writeBytes(sha256(pb));
        }
        return new PeerId(out.toByteArray());
    }

    /** Validates and wraps multihash bytes. */
    public static PeerId fromBytes(byte[] multihash) {
        if (multihash.length > MAX_BYTES) {
            throw new InvalidPeerIdException("peer ID of " + multihash.length + " bytes is too long");
        }
        try {
            long code = Varint.decode(multihash, 0);
            int off = Varint.size(code);
            long len = Varint.decode(multihash, off);
            off += Varint.size(len);
            if (len != multihash.length - off) {
                throw new InvalidPeerIdException(
                        "multihash announces " + len + " digest bytes but has " + (multihash.length - off));
            }
            if (code == IDENTITY) {
                if (len > MAX_INLINE_KEY_BYTES) {
                    throw new InvalidPeerIdException(
                            "identity multihash longer than " + MAX_INLINE_KEY_BYTES + " bytes");
                }
                PublicKey.fromProtobuf(Arrays.copyOfRange(multihash, off, multihash.length));
            } else if (code == SHA2_256) {
                if (len != 32) {
                    throw new InvalidPeerIdException("sha2-256 multihash must have 32 digest bytes, got " + len);
                }
            } else {
                throw new InvalidPeerIdException("unsupported multihash code 0x" + Long.toHexString(code));
            }
        } catch (CorruptedFrameException | InvalidKeyException e) {
            throw new InvalidPeerIdException("malformed peer ID multihash: " + e.getMessage(), e);
        }
        return new PeerId(multihash.clone());
    }

    /** Parses base58btc ({@code 12D3KooW...}, {@code Qm...}) or CIDv1 ({@code bafz...}) text. */
    public static PeerId parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new InvalidPeerIdException("empty peer ID");
        }
        if (text.length() > 128) {
            throw new InvalidPeerIdException("peer ID text too long");
        }
        try {
            char first = text.charAt(0);
            if (first == '1' || text.startsWith("Qm")) {
                return fromBytes(Base58.decode(text));
            }
            byte[] cid =
                    switch (first) {
                        case 'b', 'B' -> Base32.decode(text.substring(1));
                        case 'z' -> Base58.decode(text.substring(1));
                        default ->
                            throw new InvalidPeerIdException("peer ID '" + text + "' is neither base58btc nor a CID");
                    };
            long version = Varint.decode(cid, 0);
            int off = Varint.size(version);
            long codec = Varint.decode(cid, off);
            off += Varint.size(codec);
            if (version != 1 || codec != LIBP2P_KEY_CODEC) {
                throw new InvalidPeerIdException("CID '" + text + "' is not a CIDv1 with codec libp2p-key");
            }
            return fromBytes(Arrays.copyOfRange(cid, off, cid.length));
        } catch (InvalidPeerIdException e) {
            throw e;
        } catch (IllegalArgumentException | CorruptedFrameException e) {
            throw new InvalidPeerIdException("invalid peer ID '" + text + "': " + e.getMessage(), e);
        }
    }

    public byte[] toBytes() {
        return bytes.clone();
    }

    public String toBase58() {
        String t = text;
        if (t == null) {
            t = Base58.encode(bytes);
            text = t;
        }
        return t;
    }

    /** CIDv1, codec libp2p-key, multibase base32. */
    public String toCid() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(1);
        out.writeBytes(Varint.encode(LIBP2P_KEY_CODEC));
        out.writeBytes(bytes);
        return "b" + Base32.encode(out.toByteArray());
    }

    /** The public key inlined in an identity multihash, if this peer ID has one. */
    public Optional<PublicKey> publicKey() {
        if (bytes[0] != IDENTITY) {
            return Optional.empty();
        }
        int len = (int) Varint.decode(bytes, 1);
        int off = 1 + Varint.size(len);
        return Optional.of(PublicKey.fromProtobuf(Arrays.copyOfRange(bytes, off, off + len)));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerId p && Arrays.equals(p.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public int compareTo(PeerId o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public String toString() {
        return toBase58();
    }

    private static byte[] sha256(byte[] in) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(in);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
