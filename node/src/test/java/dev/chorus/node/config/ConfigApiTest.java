package dev.chorus.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.node.NodeTestDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The api.* keys: the token needed off loopback, the Host allow-list, the limits, and their errors. */
class ConfigApiTest {

    @TempDir
    Path dir;

    private NodeConfig.Api load(String yaml, String... overrides) throws IOException {
        NodeTestDirs.create(dir, "");
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, yaml);
        return ConfigLoader.load(file, List.of(overrides)).operations().api();
    }

    @Test
    void loopbackByDefaultWithoutToken() throws IOException {
        NodeConfig.Api api = load(NodeTestDirs.baseYaml());
        assertThat(api.host()).isEqualTo("127.0.0.1");
        assertThat(api.tokenRequired()).isFalse();
        assertThat(api.tokenFile()).isEqualTo(dir.toAbsolutePath().resolve("api.token"));
        assertThat(api.allowedHosts()).containsExactly("localhost", "127.0.0.1", "[::1]");
        assertThat(api.limits().maxConnections()).isEqualTo(64);
        assertThat(api.limits().requestTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(api.limits().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(api.limits().requestsPerSecond()).isEqualTo(50);
        assertThat(load(NodeTestDirs.baseYaml(), "api.require_token=true").tokenRequired())
                .isTrue();
        assertThat(load(NodeTestDirs.baseYaml(), "api.host=::1").tokenRequired())
                .isFalse();
        assertThat(load(NodeTestDirs.baseYaml(), "api.host=localhost").tokenRequired())
                .isFalse();
    }

    @Test
    void offLoopbackTheTokenIsRequiredAndTheHostAllowed() throws IOException {
        NodeConfig.Api api = load(NodeTestDirs.baseYaml(), "api.host=10.0.0.5", "api.allowed_hosts=[Node1.Example]");
        assertThat(api.tokenRequired()).isTrue();
        assertThat(api.allowedHosts()).containsExactly("localhost", "127.0.0.1", "[::1]", "10.0.0.5", "node1.example");
        NodeConfig.Api wildcard = load(NodeTestDirs.baseYaml(), "api.host=0.0.0.0");
        assertThat(wildcard.tokenRequired()).isTrue();
        assertThat(wildcard.allowedHosts()).containsExactly("localhost", "127.0.0.1", "[::1]");
        assertThat(load(NodeTestDirs.baseYaml(), "api.host=fd00::5").allowedHosts())
                .contains("[fd00::5]");
        assertThat(load(NodeTestDirs.baseYaml(), "api.host=node.example").tokenRequired())
                .isTrue();
    }

    @Test
    void errorsNameTheKeyAndLine() throws IOException {
        String yaml = NodeTestDirs.baseYaml() + "  allowed_hosts: [evil.example:80]\n";
        assertThatThrownBy(() -> load(yaml))
                .isInstanceOf(ConfigException.class)
                .hasMessageEndingWith(":23: api.allowed_hosts: 'evil.example:80' is not a host name or address"
                        + " without a port (an IPv6 address in [ ])");
        assertThatThrownBy(() -> load(NodeTestDirs.baseYaml() + "  max_connections: 0\n"))
                .hasMessageEndingWith(":23: api.max_connections: must be at least 1, got 0");
        assertThatThrownBy(() -> load(NodeTestDirs.baseYaml() + "  request_timeout_seconds: soon\n"))
                .hasMessageContaining(":23: api.request_timeout_seconds: expected a number");
    }
}
