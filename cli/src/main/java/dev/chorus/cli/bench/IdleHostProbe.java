package dev.chorus.cli.bench;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.transport.BufferMemory;
import dev.chorus.learning.json.JsonWriter;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The host whose idle memory {@link IdleConnectionMemory} measures, alone in its own JVM so that the
 * dialers' memory is not counted. Prints {@code {"addr":...}}; each {@code measure} line on stdin
 * collects garbage and prints the memory in use; stdin closing closes the host and ends the process.
 */
public final class IdleHostProbe {
    private IdleHostProbe() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        int maxConnections = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        HostConfig config = HostConfig.defaults(PrivateKey.generate())
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                .withConnectionLimits(maxConnections + 8, 2, maxConnections + 8)
                .withIdleTimeout(Duration.ZERO);
        Host host = Host.start(config).join();
        try {
            print(w -> w.member("addr", host.listenAddrs().getFirst().toString()));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.strip().equals("measure")) {
                    measure(host);
                }
            }
        } finally {
            host.close();
        }
    }

    private static void measure(Host host) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long jdkDirect = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                jdkDirect = pool.getMemoryUsed();
            }
        }
        long direct = jdkDirect;
        BufferMemory buffers = BufferMemory.current();
        print(w -> {
            w.member("connections", host.connections().size());
            w.member("heapUsed", heap);
            w.member("jdkDirect", direct);
            w.member("allocatorDirect", buffers.allocatorDirect());
            w.member("allocatorHeap", buffers.allocatorHeap());
            w.member("nettyDirectCounter", buffers.nettyDirectCounter());
        });
    }

    private static void print(java.util.function.Consumer<JsonWriter> body) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        body.accept(w);
        w.endObject();
        w.finish();
        System.out.println(sb);
        System.out.flush();
    }
}
