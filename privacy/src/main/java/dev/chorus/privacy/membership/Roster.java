package dev.chorus.privacy.membership;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.security.auth.x500.X500Principal;

/**
 * The consortium's institution CAs, one per organisation, as every node holds them. Immutable. {@link #verify}
 * decides whether a peer's certificate admits it.
 */
public final class Roster {

    /** A peer presents its member certificate and at most the CA certificate and a little more. */
    public static final int MAX_CHAIN_CERTIFICATES = 4;

    /** Far above a member certificate's few hundred bytes; bounds what a peer can make us parse. */
    public static final int MAX_CERTIFICATE_BYTES = 16 * 1024;

    private final Map<X500Principal, X509Certificate> bySubject;
    private final List<X509Certificate> authorities;

    private Roster(Map<X500Principal, X509Certificate> bySubject) {
        this.bySubject = Collections.unmodifiableMap(bySubject);
        this.authorities = List.copyOf(bySubject.values());
    }

    /**
     * A roster of CA certificates: each must be a self-signed CA certificate that verifies, and no two may name the
     * same organisation, since each organisation admits its nodes through exactly one CA.
     */
    public static Roster of(List<X509Certificate> authorities) {
        if (authorities.isEmpty()) {
            throw new MembershipException("the roster is empty: give at least one institution CA certificate");
        }
        Map<X500Principal, X509Certificate> bySubject = new LinkedHashMap<>();
        Map<String, X509Certificate> byOrganisation = new LinkedHashMap<>();
        for (X509Certificate c : authorities) {
            String organisation = checkAuthority(c);
            X509Certificate other = byOrganisation.putIfAbsent(organisation, c);
            if (other != null) {
                throw new MembershipException("the roster holds two CA certificates for organisation '" + organisation
                        + "' (" + other.getSubjectX500Principal().getName() + " and "
                        + c.getSubjectX500Principal().getName() + "); keep one per organisation");
            }
            bySubject.put(c.getSubjectX500Principal(), c);
        }
        return new Roster(bySubject);
    }

    /** A roster from PEM files of CA certificates; an error names the file. */
    public static Roster load(List<Path> files) {
        List<X509Certificate> all = new ArrayList<>();
        for (Path f : files) {
            for (X509Certificate c : Pem.readCertificates(f)) {
                try {
                    checkAuthority(c);
                } catch (MembershipException e) {
                    throw new MembershipException(f + ": " + e.getMessage(), e);
                }
                all.add(c);
            }
        }
        if (all.isEmpty()) {
            throw new MembershipException("the roster is empty: give at least one institution CA certificate file");
        }
        return of(all);
    }

    /** Checks that {@code c} can be a roster CA and returns its organisation. */
    private static String checkAuthority(X509Certificate c) {
        String subject = c.getSubjectX500Principal().getName();
        if (c.getBasicConstraints() < 0) {
            throw new MembershipException(
                    "the certificate " + subject + " is not a CA certificate (no basicConstraints" + " CA)");
        }
        boolean[] usage = c.getKeyUsage();
        if (usage != null && !usage[5]) {
            throw new MembershipException(
                    "the CA certificate " + subject + " may not sign certificates (keyUsage" + " lacks keyCertSign)");
        }
        if (!c.getIssuerX500Principal().equals(c.getSubjectX500Principal())) {
            throw new MembershipException("the CA certificate " + subject + " is not self-signed (issuer "
                    + c.getIssuerX500Principal().getName() + ")");
        }
        try {
            c.verify(c.getPublicKey());
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new MembershipException("the CA certificate " + subject + " has a bad self-signature", e);
        }
        return DistinguishedNames.organisation(c.getSubjectX500Principal());
    }

    public List<X509Certificate> authorities() {
        return authorities;
    }

    /** The roster CA whose subject is {@code issuer}. */
    public Optional<X509Certificate> authorityFor(X500Principal issuer) {
        return Optional.ofNullable(bySubject.get(issuer));
    }

    public Set<String> organisations() {
        Set<String> out = new LinkedHashSet<>();
        for (X509Certificate c : authorities) {
            out.add(DistinguishedNames.organisation(c.getSubjectX500Principal()));
        }
        return Collections.unmodifiableSet(out);
    }

