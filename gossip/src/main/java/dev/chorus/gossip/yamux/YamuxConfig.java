package dev.chorus.gossip.yamux;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * Yamux limits and defaults, validated once.
 *
 * @param initialWindow the receive window this side grants each stream at open, at least the spec's
 *     256 KiB; the excess goes out as the delta of the Window Update that carries SYN or ACK (both
 *     sides always start sending with 256 KiB, as the spec says). Falls back to 256 KiB for a stream
 *     when the session budget is used up
 * @param maxStreamWindow the most a stream's receive window may grow to (js and go: 16 MiB)
 * @param maxSessionReceiveWindow bound on the sum of all streams' receive windows, so many fast
 *     streams cannot together commit more memory than this
 * @param maxInboundStreams open streams the remote may have at once; more are refused with RST
 * @param maxOutboundStreams open streams this side may have at once
 * @param maxAckBacklog outbound streams that may await the remote's ACK (spec: 256)
 * @param maxRefusedStreams refused stream openings tolerated per {@code refusalWindow} before the
 *     session is closed as a flood
 * @param maxFrameData largest Data payload this side writes; 65507 makes header plus payload exactly one
 *     full Noise frame
 * @param keepAliveInterval interval of keep-alive pings (zero disables); an unanswered one closes the
 *     session at the next interval
 */
public record YamuxConfig(
        int initialWindow,
        int maxStreamWindow,
        long maxSessionReceiveWindow,
        int maxInboundStreams,
        int maxOutboundStreams,
        int maxAckBacklog,
        int maxRefusedStreams,
        Duration refusalWindow,
        int maxFrameData,
        Duration keepAliveInterval) {

    public static final int SPEC_INITIAL_WINDOW = 256 * 1024;

    public YamuxConfig {
        if (initialWindow < SPEC_INITIAL_WINDOW) {
            throw new IllegalArgumentException("initialWindow below the spec's 256 KiB");
        }
        if (maxStreamWindow < initialWindow) {
            throw new IllegalArgumentException("maxStreamWindow below initialWindow");
        }
        if (maxSessionReceiveWindow < maxStreamWindow) {
            throw new IllegalArgumentException("maxSessionReceiveWindow below maxStreamWindow");
        }
        if (maxInboundStreams < 1 || maxOutboundStreams < 1 || maxAckBacklog < 1 || maxRefusedStreams < 0) {
            throw new IllegalArgumentException("stream limits must be positive");
        }
        if (maxFrameData < 1 || maxFrameData > 16 * 1024 * 1024) {
            throw new IllegalArgumentException("maxFrameData out of range");
        }
    }

    public static YamuxConfig defaults() {
        return new YamuxConfig(
                1024 * 1024,
                16 * 1024 * 1024,
                64L * 1024 * 1024,
                256,
                1024,
                256,
                1024,
                Duration.ofSeconds(10),
                65535 - 16 - YamuxFrame.HEADER_LENGTH,
                Duration.ofSeconds(30));
    }

    public YamuxConfig withInitialWindow(int w) {
        return edit(c -> {
            c.initialWindow = w;
            c.maxStreamWindow = Math.max(c.maxStreamWindow, w);
            c.maxSessionReceiveWindow = Math.max(c.maxSessionReceiveWindow, w);
        });
    }

    public YamuxConfig withMaxInboundStreams(int n) {
        return edit(c -> c.maxInboundStreams = n);
    }

    public YamuxConfig withKeepAliveInterval(Duration d) {
        return edit(c -> c.keepAliveInterval = d);
    }

    public YamuxConfig withMaxStreamWindow(int w) {
        return edit(c -> {
            c.maxStreamWindow = w;
            c.maxSessionReceiveWindow = Math.max(c.maxSessionReceiveWindow, w);
        });
    }

    public YamuxConfig withMaxRefusedStreams(int n) {
        return edit(c -> c.maxRefusedStreams = n);
    }

    /** This config with {@code change} applied to a copy of its components, validated again. */
    private YamuxConfig edit(Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /** The components of this config, to change in place; the one place that calls the canonical constructor. */
    private final class Copy {
        int initialWindow = initialWindow();
        int maxStreamWindow = maxStreamWindow();
        long maxSessionReceiveWindow = maxSessionReceiveWindow();
        int maxInboundStreams = maxInboundStreams();
        int maxOutboundStreams = maxOutboundStreams();
        int maxAckBacklog = maxAckBacklog();
        int maxRefusedStreams = maxRefusedStreams();
        Duration refusalWindow = refusalWindow();
        int maxFrameData = maxFrameData();
        Duration keepAliveInterval = keepAliveInterval();

        YamuxConfig build() {
            return new YamuxConfig(
                    initialWindow,
                    maxStreamWindow,
                    maxSessionReceiveWindow,
                    maxInboundStreams,
                    maxOutboundStreams,
                    maxAckBacklog,
                    maxRefusedStreams,
                    refusalWindow,
                    maxFrameData,
                    keepAliveInterval);
        }
    }
}
