package dev.chorus.node.api;

import java.time.Instant;
import java.util.List;

/** What the API reads from a running node besides its {@link NodeMetrics}. Any thread. */
public interface NodeView {

    String peerId();

    /** Full listen multiaddrs, each ending in {@code /p2p/<peer id>}. */
    List<String> listenAddrs();

    String consortium();

    /** The averaging strategy ({@code async}, {@code fragmented}, {@code fedbuff}, {@code sync}, {@code none}). */
    String strategy();

    /** The tensor backend's name. */
    String backend();

    /** The model spec, e.g. {@code mlp:64}. */
    String model();

    Instant startedAt();

    List<PeerInfo> peers();

    /** Whether the host listens, the data is loaded and training has started. */
    boolean ready();

    /** Null while the node works; otherwise what stopped it (e.g. training diverged). */
    String failure();
}
