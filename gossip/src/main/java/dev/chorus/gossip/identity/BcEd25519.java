package dev.chorus.gossip.identity;

import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/** Bouncy Castle's Ed25519: always present, and the reference the others are checked against. */
final class BcEd25519 implements Ed25519Engine {
    static final BcEd25519 INSTANCE = new BcEd25519();

    private BcEd25519() {}

    @Override
    public String name() {
        return "bc";
    }

    @Override
    public byte[] sign(byte[] seed, byte[] publicKey, byte[] message) {
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        Ed25519.sign(seed, 0, publicKey, 0, message, 0, message.length, signature, 0);
        return signature;
    }

    @Override
    public boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey.length != Ed25519.PUBLIC_KEY_SIZE || signature.length != Ed25519.SIGNATURE_SIZE) {
            return false;
        }
        Ed25519PublicKeyParameters point;
        try {
            point = new Ed25519PublicKeyParameters(publicKey, 0);
        } catch (IllegalArgumentException notOnTheCurve) {
            return false;
        }
        return point.verify(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, signature, 0);
    }

    @Override
    public String toString() {
        return name();
    }
}
