package dev.chorus.gossip.multistream;

/** The remote broke multistream-select: a malformed, oversize or unexpected message, or too many tries. */
public class NegotiationException extends RuntimeException {
    public NegotiationException(String message) {
        super(message);
    }
}
