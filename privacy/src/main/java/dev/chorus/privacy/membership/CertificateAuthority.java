package dev.chorus.privacy.membership;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CRLException;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLNumber;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.bc.BcX509ExtensionUtils;
import org.bouncycastle.crypto.util.ScryptConfig;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfoBuilder;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcePKCSPBEInputDecryptorProviderBuilder;
import org.bouncycastle.pkcs.jcajce.JcePKCSPBEOutputEncryptorBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * One institution's certificate authority: an Ed25519 key and its self-signed CA certificate. It admits the
 * institution's own nodes by issuing member certificates and withdraws them by signing CRLs.
 *
 * <p>On disk a CA is a directory of two files: {@code ca.crt}, the PEM certificate every consortium member holds in
 * its roster, and {@code ca.key}, the PKCS#8 private key encrypted with a passphrase (PBES2: scrypt, AES-256-CBC)
 * and readable by its owner only.
 */
public final class CertificateAuthority {

    public static final String CERTIFICATE_FILE = "ca.crt";
    public static final String KEY_FILE = "ca.key";

    /**
     * scrypt N = 2^14, r = 8, p = 5: one of the OWASP Password Storage Cheat Sheet's equivalents of its N = 2^17
     * minimum, chosen because it needs 16 MiB where OpenSSL allows at most 32 MiB when it reads a PKCS#8 key, so an
     * operator can still open the key with {@code openssl pkcs8}. A fraction of a second per command.
     */
    private static final int SCRYPT_COST = 1 << 14;

    private static final int SCRYPT_BLOCK_SIZE = 8;
    private static final int SCRYPT_PARALLELISM = 5;
    private static final int SCRYPT_SALT_BYTES = 16;

    /**
     * The longest validity of a CA and the furthest next update of a CRL: a century, well inside X.509's dates (to
     * the year 9999), so that a mistyped number of days is refused instead of written.
     */
    public static final Duration MAX_VALIDITY = Duration.ofDays(36_500);

    /** Certificates issued now start a little earlier, so that a peer whose clock lags still accepts them. */
    public static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final X509Certificate certificate;
    private final PrivateKey key;
    private final String organisation;

    private CertificateAuthority(X509Certificate certificate, PrivateKey key) {
        this.certificate = certificate;
        this.key = key;
        this.organisation = DistinguishedNames.organisation(certificate.getSubjectX500Principal());
    }

