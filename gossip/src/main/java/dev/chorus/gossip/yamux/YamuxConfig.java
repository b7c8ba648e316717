package dev.chorus.gossip.yamux;

import java.time.Duration;
import java.util.Objects;

/**
 * Yamux limits and defaults, validated once. The settings come in groups, each validated on its own: the receive
 * windows of flow control and the limits on streams.
 *
 * @param windows how much data this side lets the remote send before it must wait
 * @param streams how many streams may be open or opening, and how many refusals make a flood
 * @param maxFrameData largest Data payload this side writes; 65507 makes header plus payload exactly one
 *     full Noise frame
 * @param keepAliveInterval interval of keep-alive pings (zero disables); an unanswered one closes the
 *     session at the next interval
 */
public record YamuxConfig(Windows windows, Streams streams, int maxFrameData, Duration keepAliveInterval) {

    public static final int SPEC_INITIAL_WINDOW = 256 * 1024;

    /**
     * Receive windows (the yamux spec's "Flow Control"). Each bound must hold the one before it, so that a stream
     * can always be granted its initial window and the session its largest stream window.
     *
     * @param initialWindow the receive window this side grants each stream at open, at least the spec's
     *     256 KiB; the excess goes out as the delta of the Window Update that carries SYN or ACK (both
     *     sides always start sending with 256 KiB, as the spec says). Falls back to 256 KiB for a stream
     *     when the session budget is used up
     * @param maxStreamWindow the most a stream's receive window may grow to (js and go: 16 MiB)
     * @param maxSessionReceiveWindow bound on the sum of all streams' receive windows, so many fast
     *     streams cannot together commit more memory than this
     */
    public record Windows(int initialWindow, int maxStreamWindow, long maxSessionReceiveWindow) {
        public Windows {
            if (initialWindow < SPEC_INITIAL_WINDOW) {
                throw new IllegalArgumentException("initialWindow below the spec's 256 KiB");
            }
            if (maxStreamWindow < initialWindow) {
                throw new IllegalArgumentException("maxStreamWindow below initialWindow");
            }
            if (maxSessionReceiveWindow < maxStreamWindow) {
                throw new IllegalArgumentException("maxSessionReceiveWindow below maxStreamWindow");
            }
        }
    }

    /**
     * Limits on streams, which bound the state a remote can make this side hold.
     *
     * @param maxInboundStreams open streams the remote may have at once; more are refused with RST
     * @param maxOutboundStreams open streams this side may have at once
     * @param maxAckBacklog outbound streams that may await the remote's ACK (spec: 256)
     * @param maxRefusedStreams refused stream openings tolerated per {@code refusalWindow} before the
     *     session is closed as a flood
     * @param refusalWindow the period over which refusals are counted
     */
    public record Streams(
            int maxInboundStreams,
            int maxOutboundStreams,
            int maxAckBacklog,
            int maxRefusedStreams,
            Duration refusalWindow) {
        public Streams {
            if (maxInboundStreams < 1 || maxOutboundStreams < 1 || maxAckBacklog < 1 || maxRefusedStreams < 0) {
                throw new IllegalArgumentException("stream limits must be positive");
            }
        }
    }

    public YamuxConfig {
        Objects.requireNonNull(windows, "windows");
        Objects.requireNonNull(streams, "streams");
        if (maxFrameData < 1 || maxFrameData > 16 * 1024 * 1024) {
            throw new IllegalArgumentException("maxFrameData out of range");
        }
    }

    public static YamuxConfig defaults() {
        return new YamuxConfig(
                new Windows(1024 * 1024, 16 * 1024 * 1024, 64L * 1024 * 1024),
                new Streams(256, 1024, 256, 1024, Duration.ofSeconds(10)),
                65535 - 16 - YamuxFrame.HEADER_LENGTH,
                Duration.ofSeconds(30));
    }

    public YamuxConfig withWindows(Windows w) {
        return new YamuxConfig(w, streams, maxFrameData, keepAliveInterval);
    }

    public YamuxConfig withStreams(Streams s) {
        return new YamuxConfig(windows, s, maxFrameData, keepAliveInterval);
    }

    /** Raises the stream and session windows to {@code w} where they are below it. */
    public YamuxConfig withInitialWindow(int w) {
        return withWindows(
                new Windows(w, Math.max(windows.maxStreamWindow(), w), Math.max(windows.maxSessionReceiveWindow(), w)));
    }

    /** Raises the session window to {@code w} where it is below it. */
    public YamuxConfig withMaxStreamWindow(int w) {
        return withWindows(new Windows(windows.initialWindow(), w, Math.max(windows.maxSessionReceiveWindow(), w)));
    }

    public YamuxConfig withMaxInboundStreams(int n) {
        Streams s = streams;
        return withStreams(
                new Streams(n, s.maxOutboundStreams(), s.maxAckBacklog(), s.maxRefusedStreams(), s.refusalWindow()));
    }

    public YamuxConfig withMaxRefusedStreams(int n) {
        Streams s = streams;
        return withStreams(
                new Streams(s.maxInboundStreams(), s.maxOutboundStreams(), s.maxAckBacklog(), n, s.refusalWindow()));
    }

    public YamuxConfig withKeepAliveInterval(Duration d) {
        return new YamuxConfig(windows, streams, maxFrameData, d);
    }
}
