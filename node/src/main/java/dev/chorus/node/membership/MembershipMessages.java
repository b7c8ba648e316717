package dev.chorus.node.membership;

import dev.chorus.gossip.encoding.LengthPrefixed;
import dev.chorus.gossip.encoding.ProtobufReader;
import dev.chorus.gossip.encoding.ProtobufWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The two messages of {@code /chorus/membership/1.0.0}, each one varint-length-prefixed protobuf:
 *
 * <pre>
 * message Presentation { repeated bytes certificates = 1; }  // DER, the member certificate first
 * message Verdict { bool admitted = 1; string reason = 2; string detail = 3; }
 * </pre>
 *
 * The side that opens the stream sends a Presentation and half-closes; the other side answers one Verdict and
 * half-closes. Both are bounded, since they come from peers not yet admitted.
 */
public final class MembershipMessages {

    /** The most certificates a presentation may carry (a member certificate and, optionally, its CA). */
    public static final int MAX_CERTIFICATES = 4;
    /** The largest presentation: four certificates of at most 16 KiB each, and framing. */
    public static final int MAX_PRESENTATION_BYTES = 4 * 16 * 1024 + 64;
    /** The largest verdict. */
    public static final int MAX_VERDICT_BYTES = 2048;

    private MembershipMessages() {}

    /** A verdict as sent on the wire. */
    public record Verdict(boolean admitted, String reason, String detail) {}

    public static byte[] presentation(List<byte[]> certificates) {
        ProtobufWriter w = new ProtobufWriter();
        for (byte[] c : certificates) {
            w.bytes(1, c);
        }
        return LengthPrefixed.encode(w.toByteArray());
    }

    /** Decodes a presentation; {@link IllegalArgumentException} naming what is wrong. */
    public static List<byte[]> parsePresentation(byte[] framed) {
        byte[] msg = unframe(framed, MAX_PRESENTATION_BYTES, "presentation");
        List<byte[]> out = new ArrayList<>();
        try {
            ProtobufReader r = new ProtobufReader(msg);
            while (r.next()) {
                if (r.field() == 1 && r.wireType() == 2) {
                    if (out.size() == MAX_CERTIFICATES) {
                        throw new IllegalArgumentException(
                                "presentation carries more than " + MAX_CERTIFICATES + " certificates");
                    }
                    out.add(r.bytes());
                } else {
                    r.skip();
                }
            }
        } catch (RuntimeException e) {
            throw e instanceof IllegalArgumentException iae
                    ? iae
                    : new IllegalArgumentException("malformed presentation: " + e.getMessage(), e);
        }
        return out;
    }

    public static byte[] verdict(Verdict v) {
        ProtobufWriter w = new ProtobufWriter().bool(1, v.admitted());
        if (v.reason() != null) {
            w.string(2, truncate(v.reason(), 64));
        }
        if (v.detail() != null) {
            w.string(3, truncate(v.detail(), 512));
        }
        return LengthPrefixed.encode(w.toByteArray());
    }

    /** Decodes a verdict; {@link IllegalArgumentException} naming what is wrong. */
    public static Verdict parseVerdict(byte[] framed) {
        byte[] msg = unframe(framed, MAX_VERDICT_BYTES, "verdict");
        boolean admitted = false;
        String reason = null;
        String detail = null;
        try {
            ProtobufReader r = new ProtobufReader(msg);
            while (r.next()) {
                switch (r.field()) {
                    case 1 -> admitted = r.bool();
                    case 2 -> reason = r.string();
                    case 3 -> detail = r.string();
                    default -> r.skip();
                }
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed verdict: " + e.getMessage(), e);
        }
        return new Verdict(admitted, reason, detail);
    }

    private static byte[] unframe(byte[] framed, int max, String what) {
        try {
            return LengthPrefixed.decodeOne(framed, max);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed " + what + ": " + e.getMessage(), e);
        }
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
