package dev.chorus.node.protocol;

import java.util.Objects;

/**
 * A refused or failed model exchange, with the {@link ErrorCode} that goes on the wire. Thrown by the codec when
 * a peer's bytes break a rule, and used to fail client futures when the peer answers with an ERROR frame
 * ({@link #remote()} is then true).
 */
public final class ExchangeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final boolean remote;

    public ExchangeException(ErrorCode code, String reason) {
        this(code, reason, false);
    }

    public ExchangeException(ErrorCode code, String reason, boolean remote) {
        this(code, reason, remote, true);
    }

    private ExchangeException(ErrorCode code, String reason, boolean remote, boolean stackTrace) {
        super(Objects.requireNonNull(code, "code") + ": " + reason, null, true, stackTrace);
        this.code = code;
        this.remote = remote;
    }

    /**
     * A refusal decided by this node before anything went on the wire (e.g. {@link ErrorCode#BUSY} for a peer with
     * every exchange slot taken), without a stack trace: it can happen many times a second, and where it was thrown
     * says nothing the code and reason do not.
     */
    public static ExchangeException refusedHere(ErrorCode code, String reason) {
        return new ExchangeException(code, reason, false, false);
    }

    public ErrorCode code() {
        return code;
    }

    /** True when the remote peer sent this error in an ERROR frame. */
    public boolean remote() {
        return remote;
    }
}
