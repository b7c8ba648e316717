package dev.chorus.gossip.noise;

/** A source of {@link NoiseAead} instances: one implementation of ChaCha20-Poly1305. */
public interface AeadProvider {
    /** Short name shown to operators: {@code jdk} or {@code openssl}. */
    String name();

    /** A new instance keyed with {@code key} (32 bytes); the caller closes it. */
    NoiseAead create(byte[] key);
}
