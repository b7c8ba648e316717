package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes and decodes pubsub RPCs (pubsub/README.md, gossipsub-v1.0.md, v1.1 PRUNE extension, v1.2
 * IDONTWANT). Decoding accepts fields in any order, skips unknown ones, and enforces {@link RpcLimits}
 * as it goes: counts are checked before each element is built.
 */
public final class RpcCodec {
    private final RpcLimits limits;

    public RpcCodec(RpcLimits limits) {
        this.limits = limits;
    }

    public RpcLimits limits() {
        return limits;
    }

    // ---------------------------------------------------------------- encoding

    public static byte[] encode(Rpc rpc) {
        return encode(rpc, false);
    }

    /**
     * The RPC as it goes on a pubsub stream: its length as an unsigned varint, then {@link #encode}'s bytes, written
     * once into one array.
     */
    public static byte[] encodeFramed(Rpc rpc) {
        return encode(rpc, true);
    }

    private static byte[] encode(Rpc rpc, boolean framed) {
        // Subscriptions and control are small and encoded apart; messages, which may be large, are counted and then
        // written once, in place.
        List<ProtobufWriter> subscriptions = new ArrayList<>(rpc.subscriptions().size());
        for (Rpc.SubOpts s : rpc.subscriptions()) {
            subscriptions.add(new ProtobufWriter().bool(1, s.subscribe()).string(2, s.topic()));
        }
        ProtobufWriter control = rpc.control() == null ? null : encodeControl(rpc.control());
        int size = 0;
        for (ProtobufWriter s : subscriptions) {
            size += ProtobufWriter.sizeOfBytes(1, s.size());
        }
        for (PubsubMessage m : rpc.messages()) {
            size += ProtobufWriter.sizeOfBytes(2, m.size());
        }
        if (control != null) {
            size += ProtobufWriter.sizeOfBytes(3, control.size());
        }
        ProtobufWriter w = new ProtobufWriter(framed ? ProtobufWriter.sizeOfVarint(size) + size : size);
        if (framed) {
            w.unsignedVarint(size);
        }
        for (ProtobufWriter s : subscriptions) {
            w.message(1, s);
        }
        for (PubsubMessage m : rpc.messages()) {
            w.header(2, m.size());
            m.writeTo(w);
        }
        if (control != null) {
            w.message(3, control);
        }
        return w.toByteArray();
    }

    /** The encoded size of an RPC that carries only {@code m}: what {@link #encode} would give, counted. */
    public static int sizeOfPublish(PubsubMessage m) {
        return ProtobufWriter.sizeOfBytes(2, m.size());
    }

    private static ProtobufWriter encodeControl(Rpc.Control c) {
        ProtobufWriter w = new ProtobufWriter();
        for (Rpc.IHave ih : c.ihave()) {
            ProtobufWriter x = new ProtobufWriter().string(1, ih.topic());
            ih.messageIds().forEach(id -> x.bytes(2, id.raw()));
            w.message(1, x);
        }
        for (Rpc.IWant iw : c.iwant()) {
            ProtobufWriter x = new ProtobufWriter();
            iw.messageIds().forEach(id -> x.bytes(1, id.raw()));
            w.message(2, x);
        }
        for (Rpc.Graft g : c.graft()) {
            w.message(3, new ProtobufWriter().string(1, g.topic()));
        }
        for (Rpc.Prune p : c.prune()) {
            ProtobufWriter x = new ProtobufWriter().string(1, p.topic());
            for (Rpc.PeerInfo pi : p.peers()) {
                ProtobufWriter y = new ProtobufWriter();
                if (pi.peerId() != null) {
                    y.bytes(1, pi.peerId());
                }
                if (pi.signedPeerRecord() != null) {
                    y.bytes(2, pi.signedPeerRecord());
                }
                x.message(2, y);
            }
            if (p.backoffSeconds() >= 0) {
                x.varint(3, p.backoffSeconds());
            }
            w.message(4, x);
        }
        for (Rpc.IDontWant d : c.idontwant()) {
            ProtobufWriter x = new ProtobufWriter();
            d.messageIds().forEach(id -> x.bytes(1, id.raw()));
            w.message(5, x);
        }
        return w;
    }

    // ---------------------------------------------------------------- decoding

