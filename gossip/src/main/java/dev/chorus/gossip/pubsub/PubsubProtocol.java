package dev.chorus.gossip.pubsub;

import java.util.List;

/** The pubsub protocol ids, in the order they are proposed on a new outbound stream. */
public enum PubsubProtocol {
    MESHSUB_1_2("/meshsub/1.2.0"),
    MESHSUB_1_1("/meshsub/1.1.0"),
    MESHSUB_1_0("/meshsub/1.0.0"),
    FLOODSUB("/floodsub/1.0.0");

    private final String id;

    PubsubProtocol(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static final List<PubsubProtocol> PREFERENCE = List.of(MESHSUB_1_2, MESHSUB_1_1, MESHSUB_1_0, FLOODSUB);

    public static PubsubProtocol of(String id) {
        for (PubsubProtocol p : values()) {
            if (p.id.equals(id)) {
                return p;
            }
        }
        throw new IllegalArgumentException("not a pubsub protocol: " + id);
    }

    /** Gossipsub (mesh, control messages) rather than floodsub. */
    public boolean isGossipsub() {
        return this != FLOODSUB;
    }

    /** v1.1 features: PRUNE backoff and PX. */
    public boolean supportsBackoff() {
        return this == MESHSUB_1_1 || this == MESHSUB_1_2;
    }

    /** v1.2: IDONTWANT. */
    public boolean supportsIDontWant() {
        return this == MESHSUB_1_2;
    }
}
