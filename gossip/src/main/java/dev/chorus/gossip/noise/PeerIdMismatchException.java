package dev.chorus.gossip.noise;

import dev.chorus.gossip.identity.PeerId;

/** The dialed peer ID (the {@code /p2p/} part of the address) is not the one the remote proved it holds. */
public final class PeerIdMismatchException extends NoiseException {
    private final PeerId expected;
    private final PeerId actual;

    public PeerIdMismatchException(PeerId expected, PeerId actual) {
        super("dialed " + expected + " but the remote is " + actual);
        this.expected = expected;
        this.actual = actual;
    }

    public PeerId expected() {
        return expected;
    }

    public PeerId actual() {
        return actual;
    }
}
