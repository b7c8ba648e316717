package dev.chorus.gossip.yamux;

import static dev.chorus.gossip.yamux.YamuxFrame.*;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamLimitExceededException;
import dev.chorus.gossip.core.StreamResetException;
import dev.chorus.gossip.identity.PeerId;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * One yamux stream. State lives on the session's event loop; the {@link Stream} methods hop onto it.
 *
 * <p>Receive side: the remote may send up to {@code receiveWindow} more bytes. Consumed bytes are
 * granted back with a Window Update once half the window is free; if that happens within four RTTs of
 * the previous update, the window doubles (up to {@code maxStreamWindow} and within the session's
 * budget), which is how go-yamux and js-yamux tune throughput. Send side: Data frames never exceed the
 * remote's window, and nothing is written while the channel is not writable.
 */
public final class YamuxStream implements Stream {
    private final YamuxSession session;
    private final int id;
    private final boolean initiator;
    private String protocol;

    // receive side
    private long receiveWindow;
    private long receiveWindowMax;
    private long buffered;
    private final ArrayDeque<byte[]> received = new ArrayDeque<>();
    /** Bytes of {@code received}'s first chunk already read: a partial read moves this instead of copying the rest. */
    private int headOffset;

    private long lastUpdateAt;
    private ReadRequest pendingRead;
    private boolean remoteFin;

    // send side
    private long sendWindow;
    private final ArrayDeque<PendingWrite> writes = new ArrayDeque<>();
    private boolean localFinQueued;
    private boolean localFinSent;
    private boolean acked;

    private boolean reset;
    private StreamResetException resetCause;
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();

    private static final class PendingWrite {
        final byte[] data; // null: the FIN marker
        int offset;
        final CompletableFuture<Void> done;

        PendingWrite(byte[] data, CompletableFuture<Void> done) {
            this.data = data;
            this.done = done;
        }
    }

    private enum ReadMode {
        CHUNK,
        EXACT,
        TO_END
    }

    private static final class ReadRequest {
        final ReadMode mode;
        final int limit;
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        final Accumulator acc = new Accumulator();

        ReadRequest(ReadMode mode, int limit) {
            this.mode = mode;
            this.limit = limit;
        }
    }

    /**
     * The bytes a read has taken so far, as the received chunks themselves: a whole chunk is kept, not copied, so a
     * read that one chunk satisfies returns that chunk, and any other is assembled with one copy at the end. Memory
     * grows with what arrived, never with what a read asked for.
     */
    private static final class Accumulator {
        private final ArrayList<byte[]> parts = new ArrayList<>(2);
        private int size;

        void add(byte[] chunk, int offset, int length) {
            parts.add(
                    offset == 0 && length == chunk.length ? chunk : Arrays.copyOfRange(chunk, offset, offset + length));
            size += length;
        }

        int size() {
            return size;
        }

        byte[] toByteArray() {
            if (parts.size() == 1) {
                return parts.getFirst();
            }
            byte[] out = new byte[size];
            int at = 0;
            for (byte[] part : parts) {
                System.arraycopy(part, 0, out, at, part.length);
                at += part.length;
            }
            return out;
        }
    }

    YamuxStream(YamuxSession session, int id, boolean initiator, int initialReceiveWindow) {
        this.session = session;
        this.id = id;
        this.initiator = initiator;
        this.receiveWindow = initialReceiveWindow;
        this.receiveWindowMax = initialReceiveWindow;
        this.sendWindow = YamuxConfig.SPEC_INITIAL_WINDOW;
        this.lastUpdateAt = session.nanoTime();
    }

    public int id() {
        return id;
    }

    @Override
    public boolean isInitiator() {
        return initiator;
    }

    @Override
    public PeerId remotePeer() {
        return session.remotePeer();
    }

    @Override
    public String protocol() {
        return protocol;
    }

    public void setProtocol(String protocol) {
        this.protocol = protocol;
    }

    boolean acked() {
        return acked;
    }

    long receiveWindow() {
        return receiveWindow;
    }

    long receiveWindowMax() {
        return receiveWindowMax;
    }

    /** Bytes received and not yet read. */
    long buffered() {
        return buffered;
    }

    long sendWindow() {
        return sendWindow;
    }

    // ---------------------------------------------------------------- Stream API

