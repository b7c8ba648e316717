package dev.chorus.node.membership;

import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.pubsub.MessageValidator;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubMessage;
import dev.chorus.gossip.pubsub.ValidationResult;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.membership.MembershipException;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Roster;
import dev.chorus.privacy.membership.Verdict;
import java.security.cert.CRLException;
import java.security.cert.X509CRL;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consortium's membership topic {@code chorus/<consortium>/membership/1}, on which members spread what every
 * node must know without a server: their own certificates (so that a node can tell a member's message from an
 * outsider's even when it has no connection to the author) and the CAs' revocation lists.
 *
 * <pre>
 * message MembershipNotice { repeated bytes certificates = 1; bytes crl = 2; }  // DER
 * </pre>
 *
 * <p>The validator accepts a certificate notice only when the chain verifies against the roster for the notice's
 * author (the gossipsub signer), and a CRL only when a roster CA signed it and it is newer than the one held; a
 * CRL already held is ignored (it goes no further), anything else is rejected, which counts against the peer
 * that forwarded it.
 */
public final class MembershipTopic implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MembershipTopic.class);
    private static final int MAX_NOTICE_BYTES = 256 * 1024;

    private final Pubsub pubsub;
    private final String topic;
    private final Roster roster;
    private final RevocationLists revocations;
    private final MemberDirectory directory;
    private final InstantSource clock;
    private final EgressRecorder egress;
    private final Runnable onNewCrl;
    private final AutoCloseable subscription;
    private final AtomicLong rejected = new AtomicLong();

    public MembershipTopic(
            Pubsub pubsub,
            String consortium,
            Roster roster,
            RevocationLists revocations,
            MemberDirectory directory,
            InstantSource clock,
            EgressRecorder egress,
            Runnable onNewCrl) {
        this.pubsub = pubsub;
        this.topic = topic(consortium);
        this.roster = roster;
        this.revocations = revocations;
        this.directory = directory;
        this.clock = clock;
        this.egress = egress;
        this.onNewCrl = onNewCrl;
        pubsub.setValidator(topic, MessageValidator.of(this::validate));
        this.subscription = pubsub.subscribe(topic, (m, id, from) -> {});
    }

    public static String topic(String consortium) {
        return "chorus/" + consortium + "/membership/1";
    }

    public String topic() {
        return topic;
    }

    /** Notices rejected so far. */
    public long rejected() {
        return rejected.get();
    }

    /** Publishes this node's certificate chain. */
    public CompletableFuture<Integer> publishCertificate(List<byte[]> chain) {
        ProtobufWriter w = new ProtobufWriter();
        chain.forEach(c -> w.bytes(1, c));
        return publish(w.toByteArray(), "certificate");
    }

    /** Publishes a revocation list. */
    public CompletableFuture<Integer> publishCrl(X509CRL crl) {
        try {
            return publish(new ProtobufWriter().bytes(2, crl.getEncoded()).toByteArray(), "crl");
        } catch (CRLException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Integer> publish(byte[] bytes, String kind) {
        egress.record("*", "gossipsub:" + topic, kind, bytes, EgressRecorder.NO_VERSION);
        return pubsub.publish(topic, bytes).thenApply(r -> r.recipients());
    }

    private ValidationResult validate(PeerId from, PubsubMessage message) {
        PeerId author = message.author();
        byte[] data = message.dataOrEmpty();
        if (author == null || data.length > MAX_NOTICE_BYTES) {
            return reject(from, "a notice without an author or over " + MAX_NOTICE_BYTES + " bytes");
        }
        List<byte[]> certificates = new ArrayList<>();
        byte[] crl = null;
        try {
            ProtobufReader r = new ProtobufReader(data);
            while (r.next()) {
                if (r.field() == 1 && r.wireType() == 2 && certificates.size() < MembershipMessages.MAX_CERTIFICATES) {
                    certificates.add(r.bytes());
                } else if (r.field() == 2 && r.wireType() == 2) {
                    crl = r.bytes();
                } else {
                    r.skip();
                }
            }
        } catch (RuntimeException e) {
            return reject(from, "malformed notice from " + author + ": " + e.getMessage());
        }
        if (crl != null) {
            try {
                if (revocations.offer(crl)) {
                    LOG.info("newer revocation list from {} (via {}) installed", author, from);
                    onNewCrl.run();
                    return ValidationResult.ACCEPT;
                }
                return ValidationResult.IGNORE; // already held: no need to pass it on
            } catch (MembershipException e) {
                return reject(from, "revocation list from " + author + ": " + e.getMessage());
            }
        }
        if (certificates.isEmpty()) {
            return reject(from, "empty notice from " + author);
        }
        Verdict v = roster.verify(certificates, author.toBase58(), clock.instant(), revocations);
        if (!v.admitted()) {
            return reject(from, "certificate of " + author + ": " + v.reason().id() + ": " + v.detail());
        }
        directory.learn(v.member());
        return ValidationResult.ACCEPT;
    }

    private ValidationResult reject(PeerId from, String why) {
        rejected.incrementAndGet();
        LOG.debug("membership notice via {} rejected: {}", from, why);
        return ValidationResult.REJECT;
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.debug("leaving {}: {}", topic, e.toString());
        }
    }
}
