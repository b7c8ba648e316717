package dev.chorus.gossip.discovery;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Dialable addresses of peers, learnt through identify, the bootstrap list and mDNS. Bounded: at most
 * {@code maxPeers} peers (the least recently updated goes first) and {@code maxAddrsPerPeer} addresses
 * each (the newest kept). Thread-safe.
 */
public final class AddressBook {
    private final int maxPeers;
    private final int maxAddrsPerPeer;
    private final LinkedHashMap<PeerId, LinkedHashSet<Multiaddr>> addrs = new LinkedHashMap<>(16, 0.75f, true);

    public AddressBook(int maxPeers, int maxAddrsPerPeer) {
        if (maxPeers < 1 || maxAddrsPerPeer < 1) {
            throw new IllegalArgumentException("address book bounds must be positive");
        }
        this.maxPeers = maxPeers;
        this.maxAddrsPerPeer = maxAddrsPerPeer;
    }

    public AddressBook() {
        this(4096, 16);
    }

    /** Adds TCP addresses of {@code peer} (stored without {@code /p2p/}); others are ignored. */
    public synchronized void add(PeerId peer, List<Multiaddr> list) {
        LinkedHashSet<Multiaddr> set = addrs.computeIfAbsent(peer, k -> new LinkedHashSet<>());
        for (Multiaddr a : list) {
            Multiaddr plain = a.withoutPeerId();
            if (a.peerId().map(p -> !p.equals(peer)).orElse(false) || !dialable(plain)) {
                continue;
            }
            set.remove(plain);
            set.add(plain);
            while (set.size() > maxAddrsPerPeer) {
                Iterator<Multiaddr> it = set.iterator();
                it.next();
                it.remove();
            }
        }
        if (set.isEmpty()) {
            addrs.remove(peer);
        }
        while (addrs.size() > maxPeers) {
            Iterator<PeerId> it = addrs.keySet().iterator();
            it.next();
            it.remove();
        }
    }

    private static boolean dialable(Multiaddr a) {
        try {
            a.toTcpSocketAddress();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The addresses of {@code peer}, newest last, each ending in {@code /p2p/<peer>}. */
    public synchronized List<Multiaddr> addrs(PeerId peer) {
        Set<Multiaddr> set = addrs.get(peer);
        if (set == null) {
            return List.of();
        }
        List<Multiaddr> out = new ArrayList<>();
        set.forEach(a -> out.add(a.withPeerId(peer)));
        return out;
    }

    public synchronized Set<PeerId> peers() {
        return Set.copyOf(addrs.keySet());
    }

    public synchronized void remove(PeerId peer) {
        addrs.remove(peer);
    }

    public synchronized int size() {
        return addrs.size();
    }

    /** A snapshot, for diagnostics. */
    public synchronized Map<PeerId, List<Multiaddr>> snapshot() {
        Map<PeerId, List<Multiaddr>> out = new LinkedHashMap<>();
        addrs.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return out;
    }
}
