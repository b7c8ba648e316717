package dev.chorus.node.protocol;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Bounds on everything a remote peer controls in the model exchange. Validated once when built, immutable.
 *
 * @param maxParameters the largest parameter count accepted in a header (default 2^24, a 64 MiB float32 model)
 * @param maxChunkValues the most values in one body chunk (default 16384: 64 KiB of float32)
 * @param maxControlFrameBytes the largest payload of a PULL, PARAMS, FRAGMENT, ACK or ERROR frame (default 1024)
 * @param maxConcurrentPerPeer exchanges in progress with one peer, each direction (default 2)
 * @param maxInboundStreamsPerConnection inbound protocol streams per connection, enforced by the host (default 4)
 * @param maxQueuedUpdates received updates waiting for the next step boundary (default 16); more are refused BUSY
 * @param exchangeTimeout the longest one exchange may take, either side (default 30 s)
 */
public record ExchangeLimits(
        int maxParameters,
        int maxChunkValues,
        int maxControlFrameBytes,
        int maxConcurrentPerPeer,
        int maxInboundStreamsPerConnection,
        int maxQueuedUpdates,
        Duration exchangeTimeout) {

    /** The ceiling of {@link #maxChunkValues()}: a chunk frame stays under 8 MiB even with explicit indices. */
    public static final int CHUNK_VALUES_CEILING = 1 << 20;

    public ExchangeLimits {
        requireRange("maxParameters", maxParameters, 1, Integer.MAX_VALUE / 8);
        requireRange("maxChunkValues", maxChunkValues, 1, CHUNK_VALUES_CEILING);
        requireRange("maxControlFrameBytes", maxControlFrameBytes, 256, 1 << 16);
        requireRange("maxConcurrentPerPeer", maxConcurrentPerPeer, 1, 1024);
        requireRange("maxInboundStreamsPerConnection", maxInboundStreamsPerConnection, 1, 256);
        requireRange("maxQueuedUpdates", maxQueuedUpdates, 1, 1 << 16);
        Objects.requireNonNull(exchangeTimeout, "exchangeTimeout");
        if (exchangeTimeout.isNegative() || exchangeTimeout.isZero()) {
            throw new IllegalArgumentException("exchangeTimeout must be positive, got " + exchangeTimeout);
        }
    }

    public static ExchangeLimits defaults() {
        return new ExchangeLimits(1 << 24, 16384, 1024, 2, 4, 16, Duration.ofSeconds(30));
    }

    public ExchangeLimits withMaxParameters(int n) {
        return edit(c -> c.maxParameters = n);
    }

    public ExchangeLimits withMaxChunkValues(int n) {
        return edit(c -> c.maxChunkValues = n);
    }

    public ExchangeLimits withMaxConcurrentPerPeer(int n) {
        return edit(c -> c.maxConcurrentPerPeer = n);
    }

    public ExchangeLimits withMaxQueuedUpdates(int n) {
        return edit(c -> c.maxQueuedUpdates = n);
    }

    public ExchangeLimits withExchangeTimeout(Duration timeout) {
        return edit(c -> c.exchangeTimeout = timeout);
    }

    /** These limits with {@code change} applied to a copy of their components, validated again. */
    private ExchangeLimits edit(Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /** The components of these limits, to change in place; the one place that calls the canonical constructor. */
    private final class Copy {
        int maxParameters = maxParameters();
        int maxChunkValues = maxChunkValues();
        int maxControlFrameBytes = maxControlFrameBytes();
        int maxConcurrentPerPeer = maxConcurrentPerPeer();
        int maxInboundStreamsPerConnection = maxInboundStreamsPerConnection();
        int maxQueuedUpdates = maxQueuedUpdates();
        Duration exchangeTimeout = exchangeTimeout();

        ExchangeLimits build() {
            return new ExchangeLimits(
                    maxParameters,
                    maxChunkValues,
                    maxControlFrameBytes,
                    maxConcurrentPerPeer,
                    maxInboundStreamsPerConnection,
                    maxQueuedUpdates,
                    exchangeTimeout);
        }
    }

    /** The largest CHUNK payload: index, count, int8 scale, explicit indices and float32 values. */
    public int maxChunkFrameBytes() {
        return 12 + maxChunkValues * 8;
    }

    private static void requireRange(String name, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must lie in [" + min + ", " + max + "], got " + v);
        }
    }
}