    /**
     * Decodes one RPC (without its length prefix).
     *
     * @throws RpcLimitException when a limit is exceeded
     * @throws InvalidRpcException when the bytes are not a valid RPC
     */
    public Rpc decode(byte[] bytes) {
        if (bytes.length > limits.maxRpcBytes()) {
            throw new RpcLimitException("RPC of " + bytes.length + " bytes exceeds " + limits.maxRpcBytes());
        }
        try {
            return decodeRpc(new ProtobufReader(bytes));
        } catch (CorruptedFrameException e) {
            throw new InvalidRpcException("malformed RPC: " + e.getMessage(), e);
        }
    }

    private Rpc decodeRpc(ProtobufReader r) {
        List<Rpc.SubOpts> subs = new ArrayList<>();
        List<PubsubMessage> msgs = new ArrayList<>();
        Rpc.Control control = null;
        Counts counts = new Counts();
        while (r.next()) {
            switch (r.field()) {
                case 1 -> {
                    if (subs.size() >= limits.maxSubscriptions()) {
                        throw exceeded("more than " + limits.maxSubscriptions() + " subscriptions");
                    }
                    subs.add(decodeSubOpts(r.message()));
                }
                case 2 -> {
                    if (msgs.size() >= limits.maxMessages()) {
                        throw exceeded("more than " + limits.maxMessages() + " messages");
                    }
                    msgs.add(decodeMessage(r.message()));
                }
                case 3 -> control = merge(control, decodeControl(r.message(), counts));
                default -> r.skip();
            }
        }
        return new Rpc(subs, msgs, control);
    }

