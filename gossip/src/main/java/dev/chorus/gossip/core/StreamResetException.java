package dev.chorus.gossip.core;

import java.io.IOException;

/** The stream was reset by either side, or its connection went away. */
public class StreamResetException extends IOException {
    public StreamResetException(String message) {
        super(message);
    }
}
