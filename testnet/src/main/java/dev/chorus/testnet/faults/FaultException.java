package dev.chorus.testnet.faults;

/** A scenario could not go on, e.g. a node did not come back or a state was not reached in time; the message says why. */
public final class FaultException extends RuntimeException {
    public FaultException(String message) {
        super(message);
    }
}
