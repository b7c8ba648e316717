package dev.chorus.gossip.pubsub;

/** A received pubsub RPC that is malformed; the sending peer is penalized. */
public class InvalidRpcException extends RuntimeException {
    public InvalidRpcException(String message) {
        super(message);
    }

    public InvalidRpcException(String message, Throwable cause) {
        super(message, cause);
    }
}
