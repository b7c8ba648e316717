package dev.chorus.testnet.faults;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.node.announce.GossipsubAnnouncements;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.daemon.LocalData;
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
import java.util.concurrent.atomic.AtomicReference;

/**
 * A member gone rogue: a host with a member's identity key and certificate that floods one node, as fast as it can,
 * in two phases. {@link Phase#WITHIN}: everything it sends is well-formed and of the node's architecture (it builds
 * the model its stolen config describes): model pulls, each of which costs the node an encoding and the bytes of its
 * whole model, and pushes of the node's own model back to it, the most a member can ask within the protocol.
 * {@link Phase#BEYOND}: pushes of a model that fits no architecture with every value 1e30, junk on the consortium's
 * announcement topic, and on the node's HTTP API more connections than {@code api.max_connections} (each held with a
 * request that never ends) and requests past {@code api.max_requests_per_second}. The counters say what it tried
 * and what it got, per phase.
 */
final class Flooder implements AutoCloseable {

    /** Concurrent model pulls, and concurrent pushes, in each phase. */
    private static final int EXCHANGE_LOOPS = 8;

    /** What the flood sends. */
    enum Phase {
        /** Well-formed pulls and pushes of the node's own architecture, at the full rate. */
        WITHIN,
        /** Malformed pushes, junk announcements, the API past its limits. */
        BEYOND
    }

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

    /** The phase whose loops run; null before the start and after {@link #close}. */
    private volatile Phase phase;
    /** The latest model pulled from the node in {@link Phase#WITHIN}, what that phase pushes back. */
    private final AtomicReference<float[]> pulled = new AtomicReference<>();

    private final AtomicLong echoVersion = new AtomicLong();
    private final int dimension;

    /** Per phase: pulls served, pulls refused or failed, pushes acknowledged, pushes refused or failed. */
    final Counts within = new Counts();

    final Counts beyond = new Counts();
    final AtomicLong published = new AtomicLong();
    final AtomicLong apiRequests = new AtomicLong();
    final AtomicLong apiRefused = new AtomicLong();
    final AtomicLong apiFailed = new AtomicLong();
    final AtomicLong heldOpened = new AtomicLong();

    /** What the flooder asked for and got in one phase's model exchanges. */
    static final class Counts {
        final AtomicLong pulls = new AtomicLong();
        final AtomicLong pullsFailed = new AtomicLong();
        final AtomicLong pushes = new AtomicLong();
        final AtomicLong pushesFailed = new AtomicLong();
    }

    /** The node's architecture as the stolen config describes it: its hash and parameter count. */
    private record Architecture(byte[] hash, int dimension) {}

    private Flooder(
            Membership membership, Host host, Architecture architecture, String victim, URI api, String consortium) {
        this.membership = membership;
        this.host = host;
        this.victim = victim;
        this.api = api;
        this.dimension = architecture.dimension();
        this.topic = GossipsubAnnouncements.topic(consortium);
        this.pubsub = Pubsub.start(host, PubsubConfig.defaults());
        this.exchange = new ModelExchange(
                host,
                architecture.hash(),
                architecture.dimension(),
                ModelExchange.Config.defaults(),
                new SnapshotBuffer(),
                new FragmentCatalog(),
                EgressRecorder.NONE);
    }

    /** Builds the model {@code own} describes, on its data, as its node would: every node of a testnet has it. */
    private static Architecture architecture(NodeConfig own) {
        LocalData data = LocalData.load(own);
        try (TensorBackend backend = TensorBackends.create("reference", 1);
                Sequential model = own.model()
                        .spec()
                        .build(
                                backend,
                                data.train().cols(),
                                data.train().classes(),
                                own.training().seed())) {
            return new Architecture(ArchitectureHash.of(model), model.parameterCount());
        }
    }

    /**
     * A flooder with the identity and certificate of the node whose config is {@code own} (that node must be
     * stopped), connected to the node listening at {@code victimAddr} with its API at {@code victimApi}.
     */
    static Flooder connect(NodeConfig own, Multiaddr victimAddr, URI victimApi) throws InterruptedException {
        var key = KeyFile.load(own.node().keyFile());
        Architecture architecture = architecture(own);
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
                    architecture,
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

    /** Stops the loops of the phase that runs, if any, and starts those of {@code next}; they run until the next. */
    void start(Phase next) throws InterruptedException {
        phase = next;
        joinLoops();
        if (next == Phase.WITHIN) {
            for (int k = 0; k < EXCHANGE_LOOPS; k++) {
                loop("flood-pull-" + k, next, this::pull);
                loop("flood-echo-" + k, next, this::echo);
            }
            return;
        }
        for (int k = 0; k < EXCHANGE_LOOPS; k++) {
            loop("flood-probe-" + k, next, this::probe);
            loop("flood-push-" + k, next, this::push);
        }
        loop("flood-publish", next, this::publish);
        for (int k = 0; k < 4; k++) {
            loop("flood-api-" + k, next, this::request);
        }
        for (int k = 0; k < HELD_CONNECTIONS; k++) {
            loop("flood-hold-" + k, next, this::hold);
        }
    }

    private void loop(String name, Phase in, Attempt attempt) {
        threads.add(Thread.ofVirtual().name(name).start(() -> {
            while (phase == in) {
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

    private void joinLoops() throws InterruptedException {
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(15));
        }
        threads.clear();
    }

    private interface Attempt {
        void run() throws InterruptedException, IOException;
    }

    /** A well-formed pull of the node's model, kept for {@link #echo}. */
    private void pull() throws InterruptedException {
        try {
            ModelUpdate got = exchange.pull(victim, null).get(10, TimeUnit.SECONDS);
            if (got.indices() == null && got.values().length == dimension) {
                pulled.set(got.values());
            }
            within.pulls.incrementAndGet();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            within.pullsFailed.incrementAndGet();
            Thread.sleep(10);
        }
    }

    /** A well-formed push: the node's own model back to it, under a new version each time. */
    private void echo() throws InterruptedException {
        float[] model = pulled.get();
        if (model == null) {
            Thread.sleep(10);
            return;
        }
        ModelUpdate update = ModelUpdate.full(host.peerId().toBase58(), echoVersion.incrementAndGet(), 1, model);
        send(update, within);
    }

    /** A pull of the node's model whatever its architecture, its bytes read and dropped. */
    private void probe() throws InterruptedException {
        try {
            exchange.probe(victim).get(10, TimeUnit.SECONDS);
            beyond.pulls.incrementAndGet();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            beyond.pullsFailed.incrementAndGet();
            Thread.sleep(10);
        }
    }

    /** A push of 4096 values of 1e30: a model of no one's architecture, every value past any norm bound. */
    private void push() throws InterruptedException {
        float[] junk = new float[4096];
        java.util.Arrays.fill(junk, 1e30f);
        send(ModelUpdate.full(host.peerId().toBase58(), Long.MAX_VALUE / 2, 1, junk), beyond);
    }

    private void send(ModelUpdate update, Counts counts) throws InterruptedException {
        try {
            exchange.push(victim, update).get(10, TimeUnit.SECONDS);
            counts.pushes.incrementAndGet();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            counts.pushesFailed.incrementAndGet();
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

    private void request() throws InterruptedException, IOException {
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
            while (phase == Phase.BEYOND) {
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
        phase = null;
        joinLoops();
        http.close();
        exchange.close();
        pubsub.close();
        host.close();
        membership.close();
    }
}
