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
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(n.api() + "api/status"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return JsonReader.parseObject(r.body());
    }
}
