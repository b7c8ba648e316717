package dev.chorus.privacy.membership;

import java.io.IOException;
import java.math.BigInteger;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Objects;
import org.bouncycastle.asn1.DERIA5String;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;

/**
 * A member certificate and what it binds: the node's libp2p peer ID, its organisation, its role and its validity.
 * Parsing checks the form only; {@link Roster#verify} checks the issuer, signature, validity and revocation.
 *
 * <p>The peer ID is read from the subjectAltName URI {@code libp2p:<peer id>}, the field verification relies on; the
 * subject's {@code CN}, when present, must name the same peer so that what an operator reads is what is checked.
 */
public record MemberCertificate(
        X509Certificate certificate,
        String peerId,
        String organisation,
        Role role,
        Instant notBefore,
        Instant notAfter) {

    /** The scheme of the subjectAltName URI that carries the peer ID. */
    public static final String PEER_ID_URI_SCHEME = "libp2p:";

    public MemberCertificate {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(organisation, "organisation");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(notBefore, "notBefore");
        Objects.requireNonNull(notAfter, "notAfter");
    }

    /** Reads the binding out of {@code c}; a {@link MembershipException} says which field is missing or malformed. */
    public static MemberCertificate parse(X509Certificate c) {
        if (c.getBasicConstraints() >= 0) {
            throw new MembershipException(
                    "a CA certificate (" + c.getSubjectX500Principal().getName() + ") is not a member certificate");
        }
        X500Name subject = DistinguishedNames.of(c.getSubjectX500Principal());
        String organisation = DistinguishedNames.organisation(c.getSubjectX500Principal());
        String roleId = DistinguishedNames.single(subject, BCStyle.OU, "role (OU)");
        if (roleId == null) {
            throw new MembershipException("the member certificate " + subject + " has no role (OU)");
        }
        Role role = Role.parse(roleId);
        String peerId = peerIdOf(c, subject);
        String cn = DistinguishedNames.single(subject, BCStyle.CN, "common name (CN)");
        if (cn != null && !cn.equals(peerId)) {
            throw new MembershipException(
                    "the member certificate's CN " + cn + " differs from its subjectAltName" + " peer ID " + peerId);
        }
        return new MemberCertificate(
                c,
                peerId,
                organisation,
                role,
                c.getNotBefore().toInstant(),
                c.getNotAfter().toInstant());
    }

    /** The one {@code libp2p:} URI of the subjectAltName extension. */
    private static String peerIdOf(X509Certificate c, X500Name subject) {
        GeneralNames names;
        try {
            names = GeneralNames.fromExtensions(
                    new X509CertificateHolder(c.getEncoded()).getExtensions(), Extension.subjectAlternativeName);
        } catch (IOException | CertificateEncodingException | IllegalArgumentException e) {
            throw new MembershipException("the member certificate " + subject + " has a malformed subjectAltName", e);
        }
        String found = null;
        if (names != null) {
            for (GeneralName n : names.getNames()) {
                if (n.getTagNo() != GeneralName.uniformResourceIdentifier) {
                    continue;
                }
                String uri = DERIA5String.getInstance(n.getName()).getString();
                if (!uri.startsWith(PEER_ID_URI_SCHEME)) {
                    continue;
                }
                if (found != null) {
                    throw new MembershipException("the member certificate " + subject + " names more than one peer");
                }
                found = uri.substring(PEER_ID_URI_SCHEME.length());
            }
        }
        if (found == null) {
            throw new MembershipException("the certificate " + subject + " has no peer ID (subjectAltName URI "
                    + PEER_ID_URI_SCHEME + "<peer id>)");
        }
        if (!DistinguishedNames.looksLikePeerId(found)) {
            throw new MembershipException(
                    "the member certificate " + subject + " names '" + found + "', which is not a libp2p peer ID");
        }
        return found;
    }

    /** The certificate's DER encoding. */
    public byte[] encoded() {
        try {
            return certificate.getEncoded();
        } catch (CertificateEncodingException e) {
            throw new MembershipException("cannot encode the certificate of " + peerId, e);
        }
    }

    public BigInteger serial() {
        return certificate.getSerialNumber();
    }
}
