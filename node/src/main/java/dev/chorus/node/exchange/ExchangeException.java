package dev.chorus.node.exchange;

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
        super(Objects.requireNonNull(code, "code") + ": " + reason);
        this.code = code;
        this.remote = remote;
    }

    public ErrorCode code() {
        return code;
    }

    /** True when the remote peer sent this error in an ERROR frame. */
    public boolean remote() {
        return remote;
    }
}
