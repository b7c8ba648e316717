package dev.chorus.gossip.noise;

import dev.chorus.gossip.identity.InvalidKeyException;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.identity.PublicKey;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * One side of a libp2p Noise XX handshake, as a pure state machine over whole handshake messages
 * (without their 2-byte length prefix). XX: {@code -> e}, {@code <- e, ee, s, es}, {@code -> s, se}.
 * Message 1 carries an empty payload; messages 2 and 3 carry the signed libp2p payload, which is
 * verified as soon as it is read.
 */
public final class NoiseHandshake {
    /** Prefix of the bytes the identity key signs: this ++ the Noise static public key. */
    public static final byte[] SIGNATURE_PREFIX = "noise-libp2p-static-key:".getBytes(StandardCharsets.US_ASCII);

    private final boolean initiator;
    private final PrivateKey identity;
    private final X25519KeyPair s;
    private final X25519KeyPair e;
    private final List<String> localMuxers;
    private final PeerId expectedRemote;
    private final SymmetricState ss;
    private byte[] re;
    private byte[] rs;
    private int step;
    private HandshakePayload remotePayload;
    private PublicKey remoteKey;
    private java.util.function.UnaryOperator<byte[]> payloadFilter = java.util.function.UnaryOperator.identity();

    /**
     * @param staticKey the Noise static key; a fresh X25519 key, never the identity key
     * @param ephemeralKey this handshake's ephemeral key (random in production, fixed in tests)
     * @param localMuxers muxers to offer inline (empty: negotiate the muxer with multistream-select)
     * @param expectedRemote the peer the initiator dialed, or null to accept any
     */
    public NoiseHandshake(
            boolean initiator,
            PrivateKey identity,
            X25519KeyPair staticKey,
            X25519KeyPair ephemeralKey,
            List<String> localMuxers,
            PeerId expectedRemote) {
        this(initiator, identity, staticKey, ephemeralKey, localMuxers, expectedRemote, NoiseCiphers.jdk());
    }

    /**
     * As above, with the transport's cipher from {@code transportCipher} (the handshake's own is the JDK's).
     */
    public NoiseHandshake(
            boolean initiator,
            PrivateKey identity,
            X25519KeyPair staticKey,
            X25519KeyPair ephemeralKey,
            List<String> localMuxers,
            PeerId expectedRemote,
            AeadProvider transportCipher) {
        this.ss = new SymmetricState(transportCipher);
        this.initiator = initiator;
        this.identity = identity;
        this.s = staticKey;
        this.e = ephemeralKey;
        this.localMuxers = List.copyOf(localMuxers);
        this.expectedRemote = expectedRemote;
        ss.mixHash(new byte[0]); // empty prologue (libp2p noise spec)
    }

    public boolean isInitiator() {
        return initiator;
    }

    /** True when it is this side's turn to write. */
    public boolean isMyTurn() {
        return (step % 2 == 0) == initiator;
    }

    public boolean isComplete() {
        return step == 3;
    }

    public byte[] writeMessage() {
        if (!isMyTurn() || isComplete()) {
            throw new IllegalStateException("not this side's turn to write (step " + step + ")");
        }
        byte[] out;
        switch (step) {
            case 0 -> {
                ss.mixHash(e.publicKey());
                out = concat(e.publicKey(), ss.encryptAndHash(new byte[0]));
            }
            case 1 -> {
                ss.mixHash(e.publicKey());
                ss.mixKey(e.dh(re));
                byte[] sEnc = ss.encryptAndHash(s.publicKey());
                ss.mixKey(s.dh(re));
                out = concat(e.publicKey(), sEnc, ss.encryptAndHash(localPayload()));
            }
            default -> {
                byte[] sEnc = ss.encryptAndHash(s.publicKey());
                ss.mixKey(s.dh(re));
                out = concat(sEnc, ss.encryptAndHash(localPayload()));
            }
        }
        step++;
        return out;
    }

