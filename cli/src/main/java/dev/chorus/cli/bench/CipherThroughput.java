package dev.chorus.cli.bench;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The JDK's ChaCha20-Poly1305 alone, on heap arrays in place, one message per buffer with a fresh
 * nonce each (as Noise transport messages are): the ceiling for one encrypted stream on one core.
 */
public final class CipherThroughput {
    private final Cipher cipher;
    private final SecretKeySpec key;
    private final byte[] buffer;
    private final int messageBytes;
    private final byte[] iv = new byte[12];
    private long nonce;

    public CipherThroughput(int messageBytes) {
        this.messageBytes = messageBytes;
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        this.key = new SecretKeySpec(k, "ChaCha20");
        this.buffer = new byte[messageBytes + 16];
        new SecureRandom().nextBytes(buffer);
        try {
            cipher = Cipher.getInstance("ChaCha20-Poly1305");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks ChaCha20-Poly1305", e);
        }
    }

    private IvParameterSpec nextIv() {
        long n = nonce++;
        for (int i = 0; i < 8; i++) {
            iv[4 + i] = (byte) (n >>> (8 * i));
        }
        return new IvParameterSpec(iv);
    }

    /** MiB/s encrypting {@code totalBytes} in messages of the configured size. */
    public double encrypt(long totalBytes) throws GeneralSecurityException {
        long messages = Math.max(1, totalBytes / messageBytes);
        long start = System.nanoTime();
        for (long m = 0; m < messages; m++) {
            cipher.init(Cipher.ENCRYPT_MODE, key, nextIv());
            cipher.doFinal(buffer, 0, messageBytes, buffer, 0);
        }
        return mibPerSecond(messages * messageBytes, System.nanoTime() - start);
    }

    /** MiB/s decrypting (and authenticating) {@code totalBytes} in messages of the configured size. */
    public double decrypt(long totalBytes) throws GeneralSecurityException {
        long messages = Math.max(1, totalBytes / messageBytes);
        byte[] sealed = new byte[messageBytes + 16];
        byte[] plain = new byte[messageBytes];
        long first = nonce;
        cipher.init(Cipher.ENCRYPT_MODE, key, nextIv());
        cipher.doFinal(buffer, 0, messageBytes, sealed, 0);
        IvParameterSpec spec = ivFor(first);
        long start = System.nanoTime();
        for (long m = 0; m < messages; m++) {
            // The same sealed message each time: decryption may repeat a nonce, encryption may not.
            cipher.init(Cipher.DECRYPT_MODE, key, spec);
            cipher.doFinal(sealed, 0, sealed.length, plain, 0);
        }
        return mibPerSecond(messages * messageBytes, System.nanoTime() - start);
    }

    private static IvParameterSpec ivFor(long n) {
        byte[] v = new byte[12];
        for (int i = 0; i < 8; i++) {
            v[4 + i] = (byte) (n >>> (8 * i));
        }
        return new IvParameterSpec(v);
    }

    static double mibPerSecond(long bytes, long nanos) {
        return bytes / (1024.0 * 1024.0) / Math.max(1e-9, nanos / 1e9);
    }
}