    /**
     * Checks a chain presented by a peer: {@code chainDer.get(0)} is its member certificate; anything after it (its
     * CA's certificate, say) is bounded but not used, since the roster already holds every CA. The checks run in a
     * fixed order and the first that fails decides the reason: empty, malformed, unknown CA, bad signature,
     * organisation mismatch, validity (member and CA), revocation, peer ID.
     *
     * @param revoked the newest CRLs; null for none
     */
    public Verdict verify(List<byte[]> chainDer, String authenticatedPeerId, Instant now, RevocationLists revoked) {
        if (chainDer == null || chainDer.isEmpty()) {
            return Verdict.refuse(RefusalReason.NO_CERTIFICATE, "no certificate presented", null);
        }
        if (chainDer.size() > MAX_CHAIN_CERTIFICATES) {
            return Verdict.refuse(
                    RefusalReason.MALFORMED,
                    chainDer.size() + " certificates presented; at most " + MAX_CHAIN_CERTIFICATES,
                    null);
        }
        for (int i = 0; i < chainDer.size(); i++) {
            byte[] der = chainDer.get(i);
            if (der == null || der.length == 0 || der.length > MAX_CERTIFICATE_BYTES) {
                return Verdict.refuse(
                        RefusalReason.MALFORMED,
                        "certificate " + (i + 1) + " is " + (der == null ? 0 : der.length) + " bytes; 1 to "
                                + MAX_CERTIFICATE_BYTES + " allowed",
                        null);
            }
        }
        MemberCertificate m;
        try {
            m = MemberCertificate.parse(Pem.certificateFromDer(chainDer.getFirst()));
        } catch (MembershipException e) {
            return Verdict.refuse(RefusalReason.MALFORMED, e.getMessage(), null);
        }
        X509Certificate c = m.certificate();
        X509Certificate ca = bySubject.get(c.getIssuerX500Principal());
        if (ca == null) {
            return Verdict.refuse(
                    RefusalReason.UNKNOWN_CA,
                    "issuer " + c.getIssuerX500Principal().getName() + " is not a roster CA",
                    m);
        }
        try {
            c.verify(ca.getPublicKey());
        } catch (GeneralSecurityException | RuntimeException e) {
            return Verdict.refuse(
                    RefusalReason.BAD_SIGNATURE,
                    "the signature does not verify with the key of "
                            + ca.getSubjectX500Principal().getName(),
                    m);
        }
        String caOrganisation = DistinguishedNames.organisation(ca.getSubjectX500Principal());
        if (!m.organisation().equals(caOrganisation)) {
            return Verdict.refuse(
                    RefusalReason.ORGANISATION_MISMATCH,
                    "the certificate claims organisation '" + m.organisation() + "' but was issued by the CA of '"
                            + caOrganisation + "'",
                    m);
        }
        return checkTimeRevocationAndPeer(m, ca, authenticatedPeerId, now, revoked);
    }

    private static Verdict checkTimeRevocationAndPeer(
            MemberCertificate m, X509Certificate ca, String authenticatedPeerId, Instant now, RevocationLists revoked) {
        Verdict v = checkValidity(m, "the certificate", m.notBefore(), m.notAfter(), now);
        if (v == null) {
            String what = "the CA certificate of '" + m.organisation() + "'";
            v = checkValidity(
                    m, what, ca.getNotBefore().toInstant(), ca.getNotAfter().toInstant(), now);
        }
        if (v != null) {
            return v;
        }
        if (revoked != null && revoked.isRevoked(m.certificate())) {
            return Verdict.refuse(
                    RefusalReason.REVOKED,
                    "serial " + m.serial().toString(16) + " is on the CRL of '" + m.organisation() + "'",
                    m);
        }
        if (!m.peerId().equals(authenticatedPeerId)) {
            return Verdict.refuse(
                    RefusalReason.PEER_ID_MISMATCH,
                    "the certificate names " + m.peerId() + " but the connection authenticated " + authenticatedPeerId,
                    m);
        }
        return Verdict.admit(m);
    }

    /** A refusal when {@code now} is outside [notBefore, notAfter] (both ends valid, RFC 5280 4.1.2.5); else null. */
    private static Verdict checkValidity(
            MemberCertificate m, String what, Instant notBefore, Instant notAfter, Instant now) {
        if (now.isBefore(notBefore)) {
            return Verdict.refuse(RefusalReason.NOT_YET_VALID, what + " is valid from " + notBefore, m);
        }
        if (now.isAfter(notAfter)) {
            return Verdict.refuse(RefusalReason.EXPIRED, what + " expired at " + notAfter, m);
        }
        return null;
    }
}
