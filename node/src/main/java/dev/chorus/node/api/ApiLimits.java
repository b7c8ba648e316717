package dev.chorus.node.api;

import java.time.Duration;

/**
 * What one client may hold of the API.
 *
 * @param maxConnections the most connections open at once; one past it is closed on accept
 * @param requestTimeout the time a client has to send a whole request, from the accept or the previous response's
 *     end
 * @param idleTimeout the time a connection may carry no bytes either way
 * @param requestsPerSecond the most requests answered per second, all connections together, besides the probes
 */
public record ApiLimits(int maxConnections, Duration requestTimeout, Duration idleTimeout, int requestsPerSecond) {

    /** The defaults of node.yaml. */
    public static final ApiLimits DEFAULTS = new ApiLimits(64, Duration.ofSeconds(10), Duration.ofSeconds(30), 50);
}
