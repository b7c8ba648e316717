package dev.chorus.cli;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.setup.NodeDirectory;
import dev.chorus.node.setup.OutputDirectory;
import dev.chorus.node.setup.UserError;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.MembershipException;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.Roster;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus init}: creates a data directory with a starter node.yaml and a new identity key. */
@Command(
        name = "init",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Creates a node's data directory with a starter node.yaml and a new identity key.",
            "The directory gets a commented node.yaml, an identity key and an API token (both mode 0600), and"
                    + " checkpoints/, audit/, logs/.",
            "Prints the new peer ID. Refuses a directory that already has either file."
        })
final class InitCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DATA_DIR", description = "The data directory to create.")
    Path dir;

    @Option(
            names = "--consortium",
            required = true,
            paramLabel = "NAME",
            description = "The consortium this node joins.")
    String consortium;

    @Option(names = "--data", paramLabel = "PATH", description = "The local data set (CSV file or IDX directory).")
    Path data;

    @Option(names = "--label", paramLabel = "COLUMN", description = "The label column of a CSV data set.")
    String label;

    @Option(
            names = "--positive",
            paramLabel = "VALUE",
            description = "The positive class of a binary label; every other label value is negative.")
    String positive;

    @Option(
            names = "--drop",
            split = ",",
            paramLabel = "COLUMNS",
            description = "CSV columns left out of the features, comma-separated (record IDs, follow-up times).")
    List<String> drop = List.of();

    @Option(
            names = "--listen",
            paramLabel = "MULTIADDR",
            description = "Listen address written to node.yaml (default /ip4/0.0.0.0/tcp/4001).")
    String listen;

    @Option(
            names = "--roster",
            arity = "1..*",
            paramLabel = "FILE",
            description = "The consortium's CA certificates (PEM), written to membership.roster: the node then admits"
                    + " only members.")
    List<Path> roster = List.of();

    @Option(
            names = "--certificate",
            paramLabel = "FILE",
            description = "This node's member certificate, written to membership.certificate (default with --roster:"
                    + " DATA_DIR/member.crt, to be issued for the printed peer ID).")
    Path certificate;

    @Override
    public Integer call() {
        if (!consortium.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new UserError(
                    "--consortium: expected 1 to 64 letters, digits, '.', '_' or '-', got '" + consortium + "'");
        }
        if (listen != null) {
            try {
                dev.chorus.gossip.multiaddr.Multiaddr.parse(listen);
            } catch (IllegalArgumentException e) {
                throw new UserError("--listen: " + e.getMessage());
            }
        }
        Map<String, String> values = new LinkedHashMap<>();
        values.put(ConfigSchema.CONSORTIUM, consortium);
        if (listen != null) {
            values.put(ConfigSchema.LISTEN, "[" + listen + "]");
        }
        if (data != null) {
            values.put(
                    ConfigSchema.DATA_PATH,
                    LocalnetOptions.quoted(data.toAbsolutePath().normalize().toString()));
        }
        if (label != null) {
            values.put(ConfigSchema.DATA_LABEL, LocalnetOptions.quoted(label));
        }
        if (positive != null) {
            values.put(ConfigSchema.DATA_POSITIVE, LocalnetOptions.quoted(positive));
        }
        if (!drop.isEmpty()) {
            values.put(
                    ConfigSchema.DATA_DROP,
                    drop.stream()
                            .map(LocalnetOptions::quoted)
                            .collect(java.util.stream.Collectors.joining(", ", "[", "]")));
        }
        MemberCertificate given = membership(values);
        OutputDirectory.createOwnerOnly("--dir", dir);
        PrivateKey identity = NodeDirectory.create(dir, values);
        Path yaml = dir.resolve("node.yaml");
        Path key = dir.resolve("identity.key");
        PrintWriter out = spec.commandLine().getOut();
        out.println(identity.peerId());
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        membershipHint(err, identity.peerId().toBase58(), given);
        err.println("wrote " + yaml + " and " + key + (data == null ? "; set data.path in node.yaml, then" : "; now")
                + " run: chorus node run --config " + yaml);
        err.flush();
        return 0;
    }

    /**
     * Checks {@code --roster} and {@code --certificate} and puts them in {@code values}; returns the given
     * certificate, parsed, or null.
     */
    private MemberCertificate membership(Map<String, String> values) {
        if (certificate != null && roster.isEmpty()) {
            throw new UserError("--certificate needs --roster: without a roster the node admits everyone");
        }
        for (Path r : roster) {
            try {
                Roster.load(List.of(r));
            } catch (MembershipException e) {
                throw new UserError("--roster: " + e.getMessage(), e);
            }
        }
        MemberCertificate given = null;
        if (certificate != null) {
            try {
                List<X509Certificate> certs = Pem.readCertificates(certificate);
                if (certs.isEmpty()) {
                    throw new UserError("--certificate: " + certificate + ": no certificate in the file");
                }
                given = MemberCertificate.parse(certs.get(0));
            } catch (MembershipException e) {
                throw new UserError("--certificate: " + e.getMessage(), e);
            }
        }
        if (!roster.isEmpty()) {
            // Quoted: a path may hold what YAML reads otherwise (", " in a flow list, " #").
            values.put(
                    ConfigSchema.MEMBERSHIP_ROSTER,
                    roster.stream()
                            .map(p -> LocalnetOptions.quoted(
                                    p.toAbsolutePath().normalize().toString()))
                            .collect(java.util.stream.Collectors.joining(", ", "[", "]")));
            values.put(
                    ConfigSchema.MEMBERSHIP_CERTIFICATE,
                    certificate == null
                            ? "member.crt"
                            : LocalnetOptions.quoted(
                                    certificate.toAbsolutePath().normalize().toString()));
        }
        return given;
    }

    /** What to do next about membership: have the certificate issued, or reissued for this node's new key. */
    private void membershipHint(PrintWriter err, String peer, MemberCertificate given) {
        if (!roster.isEmpty() && given == null) {
            err.println("membership: have your institution's CA issue this node's certificate, e.g. chorus consortium"
                    + " issue --ca CA_DIR --peer-id " + peer + " --role member --days 365 --out "
                    + dir.resolve("member.crt") + " (the node will not start without it)");
        } else if (given != null && !given.peerId().equals(peer)) {
            err.println("membership: warning: " + certificate + " is for peer " + given.peerId() + ", not for this"
                    + " node's new key " + peer + "; the node will not start with it: have it reissued for " + peer);
        }
    }
}
