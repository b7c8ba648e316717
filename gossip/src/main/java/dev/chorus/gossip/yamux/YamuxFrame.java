package dev.chorus.gossip.yamux;

import io.netty.buffer.ByteBuf;

/**
 * The 12-byte yamux header: {@code version u8 | type u8 | flags u16 | stream id u32 | length u32}, big
 * endian. For Data, length is the payload size; for Window Update the window delta; for Ping an opaque
 * value; for Go Away the error code.
 */
public final class YamuxFrame {
    public static final int HEADER_LENGTH = 12;
    public static final int VERSION = 0;

    public static final int TYPE_DATA = 0;
    public static final int TYPE_WINDOW_UPDATE = 1;
    public static final int TYPE_PING = 2;
    public static final int TYPE_GO_AWAY = 3;

    public static final int FLAG_SYN = 1;
    public static final int FLAG_ACK = 2;
    public static final int FLAG_FIN = 4;
    public static final int FLAG_RST = 8;

    public static final int GO_AWAY_NORMAL = 0;
    public static final int GO_AWAY_PROTOCOL_ERROR = 1;
    public static final int GO_AWAY_INTERNAL_ERROR = 2;

    private YamuxFrame() {}

    public static void writeHeader(ByteBuf out, int type, int flags, int streamId, long length) {
        out.writeByte(VERSION);
        out.writeByte(type);
        out.writeShort(flags);
        out.writeInt(streamId);
        out.writeInt((int) length);
    }

    static String typeName(int type) {
        return switch (type) {
            case TYPE_DATA -> "Data";
            case TYPE_WINDOW_UPDATE -> "WindowUpdate";
            case TYPE_PING -> "Ping";
            case TYPE_GO_AWAY -> "GoAway";
            default -> "type " + type;
        };
    }
}