    /** Repeated embedded messages merge (protobuf rules); a second control field appends its entries. */
    private static Rpc.Control merge(Rpc.Control a, Rpc.Control b) {
        if (a == null) {
            return b;
        }
        return new Rpc.Control(
                concat(a.ihave(), b.ihave()),
                concat(a.iwant(), b.iwant()),
                concat(a.graft(), b.graft()),
                concat(a.prune(), b.prune()),
                concat(a.idontwant(), b.idontwant()));
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private Rpc.SubOpts decodeSubOpts(ProtobufReader r) {
        boolean subscribe = false;
        String topic = null;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> subscribe = r.bool();
                case 2 -> topic = topic(r);
                default -> r.skip();
            }
        }
        if (topic == null) {
            throw new InvalidRpcException("subscription without a topic");
        }
        return new Rpc.SubOpts(subscribe, topic);
    }

    /** Decodes one encoded {@code Message}. */
    public PubsubMessage decodeMessage(byte[] bytes) {
        try {
            return decodeMessage(new ProtobufReader(bytes));
        } catch (CorruptedFrameException e) {
            throw new InvalidRpcException("malformed message: " + e.getMessage(), e);
        }
    }

    /** Decodes a {@code Message}; the signature, key and ids are checked later, by the router. */
    private PubsubMessage decodeMessage(ProtobufReader r) {
        byte[] from = null, data = null, seqno = null, signature = null, key = null;
        String topic = null;
        while (r.next()) {
            switch (r.field()) {
                case 1 -> from = r.bytes();
                case 2 -> data = r.bytes();
                case 3 -> seqno = r.bytes();
                case 4 -> topic = topic(r);
                case 5 -> signature = r.bytes();
                case 6 -> key = r.bytes();
                default -> r.skip();
            }
        }
        if (topic == null) {
            throw new InvalidRpcException("message without a topic");
        }
        return new PubsubMessage(from, data, seqno, topic, signature, key);
    }

    private static final class Counts {
        int ihaveIds, iwantIds, grafts, prunes, idontwantIds;
    }

    private Rpc.Control decodeControl(ProtobufReader r, Counts n) {
        RpcLimits.Control control = limits.control();
        List<Rpc.IHave> ihave = new ArrayList<>();
        List<Rpc.IWant> iwant = new ArrayList<>();
        List<Rpc.Graft> graft = new ArrayList<>();
        List<Rpc.Prune> prune = new ArrayList<>();
        List<Rpc.IDontWant> idontwant = new ArrayList<>();
        while (r.next()) {
            switch (r.field()) {
                case 1 -> ihave.add(decodeIHave(r.message(), n, control));
                case 2 ->
                    iwant.add(
                            new Rpc.IWant(decodeIds(r.message(), "IWANT", control.maxIWantIds(), () -> ++n.iwantIds)));
                case 3 -> {
                    if (++n.grafts > control.maxGrafts()) {
                        throw exceeded("more than " + control.maxGrafts() + " GRAFTs");
                    }
                    String topic = decodeGraftTopic(r.message());
                    if (topic != null) {
                        graft.add(new Rpc.Graft(topic));
                    }
                }
                case 4 -> {
                    if (++n.prunes > control.maxPrunes()) {
                        throw exceeded("more than " + control.maxPrunes() + " PRUNEs");
                    }
                    prune.add(decodePrune(r.message()));
                }
                case 5 ->
                    idontwant.add(new Rpc.IDontWant(
                            decodeIds(r.message(), "IDONTWANT", control.maxIDontWantIds(), () -> ++n.idontwantIds)));
                default -> r.skip();
            }
        }
        return new Rpc.Control(ihave, iwant, graft, prune, idontwant);
    }

    private Rpc.IHave decodeIHave(ProtobufReader x, Counts n, RpcLimits.Control control) {
        String topic = null;
        List<MessageId> ids = new ArrayList<>();
        while (x.next()) {
            switch (x.field()) {
                case 1 -> topic = topic(x);
                case 2 -> {
                    if (++n.ihaveIds > control.maxIHaveIds()) {
                        throw exceeded("more than " + control.maxIHaveIds() + " IHAVE ids");
                    }
                    ids.add(messageId(x));
                }
                default -> x.skip();
            }
        }
        return new Rpc.IHave(topic == null ? "" : topic, ids);
    }

    /**
     * The message ids in field 1 of an IWANT or IDONTWANT, each counted against the RPC's limit for that kind as it
     * is read, so a hostile RPC is refused before it is buffered whole.
     */
    private List<MessageId> decodeIds(ProtobufReader x, String kind, int max, java.util.function.IntSupplier count) {
        List<MessageId> ids = new ArrayList<>();
        while (x.next()) {
            if (x.field() == 1) {
                if (count.getAsInt() > max) {
                    throw exceeded("more than " + max + " " + kind + " ids");
                }
                ids.add(messageId(x));
            } else {
                x.skip();
            }
        }
        return ids;
    }

    private String decodeGraftTopic(ProtobufReader x) {
        String topic = null;
        while (x.next()) {
            if (x.field() == 1) {
                topic = topic(x);
            } else {
                x.skip();
            }
        }
        return topic;
    }

    private Rpc.Prune decodePrune(ProtobufReader x) {
        String topic = null;
        List<Rpc.PeerInfo> peers = new ArrayList<>();
        long backoff = -1;
        while (x.next()) {
            switch (x.field()) {
                case 1 -> topic = topic(x);
                case 2 -> {
                    int max = limits.control().maxPrunePeers();
                    if (peers.size() >= max) {
                        throw exceeded("more than " + max + " PX peers");
                    }
                    ProtobufReader y = x.message();
                    byte[] id = null, record = null;
                    while (y.next()) {
                        switch (y.field()) {
                            case 1 -> id = y.bytes();
                            case 2 -> record = y.bytes();
                            default -> y.skip();
                        }
                    }
                    peers.add(new Rpc.PeerInfo(id, record));
                }
                case 3 -> {
                    backoff = x.varint();
                    if (backoff < 0) {
                        backoff = Long.MAX_VALUE; // a uint64 above 2^63
                    }
                }
                default -> x.skip();
            }
        }
        if (topic == null) {
            throw new InvalidRpcException("PRUNE without a topic");
        }
        return new Rpc.Prune(topic, peers, backoff);
    }

    private String topic(ProtobufReader r) {
        String t = r.string();
        if (PubsubMessage.utf8(t).length > limits.maxTopicBytes()) {
            throw exceeded("topic longer than " + limits.maxTopicBytes() + " bytes");
        }
        return t;
    }

    private MessageId messageId(ProtobufReader r) {
        byte[] id = r.bytes();
        if (id.length > limits.maxMessageIdBytes()) {
            throw exceeded("message id longer than " + limits.maxMessageIdBytes() + " bytes");
        }
        return MessageId.wrap(id);
    }

    /** The exception for an RPC over a limit; the caller builds the message only when it throws. */
    private static RpcLimitException exceeded(String what) {
        return new RpcLimitException("RPC has " + what);
    }
}
