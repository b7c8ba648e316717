package dev.chorus.gossip.host;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real hosts on loopback TCP for a test class ({@code @RegisterExtension final LoopbackHosts hosts = new
 * LoopbackHosts();}): each started with a fresh identity on a free port of 127.0.0.1, and all closed after each test.
 */
final class LoopbackHosts implements AfterEachCallback {
    private final List<Host> hosts = new CopyOnWriteArrayList<>();

    /**
     * A fresh identity listening on {@code /ip4/127.0.0.1/tcp/0}, with a grace period of 200 ms so that a closing
     * test does not wait for streams that will never finish.
     */
    static HostConfig loopback() {
        return HostConfig.defaults(PrivateKey.generate())
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                .withGracePeriod(Duration.ofMillis(200));
    }

    /** A started host with {@link #loopback()} as changed by {@code tweak}. */
    Host start(UnaryOperator<HostConfig> tweak) {
        return start(tweak, null);
    }

    /** As {@link #start(UnaryOperator)}, admitting connections through {@code gate} (null: every one). */
    Host start(UnaryOperator<HostConfig> tweak, ConnectionGate gate) {
        Host h = Host.start(tweak.apply(loopback()), gate).join();
        hosts.add(h);
        return h;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        for (Host h : hosts) {
            h.close();
        }
        hosts.clear();
    }
}
