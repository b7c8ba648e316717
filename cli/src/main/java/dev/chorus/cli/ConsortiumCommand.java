package dev.chorus.cli;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.KeyFileException;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.setup.UserError;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.CertificateDescription;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.MembershipException;
import dev.chorus.privacy.membership.Passphrase;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Role;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code chorus consortium}: an institution's CA and the member certificates and CRLs it signs (docs/consortium.md).
 * Every bad input, a wrong passphrase or a key file others can read included, is one line and exit code 2.
 */
@Command(
        name = "consortium",
        mixinStandardHelpOptions = true,
        description = "Consortium membership: an institution's CA, the member certificates it issues, its CRL.",
        subcommands = {
            ConsortiumCommand.Ca.class,
            ConsortiumCommand.Issue.class,
            ConsortiumCommand.Revoke.class,
            ConsortiumCommand.Show.class
        })
final class ConsortiumCommand implements Runnable {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * {@code --passphrase-file FILE}. There is deliberately no option that takes the passphrase itself: a command
     * line is visible to every account on the machine.
     */
    static final class PassphraseOption {
        @Option(
                names = "--passphrase-file",
                paramLabel = "FILE",
                description = "A file, readable by its owner only, whose first line is the CA key's passphrase."
                        + " Without it the passphrase is read from the environment variable "
                        + Passphrase.ENVIRONMENT_VARIABLE + ".")
        Path file;

        char[] resolve() {
            return Passphrase.resolve(file, System.getenv());
        }
    }

