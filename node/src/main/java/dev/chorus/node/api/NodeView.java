package dev.chorus.node.api;

import dev.chorus.gossip.noise.NoiseCiphers;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What the API reads from a running node besides its {@link NodeMetrics}. Any thread. */
public interface NodeView {

    String peerId();

    /** Full listen multiaddrs, each ending in {@code /p2p/<peer id>}. */
    List<String> listenAddrs();

    String consortium();

    /** The averaging strategy ({@code async}, {@code fragmented}, {@code fedbuff}, {@code sync}, {@code secure}, {@code none}). */
    String strategy();

    /** The tensor backend's name. */
    String backend();

    /**
     * The Noise transport's ChaCha20-Poly1305 implementation ({@code openssl} or {@code jdk}) and why it was
     * chosen; null until the host has started.
     */
    NoiseCiphers.Selection cipher();

    /** The model spec, e.g. {@code mlp:64}. */
    String model();

    Instant startedAt();

    List<PeerInfo> peers();

    /** The consortium members heard on the announcement topic, most recently heard first. */
    default List<dev.chorus.node.announce.ConsortiumMembers.Member> members() {
        return List.of();
    }

    /** Peers with a known address (bootstrap or learnt) and no open connection now: those being redialed. */
    default int knownDisconnectedPeers() {
        return 0;
    }

    /** Dials after a lost connection or a failed dial, since start. */
    default long redials() {
        return 0;
    }

    /** The counters of the {@code secure} strategy's group rounds; null for the other strategies. */
    default dev.chorus.node.secagg.SecAggCounters secureAggregation() {
        return null;
    }

    /** Peers banned from the model exchange for repeated faults, since start. */
    default long peerBans() {
        return 0;
    }

    /** Announcements dropped as unverifiable, misattributed, replayed or dated in the future. */
    default long announcementsRejected() {
        return 0;
    }

    /**
     * For the connected peers with a measured exchange time: how long exchanges with each take and whether it is
     * left out of most rounds as slow; empty when the node does not average.
     */
    default Map<String, dev.chorus.node.averaging.AveragingEngine.PeerTiming> peerTimings() {
        return Map.of();
    }

    /** The consortium membership the node enforces, or null when it admits every peer (no roster). */
    default dev.chorus.node.membership.Membership membership() {
        return null;
    }

    /** Whether the host listens, the data is loaded and training has started. */
    boolean ready();

    /** Null while the node works; otherwise what stopped it (e.g. training diverged). */
    String failure();
}
