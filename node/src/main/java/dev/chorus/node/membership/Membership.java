package dev.chorus.node.membership;

import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.MembershipException;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Roster;
import dev.chorus.privacy.membership.Verdict;
import java.nio.file.Path;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's part in its consortium's membership: the roster it trusts, its own member certificate, the revocation
 * lists, the {@link MembershipGate} on its connections, the {@link MemberDirectory} of known members and the
 * {@link MembershipTopic} that spreads certificates and revocation lists.
 *
 * <p>Revocation needs no server: a CA's new CRL, dropped into one node's CRL directory (or given to it as a file),
 * is loaded within {@link #POLL} and published on the topic; every node that receives it installs it, republishes
 * it by gossip, and closes its connections to the revoked members at once. Certificates are checked again every
 * {@link #POLL} for expiry too.
 */
public final class Membership implements AutoCloseable {

    /** How often CRL files are read again and admitted certificates checked again. */
    public static final Duration POLL = Duration.ofSeconds(2);
    /** How often a node republishes its own certificate on the membership topic. */
    public static final Duration REPUBLISH = Duration.ofSeconds(30);
    /** Known member certificates kept. */
    static final int DIRECTORY_CAPACITY = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    private final Roster roster;
    private final RevocationLists revocations;
    private final List<Path> crlSources;
    private final MembershipGate gate;
    private final MemberDirectory directory;
    private final InstantSource clock;
    private final EgressRecorder egress;
    private volatile MemberCertificate own;
    private volatile List<byte[]> chain;
    private volatile MembershipTopic topic;
    private final ScheduledExecutorService timer;
    private final String self;
    /** The certificate's file, read again when it changes (renewal); null when not loaded from a file. */
    private volatile Path certificateFile;

    private volatile java.nio.file.attribute.FileTime certificateModified;
    private long seenVersion;

    /**
     * Where a node's membership runs: what it guards and with what.
     *
     * @param memberOnly protocols an observer may not run (the model exchange)
     * @param clock the clock validity periods are checked against
     * @param egress where the certificates and verdicts this node sends are recorded
     * @param admissionTimeout how long a connection may take to be admitted
     */
    public record Context(
            Set<String> memberOnly, InstantSource clock, EgressRecorder egress, Duration admissionTimeout) {
        public Context {
            memberOnly = Set.copyOf(memberOnly);
        }

        /** The daemon's: the system clock and a 10 s admission timeout. */
        public static Context of(Set<String> memberOnly, EgressRecorder egress) {
            return new Context(memberOnly, InstantSource.system(), egress, Duration.ofSeconds(10));
        }
    }

    /**
     * @param roster the consortium's CAs
     * @param revocations the revocation lists (already loaded from {@code crlSources})
     * @param crlSources CRL files or directories to read again every {@link #POLL}
     * @param own this node's certificate; it must verify against the roster for {@code self}
     * @param context what the membership guards, its clock, its egress log and its admission timeout
     */
    public Membership(
            Roster roster,
            RevocationLists revocations,
            List<Path> crlSources,
            MemberCertificate own,
            String self,
            Context context) {
        InstantSource clock = context.clock();
        EgressRecorder egress = context.egress();
        this.roster = roster;
        this.revocations = revocations;
        this.crlSources = List.copyOf(crlSources);
        this.self = self;
        this.clock = clock;
        this.egress = egress;
        this.chain = chainOf(checkOwn(roster, revocations, own, self, clock));
        this.own = own;
        this.directory = new MemberDirectory(DIRECTORY_CAPACITY, revocations, clock);
        this.gate = new MembershipGate(
                roster, revocations, chain, context.memberOnly(), clock, egress, context.admissionTimeout());
        gate.onAdmitted(a -> directory.learn(a.certificate()));
        directory.learn(own);
        this.seenVersion = revocations.version();
        this.timer = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("chorus-membership").unstarted(r));
        timer.scheduleWithFixedDelay(this::poll, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Loads a node's membership from files: the roster's CA certificates, its own certificate and CRL files or
     * directories. A missing or unreadable file, or a certificate that does not verify for {@code self}, is a
     * {@link MembershipException} naming it.
     */
    public static Membership load(
            List<Path> rosterFiles,
            Path certificate,
            List<Path> crls,
            String self,
            Set<String> memberOnly,
            InstantSource clock,
            EgressRecorder egress) {
        Roster roster = Roster.load(rosterFiles);
        RevocationLists revocations = new RevocationLists(roster);
        revocations.loadFiles(crls);
        MemberCertificate own = readOwn(certificate);
        Membership m;
        try {
            m = new Membership(
                    roster,
                    revocations,
                    crls,
                    own,
                    self,
                    new Context(memberOnly, clock, egress, Duration.ofSeconds(10)));
        } catch (MembershipException e) {
            throw new MembershipException(certificate + ": " + e.getMessage(), e);
        }
        m.certificateFile = certificate;
        m.certificateModified = modified(certificate);
        return m;
    }

    /**
     * Checks a node's membership files as {@link #load} does, refusing what it refuses with the same message, but
     * starts nothing: what {@code chorus config check} runs.
     *
     * @return this node's certificate, valid now for {@code self}
     */
    public static MemberCertificate check(
            List<Path> rosterFiles, Path certificate, List<Path> crls, String self, InstantSource clock) {
        Roster roster = Roster.load(rosterFiles);
        RevocationLists revocations = new RevocationLists(roster);
        revocations.loadFiles(crls);
        MemberCertificate own = readOwn(certificate);
        try {
            return checkOwn(roster, revocations, own, self, clock);
        } catch (MembershipException e) {
            throw new MembershipException(certificate + ": " + e.getMessage(), e);
        }
    }

    /** The member certificate that {@code certificate} holds first; an error names the file. */
    private static MemberCertificate readOwn(Path certificate) {
        List<X509Certificate> certs = Pem.readCertificates(certificate);
        if (certs.isEmpty()) {
            throw new MembershipException(certificate + ": no certificate in the file");
        }
        try {
            return MemberCertificate.parse(certs.get(0));
        } catch (MembershipException e) {
            throw new MembershipException(certificate + ": " + e.getMessage(), e);
        }
    }

    private static java.nio.file.attribute.FileTime modified(Path file) {
        try {
            return java.nio.file.Files.getLastModifiedTime(file);
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private static MemberCertificate checkOwn(
            Roster roster, RevocationLists revocations, MemberCertificate own, String self, InstantSource clock) {
        Verdict v = roster.verify(List.of(own.encoded()), self, clock.instant(), revocations);
        if (!v.admitted()) {
            throw new MembershipException(
                    "this node's certificate is not valid: " + v.reason().id() + ": " + v.detail());
        }
        return own;
    }

    private static List<byte[]> chainOf(MemberCertificate c) {
        return List.of(c.encoded());
    }

    /** Joins the membership topic and keeps this node's certificate published on it. */
    public void attach(Pubsub pubsub, String consortium) {
        topic = new MembershipTopic(
                pubsub, consortium, roster, revocations, directory, clock, egress, this::revocationsChanged);
        timer.scheduleWithFixedDelay(this::publishOwn, 1000, REPUBLISH.toMillis(), TimeUnit.MILLISECONDS);
        gate.onAdmitted(a -> timer.schedule(this::publishOwn, 500, TimeUnit.MILLISECONDS));
    }

    private void publishOwn() {
        MembershipTopic t = topic;
        if (t != null) {
            t.publishCertificate(chain).exceptionally(e -> 0);
        }
    }

    /**
     * Presents {@code renewed} on new connections from now on; connections already admitted keep going. The
     * certificate must verify for this node.
     */
    public void renew(MemberCertificate renewed) {
        checkOwn(roster, revocations, renewed, self, clock);
        own = renewed;
        chain = chainOf(renewed);
        gate.renew(chain);
        directory.learn(renewed);
        publishOwn();
        LOG.info(
                "certificate renewed: serial {}, valid until {}",
                renewed.serial().toString(16),
                renewed.notAfter());
    }

    /** Renews from the certificate file when it has changed; a file that does not verify is logged and ignored. */
    private void rereadCertificate() {
        Path file = certificateFile;
        if (file == null) {
            return;
        }
        java.nio.file.attribute.FileTime now = modified(file);
        if (now == null || now.equals(certificateModified)) {
            return;
        }
        certificateModified = now;
        try {
            List<X509Certificate> certs = Pem.readCertificates(file);
            if (certs.isEmpty()) {
                throw new MembershipException(file + ": no certificate in the file");
            }
            MemberCertificate renewed = MemberCertificate.parse(certs.get(0));
            if (!renewed.serial().equals(own.serial())) {
                renew(renewed);
            }
        } catch (MembershipException e) {
            LOG.warn(
                    "{} changed but was not taken: {}; still presenting serial {}",
                    file,
                    e.getMessage(),
                    own.serial().toString(16));
        }
    }

    private void poll() {
        try {
            rereadCertificate();
            if (!crlSources.isEmpty()) {
                revocations.loadFiles(crlSources);
            }
            boolean changed;
            synchronized (this) {
                changed = revocations.version() != seenVersion;
                seenVersion = revocations.version();
            }
            if (changed) {
                revocationsChanged();
                MembershipTopic t = topic;
                if (t != null) {
                    for (X509CRL crl : revocations.lists()) {
                        t.publishCrl(crl).exceptionally(e -> 0);
                    }
                }
            } else {
                gate.recheck(); // expiry
            }
        } catch (MembershipException e) {
            LOG.warn("revocation lists not reloaded: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("membership check failed: {}", e.toString());
        }
    }

    private void revocationsChanged() {
        synchronized (this) {
            seenVersion = revocations.version();
        }
        if (revocations.isRevoked(own.certificate())) {
            LOG.error(
                    "this node's own certificate (serial {}) is revoked",
                    own.serial().toString(16));
        }
        int closed = gate.recheck();
        if (closed > 0) {
            LOG.warn("closed {} connections of revoked or expired members", closed);
        }
    }

    /** Why {@code peer} may not publish on the consortium's topics, or empty when it may. */
    public Optional<String> publishRefusal(String peer) {
        return directory.publishRefusal(peer);
    }

    public MembershipGate gate() {
        return gate;
    }

    public MemberDirectory directory() {
        return directory;
    }

    public Roster roster() {
        return roster;
    }

    public RevocationLists revocations() {
        return revocations;
    }

    public MemberCertificate certificate() {
        return own;
    }

    /** The membership topic once {@link #attach attached}, else null. */
    public MembershipTopic topic() {
        return topic;
    }

    /** The DER of each roster CA, for display. */
    public List<X509Certificate> authorities() {
        return new ArrayList<>(roster.authorities());
    }

    @Override
    public void close() {
        timer.shutdownNow();
        MembershipTopic t = topic;
        if (t != null) {
            t.close();
        }
    }
}
