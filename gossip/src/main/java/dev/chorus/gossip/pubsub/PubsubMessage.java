package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.encoding.ProtobufWriter;
import dev.chorus.gossip.identity.PeerId;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A pubsub {@code Message} (pubsub/README.md): {@code from = 1} (peer ID multihash bytes),
 * {@code data = 2}, {@code seqno = 3}, {@code topic = 4}, {@code signature = 5}, {@code key = 6}. Absent
 * optional fields are null; an empty {@code data} that was present stays present, because the signature
 * covers the exact encoding. Arrays are not copied: treat them as read-only.
 */
public record PubsubMessage(byte[] from, byte[] data, byte[] seqno, String topic, byte[] signature, byte[] key) {
    public PubsubMessage {
        if (topic == null) {
            throw new IllegalArgumentException("a pubsub message needs a topic");
        }
    }

    /** Fields 1 to 4 in order, without signature and key: what {@code StrictSign} signs. */
    public byte[] encodeUnsigned() {
        return prefixedUnsigned(new byte[0]);
    }

    /** {@code prefix} ++ fields 1 to 4 in order, written once into an array of their exact size. */
    byte[] prefixedUnsigned(byte[] prefix) {
        ProtobufWriter w = new ProtobufWriter(prefix.length + unsignedSize());
        w.raw(prefix);
        writeUnsignedFields(w);
        return w.toByteArray();
    }

    public byte[] encode() {
        ProtobufWriter w = new ProtobufWriter(size());
        writeTo(w);
        return w.toByteArray();
    }

    /** Writes the encoding's fields into {@code w}: {@link #size()} bytes, with no tag or length before them. */
    public void writeTo(ProtobufWriter w) {
        writeUnsignedFields(w);
        if (signature != null) {
            w.bytes(5, signature);
        }
        if (key != null) {
            w.bytes(6, key);
        }
    }

    private void writeUnsignedFields(ProtobufWriter w) {
        if (from != null) {
            w.bytes(1, from);
        }
        if (data != null) {
            w.bytes(2, data);
        }
        if (seqno != null) {
            w.bytes(3, seqno);
        }
        w.string(4, topic);
    }

    private int unsignedSize() {
        return (from == null ? 0 : ProtobufWriter.sizeOfBytes(1, from.length))
                + (data == null ? 0 : ProtobufWriter.sizeOfBytes(2, data.length))
                + (seqno == null ? 0 : ProtobufWriter.sizeOfBytes(3, seqno.length))
                + ProtobufWriter.sizeOfBytes(4, topic.getBytes(StandardCharsets.UTF_8).length);
    }

    /** The payload, empty when absent. */
    public byte[] dataOrEmpty() {
        return data == null ? new byte[0] : data;
    }

    /** The author, or null when absent or not a valid peer ID. */
    public PeerId author() {
        if (from == null) {
            return null;
        }
        try {
            return PeerId.fromBytes(from);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Encoded size, for size limits and the IDONTWANT threshold; counted, not encoded. */
    public int size() {
        return unsignedSize()
                + (signature == null ? 0 : ProtobufWriter.sizeOfBytes(5, signature.length))
                + (key == null ? 0 : ProtobufWriter.sizeOfBytes(6, key.length));
    }

    /**
     * The diagnostics line of {@code p2p pubsub}:
     * {@code {"event":"message","topic":...,"from":...,"seqno":...,"dataHex":...}}, with {@code from} as a
     * base58 peer ID and {@code seqno} in hex (null when absent).
     */
    public String toJsonEvent() {
        PeerId author = author();
        HexFormat hex = HexFormat.of();
        return "{\"event\":\"message\",\"topic\":" + jsonString(topic) + ",\"from\":"
                + (author == null ? "null" : jsonString(author.toBase58())) + ",\"seqno\":"
                + (seqno == null ? "null" : jsonString(hex.formatHex(seqno))) + ",\"dataHex\":"
                + jsonString(hex.formatHex(dataOrEmpty())) + "}";
    }

    static String jsonString(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** Equal when every field is equal by content. */
    @Override
    public boolean equals(Object o) {
        return o instanceof PubsubMessage m
                && topic.equals(m.topic)
                && java.util.Arrays.equals(from, m.from)
                && java.util.Arrays.equals(data, m.data)
                && java.util.Arrays.equals(seqno, m.seqno)
                && java.util.Arrays.equals(signature, m.signature)
                && java.util.Arrays.equals(key, m.key);
    }

    @Override
    public int hashCode() {
        return topic.hashCode() * 31 + java.util.Arrays.hashCode(seqno) * 17 + java.util.Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        PeerId author = author();
        return "PubsubMessage(topic=" + topic + ", from=" + author + ", seqno="
                + (seqno == null ? null : HexFormat.of().formatHex(seqno)) + ", "
                + dataOrEmpty().length + " bytes)";
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
