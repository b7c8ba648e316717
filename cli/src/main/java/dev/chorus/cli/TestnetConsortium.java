package dev.chorus.cli;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.setup.OutputDirectory;
import dev.chorus.node.setup.UserError;
import dev.chorus.privacy.files.OwnerOnlyFiles;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.MembershipException;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.Role;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The consortium of a local testnet ({@code testnet up}, {@code testnet compose}), so that its nodes run with
 * membership enforced as a real consortium's do. In {@code DIR/consortium/} it creates one CA per institution,
 * {@code institution-K/} with {@code ca.crt}, {@code ca.key} (encrypted) and {@code passphrase} (the key's random
 * passphrase, mode 0600), so that an operator can issue and revoke with {@code chorus consortium ... --ca
 * DIR/consortium/institution-K --passphrase-file DIR/consortium/institution-K/passphrase}; and {@code roster/}, a
 * copy of every CA certificate. Node {@code i} belongs to institution {@code i mod K + 1} and gets {@code
 * member.crt}, a member certificate for its peer ID, and an empty {@code crl/} directory in its data directory.
 *
 * <p>A testnet's CA keys lie next to its nodes, on one machine: it shows how membership works, it protects nothing.
 */
final class TestnetConsortium {

    /** The folder in the testnet directory. */
    static final String DIR = "consortium";
    /** The roster's folder in {@link #DIR}. */
    static final String ROSTER = "roster";
    /** The file beside each CA's key that holds its passphrase. */
    static final String PASSPHRASE_FILE = "passphrase";
    /** A node's member certificate, in its data directory. */
    static final String CERTIFICATE_FILE = "member.crt";
    /** A node's CRL directory, in its data directory. */
    static final String CRL_DIR = "crl";

    /** Longer than any testnet runs; a member certificate may not outlive its CA. */
    static final Duration CA_VALIDITY = Duration.ofDays(365);
    /** How long a node's member certificate is valid; reissue it with its CA to run longer. */
    static final Duration MEMBER_VALIDITY = Duration.ofDays(30);
    /** A member certificate starts this much before now, so that a node whose clock lags still accepts it. */
    private static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;
    private final List<CertificateAuthority> authorities;
    private final List<Path> rosterFiles;

    private TestnetConsortium(Path dir, List<CertificateAuthority> authorities, List<Path> rosterFiles) {
        this.dir = dir;
        this.authorities = List.copyOf(authorities);
        this.rosterFiles = List.copyOf(rosterFiles);
    }

    /** {@code Institution K}, K from 1. */
    static String organisation(int institution) {
        return "Institution " + (institution + 1);
    }

    /** {@code institution-K}, K from 1: the CA's folder and its roster file's name. */
    static String slug(int institution) {
        return String.format(Locale.ROOT, "institution-%d", institution + 1);
    }

    /**
     * Creates {@code testnetDir/consortium/} with {@code institutions} CAs and the roster.
     *
     * @throws UserError when a file cannot be written
     */
    static TestnetConsortium create(Path testnetDir, int institutions) {
        Path dir = testnetDir.resolve(DIR).toAbsolutePath();
        Path rosterDir = dir.resolve(ROSTER);
        List<CertificateAuthority> authorities = new ArrayList<>();
        List<Path> rosterFiles = new ArrayList<>();
        try {
            Files.createDirectories(rosterDir);
            for (int k = 0; k < institutions; k++) {
                CertificateAuthority ca = CertificateAuthority.create(organisation(k), CA_VALIDITY);
                Path caDir = Files.createDirectories(dir.resolve(slug(k)));
                char[] passphrase = writePassphrase(caDir.resolve(PASSPHRASE_FILE));
                try {
                    ca.save(caDir, passphrase);
                } finally {
                    Arrays.fill(passphrase, '\0');
                }
                Path rosterFile = rosterDir.resolve(slug(k) + ".crt");
                Pem.writeAtomically(rosterFile, Pem.certificate(ca.certificate()));
                authorities.add(ca);
                rosterFiles.add(rosterFile);
            }
        } catch (IOException e) {
            throw new UserError("cannot write " + dir + ": " + OutputDirectory.reason(e), e);
        } catch (MembershipException e) {
            throw new UserError(e.getMessage(), e);
        }
        return new TestnetConsortium(dir, authorities, rosterFiles);
    }

    /** The folder of the CAs and the roster. */
    Path dir() {
        return dir;
    }

    int institutions() {
        return authorities.size();
    }

    /** The roster's CA certificate files, one per institution, absolute. */
    List<Path> rosterFiles() {
        return rosterFiles;
    }

    /** The institution of node {@code i}: round-robin. */
    int institutionOf(int node) {
        return node % authorities.size();
    }

    /**
     * Admits node {@code i}: its institution's CA issues {@code home/member.crt} for the node's peer ID and identity
     * key, role member, and {@code home/crl/} is created, empty.
     */
    MemberCertificate admit(int node, PrivateKey identity, Path home) {
        CertificateAuthority ca = authorities.get(institutionOf(node));
        Instant now = Instant.now();
        try {
            MemberCertificate cert = ca.issue(
                    identity.peerId().toBase58(),
                    identity.publicKey().raw(),
                    Role.MEMBER,
                    now.minus(CLOCK_SKEW),
                    now.plus(MEMBER_VALIDITY));
            Files.createDirectories(home.resolve(CRL_DIR));
            Pem.writeAtomically(home.resolve(CERTIFICATE_FILE), Pem.certificate(cert.certificate()));
            return cert;
        } catch (IOException e) {
            throw new UserError("cannot write " + home + ": " + OutputDirectory.reason(e), e);
        } catch (MembershipException e) {
            throw new UserError(e.getMessage(), e);
        }
    }

    /**
     * Writes a random passphrase (32 bytes, base64url: 43 characters) and a line break to {@code file}, created with
     * mode 0600 where the file system has POSIX permissions, and returns it.
     */
    private static char[] writePassphrase(Path file) throws IOException {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        byte[] text = Base64.getUrlEncoder().withoutPadding().encode(secret);
        Arrays.fill(secret, (byte) 0);
        try (SeekableByteChannel out =
                OwnerOnlyFiles.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
            out.write(ByteBuffer.wrap(text));
            out.write(ByteBuffer.wrap("\n".getBytes(StandardCharsets.US_ASCII)));
        }
        char[] passphrase = new char[text.length];
        for (int i = 0; i < text.length; i++) {
            passphrase[i] = (char) text[i];
        }
        Arrays.fill(text, (byte) 0);
        return passphrase;
    }
}
