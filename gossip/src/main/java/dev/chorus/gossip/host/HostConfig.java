package dev.chorus.gossip.host;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.noise.NoiseCiphers;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.gossip.yamux.YamuxConfig;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Host settings, validated on construction and immutable. Start from {@link #defaults(PrivateKey)}
 * and change fields with the {@code with*} methods. The settings come in groups along the layers of a connection,
 * each validated on its own: the TCP transport, the upgrade to a secure muxed session, and the management of the
 * host's set of connections.
 *
 * @param identity the node's identity key
 * @param listenAddrs TCP multiaddrs to listen on (port 0 picks a free port); empty: dial only
 * @param agentVersion sent in identify
 * @param transport the TCP transport under every connection
 * @param upgrade how a TCP connection becomes a secure yamux session, and a stream a protocol stream
 * @param connections how many connections the host keeps, and how it closes and redials them
 */
public record HostConfig(
        PrivateKey identity,
        List<Multiaddr> listenAddrs,
        String agentVersion,
        Transport transport,
        Upgrade upgrade,
        Connections connections) {

    /**
     * The TCP transport: its event loops, its connect timeout and the bandwidth all connections share.
     *
     * @param ioThreads event loop threads
     * @param preferEpoll use the native epoll transport when it loads
     * @param dialTimeout TCP connect timeout
     * @param bandwidthLimit bytes per second that the host's connections together may send, and receive, on the
     *     wire (0: unlimited); it emulates a slow link, e.g. for a testnet
     * @param inboundDelay how long every byte a connection receives waits before the host reads it (zero: none); it
     *     emulates a long link, e.g. for a fault experiment where the kernel cannot delay packets (see {@link
     *     InboundDelay})
     */
    public record Transport(
            int ioThreads, boolean preferEpoll, Duration dialTimeout, long bandwidthLimit, Duration inboundDelay) {
        public Transport {
            if (ioThreads < 1) {
                throw new IllegalArgumentException("ioThreads must be at least 1");
            }
            requireNotNegative(dialTimeout);
            if (bandwidthLimit < 0) {
                throw new IllegalArgumentException("bandwidthLimit must not be negative");
            }
            requireNotNegative(inboundDelay);
        }

        /** A transport without an added delay. */
        public Transport(int ioThreads, boolean preferEpoll, Duration dialTimeout, long bandwidthLimit) {
            this(ioThreads, preferEpoll, dialTimeout, bandwidthLimit, Duration.ZERO);
        }
    }

    /**
     * The upgrade of a connection (the private network layer if any, multistream-select to Noise, then to yamux) and
     * the negotiation of each stream.
     *
     * @param upgradeTimeout time allowed from TCP connect to a ready yamux session
     * @param inlineMuxers offer the muxer inside the Noise handshake (js does); else negotiate it after
     * @param yamux muxer limits
     * @param streamNegotiationTimeout time allowed for multistream-select on a new stream
     * @param privateNetwork the pre-shared key every connection is encrypted with below multistream-select
     *     ({@code /key/swarm/psk/1.0.0/}), so that only hosts with the same key get as far as the Noise handshake;
     *     null: a public network (the default)
     * @param crypto how the Noise transport's ChaCha20-Poly1305 is chosen (libcrypto or the JDK's; see {@link
     *     NoiseCiphers}); peers need not agree on it
     * @param lazyNegotiation a new stream to a peer whose identify listed the protocol proposes it and is handed to
     *     the caller at once, so that its first data follows the proposal without waiting a round trip for the
     *     answer (multistream-select's lazy negotiation, as go-libp2p does it); its reads wait for the answer, and a
     *     refusal fails them. Off: every stream waits for the answer before it is handed over
     */
    public record Upgrade(
            Duration upgradeTimeout,
            boolean inlineMuxers,
            YamuxConfig yamux,
            Duration streamNegotiationTimeout,
            PreSharedKey privateNetwork,
            CryptoMode crypto,
            boolean lazyNegotiation) {
        public Upgrade {
            requireNotNegative(upgradeTimeout);
            Objects.requireNonNull(yamux, "yamux");
            requireNotNegative(streamNegotiationTimeout);
            Objects.requireNonNull(crypto, "crypto");
        }

        /** The upgrade with lazy negotiation where the peer listed the protocol. */
        public Upgrade(
                Duration upgradeTimeout,
                boolean inlineMuxers,
                YamuxConfig yamux,
                Duration streamNegotiationTimeout,
                PreSharedKey privateNetwork,
                CryptoMode crypto) {
            this(upgradeTimeout, inlineMuxers, yamux, streamNegotiationTimeout, privateNetwork, crypto, true);
        }

        /** The upgrade with the cipher chosen automatically. */
        public Upgrade(
                Duration upgradeTimeout,
                boolean inlineMuxers,
                YamuxConfig yamux,
                Duration streamNegotiationTimeout,
                PreSharedKey privateNetwork) {
            this(upgradeTimeout, inlineMuxers, yamux, streamNegotiationTimeout, privateNetwork, CryptoMode.AUTO);
        }

        /** The upgrade of a public network. */
        public Upgrade(
                Duration upgradeTimeout, boolean inlineMuxers, YamuxConfig yamux, Duration streamNegotiationTimeout) {
            this(upgradeTimeout, inlineMuxers, yamux, streamNegotiationTimeout, null);
        }
    }

    /**
     * The host's set of connections: limits on it, when an idle connection leaves it, and how soon a peer whose dial
     * failed is dialed again.
     *
     * @param maxConnections total connections (inbound, outbound and upgrading)
     * @param maxConnectionsPerPeer connections to one peer
     * @param maxConnectionsPerIp inbound connections from one IP address
     * @param idleTimeout a connection without streams for this long is closed (zero: never)
     * @param gracePeriod how long a graceful close waits for open streams to finish
     * @param dialBackoffBase first backoff after a failed dial, doubling per further failure
     * @param dialBackoffMax the longest backoff
     */
    public record Connections(
            int maxConnections,
            int maxConnectionsPerPeer,
            int maxConnectionsPerIp,
            Duration idleTimeout,
            Duration gracePeriod,
            Duration dialBackoffBase,
            Duration dialBackoffMax) {
        public Connections {
            if (maxConnections < 1 || maxConnectionsPerPeer < 1 || maxConnectionsPerIp < 1) {
                throw new IllegalArgumentException("connection limits must be positive");
            }
            for (Duration d : List.of(idleTimeout, gracePeriod, dialBackoffBase, dialBackoffMax)) {
                requireNotNegative(d);
            }
        }
    }

    public HostConfig {
        Objects.requireNonNull(identity, "identity");
        listenAddrs = List.copyOf(listenAddrs);
        Objects.requireNonNull(agentVersion, "agentVersion");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(upgrade, "upgrade");
        Objects.requireNonNull(connections, "connections");
    }

    private static void requireNotNegative(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
    }

    public static HostConfig defaults(PrivateKey identity) {
        return new HostConfig(
                identity,
                List.of(),
                "chorus/0.1.0",
                new Transport(2, true, Duration.ofSeconds(10), 0),
                new Upgrade(Duration.ofSeconds(15), true, YamuxConfig.defaults(), Duration.ofSeconds(10)),
                new Connections(
                        256,
                        2,
                        16,
                        Duration.ofMinutes(5),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(1),
                        Duration.ofMinutes(5)));
    }

    /** The shared bandwidth limit in bytes per second (0: none); see {@link Transport#bandwidthLimit()}. */
    public long bandwidthLimit() {
        return transport.bandwidthLimit();
    }

    public HostConfig withListenAddrs(List<Multiaddr> addrs) {
        return new HostConfig(identity, addrs, agentVersion, transport, upgrade, connections);
    }

    public HostConfig withAgentVersion(String agent) {
        return new HostConfig(identity, listenAddrs, agent, transport, upgrade, connections);
    }

    public HostConfig withTransport(Transport t) {
        return new HostConfig(identity, listenAddrs, agentVersion, t, upgrade, connections);
    }

    public HostConfig withUpgrade(Upgrade u) {
        return new HostConfig(identity, listenAddrs, agentVersion, transport, u, connections);
    }

    public HostConfig withConnections(Connections n) {
        return new HostConfig(identity, listenAddrs, agentVersion, transport, upgrade, n);
    }

    public HostConfig withConnectionLimits(int total, int perPeer, int perIp) {
        Connections n = connections;
        return withConnections(new Connections(
                total, perPeer, perIp, n.idleTimeout(), n.gracePeriod(), n.dialBackoffBase(), n.dialBackoffMax()));
    }

    public HostConfig withIdleTimeout(Duration idle) {
        Connections n = connections;
        return withConnections(new Connections(
                n.maxConnections(),
                n.maxConnectionsPerPeer(),
                n.maxConnectionsPerIp(),
                idle,
                n.gracePeriod(),
                n.dialBackoffBase(),
                n.dialBackoffMax()));
    }

    public HostConfig withGracePeriod(Duration grace) {
        Connections n = connections;
        return withConnections(new Connections(
                n.maxConnections(),
                n.maxConnectionsPerPeer(),
                n.maxConnectionsPerIp(),
                n.idleTimeout(),
                grace,
                n.dialBackoffBase(),
                n.dialBackoffMax()));
    }

    public HostConfig withDialBackoff(Duration base, Duration max) {
        Connections n = connections;
        return withConnections(new Connections(
                n.maxConnections(),
                n.maxConnectionsPerPeer(),
                n.maxConnectionsPerIp(),
                n.idleTimeout(),
                n.gracePeriod(),
                base,
                max));
    }

    /** Sets the TCP connect, upgrade and stream negotiation timeouts. */
    public HostConfig withTimeouts(Duration dial, Duration upgrade, Duration negotiation) {
        Transport t = transport;
        Upgrade u = this.upgrade;
        return new HostConfig(
                identity,
                listenAddrs,
                agentVersion,
                new Transport(t.ioThreads(), t.preferEpoll(), dial, t.bandwidthLimit(), t.inboundDelay()),
                new Upgrade(
                        upgrade,
                        u.inlineMuxers(),
                        u.yamux(),
                        negotiation,
                        u.privateNetwork(),
                        u.crypto(),
                        u.lazyNegotiation()),
                connections);
    }

    public HostConfig withInlineMuxers(boolean inline) {
        Upgrade u = upgrade;
        return withUpgrade(new Upgrade(
                u.upgradeTimeout(),
                inline,
                u.yamux(),
                u.streamNegotiationTimeout(),
                u.privateNetwork(),
                u.crypto(),
                u.lazyNegotiation()));
    }

    public HostConfig withYamux(YamuxConfig y) {
        Upgrade u = upgrade;
        return withUpgrade(new Upgrade(
                u.upgradeTimeout(),
                u.inlineMuxers(),
                y,
                u.streamNegotiationTimeout(),
                u.privateNetwork(),
                u.crypto(),
                u.lazyNegotiation()));
    }

    /**
     * Makes the host a member of the private network of {@code key}: every connection, dialed or accepted, is
     * encrypted with it before anything else is sent (null: a public network). Peers with another key or none fail
     * to connect.
     */
    public HostConfig withPrivateNetwork(PreSharedKey key) {
        Upgrade u = upgrade;
        return withUpgrade(new Upgrade(
                u.upgradeTimeout(),
                u.inlineMuxers(),
                u.yamux(),
                u.streamNegotiationTimeout(),
                key,
                u.crypto(),
                u.lazyNegotiation()));
    }

    /**
     * Chooses the Noise transport's ChaCha20-Poly1305: libcrypto when usable ({@code AUTO}, the default), the
     * JDK's, or libcrypto only (the host then fails to start without it).
     */
    public HostConfig withCrypto(CryptoMode mode) {
        Upgrade u = upgrade;
        return withUpgrade(new Upgrade(
                u.upgradeTimeout(),
                u.inlineMuxers(),
                u.yamux(),
                u.streamNegotiationTimeout(),
                u.privateNetwork(),
                mode,
                u.lazyNegotiation()));
    }

    /** Lazy negotiation of new streams on or off; see {@link Upgrade#lazyNegotiation()}. */
    public HostConfig withLazyNegotiation(boolean lazy) {
        Upgrade u = upgrade;
        return withUpgrade(new Upgrade(
                u.upgradeTimeout(),
                u.inlineMuxers(),
                u.yamux(),
                u.streamNegotiationTimeout(),
                u.privateNetwork(),
                u.crypto(),
                lazy));
    }

    /** The private network's key, or null on a public network; see {@link Upgrade#privateNetwork()}. */
    public PreSharedKey privateNetwork() {
        return upgrade.privateNetwork();
    }

    public HostConfig withIoThreads(int threads) {
        Transport t = transport;
        return withTransport(
                new Transport(threads, t.preferEpoll(), t.dialTimeout(), t.bandwidthLimit(), t.inboundDelay()));
    }

    public HostConfig withPreferEpoll(boolean epoll) {
        Transport t = transport;
        return withTransport(
                new Transport(t.ioThreads(), epoll, t.dialTimeout(), t.bandwidthLimit(), t.inboundDelay()));
    }

    /** Limits the bytes per second sent and received by all of the host's connections together (0: none). */
    public HostConfig withBandwidthLimit(long bytesPerSecond) {
        Transport t = transport;
        return withTransport(
                new Transport(t.ioThreads(), t.preferEpoll(), t.dialTimeout(), bytesPerSecond, t.inboundDelay()));
    }

    /** Delays every byte the host's connections receive by {@code delay} (zero: none); see {@link InboundDelay}. */
    public HostConfig withInboundDelay(Duration delay) {
        Transport t = transport;
        return withTransport(new Transport(t.ioThreads(), t.preferEpoll(), t.dialTimeout(), t.bandwidthLimit(), delay));
    }
}
