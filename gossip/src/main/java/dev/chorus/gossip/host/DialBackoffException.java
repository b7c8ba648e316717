package dev.chorus.gossip.host;

import java.io.IOException;

/** A dial refused because earlier dials to the same target failed recently. */
public class DialBackoffException extends IOException {
    public DialBackoffException(String message) {
        super(message);
    }
}
