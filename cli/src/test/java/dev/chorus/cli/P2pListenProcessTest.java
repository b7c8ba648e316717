package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.learning.json.JsonReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code p2p listen} as a separate JVM, the way an operator runs it: stopped by --duration and by SIGTERM. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class P2pListenProcessTest {

    /** The CLI in a child JVM on this test's class path; stdout lines arrive in {@link #lines}. */
    static final class Child implements AutoCloseable {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final StringBuffer stderr = new StringBuffer();

        Child(String... args) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED",
                    "--sun-misc-unsafe-memory-access=allow",
                    "-cp",
                    System.getProperty("java.class.path"),
                    Main.class.getName()));
            cmd.addAll(List.of(args));
            process = new ProcessBuilder(cmd).start();
            process.getOutputStream().close();
            pump(process.inputReader(StandardCharsets.UTF_8), lines, null);
            pump(process.errorReader(StandardCharsets.UTF_8), null, stderr);
        }

        private static void pump(BufferedReader r, BlockingQueue<String> to, StringBuffer text) {
            Thread.ofPlatform().daemon().start(() -> {
                try (r) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (to != null) {
                            to.add(line);
                        } else {
                            text.append(line).append('\n');
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
        }

        Map<String, Object> next(long seconds) throws InterruptedException {
            String line = lines.poll(seconds, TimeUnit.SECONDS);
            if (line == null) {
                throw new AssertionError("no line from the child within " + seconds + " s; stderr:\n" + stderr);
            }
            return JsonReader.parseObject(line);
        }

        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @SuppressWarnings("unchecked")
    static Multiaddr firstAddr(Map<String, Object> listening) {
        assertThat(listening.get("event")).isEqualTo("listening");
        return Multiaddr.parse(((List<String>) listening.get("addrs")).getFirst());
    }

    @Test
    void listenForTwoSecondsServesADialerAndExits() throws Exception {
        Host client = Host.start(HostConfig.defaults(PrivateKey.generate())).join();
        try (Child child = new Child("p2p", "listen", "--duration", "2")) {
            Multiaddr addr = firstAddr(child.next(60));
            Connection c = client.connect(addr).get(10, TimeUnit.SECONDS);
            Stream s = c.newStream(Echo.ID).get(10, TimeUnit.SECONDS);
            assertThat(Echo.echo(s, "hello".getBytes()).get(10, TimeUnit.SECONDS))
                    .isEqualTo("hello".getBytes());
            Map<String, Object> connection = child.next(10);
            assertThat(connection.get("event")).isEqualTo("connection");
            assertThat(connection.get("peerId")).isEqualTo(client.peerId().toBase58());
            assertThat(child.process.waitFor(30, TimeUnit.SECONDS))
                    .as(child.stderr.toString())
                    .isTrue();
            assertThat(child.process.exitValue()).as(child.stderr.toString()).isZero();
            List<Object> rest = new ArrayList<>();
            String line;
            while ((line = child.lines.poll(5, TimeUnit.SECONDS)) != null) {
                rest.add(JsonReader.parseObject(line).get("event"));
            }
            assertThat(rest).endsWith("stopped");
        } finally {
            client.close();
        }
    }

    @Test
    void sigtermClosesTheHostGracefully() throws Exception {
        try (Child child = new Child("p2p", "listen")) {
            firstAddr(child.next(60));
            // SIGTERM; Process.destroy() would also close our end of its output pipe.
            assertThat(child.process.toHandle().destroy()).isTrue();
            assertThat(child.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String last = child.lines.poll(5, TimeUnit.SECONDS);
            assertThat(last)
                    .as("exit " + child.process.exitValue() + " stderr " + child.stderr)
                    .isNotNull();
            assertThat(JsonReader.parseObject(last).get("event")).isEqualTo("stopped");
            assertThat(child.process.exitValue()).isEqualTo(143); // 128 + SIGTERM
        }
    }
}
