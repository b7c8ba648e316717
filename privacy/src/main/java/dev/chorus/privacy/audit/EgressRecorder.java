package dev.chorus.privacy.audit;

import java.nio.ByteBuffer;

/**
 * Where sending code reports what it sends. A payload is one protocol message as the peer sees it (a model body
 * made of a header frame and many chunk frames is one payload): {@link #begin} it, feed it the bytes exactly as they
 * are handed to the transport, and {@link Payload#finish} it. {@link #NONE} records nothing and costs nothing, for
 * tests and in-process simulations.
 *
 * <p>Implementations are thread-safe; one {@link Payload} is fed by one thread at a time (callers that hop threads
 * between writes, as future chains do, provide the happens-before edge).
 */
public interface EgressRecorder {

    /** The version of a payload that carries no model version (a request, an ack, an error frame). */
    long NO_VERSION = -1;

    /** Records nothing. */
    EgressRecorder NONE = (peer, protocol, kind, version) -> Payload.NONE;

    /**
     * Starts one outbound payload.
     *
     * @param peer the remote peer's id (base58)
     * @param protocol the protocol id, e.g. {@code /chorus/model/1.0.0}
     * @param kind what the payload is: {@code model-body}, {@code fragment}, {@code announcement},
     *     {@code error-frame}, ...
     * @param version the model version it carries, or {@link #NO_VERSION}
     */
    Payload begin(String peer, String protocol, String kind, long version);

    /** Records a payload sent as one buffer. */
    default void record(String peer, String protocol, String kind, byte[] bytes, long version) {
        Payload p = begin(peer, protocol, kind, version);
        p.update(bytes, 0, bytes.length);
        p.finish();
    }

    /** Records the remaining bytes of {@code bytes} without moving its position. */
    default void record(String peer, String protocol, String kind, ByteBuffer bytes, long version) {
        Payload p = begin(peer, protocol, kind, version);
        p.update(bytes.duplicate());
        p.finish();
    }

    /** One payload being sent. */
    interface Payload {

        /** Ignores everything. */
        Payload NONE = new Payload() {
            @Override
            public void update(byte[] bytes, int offset, int length) {}

            @Override
            public void update(ByteBuffer bytes) {}

            @Override
            public void finish() {}
        };

        /** Bytes handed to the transport, in order. */
        void update(byte[] bytes, int offset, int length);

        default void update(byte[] bytes) {
            update(bytes, 0, bytes.length);
        }

        /** The remaining bytes of {@code bytes}; its position moves to its limit. */
        void update(ByteBuffer bytes);

        /** Ends the payload and records it (with the bytes fed so far, if sending stopped early). Idempotent. */
        void finish();
    }
}