    /**
     * A new CA: a fresh Ed25519 key and a self-signed certificate {@code O=<organisation>, CN=<organisation> CA},
     * valid from now (less {@link #CLOCK_SKEW}) for {@code validity}. Its extensions limit it to signing member
     * certificates and CRLs: basicConstraints CA with path length 0 and keyUsage keyCertSign, cRLSign (both critical).
     */
    public static CertificateAuthority create(String organisation, Duration validity) {
        DistinguishedNames.checkOrganisation(organisation);
        if (validity == null || validity.isNegative() || validity.isZero() || validity.compareTo(MAX_VALIDITY) > 0) {
            throw new MembershipException("a CA's validity must be positive and at most " + MAX_VALIDITY.toDays()
                    + " days, got " + (validity == null ? null : validity.toDays() + " days"));
        }
        var pair = ed25519().generateKeyPair();
        SubjectPublicKeyInfo spki =
                SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded());
        X500Name name = DistinguishedNames.authority(organisation);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        X509v3CertificateBuilder b = new X509v3CertificateBuilder(
                name, serial(), Date.from(now.minus(CLOCK_SKEW)), Date.from(now.plus(validity)), name, spki);
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            b.addExtension(
                    Extension.subjectKeyIdentifier, false, new BcX509ExtensionUtils().createSubjectKeyIdentifier(spki));
            X509Certificate cert =
                    Pem.certificateFromDer(b.build(signer(pair.getPrivate())).getEncoded());
            return new CertificateAuthority(cert, pair.getPrivate());
        } catch (IOException e) {
            throw new MembershipException("cannot build the CA certificate of " + organisation + ": " + e, e);
        }
    }

    /**
     * Writes {@code dir/ca.crt} and {@code dir/ca.key}, creating {@code dir} if needed. Refuses when either file
     * exists: overwriting a CA key would orphan every certificate it issued. The key file is created with mode 0600
     * and written under a temporary name first, so it is never readable by others, nor half-written under its name.
     */
    public void save(Path dir, char[] passphrase) {
        checkPassphrase(passphrase);
        Path crt = dir.resolve(CERTIFICATE_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        for (Path p : List.of(crt, keyFile)) {
            if (Files.exists(p)) {
                throw new MembershipException(p + " already exists; refusing to overwrite a CA");
            }
        }
        String keyPem = Pem.text(Pem.ENCRYPTED_PRIVATE_KEY, encrypt(passphrase));
        try {
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new MembershipException("cannot create the CA in " + dir + ": it is a file, not a directory");
            }
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new MembershipException("cannot create the directory " + dir + ": " + Pem.reason(e), e);
        }
        Pem.writeNew(crt, Pem.certificate(certificate));
        try {
            writeSecret(keyFile, keyPem);
        } catch (RuntimeException e) {
            try {
                Files.deleteIfExists(crt);
            } catch (IOException ignored) {
                // the error that matters is the key's
            }
            throw e;
        }
    }

    private static void writeSecret(Path file, String text) {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp", OwnerOnly.creationAttributes(dir));
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
                out.write(text.getBytes(StandardCharsets.US_ASCII));
            }
            Files.createLink(file, tmp);
        } catch (FileAlreadyExistsException e) {
            throw new MembershipException(file + " already exists; refusing to overwrite a CA", e);
        } catch (IOException e) {
            throw new MembershipException("cannot write " + file + ": " + Pem.reason(e), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a leftover hidden temporary file holds only the encrypted key
                }
            }
        }
    }

    /**
     * Reads the CA in {@code dir}. Refuses a missing file, a key file that group or others may read, a corrupt PEM
     * file, a wrong passphrase, and a key that does not belong to the certificate.
     */
    public static CertificateAuthority load(Path dir, char[] passphrase) {
        checkPassphrase(passphrase);
        Path crt = dir.resolve(CERTIFICATE_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        if (!Files.isDirectory(dir)) {
            throw new MembershipException("no CA directory " + dir + " (create one with 'chorus consortium ca init')");
        }
        List<X509Certificate> certs = Pem.readCertificates(crt);
        if (certs.size() != 1 || certs.getFirst().getBasicConstraints() < 0) {
            throw new MembershipException(crt + ": expected one CA certificate, found " + certs.size()
                    + (certs.size() == 1 ? " that is not a CA's" : ""));
        }
        OwnerOnly.check(keyFile, "CA key file");
        List<PemObject> blocks = Pem.blocks(keyFile, Pem.read(keyFile));
        if (blocks.size() != 1 || !blocks.getFirst().getType().equals(Pem.ENCRYPTED_PRIVATE_KEY)) {
            throw new MembershipException(keyFile + ": expected one ENCRYPTED PRIVATE KEY, found "
                    + blocks.stream().map(PemObject::getType).toList());
        }
        PrivateKey key = decrypt(keyFile, blocks.getFirst().getContent(), passphrase);
        X509Certificate cert = certs.getFirst();
        if (!matches(key, cert.getPublicKey())) {
            throw new MembershipException(keyFile + " does not match " + crt + ": the key did not sign this CA");
        }
        return new CertificateAuthority(cert, key);
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public String organisation() {
        return organisation;
    }

    /** {@link #issue(String, byte[], Role, Instant, Instant)} over a throwaway public key. */
    public MemberCertificate issue(String peerId, Role role, Instant notBefore, Instant notAfter) {
        return issue(peerId, null, role, notBefore, notAfter);
    }

    /**
     * A member certificate {@code O=<organisation>, OU=<role>, CN=<peer id>} with the peer ID also in a
     * subjectAltName URI {@code libp2p:<peer id>}, the field verification reads. The node proves its peer ID through
     * the libp2p handshake, not with this certificate's key, so the certificate carries the node's own Ed25519
     * identity key when given (32 raw bytes) and otherwise a freshly generated key whose private half is discarded.
     * Refuses a validity that ends after the CA's own: such a certificate would fail verification once the CA has
     * expired.
     */
    public MemberCertificate issue(
            String peerId, byte[] ed25519PublicKeyOrNull, Role role, Instant notBefore, Instant notAfter) {
        DistinguishedNames.checkPeerId(peerId);
        Objects.requireNonNull(role, "role");
        Instant from = notBefore.truncatedTo(ChronoUnit.SECONDS);
        Instant to = notAfter.truncatedTo(ChronoUnit.SECONDS);
        if (!to.isAfter(from)) {
            throw new MembershipException("the certificate would end (" + to + ") before it starts (" + from + ")");
        }
        Instant caEnd = certificate.getNotAfter().toInstant();
        if (to.isAfter(caEnd)) {
            throw new MembershipException("the certificate would outlive its CA, which expires at " + caEnd);
        }
        SubjectPublicKeyInfo spki = memberKey(ed25519PublicKeyOrNull);
        SubjectPublicKeyInfo caSpki =
                SubjectPublicKeyInfo.getInstance(certificate.getPublicKey().getEncoded());
        X509v3CertificateBuilder b = new X509v3CertificateBuilder(
                issuerName(),
                serial(),
                Date.from(from),
                Date.from(to),
                DistinguishedNames.member(organisation, role, peerId),
                spki);
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(
                    Extension.subjectAlternativeName,
                    false,
                    new GeneralNames(new GeneralName(
                            GeneralName.uniformResourceIdentifier, MemberCertificate.PEER_ID_URI_SCHEME + peerId)));
            b.addExtension(
                    Extension.authorityKeyIdentifier,
                    false,
                    new BcX509ExtensionUtils().createAuthorityKeyIdentifier(caSpki));
            return MemberCertificate.parse(
                    Pem.certificateFromDer(b.build(signer(key)).getEncoded()));
        } catch (IOException e) {
            throw new MembershipException("cannot build the certificate of " + peerId + ": " + e, e);
        }
    }

    private static SubjectPublicKeyInfo memberKey(byte[] ed25519PublicKeyOrNull) {
        if (ed25519PublicKeyOrNull == null) {
            return SubjectPublicKeyInfo.getInstance(
                    ed25519().generateKeyPair().getPublic().getEncoded());
        }
        if (ed25519PublicKeyOrNull.length != 32) {
            throw new MembershipException("an Ed25519 public key is 32 bytes, got " + ed25519PublicKeyOrNull.length);
        }
        return new SubjectPublicKeyInfo(
                new AlgorithmIdentifier(EdECObjectIdentifiers.id_Ed25519), ed25519PublicKeyOrNull);
    }

    /**
     * A new CRL that lists every entry of {@code previousOrNull} and {@code serials} (each once, dated {@code now}
     * when new), numbered one above the previous CRL (1 when there is none) so that peers keep the newest.
     */
    public X509CRL revoke(Collection<BigInteger> serials, X509CRL previousOrNull, Instant now, Duration nextUpdateIn) {
        if (nextUpdateIn == null
                || nextUpdateIn.isNegative()
                || nextUpdateIn.isZero()
                || nextUpdateIn.compareTo(MAX_VALIDITY) > 0) {
            throw new MembershipException("the CRL's next update must be in the future and at most "
                    + MAX_VALIDITY.toDays() + " days ahead, got " + nextUpdateIn);
        }
        Instant at = now.truncatedTo(ChronoUnit.SECONDS);
        X509v2CRLBuilder b = new X509v2CRLBuilder(issuerName(), Date.from(at));
        b.setNextUpdate(Date.from(at.plus(nextUpdateIn)));
        BigInteger number = BigInteger.ONE;
        Set<BigInteger> fresh = new LinkedHashSet<>(serials);
        try {
            if (previousOrNull != null) {
                checkOwn(previousOrNull);
                number = RevocationLists.crlNumber(previousOrNull).add(BigInteger.ONE);
                b.addCRL(new X509CRLHolder(previousOrNull.getEncoded()));
                fresh.removeIf(s -> previousOrNull.getRevokedCertificate(s) != null);
            }
            for (BigInteger s : fresh) {
                b.addCRLEntry(s, Date.from(at), CRLReason.unspecified);
            }
            b.addExtension(Extension.cRLNumber, false, new CRLNumber(number));
            b.addExtension(
                    Extension.authorityKeyIdentifier,
                    false,
                    new BcX509ExtensionUtils()
                            .createAuthorityKeyIdentifier(SubjectPublicKeyInfo.getInstance(
                                    certificate.getPublicKey().getEncoded())));
            return Pem.crlFromDer(b.build(signer(key)).getEncoded());
        } catch (IOException | CRLException e) {
            throw new MembershipException("cannot build the CRL of " + organisation + ": " + e, e);
        }
    }

    /** Refuses a CRL this CA did not sign. */
    private void checkOwn(X509CRL crl) {
        if (!crl.getIssuerX500Principal().equals(certificate.getSubjectX500Principal())) {
            throw new MembershipException(
                    "the CRL was issued by " + crl.getIssuerX500Principal().getName() + ", not by this CA ("
                            + certificate.getSubjectX500Principal().getName() + ")");
        }
        if (!issued(crl)) {
            throw new MembershipException("the CRL names this CA as issuer but its signature does not verify");
        }
    }

    /** Whether this CA signed {@code crl}: its issuer is this CA's subject and the signature verifies. */
    public boolean issued(X509CRL crl) {
        if (!crl.getIssuerX500Principal().equals(certificate.getSubjectX500Principal())) {
            return false;
        }
        try {
            crl.verify(certificate.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /** Whether this CA signed {@code c}: its issuer is this CA's subject and the signature verifies. */
    public boolean issued(X509Certificate c) {
        if (!c.getIssuerX500Principal().equals(certificate.getSubjectX500Principal())) {
            return false;
        }
        try {
            c.verify(certificate.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    private X500Name issuerName() {
        return DistinguishedNames.of(certificate.getSubjectX500Principal());
    }

    private byte[] encrypt(char[] passphrase) {
        try {
            var encryptor = new JcePKCSPBEOutputEncryptorBuilder(
                            new ScryptConfig.Builder(SCRYPT_COST, SCRYPT_BLOCK_SIZE, SCRYPT_PARALLELISM)
                                    .withSaltLength(SCRYPT_SALT_BYTES)
                                    .build(),
                            NISTObjectIdentifiers.id_aes256_CBC)
                    .setProvider(Holder.BC)
                    .setRandom(RANDOM)
                    .build(passphrase);
            return new PKCS8EncryptedPrivateKeyInfoBuilder(PrivateKeyInfo.getInstance(key.getEncoded()))
                    .build(encryptor)
                    .getEncoded();
        } catch (OperatorCreationException | IOException e) {
            throw new MembershipException("cannot encrypt the CA key: " + Pem.oneLine(e), e);
        }
    }

    private static PrivateKey decrypt(Path file, byte[] der, char[] passphrase) {
        PKCS8EncryptedPrivateKeyInfo info;
        try {
            info = new PKCS8EncryptedPrivateKeyInfo(der);
        } catch (IOException | RuntimeException e) {
            throw new MembershipException(file + ": corrupt encrypted private key (" + Pem.oneLine(e) + ")", e);
        }
        byte[] plain;
        try {
            plain = info.decryptPrivateKeyInfo(new JcePKCSPBEInputDecryptorProviderBuilder()
                            .setProvider(Holder.BC)
                            .build(passphrase))
                    .getEncoded();
        } catch (PKCSException | IOException | RuntimeException e) {
            // AES-CBC padding fails for nearly every wrong passphrase; the rare one that pads well yields no key
            throw new MembershipException("wrong passphrase for " + file, e);
        }
        try {
            return KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(plain));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new MembershipException("wrong passphrase for " + file + " (or not an Ed25519 key)", e);
        }
    }

    /** Whether {@code key} is the private half of {@code pub}: it signs a random challenge that {@code pub} verifies. */
    private static boolean matches(PrivateKey key, PublicKey pub) {
        byte[] challenge = new byte[32];
        RANDOM.nextBytes(challenge);
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(key);
            s.update(challenge);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance("Ed25519");
            v.initVerify(pub);
            v.update(challenge);
            return v.verify(sig);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static void checkPassphrase(char[] passphrase) {
        if (passphrase == null || passphrase.length == 0) {
            throw new MembershipException("an empty passphrase protects nothing; give a passphrase for the CA key");
        }
    }

    /** A random positive 128-bit serial number (RFC 5280 4.1.2.2 allows up to 20 octets). */
    private static BigInteger serial() {
        BigInteger s;
        do {
            s = new BigInteger(128, RANDOM);
        } while (s.signum() == 0);
        return s;
    }

    private static ContentSigner signer(PrivateKey key) {
        try {
            return new JcaContentSignerBuilder("Ed25519").build(key);
        } catch (OperatorCreationException e) {
            throw new IllegalStateException("the JDK cannot sign with Ed25519", e);
        }
    }

    private static KeyPairGenerator ed25519() {
        try {
            return KeyPairGenerator.getInstance("Ed25519");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no Ed25519", e);
        }
    }

    /**
     * The Bouncy Castle provider, for scrypt and PBES2, created on first use and never registered: the JVM's
     * provider list stays as it is.
     */
    private static final class Holder {
        static final Provider BC = new BouncyCastleProvider();
    }
}
