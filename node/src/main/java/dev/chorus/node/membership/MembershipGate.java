package dev.chorus.node.membership;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionGate;
import dev.chorus.gossip.host.ConnectionRefusedException;
import dev.chorus.gossip.multistream.UnsupportedProtocolException;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.RefusalReason;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Role;
import dev.chorus.privacy.membership.Roster;
import dev.chorus.privacy.membership.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits a connection to the consortium once both sides have checked each other's member certificate on {@code
 * /chorus/membership/1.0.0}: each side opens a stream, presents its certificate chain and reads the other's
 * verdict. A connection is admitted when this node has verified the remote's chain against the roster, its
 * validity, the revocation lists and the peer ID that Noise authenticated, and the remote has accepted this node's
 * chain; so neither side opens an application stream the other would still refuse.
 *
 * <p>Roles: an {@link Role#OBSERVER observer} is admitted, but not to the {@code memberOnly} protocols (the model
 * exchange): it reads announcements only. A node with no roster (a diagnostic client) presents its certificate and
 * takes the remote's on trust.
 *
 * <p>{@link #recheck()} closes every admitted connection whose certificate has since been revoked or has expired.
 */
public final class MembershipGate implements ConnectionGate {

    public static final String PROTOCOL = "/chorus/membership/1.0.0";

    /** Refusals kept for the API. */
    static final int RECENT_REFUSALS = 64;

    private static final Logger LOG = LoggerFactory.getLogger(MembershipGate.class);

    /** A connected, admitted peer and the certificate it presented. */
    public record Admitted(Connection connection, MemberCertificate certificate, Instant admittedAt) {}

    /** A refused peer: who, from where, why. */
    public record Refusal(Instant at, String peer, String address, String reason, String detail) {}

    private final Roster roster;
    private final RevocationLists revocations;
    private final Set<String> memberOnly;
    private final InstantSource clock;
    private final EgressRecorder egress;
    private final Duration timeout;
    private volatile List<byte[]> chain;
    private final Map<Connection, Checks> checks = new ConcurrentHashMap<>();
    private final Map<Connection, Admitted> admitted = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> refusedByReason = new ConcurrentHashMap<>();
    private final Deque<Refusal> recent = new ArrayDeque<>();
    private final List<Consumer<Admitted>> onAdmitted = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The two halves of one connection's check. */
    private static final class Checks {
        final CompletableFuture<MemberCertificate> remoteVerified = new CompletableFuture<>();
        final CompletableFuture<Void> acceptedByRemote = new CompletableFuture<>();
    }

    /**
     * @param roster the consortium's CAs, or null to take every remote's certificate on trust
     * @param revocations the revocation lists to check against (ignored without a roster)
     * @param chain this node's certificate chain (DER, member certificate first)
     * @param memberOnly protocols an observer may not run
     */
    public MembershipGate(
            Roster roster,
            RevocationLists revocations,
            List<byte[]> chain,
            Set<String> memberOnly,
            InstantSource clock,
            EgressRecorder egress,
            Duration timeout) {
        this.roster = roster;
        this.revocations = revocations;
        this.chain = List.copyOf(chain);
        this.memberOnly = Set.copyOf(memberOnly);
        this.clock = clock;
        this.egress = egress;
        this.timeout = timeout;
    }

    /** Presents {@code newChain} on connections made from now on (certificate renewal without downtime). */
    public void renew(List<byte[]> newChain) {
        this.chain = List.copyOf(newChain);
    }

    /** Called with each newly admitted peer (on an I/O thread; must not block). */
    public void onAdmitted(Consumer<Admitted> listener) {
        onAdmitted.add(listener);
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public CompletableFuture<Void> admit(Connection c) {
        Checks k = checks(c);
        present(c, k);
        // Either half failing refuses at once; both succeeding admits.
        CompletableFuture<Void> result = new CompletableFuture<>();
        k.remoteVerified.whenComplete((cert, err) -> settle(c, k, result, err));
        k.acceptedByRemote.whenComplete((v, err) -> settle(c, k, result, err));
        // The host may also end the wait (its timeout): whatever ends it, an unadmitted end is a refusal.
        result.whenComplete((v, err) -> {
            if (err != null) {
                Throwable cause = unwrap(err);
                if (cause instanceof ConnectionRefusedException r && "timeout".equals(r.reason())) {
                    refused(c, RefusalReason.TIMEOUT.id(), "no certificate check within " + timeout.toMillis() + " ms");
                }
            }
        });
        c.closeFuture().whenComplete((v, e) -> {
            admitted.remove(c);
            k.remoteVerified.completeExceptionally(new ConnectionRefusedException("closed", "connection closed"));
            k.acceptedByRemote.completeExceptionally(new ConnectionRefusedException("closed", "connection closed"));
        });
        return result;
    }

    /** Completes {@code result} once both halves are in, or as soon as one fails. */
    private void settle(Connection c, Checks k, CompletableFuture<Void> result, Throwable err) {
        if (err != null) {
            result.completeExceptionally(unwrap(err));
            return;
        }
        Admitted a;
        synchronized (k) {
            if (!k.remoteVerified.isDone() || !k.acceptedByRemote.isDone() || result.isDone()) {
                return;
            }
            MemberCertificate cert = k.remoteVerified.join();
            a = new Admitted(c, cert, clock.instant());
            admitted.put(c, a); // before the host admits, so that permits() already holds for it
            if (!result.complete(null) || !c.isOpen()) {
                admitted.remove(c);
                return;
            }
        }
        MemberCertificate cert = a.certificate();
        LOG.info(
                "peer {} admitted: {} of {}, certificate valid until {}",
                c.remotePeer(),
                cert.role().id(),
                cert.organisation(),
                cert.notAfter());
        for (Consumer<Admitted> l : onAdmitted) {
            try {
                l.accept(a);
            } catch (RuntimeException e) {
                LOG.warn("admission listener failed: {}", e.toString());
            }
        }
    }

    /** The connection's checks, created by whichever comes first: the host's admit or the remote's stream. */
    private Checks checks(Connection c) {
        boolean[] created = {false};
        Checks k = checks.computeIfAbsent(c, x -> {
            created[0] = true;
            return new Checks();
        });
        if (created[0]) {
            c.closeFuture().whenComplete((v, e) -> checks.remove(c));
        }
        return k;
    }

    /** Opens this node's stream: presents the chain, reads the remote's verdict on it. */
    private void present(Connection c, Checks k) {
        byte[] msg = MembershipMessages.presentation(chain);
        String peer = c.remotePeer().toBase58();
        c.newStream(PROTOCOL)
                .thenCompose(s -> {
                    egress.record(peer, PROTOCOL, "certificate", msg, EgressRecorder.NO_VERSION);
                    return s.write(msg)
                            .thenCompose(x -> s.closeWrite())
                            .thenCompose(x -> s.readToEnd(MembershipMessages.MAX_VERDICT_BYTES + 16));
                })
                .whenComplete((bytes, err) -> {
                    if (err != null) {
                        Throwable cause = unwrap(err);
                        if (cause instanceof UnsupportedProtocolException) {
                            refuse(c, k, RefusalReason.NO_CERTIFICATE.id(), "peer does not speak " + PROTOCOL);
                        } else {
                            k.acceptedByRemote.completeExceptionally(new ConnectionRefusedException(
                                    RefusalReason.PROTOCOL.id(), "presenting our certificate failed: " + cause));
                        }
                        return;
                    }
                    MembershipMessages.Verdict v;
                    try {
                        v = MembershipMessages.parseVerdict(bytes);
                    } catch (IllegalArgumentException e) {
                        refuse(c, k, RefusalReason.PROTOCOL.id(), e.getMessage());
                        return;
                    }
                    if (v.admitted()) {
                        k.acceptedByRemote.complete(null);
                    } else {
                        String why = "peer refused our certificate: " + v.reason()
                                + (v.detail() == null || v.detail().isEmpty() ? "" : " (" + v.detail() + ")");
                        LOG.warn("{}: {}", peer, why);
                        k.acceptedByRemote.completeExceptionally(new ConnectionRefusedException(
                                v.reason() == null || v.reason().isBlank() ? "refused-by-peer" : v.reason(), why));
                    }
                });
    }

    /** Serves the remote's presentation: verifies it and answers a verdict. */
    @Override
    public void serve(Connection c, Stream s) {
        Checks k = checks(c);
        String peer = c.remotePeer().toBase58();
        s.readToEnd(MembershipMessages.MAX_PRESENTATION_BYTES + 16).whenComplete((bytes, err) -> {
            if (err != null) {
                s.reset();
                refuse(c, k, RefusalReason.PROTOCOL.id(), "reading the presentation failed: " + unwrap(err));
                return;
            }
            Verdict verdict;
            try {
                List<byte[]> presented = MembershipMessages.parsePresentation(bytes);
                verdict = verify(presented, peer);
            } catch (IllegalArgumentException e) {
                verdict = Verdict.refuse(RefusalReason.MALFORMED, e.getMessage(), null);
            }
            Verdict fin = verdict;
            byte[] reply = MembershipMessages.verdict(new MembershipMessages.Verdict(
                    fin.admitted(), fin.admitted() ? null : fin.reason().id(), fin.admitted() ? null : fin.detail()));
            egress.record(peer, PROTOCOL, fin.admitted() ? "admission" : "refusal", reply, EgressRecorder.NO_VERSION);
            s.write(reply).thenCompose(x -> s.closeWrite()).exceptionally(x -> null);
            if (k.remoteVerified.isDone()) {
                return; // a second presentation on one connection changes nothing
            }
            if (fin.admitted()) {
                k.remoteVerified.complete(fin.member());
            } else {
                refuse(c, k, fin.reason().id(), fin.detail());
            }
        });
    }

    private Verdict verify(List<byte[]> presented, String peer) {
        if (roster == null) {
            if (presented.isEmpty()) {
                return Verdict.refuse(RefusalReason.NO_CERTIFICATE, "no certificate presented", null);
            }
            try {
                return Verdict.admit(MemberCertificate.parse(
                        dev.chorus.privacy.membership.Pem.certificateFromDer(presented.get(0))));
            } catch (RuntimeException e) {
                return Verdict.refuse(RefusalReason.MALFORMED, e.getMessage(), null);
            }
        }
        return roster.verify(presented, peer, clock.instant(), revocations);
    }

    private void refuse(Connection c, Checks k, String reason, String detail) {
        if (k.remoteVerified.completeExceptionally(new ConnectionRefusedException(reason, reason + ": " + detail))) {
            refused(c, reason, detail);
        }
    }

    private void refused(Connection c, String reason, String detail) {
        refusedByReason.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
        Refusal r = new Refusal(
                clock.instant(), c.remotePeer().toBase58(), c.remoteAddress().toString(), reason, detail);
        synchronized (recent) {
            recent.addFirst(r);
            while (recent.size() > RECENT_REFUSALS) {
                recent.removeLast();
            }
        }
        LOG.warn("refusing peer {} at {}: {}: {}", r.peer(), r.address(), reason, detail);
    }

    @Override
    public boolean permits(Connection c, String protocol) {
        Admitted a = admitted.get(c);
        if (a == null) {
            return false;
        }
        return a.certificate().role() == Role.MEMBER || !memberOnly.contains(protocol);
    }

    /**
     * Closes every admitted connection whose certificate is now revoked or expired, and counts each as a refusal.
     * Returns how many it closed.
     */
    public int recheck() {
        if (roster == null) {
            return 0;
        }
        Instant now = clock.instant();
        int closed = 0;
        for (Admitted a : List.copyOf(admitted.values())) {
            String reason = null;
            if (revocations.isRevoked(a.certificate().certificate())) {
                reason = RefusalReason.REVOKED.id();
            } else if (now.isAfter(a.certificate().notAfter())) {
                reason = RefusalReason.EXPIRED.id();
            }
            if (reason != null && admitted.remove(a.connection()) != null) {
                refused(
                        a.connection(),
                        reason,
                        "certificate serial " + a.certificate().serial().toString(16) + " of "
                                + a.certificate().organisation());
                a.connection().close(Duration.ZERO);
                closed++;
            }
        }
        return closed;
    }

    /** The admitted connections, with their certificates. */
    public List<Admitted> admitted() {
        return new ArrayList<>(admitted.values());
    }

    /**
     * One entry per admitted peer, for its earliest admitted connection: two nodes that dial each other hold two
     * connections but are one peer.
     */
    public List<Admitted> admittedPeers() {
        java.util.Map<String, Admitted> byPeer = new java.util.TreeMap<>();
        for (Admitted a : admitted.values()) {
            byPeer.merge(
                    a.connection().remotePeer().toBase58(),
                    a,
                    (x, y) -> x.admittedAt().isAfter(y.admittedAt()) ? y : x);
        }
        return new ArrayList<>(byPeer.values());
    }

    /** The certificate of {@code peer} if one of its connections is admitted. */
    public java.util.Optional<MemberCertificate> certificateOf(String peer) {
        for (Admitted a : admitted.values()) {
            if (a.connection().remotePeer().toBase58().equals(peer)) {
                return java.util.Optional.of(a.certificate());
            }
        }
        return java.util.Optional.empty();
    }

    /** Refusals so far, by reason (sorted by reason). */
    public Map<String, Long> refusals() {
        Map<String, Long> out = new TreeMap<>();
        refusedByReason.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    /** The latest refusals, newest first. */
    public List<Refusal> recentRefusals() {
        synchronized (recent) {
            return new ArrayList<>(recent);
        }
    }

    public Roster roster() {
        return roster;
    }

    public RevocationLists revocations() {
        return revocations;
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
