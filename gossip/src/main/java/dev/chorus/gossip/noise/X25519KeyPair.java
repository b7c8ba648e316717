package dev.chorus.gossip.noise;

import java.security.SecureRandom;
import org.bouncycastle.crypto.agreement.X25519Agreement;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PublicKeyParameters;

/** An X25519 key pair for Noise DH (RFC 7748), from Bouncy Castle. */
public final class X25519KeyPair {
    public static final int KEY_BYTES = 32;

    private final X25519PrivateKeyParameters privateKey;
    private final byte[] publicKey;

    private X25519KeyPair(X25519PrivateKeyParameters privateKey) {
        this.privateKey = privateKey;
        this.publicKey = privateKey.generatePublicKey().getEncoded();
    }

    public static X25519KeyPair generate(SecureRandom random) {
        return new X25519KeyPair(new X25519PrivateKeyParameters(random));
    }

    public static X25519KeyPair fromPrivate(byte[] key) {
        return new X25519KeyPair(new X25519PrivateKeyParameters(key, 0));
    }

    public byte[] publicKey() {
        return publicKey.clone();
    }

    /** DH(self, remote); a low-order remote point (all-zero result) is refused. */
    byte[] dh(byte[] remotePublic) {
        if (remotePublic.length != KEY_BYTES) {
            throw new NoiseException("X25519 public key must be 32 bytes");
        }
        X25519Agreement a = new X25519Agreement();
        a.init(privateKey);
        byte[] out = new byte[KEY_BYTES];
        try {
            a.calculateAgreement(new X25519PublicKeyParameters(remotePublic, 0), out, 0);
        } catch (IllegalStateException e) {
            throw new NoiseException("X25519 agreement with a low-order point");
        }
        return out;
    }
}
