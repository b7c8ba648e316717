package dev.chorus.gossip.libcrypto;

/** Thrown when {@link CryptoMode#OPENSSL} is asked for and libcrypto is unusable; the message says why. */
public final class LibCryptoUnavailableException extends IllegalStateException {
    public LibCryptoUnavailableException(String message) {
        super(message);
    }
}
