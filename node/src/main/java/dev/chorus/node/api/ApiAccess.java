package dev.chorus.node.api;

import java.util.List;

/**
 * Who may read the API.
 *
 * @param allowedHosts the names a request's Host header may carry (lower case, without the port); an IPv6 address in
 *     brackets
 * @param token the bearer token every request but the probes must carry; null: none needed
 */
public record ApiAccess(List<String> allowedHosts, ApiToken token) {

    /** Loopback names only, no token: a node on loopback with the defaults. */
    public static final ApiAccess LOOPBACK = new ApiAccess(List.of("localhost", "127.0.0.1", "[::1]"), null);

    public ApiAccess {
        allowedHosts = List.copyOf(allowedHosts);
    }
}
