package dev.chorus.gossip.core;

import dev.chorus.gossip.identity.PeerId;
import java.util.concurrent.CompletableFuture;

/**
 * One multiplexed stream to a peer, after protocol negotiation. All methods may be called from any
 * thread; returned futures complete on the connection's I/O thread, so callbacks must not block.
 *
 * <p>Backpressure: a write's future completes once its bytes are handed to the connection, which
 * happens only as the remote grants window and the socket drains; await it before the next write.
 * Reads grant the remote more window only as data is consumed, so an unread stream stalls its sender
 * rather than growing memory.
 */
public interface Stream {
    /** Returned by {@link #read()} at the end of the stream (the remote closed its write side). */
    byte[] EOF = new byte[0];

    PeerId remotePeer();

    /** The negotiated protocol id. */
    String protocol();

    /** True when this side opened the stream. */
    boolean isInitiator();

    /**
     * Queues {@code data} for sending; the array must not change until the future completes. Fails if
     * the write side is closed or the stream was reset.
     */
    CompletableFuture<Void> write(byte[] data);

    /** The next chunk of received bytes (never empty), or {@link #EOF}. One read may be pending at a time. */
    CompletableFuture<byte[]> read();

    /** Exactly {@code n} bytes; fails with {@link java.io.EOFException} if the stream ends first. */
    CompletableFuture<byte[]> readExactly(int n);

    /**
     * Everything until the remote closes its write side; fails with {@link StreamLimitExceededException}
     * (and resets the stream) if more than {@code maxBytes} arrive.
     */
    CompletableFuture<byte[]> readToEnd(int maxBytes);

    /** Half-closes: sends FIN after all queued writes. Reading stays possible. */
    CompletableFuture<Void> closeWrite();

    /** Aborts the stream in both directions. */
    void reset();

    /** Completes when the stream is fully closed (both FINs) or reset. */
    CompletableFuture<Void> closeFuture();
}
