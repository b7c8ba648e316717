package dev.chorus.testnet.localnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeProcessTest {

    @TempDir
    Path home;

    @Test
    void jvmOptionsWrittenAreReadBackInOrder() throws IOException {
        NodeProcess.writeJvmOptions(home, List.of("-Xmx512m", "-XX:SoftRefLRUPolicyMSPerMB=0", "-Dname=a b"));

        assertThat(NodeProcess.readJvmOptions(home))
                .containsExactly("-Xmx512m", "-XX:SoftRefLRUPolicyMSPerMB=0", "-Dname=a b");
        assertThat(Files.readString(home.resolve(NodeProcess.JVM_OPTIONS_FILE))).startsWith("# ");

        NodeProcess.writeJvmOptions(home, List.of());
        assertThat(home.resolve(NodeProcess.JVM_OPTIONS_FILE)).doesNotExist();
        assertThat(NodeProcess.readJvmOptions(home)).isEmpty();
    }

    @Test
    void anOperatorsFileMayHoldCommentsAndBlankLines() throws IOException {
        Files.writeString(home.resolve(NodeProcess.JVM_OPTIONS_FILE), "# heap\n-Xmx1g\n\n   \n  -Xms1g  \n#-Xss1m\n");

        assertThat(NodeProcess.readJvmOptions(home)).containsExactly("-Xmx1g", "-Xms1g");
    }

    @Test
    void aLineThatIsNoJvmOptionNamesTheFileAndLine() throws IOException {
        Path file = Files.writeString(home.resolve(NodeProcess.JVM_OPTIONS_FILE), "-Xmx1g\nXms1g\n");

        assertThatThrownBy(() -> NodeProcess.readJvmOptions(home))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(file + ":2: 'Xms1g' is not a JVM option");
    }

    @Test
    void optionsThatReplaceTheLaunchOrHoldTwoOptionsAreRefused() {
        for (String bad : List.of("-jar", "-cp", "--class-path=/tmp", "-m", "--module=x/y")) {
            assertThatThrownBy(() -> NodeProcess.checkJvmOptions(List.of("-Xmx1g", bad)))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "' would replace how the node is launched");
        }
        for (String bad : List.of("-Xmx1g -Xms1g", "", "-", " -Xmx1g", "Xmx1g")) {
            assertThatThrownBy(() -> NodeProcess.checkJvmOptions(List.of(bad)))
                    .as("[%s]", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not a JVM option");
        }
        assertThat(NodeProcess.checkJvmOptions(List.of("-Xmx1g", "-XX:+UseSerialGC", "--enable-preview")))
                .hasSize(3);
    }

    @Test
    void aRefusedListWritesNothing() {
        assertThatThrownBy(() -> NodeProcess.writeJvmOptions(home, List.of("-Xmx1g", "-jar")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(home.resolve(NodeProcess.JVM_OPTIONS_FILE)).doesNotExist();
    }

    @Test
    void overridesWrittenAreReadBackAndPassedAsSetAtEveryStart() throws Exception {
        NodeProcess.writeOverrides(home, List.of("network.added_delay_ms=200", "training.pause_ms=150"));
        assertThat(NodeProcess.readOverrides(home))
                .containsExactly("network.added_delay_ms=200", "training.pause_ms=150");

        Path config = Files.writeString(home.resolve("node.yaml"), "node: {}\n");
        Process p = NodeProcess.start(PrintArguments.class, config, home);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readAllLines(home.resolve(NodeProcess.STDOUT)))
                .containsExactly(
                        "node",
                        "run",
                        "--config",
                        config.toString(),
                        "--set",
                        "network.added_delay_ms=200",
                        "--set",
                        "training.pause_ms=150");

        NodeProcess.writeOverrides(home, List.of());
        assertThat(home.resolve(NodeProcess.OVERRIDES_FILE)).doesNotExist();
        assertThat(NodeProcess.readOverrides(home)).isEmpty();
    }

    @Test
    void aMalformedOverrideNamesTheFileAndLineAndARefusedListWritesNothing() throws IOException {
        Path file = Files.writeString(
                home.resolve(NodeProcess.OVERRIDES_FILE), "# delay\nnetwork.added_delay_ms=200\nport 9\n");
        assertThatThrownBy(() -> NodeProcess.readOverrides(home))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(file + ":3: 'port 9' is not a config override");
        Files.delete(file);

        for (String bad : List.of("=1", "network=1", "Network.Listen=x", "a.b", " a.b=1")) {
            assertThatThrownBy(() -> NodeProcess.writeOverrides(home, List.of("a.b=1", bad)))
                    .as("[%s]", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not a config override");
            assertThat(file).doesNotExist();
        }
    }

    /** A stand-in for the command line's main class: prints its arguments, one per line. */
    public static final class PrintArguments {
        public static void main(String[] args) {
            for (String a : args) {
                System.out.println(a);
            }
        }
    }
}
