package dev.chorus.cli.bench;

import java.nio.ByteBuffer;

/**
 * Two gossipsub nodes on loopback, one publishing on {@link #TOPIC} and the other answering each message on {@link
 * #REPLY_TOPIC}: the pair the pubsub benchmark times, in Java ({@link JavaGossipsubPair}) and in js-libp2p ({@link
 * JsGossipsubPair}) alike.
 *
 * <p>A message is a kind byte ({@link #ECHO}: the answer is the whole message; {@link #ACK}: its first {@link
 * #HEAD_BYTES} bytes; {@link #QUIET}: no answer), an 8-byte big-endian sequence number, then the payload. Both implementations use the same
 * layout, so either could answer the other.
 */
public interface GossipsubPair extends AutoCloseable {
    String TOPIC = "chorus/bench/ping";
    String REPLY_TOPIC = "chorus/bench/pong";
    byte ECHO = 0;
    byte ACK = 1;
    byte QUIET = 2;
    int HEAD_BYTES = 9;

    /** The round trip, in microseconds, of each of {@code count} messages of {@code size} bytes, sent one at a time. */
    double[] roundTrips(int count, int size) throws Exception;

    /**
     * Seconds from the first of {@code count} messages of {@code size} bytes to the last one's acknowledgement. Every
     * {@code ackEvery}-th message, and the last, is acknowledged; one stream carries a peer's messages in order, so an
     * acknowledgement covers the messages before it, and at most {@code window} are sent past the last one covered
     * (gossipsub has no flow control of its own: a publisher that outruns its peer fills a queue that then drops).
     */
    double flood(int count, int size, int window, int ackEvery) throws Exception;

    @Override
    void close() throws Exception;

    /** The sequence number of a benchmark message or its answer. */
    static long sequence(byte[] data) {
        return ByteBuffer.wrap(data, 1, 8).getLong();
    }

    /** The answer to a benchmark message, or null when it wants none. */
    static byte[] answer(byte[] message) {
        return switch (message[0]) {
            case ECHO -> message;
            case ACK -> java.util.Arrays.copyOf(message, HEAD_BYTES);
            default -> null;
        };
    }
}
