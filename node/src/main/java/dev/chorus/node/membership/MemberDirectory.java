package dev.chorus.node.membership;

import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Role;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The verified member certificates this node knows, by peer ID: those of the peers it admitted and those it
 * received, verified, on the consortium's membership topic. It answers whether a peer may publish to the
 * consortium's topics, including a peer this node has no connection to. Bounded: past {@code capacity} the entry
 * learned longest ago makes room. Thread-safe.
 */
public final class MemberDirectory {

    private final int capacity;
    private final RevocationLists revocations;
    private final InstantSource clock;
    private final Map<String, MemberCertificate> byPeer;

    public MemberDirectory(int capacity, RevocationLists revocations, InstantSource clock) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
        this.revocations = revocations;
        this.clock = clock;
        this.byPeer = new LinkedHashMap<>(16, 0.75f, false);
    }

    /** Records a verified certificate (a newer one for the same peer replaces the older). */
    public void learn(MemberCertificate c) {
        synchronized (byPeer) {
            MemberCertificate held = byPeer.get(c.peerId());
            if (held != null && held.notAfter().isAfter(c.notAfter())) {
                return;
            }
            byPeer.remove(c.peerId());
            if (byPeer.size() >= capacity) {
                String eldest = byPeer.keySet().iterator().next();
                byPeer.remove(eldest);
            }
            byPeer.put(c.peerId(), c);
        }
    }

    /** Why {@code peer} may not publish, or empty when it holds a valid, unrevoked member certificate. */
    public Optional<String> publishRefusal(String peer) {
        MemberCertificate c;
        synchronized (byPeer) {
            c = byPeer.get(peer);
        }
        if (c == null) {
            return Optional.of("no verified certificate known for " + peer);
        }
        if (c.role() != Role.MEMBER) {
            return Optional.of(peer + " is an " + c.role().id());
        }
        if (clock.instant().isAfter(c.notAfter())) {
            return Optional.of("certificate of " + peer + " expired at " + c.notAfter());
        }
        if (revocations.isRevoked(c.certificate())) {
            return Optional.of("certificate of " + peer + " is revoked");
        }
        return Optional.empty();
    }

    public Optional<MemberCertificate> certificate(String peer) {
        synchronized (byPeer) {
            return Optional.ofNullable(byPeer.get(peer));
        }
    }

    public int size() {
        synchronized (byPeer) {
            return byPeer.size();
        }
    }
}
