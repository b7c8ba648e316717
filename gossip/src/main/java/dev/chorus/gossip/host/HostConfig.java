package dev.chorus.gossip.host;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.yamux.YamuxConfig;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Host settings, validated on construction and immutable. Start from {@link #defaults(PrivateKey)}
 * and change fields with the {@code with*} methods.
 *
 * @param identity the node's identity key
 * @param listenAddrs TCP multiaddrs to listen on (port 0 picks a free port); empty: dial only
 * @param agentVersion sent in identify
 * @param ioThreads event loop threads
 * @param preferEpoll use the native epoll transport when it loads
 * @param dialTimeout TCP connect timeout
 * @param upgradeTimeout time allowed from TCP connect to a ready yamux session
 * @param streamNegotiationTimeout time allowed for multistream-select on a new stream
 * @param maxConnections total connections (inbound, outbound and upgrading)
 * @param maxConnectionsPerPeer connections to one peer
 * @param maxConnectionsPerIp inbound connections from one IP address
 * @param idleTimeout a connection without streams for this long is closed (zero: never)
 * @param gracePeriod how long a graceful close waits for open streams to finish
 * @param dialBackoffBase first backoff after a failed dial, doubling per further failure
 * @param dialBackoffMax the longest backoff
 * @param inlineMuxers offer the muxer inside the Noise handshake (js does); else negotiate it after
 * @param yamux muxer limits
 * @param bandwidthLimit bytes per second that the host's connections together may send, and receive, on the wire
 *     (0: unlimited); it emulates a slow link, e.g. for a testnet
 */
public record HostConfig(
        PrivateKey identity,
        List<Multiaddr> listenAddrs,
        String agentVersion,
        int ioThreads,
        boolean preferEpoll,
        Duration dialTimeout,
        Duration upgradeTimeout,
        Duration streamNegotiationTimeout,
        int maxConnections,
        int maxConnectionsPerPeer,
        int maxConnectionsPerIp,
        Duration idleTimeout,
        Duration gracePeriod,
        Duration dialBackoffBase,
        Duration dialBackoffMax,
        boolean inlineMuxers,
        YamuxConfig yamux,
        long bandwidthLimit) {

    public HostConfig {
        Objects.requireNonNull(identity, "identity");
        listenAddrs = List.copyOf(listenAddrs);
        Objects.requireNonNull(agentVersion, "agentVersion");
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads must be at least 1");
        }
        if (maxConnections < 1 || maxConnectionsPerPeer < 1 || maxConnectionsPerIp < 1) {
            throw new IllegalArgumentException("connection limits must be positive");
        }
        for (Duration d : List.of(
                dialTimeout,
                upgradeTimeout,
                streamNegotiationTimeout,
                idleTimeout,
                gracePeriod,
                dialBackoffBase,
                dialBackoffMax)) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("durations must not be negative");
            }
        }
        Objects.requireNonNull(yamux, "yamux");
        if (bandwidthLimit < 0) {
            throw new IllegalArgumentException("bandwidthLimit must not be negative");
        }
    }

    public static HostConfig defaults(PrivateKey identity) {
        return new HostConfig(
                identity,
                List.of(),
                "chorus/0.1.0",
                2,
                true,
                Duration.ofSeconds(10),
                Duration.ofSeconds(15),
                Duration.ofSeconds(10),
                256,
                2,
                16,
                Duration.ofMinutes(5),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                Duration.ofMinutes(5),
                true,
                YamuxConfig.defaults(),
                0);
    }

    public HostConfig withListenAddrs(List<Multiaddr> addrs) {
        return edit(c -> c.listenAddrs = addrs);
    }

    public HostConfig withAgentVersion(String agent) {
        return edit(c -> c.agentVersion = agent);
    }

    public HostConfig withConnectionLimits(int total, int perPeer, int perIp) {
        return edit(c -> {
            c.maxConnections = total;
            c.maxConnectionsPerPeer = perPeer;
            c.maxConnectionsPerIp = perIp;
        });
    }

    public HostConfig withIdleTimeout(Duration idle) {
        return edit(c -> c.idleTimeout = idle);
    }

    public HostConfig withDialBackoff(Duration base, Duration max) {
        return edit(c -> {
            c.dialBackoffBase = base;
            c.dialBackoffMax = max;
        });
    }

    public HostConfig withInlineMuxers(boolean inline) {
        return edit(c -> c.inlineMuxers = inline);
    }

    public HostConfig withTimeouts(Duration dial, Duration upgrade, Duration negotiation) {
        return edit(c -> {
            c.dialTimeout = dial;
            c.upgradeTimeout = upgrade;
            c.streamNegotiationTimeout = negotiation;
        });
    }

    public HostConfig withYamux(YamuxConfig y) {
        return edit(c -> c.yamux = y);
    }

    public HostConfig withGracePeriod(Duration grace) {
        return edit(c -> c.gracePeriod = grace);
    }

    public HostConfig withIoThreads(int threads) {
        return edit(c -> c.ioThreads = threads);
    }

    public HostConfig withPreferEpoll(boolean epoll) {
        return edit(c -> c.preferEpoll = epoll);
    }

    /** Limits the bytes per second sent and received by all of the host's connections together (0: none). */
    public HostConfig withBandwidthLimit(long bytesPerSecond) {
        return edit(c -> c.bandwidthLimit = bytesPerSecond);
    }

    /** This config with {@code change} applied to a copy of its components, validated again. */
    private HostConfig edit(Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /** The components of this config, to change in place; the one place that calls the canonical constructor. */
    private final class Copy {
        PrivateKey identity = identity();
        List<Multiaddr> listenAddrs = listenAddrs();
        String agentVersion = agentVersion();
        int ioThreads = ioThreads();
        boolean preferEpoll = preferEpoll();
        Duration dialTimeout = dialTimeout();
        Duration upgradeTimeout = upgradeTimeout();
        Duration streamNegotiationTimeout = streamNegotiationTimeout();
        int maxConnections = maxConnections();
        int maxConnectionsPerPeer = maxConnectionsPerPeer();
        int maxConnectionsPerIp = maxConnectionsPerIp();
        Duration idleTimeout = idleTimeout();
        Duration gracePeriod = gracePeriod();
        Duration dialBackoffBase = dialBackoffBase();
        Duration dialBackoffMax = dialBackoffMax();
        boolean inlineMuxers = inlineMuxers();
        YamuxConfig yamux = yamux();
        long bandwidthLimit = bandwidthLimit();

        HostConfig build() {
            return new HostConfig(
                    identity,
                    listenAddrs,
                    agentVersion,
                    ioThreads,
                    preferEpoll,
                    dialTimeout,
                    upgradeTimeout,
                    streamNegotiationTimeout,
                    maxConnections,
                    maxConnectionsPerPeer,
                    maxConnectionsPerIp,
                    idleTimeout,
                    gracePeriod,
                    dialBackoffBase,
                    dialBackoffMax,
                    inlineMuxers,
                    yamux,
                    bandwidthLimit);
        }
    }
}
