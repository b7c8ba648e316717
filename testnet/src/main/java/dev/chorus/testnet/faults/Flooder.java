package dev.chorus.testnet.faults;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.node.announce.GossipsubAnnouncements;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.membership.Membership;
import dev.chorus.node.protocol.ArchitectureHash;
import dev.chorus.node.protocol.FragmentCatalog;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.privacy.audit.EgressRecorder;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A member gone rogue: a host with a member's identity key and certificate that floods one node, as fast as it can,
 * on every surface a member reaches. Model pulls (each costs the node an encoding and the bytes of its whole model),
 * pushes of a model that does not fit the node's architecture, junk on the consortium's announcement topic, and on
 * the node's HTTP API more connections than {@code api.max_connections} (each held with a request that never ends)
 * and requests past {@code api.max_requests_per_second}. The counters say what it tried and what it got.
 */
final class Flooder implements AutoCloseable {

    /** Concurrent model pulls and pushes. */
    private static final int EXCHANGE_LOOPS = 8;

    /** API connections held open: well past the default {@code api.max_connections} of 64. */
    private static final int HELD_CONNECTIONS = 160;

    private final Membership membership;
    private final Host host;
    private final Pubsub pubsub;
    private final ModelExchange exchange;
    private final String victim;
    private final URI api;
    private final String topic;
    private final List<Thread> threads = new ArrayList<>();
    /** The API client: without the node's token, which a member does not have. */
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private volatile boolean stopping;

    final AtomicLong pulls = new AtomicLong();
    final AtomicLong pullsFailed = new AtomicLong();
    final AtomicLong pushes = new AtomicLong();
    final AtomicLong pushesFailed = new AtomicLong();
    final AtomicLong published = new AtomicLong();
    final AtomicLong apiRequests = new AtomicLong();
    final AtomicLong apiRefused = new AtomicLong();
    final AtomicLong apiFailed = new AtomicLong();
    final AtomicLong heldOpened = new AtomicLong();

    private Flooder(Membership membership, Host host, String victim, URI api, String consortium) {
        this.membership = membership;
        this.host = host;
        this.victim = victim;
        this.api = api;
        this.topic = GossipsubAnnouncements.topic(consortium);
        this.pubsub = Pubsub.start(host, PubsubConfig.defaults());
        this.exchange = new ModelExchange(
                host,
                ArchitectureHash.of("flood", 1, 1, 1),
                1,
                ModelExchange.Config.defaults(),
                new SnapshotBuffer(),
                new FragmentCatalog(),
                EgressRecorder.NONE);
    }

    /**
     * A flooder with the identity and certificate of the node whose config is {@code own} (that node must be
     * stopped), connected to the node listening at {@code victimAddr} with its API at {@code victimApi}.
     */
    static Flooder connect(NodeConfig own, Multiaddr victimAddr, URI victimApi) throws InterruptedException {
        var key = KeyFile.load(own.node().keyFile());
        NodeConfig.Membership files = own.network().membership();
        Membership membership = Membership.load(
                files.roster(),
                files.certificate(),
                files.crls(),
                key.peerId().toBase58(),
                Set.of(),
                InstantSource.system(),
                EgressRecorder.NONE);
        Host host = null;
        try {
            host = Host.start(HostConfig.defaults(key).withListenAddrs(List.of()), membership.gate())
                    .get(30, TimeUnit.SECONDS);
            host.connect(victimAddr).get(30, TimeUnit.SECONDS);
            return new Flooder(
                    membership,
                    host,
                    victimAddr.peerId().orElseThrow().toBase58(),
                    victimApi,
                    own.node().consortium());
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            if (host != null) {
                host.close();
            }
            membership.close();
            throw new FaultException("flood: the flooder could not connect to " + victimAddr + ": " + e);
        }
    }

    /** Starts every flood; they run until {@link #close}. */
    void start() {
        for (int k = 0; k < EXCHANGE_LOOPS; k++) {
            loop("flood-pull-" + k, this::pull);
            loop("flood-push-" + k, this::push);
        }
        loop("flood-publish", this::publish);
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int k = 0; k < 4; k++) {
            loop("flood-api-" + k, () -> request(http));
        }
        for (int k = 0; k < HELD_CONNECTIONS; k++) {
            loop("flood-hold-" + k, this::hold);
        }
    }

    private void loop(String name, Attempt attempt) {
        threads.add(Thread.ofVirtual().name(name).start(() -> {
            while (!stopping) {
                try {
                    attempt.run();
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException | IOException e) {
                    // counted by the attempt; the flood goes on
                }
            }
        }));
    }

    private interface Attempt {
        void run() throws InterruptedException, IOException;
    }

    private void pull() throws InterruptedException {
        try {
            exchange.probe(victim).get(10, TimeUnit.SECONDS);
            pulls.incrementAndGet();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            pullsFailed.incrementAndGet();
            Thread.sleep(10);
        }
    }

    private void push() throws InterruptedException {
        float[] junk = new float[4096];
        java.util.Arrays.fill(junk, 1e30f);
        try {
            exchange.push(victim, ModelUpdate.full(host.peerId().toBase58(), Long.MAX_VALUE / 2, 1, junk))
                    .get(10, TimeUnit.SECONDS);
            pushes.incrementAndGet();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            pushesFailed.incrementAndGet();
            Thread.sleep(10);
        }
    }

    private void publish() throws InterruptedException {
        byte[] junk = new byte[1024];
        new SplittableRandom(published.get()).nextBytes(junk);
        pubsub.publish(topic, junk);
        published.incrementAndGet();
        Thread.sleep(2);
    }

    private void request(HttpClient http) throws InterruptedException, IOException {
        apiRequests.incrementAndGet();
        try {
            HttpResponse<Void> r = http.send(
                    HttpRequest.newBuilder(api.resolve("api/status"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() == 401 || r.statusCode() == 429) {
                apiRefused.incrementAndGet();
            }
        } catch (IOException e) {
            apiFailed.incrementAndGet();
            Thread.sleep(10);
        }
    }

    /** One connection that sends the start of a request and never its end, until the node closes it. */
    private void hold() throws InterruptedException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(api.getHost(), api.getPort()), 2000);
            heldOpened.incrementAndGet();
            OutputStream out = s.getOutputStream();
            out.write(("GET /api/status HTTP/1.1\r\nHost: " + api.getHost() + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            s.setSoTimeout(1000);
            while (!stopping) {
                try {
                    if (s.getInputStream().read() < 0) {
                        return;
                    }
                } catch (java.net.SocketTimeoutException stillOpen) {
                    // the node holds it: keep it
                }
            }
        } catch (IOException e) {
            Thread.sleep(50);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(15));
        }
        http.close();
        exchange.close();
        pubsub.close();
        host.close();
        membership.close();
    }
}
