package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One router under test on a controlled clock, with scripted peers: RPCs to it go through the codec,
 * RPCs from it are captured per peer, asynchronous validations complete when {@link #runTasks()} runs.
 */
final class RouterHarness {
    final SimNetwork.SimClock clock = new SimNetwork.SimClock();
    final Map<PeerId, List<Rpc>> sent = new LinkedHashMap<>();
    final List<PubsubMessage> delivered = new ArrayList<>();
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    final Map<PeerId, PrivateKey> keys = new HashMap<>();
    final Random random;
    final GossipsubRouter router;
    final RpcCodec codec;

    RouterHarness(PubsubConfig config, long seed) {
        this.random = new Random(seed);
        this.clock.millis = 1_000_000;
        this.codec = new RpcCodec(config.limits());
        this.router = new GossipsubRouter(
                key(0),
                config,
                clock,
                new Random(seed),
                tasks::add,
                (peer, rpc) ->
                        sent.computeIfAbsent(peer, k -> new ArrayList<>()).add(rpc),
                (m, id, from) -> delivered.add(m));
    }

    RouterHarness(long seed) {
        this(PubsubConfig.defaults(), seed);
    }

    static PrivateKey key(int i) {
        byte[] seed = new byte[32];
        seed[0] = (byte) i;
        seed[1] = (byte) (i >> 8);
        seed[31] = 7;
        return PrivateKey.fromSeed(seed);
    }

    static InetAddress ip(int i) {
        return SimNetwork.loopbackAddress(i);
    }

    PeerId peer(int i, boolean outbound) {
        return peer(i, outbound, PubsubProtocol.MESHSUB_1_2, ip(i));
    }

    PeerId peer(int i, boolean outbound, PubsubProtocol protocol, InetAddress ip) {
        PrivateKey k = key(i);
        keys.put(k.peerId(), k);
        router.addPeer(k.peerId(), protocol, outbound, ip);
        return k.peerId();
    }

    /** Delivers {@code rpc} from {@code from}, encoded and decoded as on the wire. */
    void rpc(PeerId from, Rpc rpc) {
        Rpc decoded;
        try {
            decoded = codec.decode(RpcCodec.encode(rpc));
        } catch (InvalidRpcException e) {
            router.onInvalidRpc(from, e.getMessage());
            return;
        }
        router.onRpc(from, decoded);
    }

    void subscribePeer(PeerId p, String... topics) {
        List<Rpc.SubOpts> subs = new ArrayList<>();
        for (String t : topics) {
            subs.add(new Rpc.SubOpts(true, t));
        }
        rpc(p, Rpc.ofSubscriptions(subs));
    }

    void control(
            PeerId from,
            List<Rpc.IHave> ihave,
            List<Rpc.IWant> iwant,
            List<Rpc.Graft> graft,
            List<Rpc.Prune> prune,
            List<Rpc.IDontWant> idw) {
        rpc(from, Rpc.ofControl(new Rpc.Control(ihave, iwant, graft, prune, idw)));
    }

    void graft(PeerId from, String topic) {
        control(from, List.of(), List.of(), List.of(new Rpc.Graft(topic)), List.of(), List.of());
    }

    void prune(PeerId from, String topic, long backoffSeconds) {
        control(
                from,
                List.of(),
                List.of(),
                List.of(),
                List.of(new Rpc.Prune(topic, List.of(), backoffSeconds)),
                List.of());
    }

    /** A valid StrictSign message authored by peer {@code author}. */
    PubsubMessage message(PeerId author, String topic, byte[] data) {
        return SignaturePolicy.STRICT_SIGN.author(keys.get(author), topic, data, random);
    }

    void advance(long millis) {
        clock.millis += millis;
    }

    void heartbeat() {
        router.heartbeat();
    }

    void runTasks() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            r.run();
        }
    }

    void clearSent() {
        sent.clear();
    }

    List<Rpc> sentTo(PeerId p) {
        return sent.getOrDefault(p, List.of());
    }

    List<String> graftsTo(PeerId p) {
        List<String> out = new ArrayList<>();
        for (Rpc r : sentTo(p)) {
            if (r.control() != null) {
                r.control().graft().forEach(g -> out.add(g.topic()));
            }
        }
        return out;
    }

    List<Rpc.Prune> prunesTo(PeerId p) {
        List<Rpc.Prune> out = new ArrayList<>();
        for (Rpc r : sentTo(p)) {
            if (r.control() != null) {
                out.addAll(r.control().prune());
            }
        }
        return out;
    }

    List<MessageId> iwantsTo(PeerId p) {
        List<MessageId> out = new ArrayList<>();
        for (Rpc r : sentTo(p)) {
            if (r.control() != null) {
                r.control().iwant().forEach(w -> out.addAll(w.messageIds()));
            }
        }
        return out;
    }

    List<MessageId> ihavesTo(PeerId p) {
        List<MessageId> out = new ArrayList<>();
        for (Rpc r : sentTo(p)) {
            if (r.control() != null) {
                r.control().ihave().forEach(w -> out.addAll(w.messageIds()));
            }
        }
        return out;
    }

    List<MessageId> idontwantsTo(PeerId p) {
        List<MessageId> out = new ArrayList<>();
        for (Rpc r : sentTo(p)) {
            if (r.control() != null) {
                r.control().idontwant().forEach(w -> out.addAll(w.messageIds()));
            }
        }
        return out;
    }

    List<PubsubMessage> messagesTo(PeerId p) {
        List<PubsubMessage> out = new ArrayList<>();
        for (Rpc r : sentTo(p)) {
            out.addAll(r.messages());
        }
        return out;
    }

    MessageId id(PubsubMessage m) {
        return router.config().messageIdFunction().apply(m);
    }
}
