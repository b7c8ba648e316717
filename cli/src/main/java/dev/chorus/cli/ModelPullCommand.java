package dev.chorus.cli;

import dev.chorus.gossip.host.ConnectionRefusedException;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multistream.UnsupportedProtocolException;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.membership.MembershipGate;
import dev.chorus.node.protocol.ArchitectureHash;
import dev.chorus.node.protocol.ExchangeException;
import dev.chorus.node.protocol.FragmentCatalog;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.node.setup.UserError;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.MembershipException;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Roster;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code chorus model pull MULTIADDR}: connects to a node as a peer would, presents a member certificate if given,
 * asks for the node's model and reports what came back, or why nothing did. An operator checks with it that a
 * node serves its members, and that it refuses everyone else.
 */
@Command(
        name = "pull",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Connects to a node, presents a member certificate if given, and asks for its model.",
            "Prints what was pulled (version, parameters, bytes) and exits 0, or why the node refused and exits 1."
        })
final class ModelPullCommand implements java.util.concurrent.Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "MULTIADDR",
            description = "The node, a TCP multiaddr ending in /p2p/<peer id>.")
    String target;

    @Option(names = "--key", paramLabel = "FILE", description = "The identity key to connect as (default: a new one).")
    Path key;

    @Option(
            names = "--certificate",
            paramLabel = "FILE",
            description = "A member certificate for the key's peer ID, presented on /chorus/membership/1.0.0.")
    Path certificate;

    @Option(
            names = "--roster",
            arity = "1..*",
            paramLabel = "FILE",
            description = "The consortium's CA certificates, to check the node's own certificate against.")
    List<Path> roster = List.of();

    @Option(
            names = "--psk",
            paramLabel = "FILE",
            description = "The private network's key file (network.psk_file of the node), when it runs in one.")
    Path psk;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "How long to wait in all. Default: 20.")
    int timeoutSeconds = 20;

    @Option(names = "--json", description = "One JSON object on standard output instead of text.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Multiaddr addr;
        try {
            addr = Multiaddr.parse(target);
        } catch (IllegalArgumentException e) {
            throw new UserError("MULTIADDR: " + e.getMessage());
        }
        if (addr.peerId().isEmpty()) {
            throw new UserError("MULTIADDR: " + target + " must end in /p2p/<peer id>");
        }
        if (!roster.isEmpty() && certificate == null) {
            throw new UserError("--roster needs --certificate: a node presents its certificate only to a member");
        }
        PrivateKey identity = P2pClient.identity(key);
        MembershipGate gate = certificate == null ? null : gate(identity);
        HostConfig config =
                P2pClient.privateNetwork(HostConfig.defaults(identity).withGracePeriod(Duration.ofMillis(200)), psk);
        try (Host host = Host.start(config, gate).get(30, TimeUnit.SECONDS)) {
            return pull(host, addr);
        }
    }

    private MembershipGate gate(PrivateKey identity) {
        try {
            List<X509Certificate> certs = Pem.readCertificates(certificate);
            if (certs.isEmpty()) {
                throw new UserError("--certificate: " + certificate + ": no certificate in the file");
            }
            MemberCertificate own = MemberCertificate.parse(certs.get(0));
            Roster r = roster.isEmpty() ? null : Roster.load(roster);
            return new MembershipGate(
                    r,
                    r == null ? null : new RevocationLists(r),
                    List.of(own.encoded()),
                    Set.of(),
                    InstantSource.system(),
                    EgressRecorder.NONE,
                    Duration.ofSeconds(timeoutSeconds));
        } catch (MembershipException e) {
            throw new UserError(e.getMessage(), e);
        }
    }

    private int pull(Host host, Multiaddr addr) throws InterruptedException {
        String peer = addr.peerId().orElseThrow().toBase58();
        try {
            host.connect(addr).get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return refused(reason(e), detail(e));
        }
        // Any architecture and dimension: the exchange is used only to probe, never to merge.
        ModelExchange exchange = new ModelExchange(
                host,
                ArchitectureHash.of("probe", 1, 1, 1),
                1,
                ModelExchange.Config.defaults(),
                new SnapshotBuffer(),
                new FragmentCatalog(),
                EgressRecorder.NONE);
        try {
            ModelExchange.Probe p = exchange.probe(peer).get(timeoutSeconds, TimeUnit.SECONDS);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                StringBuilder sb = new StringBuilder();
                JsonWriter w = JsonWriter.compact(sb);
                w.beginObject();
                w.member("event", "pulled");
                w.member("peer", peer);
                w.member("version", p.version());
                w.member("parameters", p.parameters());
                w.member("bytes", p.bytes());
                w.endObject();
                w.finish();
                out.println(sb);
            } else {
                out.printf(
                        Locale.ROOT,
                        "pulled model version %d from %s: %d parameters, %d bytes%n",
                        p.version(),
                        peer,
                        p.parameters(),
                        p.bytes());
            }
            out.flush();
            return 0;
        } catch (ExecutionException | TimeoutException e) {
            Throwable c = cause(e);
            if (c instanceof UnsupportedProtocolException
                    || (c instanceof java.io.IOException && !(c instanceof ConnectionRefusedException))) {
                // The node refused the model exchange's stream: without a certificate, because it admitted
                // nobody; with one, because the connection was admitted but not to that protocol (an observer).
                return certificate == null
                        ? refused(
                                "no-certificate",
                                "the node did not admit this peer, which presented no certificate (" + detail(e) + ")")
                        : refused(
                                "not-permitted",
                                "the node admitted this peer but not to " + ModelExchange.PROTOCOL
                                        + " (an observer's certificate?): " + detail(e));
            }
            return refused(reason(e), detail(e));
        } finally {
            exchange.close();
        }
    }

    private int refused(String reason, String detail) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            StringBuilder sb = new StringBuilder();
            JsonWriter w = JsonWriter.compact(sb);
            w.beginObject();
            w.member("event", "refused");
            w.member("reason", reason);
            w.member("detail", detail);
            w.endObject();
            w.finish();
            out.println(sb);
        } else {
            out.println("refused: " + reason + ": " + detail);
        }
        out.flush();
        return 1;
    }

    private static Throwable cause(Throwable e) {
        Throwable c = e;
        while ((c instanceof ExecutionException || c instanceof CompletionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /** A short label: the node's refusal reason where it gave one. */
    private static String reason(Throwable e) {
        Throwable c = cause(e);
        if (c instanceof ConnectionRefusedException r) {
            return r.reason();
        }
        if (c instanceof ExchangeException x) {
            return x.code().name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
        if (c instanceof TimeoutException) {
            return "timeout";
        }
        return "connection-failed";
    }

    private static String detail(Throwable e) {
        Throwable c = cause(e);
        return c.getMessage() == null ? c.toString() : c.getMessage();
    }
}
