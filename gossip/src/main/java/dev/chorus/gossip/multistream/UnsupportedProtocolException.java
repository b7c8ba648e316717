package dev.chorus.gossip.multistream;

import java.util.List;

/** The remote answered {@code na} to every protocol the dialer proposed. */
public class UnsupportedProtocolException extends NegotiationException {
    private final List<String> proposed;

    public UnsupportedProtocolException(List<String> proposed) {
        super("remote supports none of " + proposed);
        this.proposed = List.copyOf(proposed);
    }

    public List<String> proposed() {
        return proposed;
    }
}
