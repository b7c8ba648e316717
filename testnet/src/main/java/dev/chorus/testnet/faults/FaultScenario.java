package dev.chorus.testnet.faults;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The scenarios of {@code chorus testnet faults}, by the name the command line takes. */
public enum FaultScenario {
    /** SIGKILL a node, restart it, check its checkpoints, its resume and its audit chain; again and again. */
    KILL,
    /** Split the nodes in two halves, let both train, heal, and see them reconnect and agree again. */
    PARTITION,
    /** Drop a share of every node's incoming packets; training and exchanges go on, none hangs. */
    LOSS,
    /** Fill one node's data directory (a small tmpfs); it trains on, loses no checkpoint, and recovers. */
    DISKFULL,
    /** A member's identity floods one node's model exchange, gossipsub and HTTP API; it and the others go on. */
    FLOOD;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The scenario called {@code name}; an {@link IllegalArgumentException} listing the names otherwise. */
    public static FaultScenario parse(String name) {
        for (FaultScenario s : values()) {
            if (s.label().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("--scenario: unknown scenario \"" + name + "\"; expected one of "
                + List.of(values()).stream().map(FaultScenario::label).toList());
    }

    /** Whether the scenario needs {@code iptables} in the nodes' namespaces. */
    public boolean needsIptables() {
        return this == PARTITION || this == LOSS;
    }

    /**
     * Runs the scenario on {@code nodes}; progress lines go to {@code progress}. A scenario that cannot go on (a node
     * does not come back, a state is not reached in time) ends with a failed report that says why.
     */
    public FaultReport run(FaultNodes nodes, FaultSettings settings, PrintWriter progress) throws InterruptedException {
        return switch (this) {
            case KILL -> new KillScenario(nodes, settings, progress).run();
            case PARTITION -> new PartitionScenario(nodes, settings, progress).run();
            case LOSS -> new LossScenario(nodes, settings, progress).run();
            case DISKFULL -> new DiskFullScenario(nodes, settings, progress).run();
            case FLOOD -> new FloodScenario(nodes, settings, progress).run();
        };
    }
}
