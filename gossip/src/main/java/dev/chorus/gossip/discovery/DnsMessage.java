package dev.chorus.gossip.discovery;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The subset of DNS messages (RFC 1035 §4) that mDNS peer discovery needs: questions, and PTR, TXT,
 * A, AAAA records (others are kept as raw rdata). Decoding follows name compression pointers, only
 * backwards and at most 32 of them, and is bounded in packet size, record count, label and name length;
 * any violation is a {@link DnsFormatException}. Encoding writes names uncompressed.
 */
public record DnsMessage(
        int id, boolean response, List<Question> questions, List<Record> answers, List<Record> additionals) {
    public static final int TYPE_A = 1;
    public static final int TYPE_PTR = 12;
    public static final int TYPE_TXT = 16;
    public static final int TYPE_AAAA = 28;
    public static final int TYPE_SRV = 33;
    public static final int CLASS_IN = 1;
    /** RFC 6762 §17: an mDNS message fits 9000 bytes. */
    public static final int MAX_PACKET = 9000;

    static final int MAX_RECORDS = 128;

    public DnsMessage {
        questions = List.copyOf(questions);
        answers = List.copyOf(answers);
        additionals = List.copyOf(additionals);
    }

    /** {@code unicastResponse} is the mDNS QU bit (the top bit of the class). */
    public record Question(String name, int type, boolean unicastResponse) {}

    /**
     * A resource record; for PTR, {@code target} is the decoded name, for TXT {@code strings} the
     * character-strings, otherwise {@code rdata} holds the raw data.
     */
    public record Record(String name, int type, long ttl, String target, List<String> strings, byte[] rdata) {
        public static Record ptr(String name, String target, long ttl) {
            return new Record(name, TYPE_PTR, ttl, target, List.of(), null);
        }

        public static Record txt(String name, List<String> strings, long ttl) {
            return new Record(name, TYPE_TXT, ttl, null, List.copyOf(strings), null);
        }
    }

    public byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        u16(out, id);
        u16(out, response ? 0x8400 : 0); // QR + AA for responses (RFC 6762 §18.4)
        u16(out, questions.size());
        u16(out, answers.size());
        u16(out, 0);
        u16(out, additionals.size());
        for (Question q : questions) {
            name(out, q.name());
            u16(out, q.type());
            u16(out, CLASS_IN | (q.unicastResponse() ? 0x8000 : 0));
        }
        for (Record r : answers) {
            record(out, r);
        }
        for (Record r : additionals) {
            record(out, r);
        }
        byte[] b = out.toByteArray();
        if (b.length > MAX_PACKET) {
            throw new IllegalArgumentException("DNS message of " + b.length + " bytes exceeds " + MAX_PACKET);
        }
        return b;
    }

    private static void record(ByteArrayOutputStream out, Record r) {
        name(out, r.name());
        u16(out, r.type());
        u16(out, CLASS_IN);
        u32(out, r.ttl());
        ByteArrayOutputStream rd = new ByteArrayOutputStream();
        switch (r.type()) {
            case TYPE_PTR -> name(rd, r.target());
            case TYPE_TXT -> {
                for (String s : r.strings()) {
                    byte[] b = s.getBytes(StandardCharsets.UTF_8);
                    if (b.length > 255) {
                        throw new IllegalArgumentException("TXT string longer than 255 bytes");
                    }
                    rd.write(b.length);
                    rd.writeBytes(b);
                }
            }
            default -> rd.writeBytes(r.rdata());
        }
        u16(out, rd.size());
        out.writeBytes(rd.toByteArray());
    }

    private static void name(ByteArrayOutputStream out, String name) {
        int total = 0;
        for (String label : name.split("\\.")) {
            if (label.isEmpty()) {
                continue;
            }
            byte[] b = label.getBytes(StandardCharsets.UTF_8);
            if (b.length > 63) {
                throw new IllegalArgumentException("DNS label longer than 63 bytes: " + label);
            }
            total += b.length + 1;
            out.write(b.length);
            out.writeBytes(b);
        }
        if (total + 1 > 255) {
            throw new IllegalArgumentException("DNS name longer than 255 bytes");
        }
        out.write(0);
    }

    private static void u16(ByteArrayOutputStream out, int v) {
        out.write(v >>> 8);
        out.write(v);
    }

    private static void u32(ByteArrayOutputStream out, long v) {
        u16(out, (int) (v >>> 16) & 0xFFFF);
        u16(out, (int) v & 0xFFFF);
    }

    // ---------------------------------------------------------------- decoding

    public static DnsMessage decode(byte[] p) {
        if (p.length > MAX_PACKET) {
            throw new DnsFormatException("DNS packet of " + p.length + " bytes exceeds " + MAX_PACKET);
        }
        Reader r = new Reader(p);
        int id = r.u16();
        int flags = r.u16();
        int qd = r.u16(), an = r.u16(), ns = r.u16(), ar = r.u16();
        if (qd + an + ns + ar > MAX_RECORDS) {
            throw new DnsFormatException("DNS packet announces " + (qd + an + ns + ar) + " entries");
        }
        List<Question> questions = new ArrayList<>();
        for (int i = 0; i < qd; i++) {
            String name = r.name();
            int type = r.u16();
            int cls = r.u16();
            questions.add(new Question(name, type, (cls & 0x8000) != 0));
        }
        List<Record> answers = new ArrayList<>();
        for (int i = 0; i < an; i++) {
            answers.add(r.record());
        }
        for (int i = 0; i < ns; i++) {
            r.record();
        }
        List<Record> additionals = new ArrayList<>();
        for (int i = 0; i < ar; i++) {
            additionals.add(r.record());
        }
        return new DnsMessage(id, (flags & 0x8000) != 0, questions, answers, additionals);
    }

    private static final class Reader {
        final byte[] p;
        int pos;

        Reader(byte[] p) {
            this.p = p;
        }

        int u8() {
            if (pos >= p.length) {
                throw new DnsFormatException("truncated DNS packet");
            }
            return p[pos++] & 0xFF;
        }

        int u16() {
            return (u8() << 8) | u8();
        }

        long u32() {
            return ((long) u16() << 16) | u16();
        }

        String name() {
            StringBuilder b = new StringBuilder();
            int at = pos;
            int jumps = 0;
            int length = 0;
            boolean jumped = false;
            while (true) {
                if (at >= p.length) {
                    throw new DnsFormatException("truncated DNS name");
                }
                int len = p[at] & 0xFF;
                if ((len & 0xC0) == 0xC0) {
                    if (at + 1 >= p.length) {
                        throw new DnsFormatException("truncated DNS name pointer");
                    }
                    int target = ((len & 0x3F) << 8) | (p[at + 1] & 0xFF);
                    if (target >= at || ++jumps > 32) {
                        throw new DnsFormatException("DNS name pointer loops or points forward");
                    }
                    if (!jumped) {
                        pos = at + 2;
                        jumped = true;
                    }
                    at = target;
                    continue;
                }
                if ((len & 0xC0) != 0) {
                    throw new DnsFormatException("unsupported DNS label type");
                }
                if (len == 0) {
                    if (!jumped) {
                        pos = at + 1;
                    }
                    return b.toString();
                }
                if (at + 1 + len > p.length) {
                    throw new DnsFormatException("truncated DNS label");
                }
                length += len + 1;
                if (length > 255) {
                    throw new DnsFormatException("DNS name longer than 255 bytes");
                }
                if (b.length() > 0) {
                    b.append('.');
                }
                b.append(new String(p, at + 1, len, StandardCharsets.UTF_8));
                at += 1 + len;
            }
        }

        Record record() {
            String name = name();
            int type = u16();
            u16(); // class (with the mDNS cache-flush bit)
            long ttl = u32();
            int len = u16();
            if (pos + len > p.length) {
                throw new DnsFormatException("truncated DNS rdata");
            }
            int end = pos + len;
            Record r;
            switch (type) {
                case TYPE_PTR -> {
                    String target = name();
                    r = new Record(name, type, ttl, target, List.of(), null);
                }
                case TYPE_TXT -> {
                    List<String> strings = new ArrayList<>();
                    while (pos < end) {
                        int n = u8();
                        if (pos + n > end) {
                            throw new DnsFormatException("TXT string overruns its record");
                        }
                        strings.add(new String(p, pos, n, StandardCharsets.UTF_8));
                        pos += n;
                    }
                    r = Record.txt(name, strings, ttl);
                }
                default -> r = new Record(name, type, ttl, null, List.of(), java.util.Arrays.copyOfRange(p, pos, end));
            }
            pos = end;
            return r;
        }
    }

    static boolean sameName(String a, String b) {
        return a.toLowerCase(Locale.ROOT).equals(b.toLowerCase(Locale.ROOT));
    }
}
