package dev.chorus.cli;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.testnet.localnet.LocalnetManifest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** What the testnet tests read from a node's HTTP API. */
final class NodeApi {

    private NodeApi() {}

    /** The node's {@code /api/status}, within 5 seconds. */
    static Map<String, Object> status(HttpClient http, LocalnetManifest.Node n) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(n.api() + "api/status")).timeout(Duration.ofSeconds(5));
        String token = token(n.dir());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return JsonReader.parseObject(r.body());
    }

    /**
     * The API token in a node's data directory, which a node off loopback (in its own network namespace or
     * container) requires; null when there is none.
     */
    static String token(java.nio.file.Path home) throws java.io.IOException {
        java.nio.file.Path file = home.resolve("api.token");
        return java.nio.file.Files.exists(file)
                ? java.nio.file.Files.readString(file).strip()
                : null;
    }
}
