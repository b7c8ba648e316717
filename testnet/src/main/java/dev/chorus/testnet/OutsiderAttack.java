package dev.chorus.testnet;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.node.announce.GossipsubAnnouncements;
import dev.chorus.node.announce.ModelAnnouncement;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.membership.Membership;
import dev.chorus.node.protocol.FragmentCatalog;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.privacy.audit.EgressRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Outsiders attacking a testnet's nodes for a run: hosts with valid libp2p keys and no member certificate. Every
 * {@link #ROUND_PAUSE} each outsider tries, on every node, to connect, to pull the node's model (with the nodes'
 * architecture hash and dimension, so that only the membership check stands in the way), and to push a poisoned
 * model (every parameter {@value #POISON}); and it publishes an announcement on the consortium's topic. For that last
 * attempt to have a target, every node joins the topic for the run, with its membership's check of publishers, and
 * counts the announcements delivered to it from anyone but a node.
 *
 * <p>What the outsiders got ({@link TestnetRun.Outsiders}) must be nothing: a model byte, an acknowledged push or a
 * delivered announcement is a breach of the membership.
 */
final class OutsiderAttack implements AutoCloseable {

    /** The pause between two rounds of one outsider's attempts. */
    static final Duration ROUND_PAUSE = Duration.ofMillis(200);

    /** The longest one attempt (a connect, a pull, a push, a publish) is waited for. */
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(2);

    /** The longest {@link #stop} waits for the rounds in progress: a round is at most three attempts long. */
    private static final Duration STOP_TIMEOUT = ATTEMPT_TIMEOUT.multipliedBy(4);

    /** The value of every parameter of a poisoned model: one merge of it would wreck any average. */
    static final float POISON = 1e6f;

    /** Added to the seed of an outsider's key so that no outsider shares a node's key. */
    private static final long KEY_SALT = 1_000_003;

    private static final Logger LOG = LoggerFactory.getLogger(OutsiderAttack.class);

    /** A node under attack: where to dial it, and its peer ID. */
    private record Target(Multiaddr address, String peer) {}

    /** One outsider: its host and what runs on it. */
    private static final class Outsider {
        final Host host;
        final Pubsub pubsub;
        final GossipsubAnnouncements announcements;
        final ModelExchange exchange;
        final String peer;
        final float[] poison;
        /** Completes once the outsider has finished its last round after {@link #stop}. */
        final CompletableFuture<Void> idle = new CompletableFuture<>();

        /** Rounds begun; the timer thread only. */
        long rounds;

        Outsider(Host host, byte[] architecture, int dimension) {
            this.host = host;
            this.peer = host.peerId().toBase58();
            this.pubsub = Pubsub.start(host, PubsubConfig.defaults());
            this.announcements = new GossipsubAnnouncements(
                    pubsub, TestnetConsortium.NAME, host.config().identity());
            this.exchange = new ModelExchange(
                    host,
                    architecture,
                    dimension,
                    ModelExchange.Config.defaults(),
                    new SnapshotBuffer(),
                    new FragmentCatalog(),
                    EgressRecorder.NONE);
            this.poison = new float[dimension];
            Arrays.fill(poison, POISON);
        }
    }

    private final byte[] architecture;
    private final int dimension;
    private final List<Target> targets = new ArrayList<>();
    private final Set<String> members;
    private final List<Outsider> outsiders = new ArrayList<>();
    /** The nodes' side of the announcement topic, in the order to close it: announcements, then pubsub. */
    private final List<AutoCloseable> memberTopic = new ArrayList<>();

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("testnet-outsiders").unstarted(r));

    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong pulls = new AtomicLong();
    private final AtomicLong pushes = new AtomicLong();
    private final AtomicLong publishes = new AtomicLong();
    private final AtomicLong modelBytes = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();

    private volatile boolean stopping;
    private boolean begun;
    private boolean outsidersClosed;

    private OutsiderAttack(byte[] architecture, int dimension, List<Host> nodes) {
        this.architecture = architecture.clone();
        this.dimension = dimension;
        for (Host h : nodes) {
            targets.add(new Target(h.listenAddrs().getFirst(), h.peerId().toBase58()));
        }
        this.members = Set.copyOf(targets.stream().map(Target::peer).toList());
    }

    /**
     * Joins every node to the consortium's topics (its {@code memberships}, in node order, check the publishers),
     * then starts {@code count} outsiders whose keys follow from {@code seed}. Nothing is attempted before {@link
     * #begin}.
     *
     * @param architecture the nodes' {@code ArchitectureHash}
     * @param dimension the nodes' parameter count
     */
    static OutsiderAttack prepare(
            int count, long seed, List<Host> nodes, List<Membership> memberships, byte[] architecture, int dimension) {
        OutsiderAttack attack = new OutsiderAttack(architecture, dimension, nodes);
        try {
            for (int i = 0; i < nodes.size(); i++) {
                attack.listen(nodes.get(i), memberships.get(i));
            }
            for (int k = 0; k < count; k++) {
                attack.enlist(outsiderKey(seed, k));
            }
            return attack;
        } catch (RuntimeException e) {
            attack.close();
            throw e;
        }
    }

    private static PrivateKey outsiderKey(long seed, int k) {
        byte[] bytes = new byte[32];
        new SplittableRandom(seed * 7919 + KEY_SALT + k).nextBytes(bytes);
        return PrivateKey.fromSeed(bytes);
    }

    /** The node joins the announcement and membership topics and counts what it is delivered from non-members. */
    private void listen(Host node, Membership membership) {
        Pubsub pubsub = Pubsub.start(node, PubsubConfig.defaults());
        memberTopic.add(pubsub);
        membership.attach(pubsub, TestnetConsortium.NAME);
        GossipsubAnnouncements announcements = new GossipsubAnnouncements(
                pubsub,
                TestnetConsortium.NAME,
                node.config().identity(),
                EgressRecorder.NONE,
                membership::publishRefusal);
        memberTopic.addFirst(announcements);
        announcements.subscribe(a -> {
            if (!members.contains(a.peer())) {
                delivered.incrementAndGet();
            }
        });
    }

    private void enlist(PrivateKey key) {
        Host host = Host.start(HostConfig.defaults(key)
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withIoThreads(1)
                        .withDialBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
                        .withGracePeriod(Duration.ofMillis(200)))
                .join();
        try {
            outsiders.add(new Outsider(host, architecture, dimension));
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
    }

    /** Starts every outsider's rounds of attempts. */
    void begin() {
        begun = true;
        for (Outsider o : outsiders) {
            schedule(o, 0);
        }
    }

    private void schedule(Outsider o, long delayMillis) {
        try {
            timer.schedule(() -> next(o), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            o.idle.complete(null);
        }
    }

    /** Runs a round of {@code o}'s attempts, then the next one after {@link #ROUND_PAUSE}, until {@link #stop}. */
    private void next(Outsider o) {
        if (stopping) {
            o.idle.complete(null);
            return;
        }
        CompletableFuture<Void> round;
        try {
            round = round(o);
        } catch (RuntimeException e) {
            LOG.debug("outsider {}: a round failed: {}", o.peer, e.toString());
            round = CompletableFuture.completedFuture(null);
        }
        round.whenComplete((v, e) -> {
            if (stopping) {
                o.idle.complete(null);
            } else {
                schedule(o, ROUND_PAUSE.toMillis());
            }
        });
    }

    /** One round: on every node at once, connect then pull then push; and one publish. Never fails. */
    private CompletableFuture<Void> round(Outsider o) {
        long round = o.rounds++;
        List<CompletableFuture<?>> attempts = new ArrayList<>();
        for (Target t : targets) {
            attempts.add(attack(o, t, round));
        }
        attempts.add(publish(o, round));
        return CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new));
    }

    /** Connects to {@code t}; once connected, pulls its model, then pushes a poisoned one. */
    private CompletableFuture<Void> attack(Outsider o, Target t, long round) {
        connects.incrementAndGet();
        return attempt(() -> o.host.connect(t.address()))
                .thenCompose(c -> {
                    pulls.incrementAndGet();
                    return attempt(() -> o.exchange.pull(t.peer(), null)).handle((u, e) -> {
                        if (u != null) {
                            modelBytes.addAndGet((long) Float.BYTES * u.values().length);
                        }
                        return null;
                    });
                })
                .thenCompose(v -> {
                    pushes.incrementAndGet();
                    ModelUpdate poisoned = ModelUpdate.full(o.peer, 1_000_000 + round, 1_000_000, o.poison);
                    return attempt(() -> o.exchange.push(t.peer(), poisoned)).handle((x, e) -> {
                        if (e == null) {
                            accepted.incrementAndGet();
                        }
                        return null;
                    });
                })
                .handle((v, e) -> null);
    }

    private CompletableFuture<Void> publish(Outsider o, long round) {
        publishes.incrementAndGet();
        ModelAnnouncement a = new ModelAnnouncement(
                o.peer,
                architecture,
                1_000_000 + round,
                1_000_000,
                new byte[32],
                System.currentTimeMillis(),
                Map.of("accuracy", 1.0));
        return attempt(() -> o.announcements.publishAsync(a)).handle((v, e) -> null);
    }

    /** {@code start}'s future, failed at once if starting it throws, and bounded by {@link #ATTEMPT_TIMEOUT}. */
    private static <T> CompletableFuture<T> attempt(java.util.function.Supplier<CompletableFuture<T>> start) {
        try {
            return start.get().orTimeout(ATTEMPT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Ends the rounds, waits for those in progress (at most {@link #STOP_TIMEOUT}), closes the outsiders, and returns
     * what they tried and got.
     */
    TestnetRun.Outsiders stop() throws InterruptedException {
        closeOutsiders();
        return new TestnetRun.Outsiders(
                outsiders.size(),
                connects.get(),
                pulls.get(),
                pushes.get(),
                publishes.get(),
                modelBytes.get(),
                accepted.get(),
                delivered.get());
    }

    private void closeOutsiders() throws InterruptedException {
        if (outsidersClosed) {
            return;
        }
        outsidersClosed = true;
        stopping = true;
        if (begun) {
            try {
                CompletableFuture.allOf(outsiders.stream().map(o -> o.idle).toArray(CompletableFuture[]::new))
                        .get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("outsiders still busy {} ms after the run: closing them", STOP_TIMEOUT.toMillis());
            }
        }
        timer.shutdownNow();
        for (Outsider o : outsiders) {
            o.announcements.close();
            o.pubsub.close();
        }
        CompletableFuture.allOf(outsiders.stream().map(o -> o.host.closeAsync()).toArray(CompletableFuture[]::new))
                .orTimeout(60, TimeUnit.SECONDS)
                .exceptionally(e -> null)
                .join();
    }

    /** Closes the outsiders (when {@link #stop} has not), then the nodes' side of the announcement topic. */
    @Override
    public void close() {
        try {
            closeOutsiders();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (AutoCloseable c : memberTopic) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.debug("closing {}: {}", c, e.toString());
            }
        }
        memberTopic.clear();
    }
}
