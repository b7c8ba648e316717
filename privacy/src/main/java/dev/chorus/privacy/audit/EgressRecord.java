package dev.chorus.privacy.audit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One line of the egress audit log.
 *
 * <p>The line is a flat JSON object with the keys in this order: {@code seq}, {@code time}, {@code peer}, {@code
 * protocol}, {@code kind}, {@code bytes}, {@code sha256}, {@code version}, optionally {@code note}, {@code prev},
 * {@code hash}. Its canonical text is the line without the {@code ,"hash":"..."} member, and {@code hash} is
 * SHA-256 over the 32 bytes of {@code prev} followed by the UTF-8 of the canonical text: each record commits to
 * the whole chain before it.
 *
 * <p>The record holds what was sent ({@link Sent}) apart from its place in the chain, since the sender knows the
 * first and only the writer the second; the line stays flat, in the order above.
 *
 * @param seq position in the chain, from 0, one more than the record before
 * @param sent what the record is about: the payload handed to the transport
 * @param note free text for the log's own records, or null
 * @param prev hex hash of the record before (64 zeros for the first record of a chain)
 * @param hash hex hash of this record
 */
public record EgressRecord(long seq, Sent sent, String note, String prev, String hash) {

    /** The {@code prev} of the first record of a chain. */
    public static final String GENESIS = "0".repeat(64);

    /** Records the log writes about itself: payloads it could not record in time. */
    public static final String KIND_DROPPED = "audit-dropped";

    /** Records the log writes about itself: an incomplete line cut off after a crash. */
    public static final String KIND_RECOVERED = "audit-recovered";

    private static final HexFormat HEX = HexFormat.of();
    private static final String HASH_MEMBER = ",\"hash\":\"";
    private static final List<String> KEYS =
            List.of("seq", "time", "peer", "protocol", "kind", "bytes", "sha256", "version", "prev");

    /**
     * What one record is about: a payload as handed to the transport, or for the log's own records the bytes they
     * concern (dropped payloads, a cut-off line).
     *
     * @param time when the payload was handed to the transport (UTC, milliseconds)
     * @param peer the remote peer ("" for the log's own records)
     * @param protocol the protocol id ("" for the log's own records)
     * @param kind what was sent; {@code audit-}* kinds are the log's own records (drops, crash recovery)
     * @param bytes the byte count
     * @param sha256 hex SHA-256 of those bytes exactly as sent ("" where there are none)
     * @param version the model version carried, or {@link EgressRecorder#NO_VERSION} ({@code null} in the line)
     */
    public record Sent(
            Instant time, String peer, String protocol, String kind, long bytes, String sha256, long version) {
        public Sent {
            Objects.requireNonNull(time, "time");
            Objects.requireNonNull(peer, "peer");
            Objects.requireNonNull(protocol, "protocol");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(sha256, "sha256");
        }
    }

    public EgressRecord {
        Objects.requireNonNull(sent, "sent");
        Objects.requireNonNull(prev, "prev");
    }

    /** When the payload was handed to the transport; see {@link Sent#time()}. */
    public Instant time() {
        return sent.time();
    }

    /** The remote peer; see {@link Sent#peer()}. */
    public String peer() {
        return sent.peer();
    }

    /** The protocol id; see {@link Sent#protocol()}. */
    public String protocol() {
        return sent.protocol();
    }

    /** What was sent; see {@link Sent#kind()}. */
    public String kind() {
        return sent.kind();
    }

    /** The byte count; see {@link Sent#bytes()}. */
    public long bytes() {
        return sent.bytes();
    }

    /** Hex SHA-256 of the bytes; see {@link Sent#sha256()}. */
    public String sha256() {
        return sent.sha256();
    }

    /** The model version carried; see {@link Sent#version()}. */
    public long version() {
        return sent.version();
    }

    /** Whether the log wrote this record about itself rather than about a payload. */
    public boolean isAuditEvent() {
        return sent.kind().startsWith("audit-");
    }

    /**
     * Chains a new record after {@code prev}.
     *
     * @return the record with its hash
     */
    static EgressRecord chain(long seq, Sent sent, String note, String prev) {
        EgressRecord r = new EgressRecord(seq, sent, note, prev, null);
        return new EgressRecord(seq, sent, note, prev, chainHash(prev, r.canonical()));
    }

    /** The canonical text: the line without its {@code hash} member and without the newline. */
    String canonical() {
        StringBuilder b = new StringBuilder(320);
        Sent s = sent;
        b.append("{\"seq\":").append(seq);
        b.append(",\"time\":");
        string(b, s.time().toString());
        b.append(",\"peer\":");
        string(b, s.peer());
        b.append(",\"protocol\":");
        string(b, s.protocol());
        b.append(",\"kind\":");
        string(b, s.kind());
        b.append(",\"bytes\":").append(s.bytes());
        b.append(",\"sha256\":");
        string(b, s.sha256());
        b.append(",\"version\":");
        if (s.version() < 0) {
            b.append("null");
        } else {
            b.append(s.version());
        }
        if (note != null) {
            b.append(",\"note\":");
            string(b, note);
        }
        b.append(",\"prev\":");
        string(b, prev);
        return b.append('}').toString();
    }

