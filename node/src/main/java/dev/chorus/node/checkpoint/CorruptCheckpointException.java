package dev.chorus.node.checkpoint;

import java.io.IOException;

/**
 * A checkpoint file that cannot be used: truncated, a wrong checksum, an unknown format, non-finite values, or a shape
 * the configured model does not have.
 */
public final class CorruptCheckpointException extends IOException {

    public CorruptCheckpointException(String message) {
        super(message);
    }
}
