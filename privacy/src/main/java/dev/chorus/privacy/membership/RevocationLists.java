package dev.chorus.privacy.membership;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.Extension;

/**
 * The newest CRL of each roster CA. Thread-safe: CRLs arrive from files and from gossip while connections are
 * checked; readers see one consistent map without taking a lock.
 *
 * <p>Newest means the highest CRL number (RFC 5280 5.2.3), not the latest thisUpdate: a CA's clock may step back,
 * its numbers only go up. A CRL without a number cannot be ordered and is refused.
 */
public final class RevocationLists {

    /** A CRL and its number. */
    private record Held(X509CRL crl, BigInteger number) {}

    private final Roster roster;
    private final Object installing = new Object();
    private volatile Map<X500Principal, Held> newest = Map.of();
    private volatile long version;

    public RevocationLists(Roster roster) {
        this.roster = Objects.requireNonNull(roster, "roster");
    }

    /** No CRL yet: nothing is revoked. */
    public static RevocationLists empty(Roster roster) {
        return new RevocationLists(roster);
    }

    /**
     * Installs {@code crl} when a roster CA signed it and its number is higher than that of the CRL held for that CA;
     * returns whether it was installed. An older or equal CRL is ignored (peers re-gossip what they hold). A CRL from
     * outside the roster or with a bad signature throws, naming the issuer.
     */
    public boolean offer(X509CRL crl) {
        X500Principal issuer = crl.getIssuerX500Principal();
        X509Certificate ca = roster.authorityFor(issuer)
                .orElseThrow(
                        () -> new MembershipException("the CRL's issuer " + issuer.getName() + " is not a roster CA"));
        try {
            crl.verify(ca.getPublicKey());
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new MembershipException("the CRL of " + issuer.getName() + " has a bad signature", e);
        }
        BigInteger number = crlNumber(crl);
        synchronized (installing) {
            Held held = newest.get(issuer);
            if (held != null && held.number().compareTo(number) >= 0) {
                return false;
            }
            Map<X500Principal, Held> next = new HashMap<>(newest);
            next.put(issuer, new Held(crl, number));
            newest = Map.copyOf(next);
            version++;
            return true;
        }
    }

    /** {@link #offer(X509CRL)} of DER bytes, at most {@link Pem#MAX_FILE_BYTES} of them. */
    public boolean offer(byte[] der) {
        if (der == null || der.length == 0 || der.length > Pem.MAX_FILE_BYTES) {
            throw new MembershipException(
                    "a CRL of " + (der == null ? 0 : der.length) + " bytes; 1 to " + Pem.MAX_FILE_BYTES + " allowed");
        }
        return offer(Pem.crlFromDer(der));
    }

    /** Offers the CRL of each file, and of each {@code *.crl} and {@code *.pem} file of each directory given. */
    public void loadFiles(List<Path> filesOrDirectories) {
        for (Path p : filesOrDirectories) {
            for (Path f : crlFiles(p)) {
                X509CRL crl = Pem.readCrl(f);
                try {
                    offer(crl);
                } catch (MembershipException e) {
                    throw new MembershipException(f + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private static List<Path> crlFiles(Path p) {
        if (!Files.isDirectory(p)) {
            return List.of(p);
        }
        try (Stream<Path> s = Files.list(p)) {
            return s.filter(f -> {
                        String n = f.getFileName().toString();
                        return (n.endsWith(".crl") || n.endsWith(".pem")) && Files.isRegularFile(f);
                    })
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new MembershipException("cannot list the CRL directory " + p + ": " + Pem.reason(e), e);
        }
    }

    /** Whether the newest CRL of {@code memberCert}'s issuer lists its serial number. */
    public boolean isRevoked(X509Certificate memberCert) {
        Held held = newest.get(memberCert.getIssuerX500Principal());
        return held != null && held.crl().getRevokedCertificate(memberCert.getSerialNumber()) != null;
    }

    /** The newest CRL of each CA that has one, in roster order. */
    public List<X509CRL> lists() {
        Map<X500Principal, Held> now = newest;
        List<X509CRL> out = new ArrayList<>();
        for (X509Certificate ca : roster.authorities()) {
            Held h = now.get(ca.getSubjectX500Principal());
            if (h != null) {
                out.add(h.crl());
            }
        }
        return List.copyOf(out);
    }

    /** Goes up by one on every install, so a caller can tell that the lists changed (to re-check its peers, say). */
    public long version() {
        return version;
    }

    /** The CRL number extension of {@code crl}; a {@link MembershipException} when it has none. */
    public static BigInteger crlNumber(X509CRL crl) {
        byte[] ext = crl.getExtensionValue(Extension.cRLNumber.getId());
        if (ext == null) {
            throw new MembershipException(
                    "the CRL of " + crl.getIssuerX500Principal().getName() + " has no CRL number");
        }
        try {
            BigInteger n = ASN1Integer.getInstance(
                            ASN1OctetString.getInstance(ext).getOctets())
                    .getValue();
            if (n.signum() < 0) {
                throw new MembershipException(
                        "the CRL of " + crl.getIssuerX500Principal().getName() + " has a negative CRL number");
            }
            return n;
        } catch (IllegalArgumentException e) {
            throw new MembershipException(
                    "the CRL of " + crl.getIssuerX500Principal().getName() + " has a malformed CRL number", e);
        }
    }
}