    public void readMessage(byte[] msg) {
        if (isMyTurn() || isComplete()) {
            throw new NoiseException("unexpected handshake message at step " + step);
        }
        switch (step) {
            case 0 -> {
                if (msg.length < 32) {
                    throw new NoiseException("handshake message 1 shorter than an ephemeral key");
                }
                re = Arrays.copyOfRange(msg, 0, 32);
                ss.mixHash(re);
                ss.decryptAndHash(Arrays.copyOfRange(msg, 32, msg.length)); // payload, empty in libp2p
            }
            case 1 -> {
                if (msg.length < 32 + 48 + CipherState.TAG_LENGTH) {
                    throw new NoiseException("handshake message 2 too short (" + msg.length + " bytes)");
                }
                re = Arrays.copyOfRange(msg, 0, 32);
                ss.mixHash(re);
                ss.mixKey(e.dh(re));
                rs = ss.decryptAndHash(Arrays.copyOfRange(msg, 32, 80));
                ss.mixKey(e.dh(rs));
                verify(ss.decryptAndHash(Arrays.copyOfRange(msg, 80, msg.length)));
            }
            default -> {
                if (msg.length < 48 + CipherState.TAG_LENGTH) {
                    throw new NoiseException("handshake message 3 too short (" + msg.length + " bytes)");
                }
                rs = ss.decryptAndHash(Arrays.copyOfRange(msg, 0, 48));
                ss.mixKey(e.dh(rs));
                verify(ss.decryptAndHash(Arrays.copyOfRange(msg, 48, msg.length)));
            }
        }
        step++;
    }

    /** The outcome; only after {@link #isComplete()}. */
    public SecureSession session() {
        if (!isComplete()) {
            throw new IllegalStateException("handshake not complete");
        }
        CipherState[] cs = ss.split();
        String muxer = selectMuxer();
        return new SecureSession(
                identity.peerId(),
                remoteKey.toPeerId(),
                remoteKey,
                muxer,
                initiator ? cs[0] : cs[1],
                initiator ? cs[1] : cs[0]);
    }

    byte[] handshakeHash() {
        return ss.handshakeHash();
    }

    private byte[] localPayload() {
        byte[] sig = identity.sign(concat(SIGNATURE_PREFIX, s.publicKey()));
        return payloadFilter.apply(new HandshakePayload(identity.publicKey().toProtobuf(), sig, localMuxers).encode());
    }

    /** Lets attack tests send a forged payload through an otherwise correct handshake. */
    void filterPayloadForTest(java.util.function.UnaryOperator<byte[]> filter) {
        this.payloadFilter = filter;
    }

    private void verify(byte[] payloadBytes) {
        HandshakePayload p = HandshakePayload.decode(payloadBytes);
        PublicKey key;
        try {
            key = PublicKey.fromProtobuf(p.identityKey());
            if (!key.verify(concat(SIGNATURE_PREFIX, rs), p.identitySig())) {
                throw new NoiseException("remote identity signature over the static key is invalid");
            }
        } catch (InvalidKeyException ex) {
            throw new NoiseException("unusable remote identity key: " + ex.getMessage(), ex);
        }
        PeerId remote = key.toPeerId();
        if (expectedRemote != null && !expectedRemote.equals(remote)) {
            throw new PeerIdMismatchException(expectedRemote, remote);
        }
        remotePayload = p;
        remoteKey = key;
    }

    /**
     * Inlined muxer negotiation (libp2p/specs connections/inlined-muxer-negotiation.md): when both sides
     * list muxers, the first of the initiator's that the responder also lists; null when either list is
     * empty (negotiate with multistream-select instead).
     */
    private String selectMuxer() {
        List<String> remote = remotePayload.streamMuxers();
        if (localMuxers.isEmpty() || remote.isEmpty()) {
            return null;
        }
        List<String> initiatorList = initiator ? localMuxers : remote;
        List<String> responderList = initiator ? remote : localMuxers;
        for (String m : initiatorList) {
            if (responderList.contains(m)) {
                return m;
            }
        }
        throw new NoiseException("no common stream muxer: " + initiatorList + " vs " + responderList);
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int off = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, off, p.length);
            off += p.length;
        }
        return out;
    }
}
