package dev.chorus.cli.bench;

import dev.chorus.gossip.noise.AeadProvider;
import dev.chorus.gossip.noise.NoiseAead;
import java.security.SecureRandom;

/**
 * One ChaCha20-Poly1305 implementation alone, on heap arrays in place, one message per buffer with a
 * fresh nonce each, through the same interface the Noise transport uses: the ceiling for one encrypted
 * stream on one core.
 */
public final class CipherThroughput implements AutoCloseable {
    private final NoiseAead aead;
    private final byte[] buffer;
    private final int messageBytes;
    private final byte[] nonce = new byte[NoiseAead.NONCE_LENGTH];
    private long counter;

    public CipherThroughput(int messageBytes, AeadProvider provider) {
        this.messageBytes = messageBytes;
        byte[] k = new byte[NoiseAead.KEY_LENGTH];
        new SecureRandom().nextBytes(k);
        this.aead = provider.create(k);
        this.buffer = new byte[messageBytes + NoiseAead.TAG_LENGTH];
        new SecureRandom().nextBytes(buffer);
    }

    private byte[] nextNonce() {
        long n = counter++;
        for (int i = 0; i < 8; i++) {
            nonce[4 + i] = (byte) (n >>> (8 * i));
        }
        return nonce;
    }

    /** MiB/s encrypting {@code totalBytes} in messages of the configured size. */
    public double encrypt(long totalBytes) {
        long messages = Math.max(1, totalBytes / messageBytes);
        long start = System.nanoTime();
        for (long m = 0; m < messages; m++) {
            aead.startSeal(nextNonce(), null);
            aead.sealUpdate(buffer, 0, messageBytes, buffer, 0);
            aead.finishSeal(buffer, messageBytes);
        }
        return mibPerSecond(messages * messageBytes, System.nanoTime() - start);
    }

    /** MiB/s decrypting (and authenticating) {@code totalBytes} in messages of the configured size. */
    public double decrypt(long totalBytes) {
        long messages = Math.max(1, totalBytes / messageBytes);
        byte[] sealedNonce = nextNonce().clone();
        byte[] sealed = new byte[messageBytes + NoiseAead.TAG_LENGTH];
        aead.startSeal(sealedNonce, null);
        aead.sealUpdate(buffer, 0, messageBytes, sealed, 0);
        aead.finishSeal(sealed, messageBytes);
        byte[] plain = new byte[messageBytes];
        long start = System.nanoTime();
        for (long m = 0; m < messages; m++) {
            // The same sealed message each time: decryption may repeat a nonce, encryption may not.
            aead.open(sealedNonce, null, sealed, 0, sealed.length, plain, 0);
        }
        return mibPerSecond(messages * messageBytes, System.nanoTime() - start);
    }

    static double mibPerSecond(long bytes, long nanos) {
        return bytes / (1024.0 * 1024.0) / Math.max(1e-9, nanos / 1e9);
    }

    @Override
    public void close() {
        aead.close();
    }
}
