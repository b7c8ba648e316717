package dev.chorus.node.config;

import dev.chorus.node.api.ApiLimits;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The {@code api.*} keys, checked and resolved. */
final class ApiConfig {

    /** The names a loopback client uses; accepted as Host on every node. */
    static final List<String> LOOPBACK_NAMES = List.of("localhost", "127.0.0.1", "[::1]");

    private ApiConfig() {}

    static NodeConfig.Api api(ConfigValues v, Path dataDir) {
        int port = v.integer(ConfigSchema.API_PORT);
        if (port > 65535) {
            throw v.error(ConfigSchema.API_PORT, "must be at most 65535, got " + port);
        }
        String host = v.string(ConfigSchema.API_HOST).strip();
        if (host.isEmpty()) {
            throw v.error(ConfigSchema.API_HOST, "must not be empty");
        }
        // Off loopback anyone who can reach the port could read the node's state: the token is not optional there.
        boolean tokenRequired = v.bool(ConfigSchema.API_REQUIRE_TOKEN) || !loopback(host);
        ApiLimits limits = new ApiLimits(
                v.integer(ConfigSchema.API_MAX_CONNECTIONS),
                v.seconds(ConfigSchema.API_REQUEST_TIMEOUT),
                v.seconds(ConfigSchema.API_IDLE_TIMEOUT),
                v.integer(ConfigSchema.API_MAX_REQUESTS_PER_SECOND));
        return new NodeConfig.Api(
                v.bool(ConfigSchema.API_ENABLED),
                host,
                port,
                v.path(ConfigSchema.API_TOKEN_FILE, dataDir),
                tokenRequired,
                allowedHosts(v, host),
                limits);
    }

    /**
     * Whether {@code host} is a loopback address: {@code localhost} or a literal loopback IP. Any other name counts as
     * not loopback (no DNS lookup: what a name resolves to can change after the check).
     */
    static boolean loopback(String host) {
        String h = unbracket(host.toLowerCase(Locale.ROOT));
        if (h.equals("localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+") && !h.contains(":")) {
            return false;
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static List<String> allowedHosts(ConfigValues v, String host) {
        Set<String> allowed = new LinkedHashSet<>(LOOPBACK_NAMES);
        String h = host.toLowerCase(Locale.ROOT);
        if (!wildcard(h)) {
            allowed.add(h.contains(":") && !h.startsWith("[") ? "[" + h + "]" : h);
        }
        for (String item : v.list(ConfigSchema.API_ALLOWED_HOSTS)) {
            String name = item.strip().toLowerCase(Locale.ROOT);
            if (!name.matches("[a-z0-9._-]+|\\[[0-9a-f:.]+\\]")) {
                throw v.error(
                        ConfigSchema.API_ALLOWED_HOSTS,
                        "'" + item + "' is not a host name or address without a port (an IPv6 address in [ ])");
            }
            allowed.add(name);
        }
        return List.copyOf(new ArrayList<>(allowed));
    }

    private static boolean wildcard(String host) {
        String h = unbracket(host);
        return h.equals("0.0.0.0") || h.equals("::") || h.equals("0:0:0:0:0:0:0:0");
    }

    private static String unbracket(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}
