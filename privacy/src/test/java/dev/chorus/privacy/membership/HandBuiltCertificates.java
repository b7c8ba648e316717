package dev.chorus.privacy.membership;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates {@link CertificateAuthority} would never issue, built with Bouncy Castle from a key the test holds: a
 * roster CA that signs a member certificate claiming another organisation, for one.
 */
final class HandBuiltCertificates {

    static final String PEER_A = "12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA";
    static final String PEER_B = "12D3KooWHXU6Ysbv1CFpDFeyU2Vb2BZJxCg3ukm8wWyGWuY3PRRF";

    /** A CA whose private key the test holds. */
    record Authority(KeyPair keys, X509Certificate certificate) {}

    private HandBuiltCertificates() {}

    static KeyPair ed25519() throws Exception {
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    /** A self-signed CA certificate {@code O=<organisation>, CN=<organisation> CA}, valid an hour either side of now. */
    static Authority authority(String organisation) throws Exception {
        KeyPair keys = ed25519();
        X500Name name = DistinguishedNames.authority(organisation);
        Instant now = Instant.now();
        X509v3CertificateBuilder b = new X509v3CertificateBuilder(
                name,
                BigInteger.TWO,
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))),
                name,
                SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded()));
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        byte[] der = b.build(new JcaContentSignerBuilder("Ed25519").build(keys.getPrivate()))
                .getEncoded();
        return new Authority(keys, Pem.certificateFromDer(der));
    }

    /**
     * A member certificate for {@code peerId} signed by {@code ca} whose subject claims {@code organisation}, which
     * need not be the CA's.
     */
    static X509Certificate member(Authority ca, String organisation, Role role, String peerId) throws Exception {
        Instant now = Instant.now();
        X509v3CertificateBuilder b = new X509v3CertificateBuilder(
                DistinguishedNames.of(ca.certificate().getSubjectX500Principal()),
                BigInteger.valueOf(77),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofHours(1))),
                DistinguishedNames.member(organisation, role, peerId),
                SubjectPublicKeyInfo.getInstance(ed25519().getPublic().getEncoded()));
        b.addExtension(
                Extension.subjectAlternativeName,
                false,
                new GeneralNames(new GeneralName(GeneralName.uniformResourceIdentifier, "libp2p:" + peerId)));
        byte[] der = b.build(
                        new JcaContentSignerBuilder("Ed25519").build(ca.keys().getPrivate()))
                .getEncoded();
        return Pem.certificateFromDer(der);
    }
}
