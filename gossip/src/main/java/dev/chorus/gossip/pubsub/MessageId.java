package dev.chorus.gossip.pubsub;

import java.util.Arrays;
import java.util.HexFormat;

/** A message id: opaque bytes compared by content. The array is copied in and never exposed. */
public final class MessageId {
    private final byte[] bytes;
    private final int hash;

    private MessageId(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    public static MessageId of(byte[] bytes) {
        return new MessageId(bytes.clone());
    }

    static MessageId wrap(byte[] bytes) {
        return new MessageId(bytes);
    }

    public byte[] toBytes() {
        return bytes.clone();
    }

    byte[] raw() {
        return bytes;
    }

    public int length() {
        return bytes.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MessageId m && m.hash == hash && Arrays.equals(m.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}
