package dev.chorus.node.protocol;

/** The frame types of {@code /chorus/model/1.0.0}; the numbers are part of the wire format. */
public enum FrameType {
    /** Asks for the peer's latest model, optionally offering this node's model (push-pull). */
    PULL(1),
    /** The header of a whole model (or delta) body. */
    PARAMS(2),
    /** The header of a fragment body. */
    FRAGMENT(3),
    /** One chunk of a body. */
    CHUNK(4),
    /** The receiver took a pushed body. */
    ACK(5),
    /** A refusal or failure, with a code and a short reason. */
    ERROR(6),
    /** Opens a push of several bodies on one stream; its payload is how many. */
    BATCH(7);

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The frame type of a wire value. */
    public static FrameType fromCode(int code) {
        for (FrameType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new ExchangeException(ErrorCode.MALFORMED, "unknown frame type " + code);
    }
}
