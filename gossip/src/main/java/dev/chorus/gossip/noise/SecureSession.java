package dev.chorus.gossip.noise;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PublicKey;

/**
 * A completed Noise handshake: who is on the other end, the muxer agreed inline (or null), and the
 * two transport cipher states.
 */
public final class SecureSession {
    private final PeerId localPeer;
    private final PeerId remotePeer;
    private final PublicKey remoteKey;
    private final String inlinedMuxer;
    final CipherState sender;
    final CipherState receiver;

    SecureSession(
            PeerId localPeer,
            PeerId remotePeer,
            PublicKey remoteKey,
            String inlinedMuxer,
            CipherState sender,
            CipherState receiver) {
        this.localPeer = localPeer;
        this.remotePeer = remotePeer;
        this.remoteKey = remoteKey;
        this.inlinedMuxer = inlinedMuxer;
        this.sender = sender;
        this.receiver = receiver;
    }

    public PeerId localPeer() {
        return localPeer;
    }

    public PeerId remotePeer() {
        return remotePeer;
    }

    public PublicKey remoteKey() {
        return remoteKey;
    }

    /** The transport cipher's implementation on this side: {@code jdk} or {@code openssl}. */
    public String cipher() {
        return sender.providerName();
    }

    /** The muxer both sides agreed on inside the handshake, or null to negotiate it afterwards. */
    public String inlinedMuxer() {
        return inlinedMuxer;
    }

    @Override
    public String toString() {
        return "SecureSession(" + localPeer + " <-> " + remotePeer + ", muxer " + inlinedMuxer + ")";
    }
}
