package dev.chorus.gossip.archfixture;

import io.vertx.core.Vertx;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class GossipUsesVertx {
    static void close(Vertx vertx) {
        vertx.close();
    }
}