    @Override
    public CompletableFuture<Void> write(byte[] data) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        session.execute(() -> {
            if (reset) {
                f.completeExceptionally(resetCause);
            } else if (localFinQueued) {
                f.completeExceptionally(new IOException("write side of stream " + id + " is closed"));
            } else if (data.length == 0) {
                f.complete(null);
            } else {
                writes.addLast(new PendingWrite(data, f));
                drain();
                session.flush();
            }
        });
        return f;
    }

    @Override
    public CompletableFuture<Void> closeWrite() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        session.execute(() -> {
            if (reset) {
                f.completeExceptionally(resetCause);
            } else if (localFinQueued) {
                f.complete(null);
            } else {
                localFinQueued = true;
                writes.addLast(new PendingWrite(null, f));
                drain();
                session.flush();
            }
        });
        return f;
    }

    @Override
    public CompletableFuture<byte[]> read() {
        return request(ReadMode.CHUNK, 0);
    }

    @Override
    public CompletableFuture<byte[]> readExactly(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative length");
        }
        return request(ReadMode.EXACT, n);
    }

    @Override
    public CompletableFuture<byte[]> readToEnd(int maxBytes) {
        return request(ReadMode.TO_END, maxBytes);
    }

    private CompletableFuture<byte[]> request(ReadMode mode, int limit) {
        ReadRequest r = new ReadRequest(mode, limit);
        session.execute(() -> {
            if (pendingRead != null) {
                r.result.completeExceptionally(new IllegalStateException("a read is already pending on stream " + id));
                return;
            }
            if (reset) {
                r.result.completeExceptionally(resetCause);
                return;
            }
            pendingRead = r;
            serveRead();
            session.flush();
        });
        return r.result;
    }

    @Override
    public void reset() {
        session.execute(() -> {
            if (!reset && !closeFuture.isDone()) {
                session.writeFrame(TYPE_WINDOW_UPDATE, FLAG_RST, id, 0);
                session.flush();
                terminate(new StreamResetException("stream " + id + " was reset locally"));
            }
        });
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closeFuture;
    }

    /** Puts bytes back at the front of the receive queue (bytes read past a protocol negotiation). */
    public void unread(byte[] data) {
        session.execute(() -> {
            if (data.length > 0) {
                materializeHead();
                received.addFirst(data);
                buffered += data.length;
                serveRead();
            }
        });
    }

    // ---------------------------------------------------------------- session callbacks

    void onAck() {
        acked = true;
    }

    void onData(byte[] data) {
        receiveWindow -= data.length;
        if (reset || data.length == 0) {
            return;
        }
        if (remoteFin) {
            // Data after the remote's FIN breaks the stream's contract; abort it, not the session.
            reset();
            return;
        }
        received.addLast(data);
        buffered += data.length;
        serveRead();
    }

    void onWindowUpdate(long delta) {
        sendWindow += delta;
        drain();
    }

    void onRemoteFin() {
        remoteFin = true;
        serveRead();
        maybeClosed();
    }

    void onRemoteReset() {
        terminate(new StreamResetException("stream " + id + " was reset by " + session.remotePeer()));
    }

    void onSessionClosed(StreamResetException e) {
        terminate(e);
    }

    // ---------------------------------------------------------------- internals

    /** Sends queued writes as far as the remote window and channel writability allow. */
    void drain() {
        while (!writes.isEmpty() && !reset) {
            PendingWrite w = writes.peekFirst();
            if (w.data == null) {
                writes.removeFirst();
                session.writeFrame(TYPE_WINDOW_UPDATE, FLAG_FIN, id, 0);
                localFinSent = true;
                w.done.complete(null);
                maybeClosed();
                return;
            }
            if (sendWindow <= 0) {
                return; // wait for a Window Update
            }
            if (!session.isWritable()) {
                session.waitForWritability(this);
                return;
            }
            int n = (int) Math.min(
                    Math.min(w.data.length - w.offset, sendWindow),
                    session.config().maxFrameData());
            session.writeData(0, id, w.data, w.offset, n);
            w.offset += n;
            sendWindow -= n;
            if (w.offset == w.data.length) {
                writes.removeFirst();
                w.done.complete(null);
            }
        }
    }

    private void serveRead() {
        ReadRequest r = pendingRead;
        if (r == null) {
            return;
        }
        if (reset) {
            return; // terminate() failed it
        }
        switch (r.mode) {
            case CHUNK -> {
                if (!received.isEmpty()) {
                    materializeHead();
                    byte[] chunk = received.pollFirst();
                    consumed(chunk.length);
                    complete(r, chunk);
                } else if (remoteFin) {
                    complete(r, EOF);
                }
            }
            case EXACT -> {
                take(r, r.limit - r.acc.size());
                if (r.acc.size() == r.limit) {
                    complete(r, r.acc.toByteArray());
                } else if (remoteFin) {
                    fail(
                            r,
                            new EOFException(
                                    "stream " + id + " ended after " + r.acc.size() + " of " + r.limit + " bytes"));
                }
            }
            case TO_END -> {
                take(r, Integer.MAX_VALUE);
                if (r.acc.size() > r.limit) {
                    fail(
                            r,
                            new StreamLimitExceededException(
                                    "stream " + id + " sent more than " + r.limit + " bytes", r.limit));
                    reset();
                } else if (remoteFin) {
                    complete(r, r.acc.toByteArray());
                }
            }
        }
    }

    /** Moves up to {@code max} queued bytes into the request's accumulator, consuming them. */
    private void take(ReadRequest r, int max) {
        int taken = 0;
        while (taken < max && !received.isEmpty()) {
            byte[] chunk = received.peekFirst();
            int available = chunk.length - headOffset;
            int n = Math.min(available, max - taken);
            r.acc.add(chunk, headOffset, n);
            if (n == available) {
                received.pollFirst();
                headOffset = 0;
            } else {
                headOffset += n;
            }
            taken += n;
            if (r.mode == ReadMode.TO_END && r.acc.size() > r.limit) {
                break;
            }
        }
        consumed(taken);
    }

    /** Replaces a partly read first chunk with its unread rest, before a whole chunk is handed out or put in front. */
    private void materializeHead() {
        if (headOffset > 0) {
            byte[] head = received.pollFirst();
            received.addFirst(Arrays.copyOfRange(head, headOffset, head.length));
            headOffset = 0;
        }
    }

    private void complete(ReadRequest r, byte[] value) {
        pendingRead = null;
        r.result.complete(value);
    }

    private void fail(ReadRequest r, Throwable t) {
        pendingRead = null;
        r.result.completeExceptionally(t);
    }

    /** Bytes left the receive queue: grant window back once half of it is free, growing it if fast. */
    private void consumed(long n) {
        if (n == 0) {
            return;
        }
        buffered -= n;
        if (remoteFin || reset) {
            return;
        }
        long free = receiveWindowMax - receiveWindow - buffered;
        if (free < receiveWindowMax / 2) {
            return;
        }
        long now = session.nanoTime();
        long rtt = session.rttNanos();
        int maxWindow = session.config().windows().maxStreamWindow();
        if (rtt > 0 && now - lastUpdateAt < 4 * rtt && receiveWindowMax < maxWindow) {
            long grown = Math.min(receiveWindowMax * 2, maxWindow);
            if (session.reserveWindow(grown - receiveWindowMax)) {
                receiveWindowMax = grown;
            }
        }
        lastUpdateAt = now;
        long delta = receiveWindowMax - receiveWindow - buffered;
        if (delta > 0) {
            receiveWindow += delta;
            session.writeFrame(TYPE_WINDOW_UPDATE, 0, id, delta);
        }
    }

    private void maybeClosed() {
        if (localFinSent && remoteFin && !closeFuture.isDone()) {
            session.removeStream(this);
            closeFuture.complete(null);
        }
    }

    private void terminate(StreamResetException e) {
        if (reset) {
            return;
        }
        reset = true;
        resetCause = e;
        session.removeStream(this);
        if (pendingRead != null) {
            fail(pendingRead, e);
        }
        for (PendingWrite w : writes) {
            w.done.completeExceptionally(e);
        }
        writes.clear();
        received.clear();
        headOffset = 0;
        buffered = 0;
        closeFuture.complete(null);
    }

    @Override
    public String toString() {
        return "YamuxStream(" + id + ", " + session.remotePeer() + ", " + protocol + ")";
    }
}
