package dev.chorus.gossip.host;

import dev.chorus.gossip.core.Stream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Admits upgraded connections before they carry application protocols, for example a check of the remote's
 * membership certificate (see {@link Host#start(HostConfig, ConnectionGate)}).
 *
 * <p>Until a connection is admitted it may run only identify, identify push, ping and the gate's own {@link
 * #protocol()}: the host answers {@code na} to an inbound stream for any other protocol and fails an outbound one,
 * it lists the connection in neither {@link Host#connections()} nor {@link Host#connection}, and {@link
 * ConnectionListener#connected} is not called for it. A dial completes when its connection is admitted. A refused
 * connection, or one not admitted within {@link #timeout()}, is closed, its reason logged, and dial backoff
 * applies to its peer. Once admitted, {@link #permits} still decides per protocol (a role may allow some only).
 */
public interface ConnectionGate {

    /** The protocol the gate runs its check on; open on every connection. */
    String protocol();

    /**
     * Starts the check of a newly upgraded connection; called once per connection, on its I/O thread, and must not
     * block. Completes normally to admit; exceptionally (ideally with a {@link ConnectionRefusedException}) to
     * refuse.
     */
    CompletableFuture<Void> admit(Connection connection);

    /** Serves an inbound stream of {@link #protocol()} on {@code connection}; must not block. */
    void serve(Connection connection, Stream stream);

    /** Whether an admitted connection may run {@code protocol} (identify, ping and the gate's own aside). */
    default boolean permits(Connection connection, String protocol) {
        return true;
    }

    /** How long a connection may take to be admitted before it is closed. */
    default Duration timeout() {
        return Duration.ofSeconds(10);
    }
}
