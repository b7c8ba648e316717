package dev.chorus.node.api;

import dev.chorus.learning.json.JsonWriter;
import dev.chorus.node.membership.Membership;
import dev.chorus.node.membership.MembershipGate;
import dev.chorus.privacy.membership.MemberCertificate;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * The {@code membership} object of {@code GET /api/members}: whether membership is enforced, the roster, this
 * node's certificate, the certificate state of every admitted peer, the revocation lists and the refusals.
 */
final class MembershipJson {
    private MembershipJson() {}

    static void write(JsonWriter w, Membership m, Instant now) {
        w.name("membership").beginObject();
        w.member("enforced", m != null);
        if (m == null) {
            w.endObject();
            return;
        }
        w.name("roster").beginArray();
        for (X509Certificate ca : m.authorities()) {
            w.beginObject();
            w.member("organisation", organisation(ca));
            w.member("subject", ca.getSubjectX500Principal().getName());
            w.member("notAfter", ca.getNotAfter().toInstant().toString());
            w.member("sha256", fingerprint(ca));
            w.endObject();
        }
        w.endArray();
        w.name("self").beginObject();
        certificate(w, m.certificate(), m, now);
        w.endObject();
        w.name("peers").beginArray();
        for (MembershipGate.Admitted a : m.gate().admittedPeers()) {
            w.beginObject();
            w.member("peerId", a.connection().remotePeer().toBase58());
            w.member("address", a.connection().remoteAddress().toString());
            w.member("admittedAt", a.admittedAt().toString());
            certificate(w, a.certificate(), m, now);
            w.endObject();
        }
        w.endArray();
        w.member("knownMembers", m.directory().size());
        w.name("revocationLists").beginArray();
        for (X509CRL crl : m.revocations().lists()) {
            w.beginObject();
            w.member("issuer", crl.getIssuerX500Principal().getName());
            BigInteger number = crlNumber(crl);
            if (number != null) {
                w.member("crlNumber", number.toString());
            }
            w.member("thisUpdate", crl.getThisUpdate().toInstant().toString());
            Set<? extends X509CRLEntry> revoked = crl.getRevokedCertificates();
            w.member("revoked", revoked == null ? 0 : revoked.size());
            w.endObject();
        }
        w.endArray();
        w.name("refused").beginObject();
        for (Map.Entry<String, Long> e : m.gate().refusals().entrySet()) {
            w.member(e.getKey(), e.getValue());
        }
        w.endObject();
        w.name("recentRefusals").beginArray();
        for (MembershipGate.Refusal r : m.gate().recentRefusals()) {
            w.beginObject();
            w.member("at", r.at().toString());
            w.member("peerId", r.peer());
            w.member("address", r.address());
            w.member("reason", r.reason());
            w.member("detail", r.detail() == null ? "" : r.detail());
            w.endObject();
        }
        w.endArray();
        w.endObject();
    }

    private static void certificate(JsonWriter w, MemberCertificate c, Membership m, Instant now) {
        w.member("organisation", c.organisation());
        w.member("role", c.role().id());
        w.member("serial", c.serial().toString(16));
        w.member("notBefore", c.notBefore().toString());
        w.member("notAfter", c.notAfter().toString());
        w.member("expired", now.isAfter(c.notAfter()));
        w.member("revoked", m.revocations().isRevoked(c.certificate()));
    }

    private static String organisation(X509Certificate ca) {
        for (String part : ca.getSubjectX500Principal().getName().split(",")) {
            if (part.startsWith("O=")) {
                return part.substring(2);
            }
        }
        return "";
    }

    private static BigInteger crlNumber(X509CRL crl) {
        byte[] ext = crl.getExtensionValue("2.5.29.20");
        if (ext == null) {
            return null;
        }
        // OCTET STRING { INTEGER }: the INTEGER starts after two tag-length pairs of one byte each for small values.
        try {
            int i = 0;
            if (ext[i++] != 0x04) {
                return null;
            }
            i++; // outer length
            if (ext[i++] != 0x02) {
                return null;
            }
            int len = ext[i++];
            byte[] v = java.util.Arrays.copyOfRange(ext, i, i + len);
            return new BigInteger(v);
        } catch (RuntimeException e) {
            return null;
        }
    }

    static String fingerprint(X509Certificate c) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
        } catch (CertificateEncodingException | NoSuchAlgorithmException e) {
            return "";
        }
    }
}
