package dev.chorus.gossip.discovery;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * libp2p mDNS peer discovery (libp2p/specs discovery/mdns.md) without sockets: builds the query
 * ({@code _p2p._udp.local PTR}), answers queries with a PTR to {@code <peer-name>._p2p._udp.local} and a
 * TXT record of {@code dnsaddr=<multiaddr>/p2p/<id>} strings, and extracts peers from responses.
 * {@code peer-name} is a random string of 32 to 63 letters and digits, as the spec prescribes, since a
 * peer ID may not fit a 63-byte DNS label. Received packets are bounded: 16 peers per packet, 16
 * addresses per peer.
 */
public final class MdnsDiscovery {
    public static final String SERVICE = "_p2p._udp.local";
    static final long TTL_SECONDS = 120;
    static final int MAX_PEERS_PER_PACKET = 16;
    static final int MAX_ADDRS_PER_PEER = 16;
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    /** A peer found in a response, with its addresses (each ending in its {@code /p2p/}). */
    public record Discovered(PeerId peer, List<Multiaddr> addrs) {}

    /** What to do with a packet: a reply to send (or null), and peers found. */
    public record Outcome(byte[] reply, List<Discovered> peers) {}

    private final PeerId self;
    private final Supplier<List<Multiaddr>> listenAddrs;
    private final String peerName;

    public MdnsDiscovery(PeerId self, Supplier<List<Multiaddr>> listenAddrs, RandomGenerator random) {
        this.self = self;
        this.listenAddrs = listenAddrs;
        int n = 32 + random.nextInt(32);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        this.peerName = b.toString();
    }

    public String peerName() {
        return peerName;
    }

    public byte[] query() {
        return new DnsMessage(
                        0,
                        false,
                        List.of(new DnsMessage.Question(SERVICE, DnsMessage.TYPE_PTR, false)),
                        List.of(),
                        List.of())
                .encode();
    }

    /** Our answer to a "find all peers" query. */
    public byte[] response() {
        String instance = peerName + "." + SERVICE;
        List<String> txt = new ArrayList<>();
        int size = 0;
        for (Multiaddr a : listenAddrs.get()) {
            String s = "dnsaddr=" + a.withoutPeerId().withPeerId(self);
            if (s.length() <= 255 && txt.size() < MAX_ADDRS_PER_PEER && size + s.length() < 4000) {
                txt.add(s);
                size += s.length() + 1;
            }
        }
        return new DnsMessage(
                        0,
                        true,
                        List.of(),
                        List.of(DnsMessage.Record.ptr(SERVICE, instance, TTL_SECONDS)),
                        List.of(DnsMessage.Record.txt(instance, txt, TTL_SECONDS)))
                .encode();
    }

    /** Handles a received packet; malformed ones are dropped. */
    public Outcome onPacket(byte[] packet) {
        DnsMessage m;
        try {
            m = DnsMessage.decode(packet);
        } catch (DnsFormatException e) {
            return new Outcome(null, List.of());
        }
        if (!m.response()) {
            for (DnsMessage.Question q : m.questions()) {
                if (q.type() == DnsMessage.TYPE_PTR && DnsMessage.sameName(q.name(), SERVICE)) {
                    return new Outcome(response(), List.of());
                }
            }
            return new Outcome(null, List.of());
        }
        Set<String> instances = new HashSet<>();
        for (DnsMessage.Record r : m.answers()) {
            if (r.type() == DnsMessage.TYPE_PTR && DnsMessage.sameName(r.name(), SERVICE) && r.target() != null) {
                instances.add(r.target().toLowerCase(java.util.Locale.ROOT));
            }
        }
        Map<PeerId, List<Multiaddr>> found = new LinkedHashMap<>();
        List<DnsMessage.Record> all = new ArrayList<>(m.answers());
        all.addAll(m.additionals());
        for (DnsMessage.Record r : all) {
            if (r.type() != DnsMessage.TYPE_TXT || !instances.contains(r.name().toLowerCase(java.util.Locale.ROOT))) {
                continue;
            }
            for (String s : r.strings()) {
                if (!s.startsWith("dnsaddr=")) {
                    continue;
                }
                Multiaddr a;
                try {
                    a = Multiaddr.parse(s.substring("dnsaddr=".length()));
                } catch (RuntimeException e) {
                    continue;
                }
                PeerId p = a.peerId().orElse(null);
                if (p == null || p.equals(self)) {
                    continue;
                }
                if (!found.containsKey(p) && found.size() >= MAX_PEERS_PER_PACKET) {
                    continue;
                }
                List<Multiaddr> list = found.computeIfAbsent(p, k -> new ArrayList<>());
                if (list.size() < MAX_ADDRS_PER_PEER && !list.contains(a)) {
                    list.add(a);
                }
            }
        }
        List<Discovered> out = new ArrayList<>();
        found.forEach((p, l) -> out.add(new Discovered(p, List.copyOf(l))));
        return new Outcome(null, out);
    }
}