    /** The line as written, with its newline. */
    String line() {
        String c = canonical();
        return c.substring(0, c.length() - 1) + HASH_MEMBER + hash + "\"}\n";
    }

    /** SHA-256 over the previous hash's bytes, then the canonical text's UTF-8. */
    static String chainHash(String prevHex, String canonical) {
        MessageDigest md = newSha256();
        md.update(HEX.parseHex(prevHex));
        md.update(canonical.getBytes(StandardCharsets.UTF_8));
        return HEX.formatHex(md.digest());
    }

    static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /**
     * Parses one line (without its newline) and checks that its hash matches its own content and {@code prev}. It
     * does not check {@code prev} against the record before: that is the verifier's job.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static EgressRecord parse(String line) {
        if (!line.endsWith("\"}")) {
            throw new IllegalArgumentException("not a complete record");
        }
        int at = line.lastIndexOf(HASH_MEMBER);
        if (at < 0 || line.length() - at != HASH_MEMBER.length() + 64 + 2) {
            throw new IllegalArgumentException("no hash member at the end of the record");
        }
        String hash = line.substring(at + HASH_MEMBER.length(), line.length() - 2);
        checkHex(hash, "hash");
        String canonical = line.substring(0, at) + "}";
        Map<String, Object> m = new FlatJsonObject(canonical).parse();
        List<String> expected = new ArrayList<>(KEYS);
        if (m.containsKey("note")) {
            expected.add(8, "note");
        }
        if (!new ArrayList<>(m.keySet()).equals(expected)) {
            throw new IllegalArgumentException("keys " + m.keySet() + ", expected " + expected);
        }
        Instant time;
        try {
            time = Instant.parse(str(m, "time"));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("time is not an ISO-8601 instant: " + m.get("time"));
        }
        String sha = str(m, "sha256");
        if (!sha.isEmpty()) {
            checkHex(sha, "sha256");
        }
        String prev = str(m, "prev");
        checkHex(prev, "prev");
        Object v = m.get("version");
        if (v != null && !(v instanceof Long)) {
            throw new IllegalArgumentException("version is not an integer or null");
        }
        EgressRecord r = new EgressRecord(
                num(m, "seq"),
                new Sent(
                        time,
                        str(m, "peer"),
                        str(m, "protocol"),
                        str(m, "kind"),
                        num(m, "bytes"),
                        sha,
                        v == null ? EgressRecorder.NO_VERSION : (Long) v),
                m.containsKey("note") ? str(m, "note") : null,
                prev,
                hash);
        if (!chainHash(prev, canonical).equals(hash)) {
            throw new IllegalArgumentException("hash does not match the record's content (edited?)");
        }
        return r;
    }

    private static String str(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof String s)) {
            throw new IllegalArgumentException(key + " is not a string");
        }
        return s;
    }

    private static long num(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof Long n) || n < 0) {
            throw new IllegalArgumentException(key + " is not a non-negative integer");
        }
        return n;
    }

    private static void checkHex(String s, String what) {
        if (s.length() != 64) {
            throw new IllegalArgumentException(what + " is not 64 hex digits");
        }
        for (int i = 0; i < 64; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                throw new IllegalArgumentException(what + " is not 64 lower-case hex digits");
            }
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    /** A strict reader for the one shape the log writes: a flat object of strings, integers and nulls. */
    private static final class FlatJsonObject {
        private final String s;
        private int i;

        FlatJsonObject(String s) {
            this.s = s;
        }

        Map<String, Object> parse() {
            Map<String, Object> m = new LinkedHashMap<>();
            expect('{');
            if (peek() != '}') {
                while (true) {
                    String key = string();
                    expect(':');
                    if (m.put(key, value()) != null) {
                        throw new IllegalArgumentException("key " + key + " twice");
                    }
                    if (peek() == ',') {
                        i++;
                        continue;
                    }
                    break;
                }
            }
            expect('}');
            if (i != s.length()) {
                throw new IllegalArgumentException("text after the record at column " + (i + 1));
            }
            return m;
        }

        private char peek() {
            if (i >= s.length()) {
                throw new IllegalArgumentException("record ends early");
            }
            return s.charAt(i);
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "' at column " + (i + 1));
            }
            i++;
        }

        private Object value() {
            char c = peek();
            if (c == '"') {
                return string();
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || (i == start && s.charAt(i) == '-'))) {
                i++;
            }
            if (i == start || i - start > 19) {
                throw new IllegalArgumentException("expected a string, an integer or null at column " + (start + 1));
            }
            try {
                return Long.parseLong(s.substring(start, i));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("integer out of range at column " + (start + 1));
            }
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = peek();
                i++;
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = peek();
                i++;
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw new IllegalArgumentException("bad \\u escape at column " + i);
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw new IllegalArgumentException("bad \\u escape at column " + i);
                        }
                        i += 4;
                    }
                    default -> throw new IllegalArgumentException("bad escape at column " + i);
                }
            }
        }
    }
}
