package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.Function;

/**
 * Many {@link GossipsubRouter}s on an in-memory network with a controlled clock: every RPC is encoded and
 * decoded (so the codec and its limits are exercised) and delivered after the link's latency, in order
 * per link. Heartbeats run per node at a random phase. Deterministic for a given seed.
 */
final class SimNetwork {
    /** A controlled clock in milliseconds. */
    static final class SimClock implements InstantSource {
        long millis;

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public long millis() {
            return millis;
        }
    }

    record Delivery(PubsubMessage message, MessageId id, PeerId from, long at) {}

    final class Node {
        final PrivateKey key;
        final PeerId id;
        final GossipsubRouter router;
        final InetAddress ip;
        final List<Delivery> received = new ArrayList<>();
        final List<Rpc> sentLog = new ArrayList<>();
        boolean logSent;

        Node(PrivateKey key, PubsubConfig config, InetAddress ip) {
            this.key = key;
            this.id = key.peerId();
            this.ip = ip;
            this.router = new GossipsubRouter(
                    key,
                    config,
                    clock,
                    new Random(random.nextLong()),
                    r -> schedule(0, r),
                    this::send,
                    (m, mid, from) -> received.add(new Delivery(m, mid, from, clock.millis)));
        }

        private void send(PeerId to, Rpc rpc) {
            if (logSent) {
                sentLog.add(rpc);
            }
            Link link = links.get(new LinkKey(id, to));
            if (link == null) {
                return; // disconnected meanwhile
            }
            byte[] bytes = RpcCodec.encode(rpc);
            bytesSent += bytes.length;
            rpcsSent++;
            Node dest = nodes.get(to);
            // Per-link FIFO: never deliver before the previous RPC on this link.
            long at = Math.max(clock.millis + link.latencyMillis, link.lastDelivery);
            link.lastDelivery = at;
            scheduleAt(at, () -> {
                if (links.containsKey(new LinkKey(id, to))) {
                    Rpc decoded;
                    try {
                        decoded = dest.codec.decode(bytes);
                    } catch (InvalidRpcException e) {
                        dest.router.onInvalidRpc(id, e.getMessage());
                        return;
                    }
                    dest.router.onRpc(id, decoded);
                }
            });
        }

        final RpcCodec codec = new RpcCodec(RpcLimits.DEFAULTS);
    }

    private record LinkKey(PeerId from, PeerId to) {}

    private static final class Link {
        final long latencyMillis;
        long lastDelivery;

        Link(long latencyMillis) {
            this.latencyMillis = latencyMillis;
        }
    }

    private record Event(long at, long seq, Runnable action) {}

    final long seed;
    final Random random;
    final SimClock clock = new SimClock();
    final Map<PeerId, Node> nodes = new LinkedHashMap<>();
    private final Map<LinkKey, Link> links = new HashMap<>();
    private final PriorityQueue<Event> events =
            new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private long seq;
    long bytesSent;
    long rpcsSent;
    long minLatency = 5;
    long maxLatency = 50;

    SimNetwork(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
    }

    Node addNode(PubsubConfig config) {
        return addNode(config, n -> loopbackAddress(n));
    }

    Node addNode(PubsubConfig config, Function<Integer, InetAddress> ipOf) {
        byte[] seed32 = new byte[32];
        random.nextBytes(seed32);
        Node n = new Node(PrivateKey.fromSeed(seed32), config, ipOf.apply(nodes.size()));
        nodes.put(n.id, n);
        long interval = config.params().timing().heartbeatInterval().toMillis();
        long phase = 100 + random.nextLong(interval);
        scheduleHeartbeat(n, clock.millis + phase, interval);
        return n;
    }

    private void scheduleHeartbeat(Node n, long at, long interval) {
        scheduleAt(at, () -> {
            if (nodes.containsKey(n.id)) {
                n.router.heartbeat();
                scheduleHeartbeat(n, at + interval, interval);
            }
        });
    }

    static InetAddress loopbackAddress(int n) {
        try {
            return InetAddress.getByAddress(new byte[] {127, 1, (byte) (n >> 8), (byte) n});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code a} dials {@code b}; both speak {@code protocol}. */
    void connect(Node a, Node b, PubsubProtocol protocol) {
        long latency = minLatency + random.nextLong(maxLatency - minLatency + 1);
        links.put(new LinkKey(a.id, b.id), new Link(latency));
        links.put(new LinkKey(b.id, a.id), new Link(latency));
        a.router.addPeer(b.id, protocol, true, b.ip);
        b.router.addPeer(a.id, protocol, false, a.ip);
    }

    void connect(Node a, Node b) {
        connect(a, b, PubsubProtocol.MESHSUB_1_2);
    }

    boolean connected(Node a, Node b) {
        return links.containsKey(new LinkKey(a.id, b.id));
    }

    void disconnect(Node a, Node b) {
        links.remove(new LinkKey(a.id, b.id));
        links.remove(new LinkKey(b.id, a.id));
        a.router.removePeer(b.id);
        b.router.removePeer(a.id);
    }

    /** Each node dials {@code dials} distinct random others. */
    void connectRandomly(int dials) {
        List<Node> all = new ArrayList<>(nodes.values());
        for (Node a : all) {
            int made = 0;
            while (made < dials) {
                Node b = all.get(random.nextInt(all.size()));
                if (b != a && !connected(a, b)) {
                    connect(a, b);
                    made++;
                }
            }
        }
    }

    void schedule(long delay, Runnable r) {
        scheduleAt(clock.millis + delay, r);
    }

    void scheduleAt(long at, Runnable r) {
        events.add(new Event(at, seq++, r));
    }

    /** Runs every event up to {@code millis} from now; the clock ends there. */
    void run(long millis) {
        long end = clock.millis + millis;
        while (!events.isEmpty() && events.peek().at <= end) {
            Event e = events.poll();
            clock.millis = Math.max(clock.millis, e.at);
            e.action.run();
        }
        clock.millis = end;
    }
}
