package dev.chorus.gossip.core;

import java.io.IOException;

/**
 * The remote sent more bytes than a bounded read allowed ({@link Stream#readToEnd(int)}). Unlike a
 * {@link StreamResetException}, this is the sender's doing, not a lost connection, so a protocol may
 * hold it against the peer.
 */
public class StreamLimitExceededException extends IOException {
    private final long limit;

    public StreamLimitExceededException(String message, long limit) {
        super(message);
        this.limit = limit;
    }

    /** The number of bytes the read allowed. */
    public long limit() {
        return limit;
    }

    /**
     * Whether {@code error} or one of its causes is a {@code StreamLimitExceededException}: a future's
     * failure arrives wrapped (a {@code CompletionException}, say) once it passed through a dependent stage.
     */
    public static boolean isCauseOf(Throwable error) {
        // Bounded: a cause chain may loop back on itself.
        Throwable t = error;
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (t instanceof StreamLimitExceededException) {
                return true;
            }
        }
        return false;
    }
}
