package dev.chorus.gossip.noise;

/** A failed Noise handshake or transport message: bad MAC, bad signature, wrong peer, malformed message. */
public class NoiseException extends RuntimeException {
    public NoiseException(String message) {
        super(message);
    }

    public NoiseException(String message, Throwable cause) {
        super(message, cause);
    }
}
