package dev.chorus.privacy.membership;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * What a member certificate, a CA certificate or a CRL says, for an operator: as aligned lines or as one JSON
 * object. The fields and their order are fixed per kind:
 *
 * <ul>
 *   <li>{@code member-certificate}: organisation, role, peerId, serial, issuer, notBefore, notAfter, sha256;
 *   <li>{@code ca-certificate}: organisation, subject, serial, notBefore, notAfter, sha256;
 *   <li>{@code certificate} (neither of the above): subject, serial, issuer, notBefore, notAfter, sha256;
 *   <li>{@code crl}: issuer, crlNumber, thisUpdate, nextUpdate, revoked (a list of serial and date).
 * </ul>
 *
 * Serial numbers are lower-case hex, times ISO-8601 UTC, {@code sha256} the fingerprint of the DER encoding as
 * upper-case hex pairs separated by colons, the form {@code openssl x509 -fingerprint -sha256} prints.
 */
public final class CertificateDescription {

    public static final String MEMBER_CERTIFICATE = "member-certificate";
    public static final String CA_CERTIFICATE = "ca-certificate";
    public static final String OTHER_CERTIFICATE = "certificate";
    public static final String CRL = "crl";

    private final String kind;
    private final Map<String, Object> fields;

    private CertificateDescription(String kind, Map<String, Object> fields) {
        this.kind = kind;
        this.fields = Collections.unmodifiableMap(fields);
    }

    public static CertificateDescription of(X509Certificate c) {
        Map<String, Object> f = new LinkedHashMap<>();
        String kind;
        if (c.getBasicConstraints() >= 0) {
            kind = CA_CERTIFICATE;
            f.put("organisation", DistinguishedNames.organisation(c.getSubjectX500Principal()));
            f.put("subject", c.getSubjectX500Principal().getName());
        } else {
            MemberCertificate m = memberOrNull(c);
            if (m != null) {
                kind = MEMBER_CERTIFICATE;
                f.put("organisation", m.organisation());
                f.put("role", m.role().id());
                f.put("peerId", m.peerId());
            } else {
                kind = OTHER_CERTIFICATE;
                f.put("subject", c.getSubjectX500Principal().getName());
            }
            f.put("serial", c.getSerialNumber().toString(16));
            f.put("issuer", c.getIssuerX500Principal().getName());
        }
        f.putIfAbsent("serial", c.getSerialNumber().toString(16));
        f.put("notBefore", c.getNotBefore().toInstant().toString());
        f.put("notAfter", c.getNotAfter().toInstant().toString());
        try {
            f.put("sha256", fingerprint(c.getEncoded()));
        } catch (CertificateEncodingException e) {
            throw new MembershipException("cannot encode the certificate " + c.getSubjectX500Principal(), e);
        }
        return new CertificateDescription(kind, f);
    }

    private static MemberCertificate memberOrNull(X509Certificate c) {
        try {
            return MemberCertificate.parse(c);
        } catch (MembershipException e) {
            return null;
        }
    }

    public static CertificateDescription of(X509CRL crl) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("issuer", crl.getIssuerX500Principal().getName());
        f.put(
                "crlNumber",
                crl.getExtensionValue(Extension.cRLNumber.getId()) == null ? null : RevocationLists.crlNumber(crl));
        f.put("thisUpdate", crl.getThisUpdate().toInstant().toString());
        f.put(
                "nextUpdate",
                crl.getNextUpdate() == null
                        ? null
                        : crl.getNextUpdate().toInstant().toString());
        List<Map<String, Object>> revoked = new ArrayList<>();
        Set<? extends X509CRLEntry> entries = crl.getRevokedCertificates();
        if (entries != null) {
            entries.stream()
                    .sorted(Comparator.comparing(X509CRLEntry::getRevocationDate)
                            .thenComparing(X509CRLEntry::getSerialNumber))
                    .forEach(e -> {
                        Map<String, Object> entry = new LinkedHashMap<>();
                        entry.put("serial", e.getSerialNumber().toString(16));
                        entry.put("date", e.getRevocationDate().toInstant().toString());
                        revoked.add(Collections.unmodifiableMap(entry));
                    });
        }
        f.put("revoked", List.copyOf(revoked));
        return new CertificateDescription(CRL, f);
    }

    /** Every certificate of a PEM or DER file, or its one CRL. */
    public static List<CertificateDescription> read(Path file) {
        byte[] bytes = Pem.read(file);
        List<PemObject> blocks = Pem.blocks(file, bytes);
        boolean crl = blocks.isEmpty()
                ? !looksLikeCertificate(bytes)
                : blocks.getFirst().getType().equals(Pem.CRL);
        if (crl) {
            return List.of(of(Pem.readCrl(file)));
        }
        return Pem.readCertificates(file).stream()
                .map(CertificateDescription::of)
                .toList();
    }

    private static boolean looksLikeCertificate(byte[] der) {
        try {
            Pem.certificateFromDer(der);
            return true;
        } catch (MembershipException e) {
            return false;
        }
    }

    public String kind() {
        return kind;
    }

    /**
     * The fields in their fixed order, without {@code kind}. Values are strings, a {@link java.math.BigInteger} for
     * {@code crlNumber}, null for an absent optional field, and for {@code revoked} a list of maps.
     */
    public Map<String, Object> fields() {
        return fields;
    }

    /** A title line, then one line per field with the names aligned; a CRL's entries one per line below it. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add(kind.replace('-', ' '));
        int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0);
        String format = "  %-" + width + "s  %s";
        fields.forEach((name, value) -> {
            if (value instanceof List<?> list) {
                out.add(String.format(Locale.ROOT, format, name, list.size()));
                for (Object o : list) {
                    Map<?, ?> entry = (Map<?, ?>) o;
                    out.add("    " + entry.get("serial") + "  " + entry.get("date"));
                }
            } else {
                out.add(String.format(Locale.ROOT, format, name, value == null ? "-" : value));
            }
        });
        return out;
    }

    /** One JSON object on one line: {@code kind} first, then the fields in order. */
    public String json() {
        StringBuilder b = new StringBuilder("{\"kind\":").append(quoted(kind));
        fields.forEach((name, value) -> {
            b.append(',').append(quoted(name)).append(':');
            appendJson(b, value);
        });
        return b.append('}').toString();
    }

    private static void appendJson(StringBuilder b, Object value) {
        switch (value) {
            case null -> b.append("null");
            case Number n -> b.append(n);
            case List<?> list -> {
                b.append('[');
                for (int i = 0; i < list.size(); i++) {
                    b.append(i == 0 ? "" : ",");
                    appendJson(b, list.get(i));
                }
                b.append(']');
            }
            case Map<?, ?> map -> {
                b.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    b.append(first ? "" : ",")
                            .append(quoted(e.getKey().toString()))
                            .append(':');
                    appendJson(b, e.getValue());
                    first = false;
                }
                b.append('}');
            }
            default -> b.append(quoted(value.toString()));
        }
    }

    /** A JSON string literal (RFC 8259 section 7): quote, backslash and control characters escaped. */
    static String quoted(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** SHA-256 of {@code der} as upper-case hex pairs joined by colons. */
    public static String fingerprint(byte[] der) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(der);
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(h);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
