package dev.chorus.gossip.discovery;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace for mDNS tests: created by the test, its loopback interface up with multicast on and the
 * multicast range routed to it, so that processes started in it ({@link #exec}) talk multicast without touching any
 * real network. {@link #open} skips the calling test (JUnit assumption) where namespaces cannot be created: not
 * root, or no {@code ip} command. {@link #close} deletes it.
 */
public final class MulticastNamespace implements AutoCloseable {

    private final String name;

    private MulticastNamespace(String name) {
        this.name = name;
    }

    /** Creates {@code name}-PID, set up for multicast on loopback. */
    public static MulticastNamespace open(String name) throws IOException, InterruptedException {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip")),
                "no ip command");
        String ns = name + "-" + ProcessHandle.current().pid();
        assumeTrue(run("ip", "netns", "add", ns) == 0, "cannot create a network namespace here (needs root)");
        MulticastNamespace created = new MulticastNamespace(ns);
        try {
            created.setUp(List.of("ip", "link", "set", "lo", "up"));
            created.setUp(List.of("ip", "link", "set", "lo", "multicast", "on"));
            created.setUp(List.of("ip", "route", "add", "224.0.0.0/4", "dev", "lo"));
        } catch (IOException | InterruptedException | RuntimeException e) {
            created.close();
            throw e;
        }
        return created;
    }

    private void setUp(List<String> command) throws IOException, InterruptedException {
        if (run(exec(command).toArray(String[]::new)) != 0) {
            throw new IllegalStateException("in namespace " + name + ": " + String.join(" ", command) + " failed");
        }
    }

    /** {@code command} as run inside the namespace ({@code ip netns exec NAME ...}). */
    public List<String> exec(List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", name));
        all.addAll(command);
        return all;
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("ip", "netns", "delete", name);
    }
}
