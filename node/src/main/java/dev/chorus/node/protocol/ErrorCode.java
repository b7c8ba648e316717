package dev.chorus.node.protocol;

/** The codes carried by an ERROR frame; the numbers are part of the wire format. */
public enum ErrorCode {
    /** A frame could not be parsed: bad magic, unknown type, wrong length, a field out of range. */
    MALFORMED(1),
    /** The frame's protocol version is not spoken here. */
    UNSUPPORTED_VERSION(2),
    /** The architecture hash or the parameter count differs from the local model's. */
    WRONG_ARCHITECTURE(3),
    /** Above a limit: parameter count, frame or chunk size, or a body longer than its header announced. */
    TOO_LARGE(4),
    /** A NaN or infinite value. */
    INVALID_VALUES(5),
    /** The decoded values do not match the digest in the header. */
    DIGEST_MISMATCH(6),
    /** Too many concurrent requests from this peer, or the inbound queue is full. */
    BUSY(7),
    /** No model to serve yet. */
    UNAVAILABLE(8),
    /** Well-formed, but not something this node takes (wrong kind, an unknown fragmentation). */
    UNEXPECTED(9),
    /** The peer did not complete the exchange in time. */
    TIMEOUT(10),
    /** A failure on the sending side that is not the peer's fault. */
    INTERNAL(11);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The error code of a wire value; unknown values map to {@link #INTERNAL}. */
    public static ErrorCode fromCode(int code) {
        for (ErrorCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return INTERNAL;
    }
}