    /** Runs {@code body}, turning the membership and key file errors it throws into one-line user errors. */
    static int userErrors(Callable<Integer> body) {
        try {
            return body.call();
        } catch (MembershipException | KeyFileException e) {
            throw new UserError(e.getMessage(), e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Duration days(String option, int days) {
        if (days <= 0) {
            throw new UserError(option + " must be at least 1, got " + days);
        }
        return Duration.ofDays(days);
    }

    static void refuseExisting(String option, Path file) {
        if (Files.exists(file)) {
            throw new UserError(option + " " + file + " already exists; refusing to overwrite it");
        }
    }

    /** {@code chorus consortium ca}: the institution's certificate authority. */
    @Command(
            name = "ca",
            mixinStandardHelpOptions = true,
            description = "The institution's certificate authority.",
            subcommands = {Ca.Init.class})
    static final class Ca implements Runnable {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().usage(spec.commandLine().getOut());
        }

        /** {@code chorus consortium ca init --org NAME --out DIR [--days N] [--passphrase-file FILE]}. */
        @Command(
                name = "init",
                mixinStandardHelpOptions = true,
                description = {
                    "Creates a new CA for an organisation: DIR/ca.crt and DIR/ca.key (encrypted, mode 0600).",
                    "Refuses to overwrite an existing CA. Give ca.crt to every member of the consortium: it goes in"
                            + " their roster."
                })
        static final class Init implements Callable<Integer> {
            @Spec
            CommandLine.Model.CommandSpec spec;

            @Option(names = "--org", required = true, paramLabel = "NAME", description = "The organisation's name.")
            String organisation;

            @Option(names = "--out", required = true, paramLabel = "DIR", description = "The CA's directory.")
            Path out;

            @Option(
                    names = "--days",
                    paramLabel = "N",
                    defaultValue = "3650",
                    description = "How long the CA certificate is valid (default ${DEFAULT-VALUE} days).")
            int days;

            @Mixin
            PassphraseOption passphrase;

            @Override
            public Integer call() {
                return userErrors(() -> {
                    Duration validity = days("--days", days);
                    refuseExisting("--out", out.resolve(CertificateAuthority.CERTIFICATE_FILE));
                    refuseExisting("--out", out.resolve(CertificateAuthority.KEY_FILE));
                    char[] secret = passphrase.resolve();
                    CertificateAuthority ca = CertificateAuthority.create(organisation, validity);
                    try {
                        ca.save(out, secret);
                    } finally {
                        Arrays.fill(secret, '\0');
                    }
                    X509Certificate c = ca.certificate();
                    PrintWriter w = spec.commandLine().getOut();
                    w.println("wrote " + out.resolve(CertificateAuthority.CERTIFICATE_FILE)
                            + " (the CA certificate: every member of the consortium adds it to its roster)");
                    w.println("wrote " + out.resolve(CertificateAuthority.KEY_FILE)
                            + " (the CA key, encrypted with the passphrase, mode 0600)");
                    w.println("organisation  " + ca.organisation());
                    w.println("valid until   " + c.getNotAfter().toInstant());
                    w.println("sha256        " + CertificateDescription.fingerprint(c.getEncoded()));
                    w.flush();
                    return 0;
                });
            }
        }
    }

    /** {@code chorus consortium issue}: a member certificate for one node. */
    @Command(
            name = "issue",
            mixinStandardHelpOptions = true,
            description = {
                "Issues a member certificate that binds a node's peer ID, the CA's organisation and a role.",
                "With --key, the certificate also carries the node's Ed25519 identity key, whose peer ID must be"
                        + " --peer-id. Refuses to overwrite --out."
            })
    static final class Issue implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--ca", required = true, paramLabel = "DIR", description = "The CA's directory.")
        Path ca;

        @Option(
                names = "--peer-id",
                required = true,
                paramLabel = "ID",
                description = "The node's peer ID (12D3KooW...).")
        String peerId;

        @Option(
                names = "--role",
                required = true,
                paramLabel = "ROLE",
                description = "member (trains and exchanges models) or observer (reads announcements only).")
        String role;

        @Option(names = "--days", required = true, paramLabel = "N", description = "How long the certificate is valid.")
        int days;

        @Option(names = "--out", required = true, paramLabel = "FILE", description = "The PEM certificate to write.")
        Path out;

        @Option(names = "--key", paramLabel = "KEYFILE", description = "The node's identity key file (chorus keygen).")
        Path key;

        @Mixin
        PassphraseOption passphrase;

        @Override
        public Integer call() {
            return userErrors(() -> {
                Role r = Role.parse(role);
                Duration validity = days("--days", days);
                refuseExisting("--out", out);
                byte[] publicKey = key == null ? null : publicKeyOf(key, peerId);
                CertificateAuthority authority = load(ca, passphrase);
                Instant now = Instant.now();
                MemberCertificate m = authority.issue(
                        peerId, publicKey, r, now.minus(CertificateAuthority.CLOCK_SKEW), now.plus(validity));
                Pem.writeNew(out, Pem.certificate(m.certificate()));
                PrintWriter w = spec.commandLine().getOut();
                w.println("wrote " + out + ": " + m.role().id() + " certificate of " + m.organisation() + " for "
                        + m.peerId() + " (serial " + m.serial().toString(16) + ", valid until " + m.notAfter()
                        + (publicKey == null ? "" : ", with the node's identity key") + ")");
                w.flush();
                return 0;
            });
        }

        /** The raw Ed25519 public key of the identity key file, which must belong to {@code peerId}. */
        private static byte[] publicKeyOf(Path keyFile, String peerId) {
            PrivateKey k = KeyFile.load(keyFile);
            String actual = k.peerId().toBase58();
            if (!actual.equals(peerId)) {
                throw new UserError("--key " + keyFile + " is the key of " + actual + ", not of --peer-id " + peerId);
            }
            return k.publicKey().raw();
        }
    }

    static CertificateAuthority load(Path dir, PassphraseOption passphrase) {
        char[] secret = passphrase.resolve();
        try {
            return CertificateAuthority.load(dir, secret);
        } finally {
            Arrays.fill(secret, '\0');
        }
    }

    /** {@code chorus consortium revoke}: adds a certificate to the CA's CRL. */
    @Command(
            name = "revoke",
            mixinStandardHelpOptions = true,
            description = {
                "Revokes a member certificate: writes a new CRL with the previous CRL's entries and this one.",
                "--out is read first when it exists (it must be this CA's CRL) and replaced in one step. Distribute"
                        + " the new CRL to the consortium's nodes."
            })
    static final class Revoke implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--ca", required = true, paramLabel = "DIR", description = "The CA's directory.")
        Path ca;

        @Option(names = "--cert", required = true, paramLabel = "FILE", description = "The member certificate.")
        Path cert;

        @Option(names = "--out", required = true, paramLabel = "CRL_FILE", description = "The CA's CRL file.")
        Path out;

        @Option(
                names = "--next-update-days",
                paramLabel = "N",
                defaultValue = "30",
                description = "When the CA promises its next CRL (default ${DEFAULT-VALUE} days).")
        int nextUpdateDays;

        @Mixin
        PassphraseOption passphrase;

        @Override
        public Integer call() {
            return userErrors(() -> {
                Duration nextUpdate = days("--next-update-days", nextUpdateDays);
                List<X509Certificate> certs = Pem.readCertificates(cert);
                if (certs.size() != 1) {
                    throw new UserError("--cert " + cert + " holds " + certs.size() + " certificates; give one");
                }
                X509Certificate c = certs.getFirst();
                if (c.getBasicConstraints() >= 0) {
                    throw new UserError("--cert " + cert + " is a CA certificate, not a member certificate");
                }
                X509CRL previous = Files.exists(out) ? Pem.readCrl(out) : null;
                CertificateAuthority authority = load(ca, passphrase);
                if (!authority.issued(c)) {
                    throw new UserError(
                            "--cert " + cert + " was not issued by this CA (" + authority.organisation() + ")");
                }
                if (previous != null && !authority.issued(previous)) {
                    throw new UserError("--out " + out + " is not a CRL of this CA (" + authority.organisation()
                            + "): it names " + previous.getIssuerX500Principal().getName()
                            + " as issuer or its signature does not verify");
                }
                String serial = c.getSerialNumber().toString(16);
                PrintWriter w = spec.commandLine().getOut();
                if (previous != null && previous.getRevokedCertificate(c.getSerialNumber()) != null) {
                    w.println("serial " + serial + " is already revoked in " + out + "; nothing written");
                    w.flush();
                    return 0;
                }
                X509CRL next = authority.revoke(List.of(c.getSerialNumber()), previous, Instant.now(), nextUpdate);
                Pem.writeAtomically(out, Pem.crl(next));
                w.println("wrote " + out + ": CRL number " + RevocationLists.crlNumber(next) + " of "
                        + authority.organisation() + ", "
                        + next.getRevokedCertificates().size()
                        + " revoked certificate(s); serial " + serial + " added");
                w.flush();
                return 0;
            });
        }
    }

    /** {@code chorus consortium show FILE [--json]}: what a certificate or CRL says. */
    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = {
                "Shows a member certificate, a CA certificate or a CRL (PEM or DER; the kind is detected).",
                "With --json, one JSON object per certificate or CRL, on one line."
            })
    static final class Show implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The certificate or CRL file.")
        Path file;

        @Option(names = "--json", description = "Print JSON instead of aligned lines.")
        boolean json;

        @Override
        public Integer call() {
            return userErrors(() -> {
                List<CertificateDescription> all = CertificateDescription.read(file);
                PrintWriter w = spec.commandLine().getOut();
                for (int i = 0; i < all.size(); i++) {
                    if (json) {
                        w.println(all.get(i).json());
                    } else {
                        if (i > 0) {
                            w.println();
                        }
                        all.get(i).lines().forEach(w::println);
                    }
                }
                w.flush();
                return 0;
            });
        }
    }
}
