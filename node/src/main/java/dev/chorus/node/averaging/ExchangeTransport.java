package dev.chorus.node.averaging;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.ModelUpdate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * How the {@link AveragingEngine} reaches peers: the engine's only view of the network. The model exchange protocol
 * ({@code dev.chorus.node.protocol.ModelExchange}) implements it over libp2p streams; tests may use an in-memory one.
 * Methods return at once; futures complete on transport threads.
 *
 * <p>The engine cancels the future of an exchange its strategy has given up ({@code cancel} on the future returned
 * here, possibly from the training thread): the transport should then stop the exchange and free what it holds,
 * without blocking the cancelling thread. A transport that ignores cancellation still works; its exchange just runs
 * on, unseen, until it ends by itself.
 */
public interface ExchangeTransport {

    /** The peers that can be reached now, by id. */
    List<String> peers();

    /**
     * Asks {@code peer} for its latest model, offering {@code offer} (push-pull) unless it is null. Fails when the
     * peer refuses or cannot be reached; {@link #failureKind} says which.
     */
    CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer);

    /** Sends {@code update} to {@code peer}; completes when the peer acknowledged it. */
    CompletableFuture<Void> push(String peer, ModelUpdate update);

    /**
     * Sends each of {@code updates} to {@code peer}, as {@link #push} does: one future per update, in their order. A
     * transport may carry them on fewer streams than updates (the model exchange batches them), which costs less per
     * update; the default pushes each on its own.
     */
    default List<CompletableFuture<Void>> pushAll(String peer, List<ModelUpdate> updates) {
        return updates.stream().map(u -> push(peer, u)).toList();
    }

    /**
     * The most updates {@link #pushAll} carries on one stream: the engine counts that many pushes to one peer, handed
     * over together, as one exchange of its window ({@code ExchangeSlots}). 1, the default: every push on its own.
     */
    default int maxBatch() {
        return 1;
    }

    /**
     * How a failed exchange counts for the strategy, given the {@linkplain #cause cause} its future failed with:
     * {@code TIMED_OUT} when it ran out of time, {@code REFUSED} when the peer refused it or this node did before
     * sending anything, {@code UNREACHABLE} otherwise. Only the transport knows its own errors, so it classifies
     * them; the default knows only the JDK's {@link TimeoutException}.
     */
    default DeliveryFailure.Kind failureKind(Throwable cause) {
        return cause instanceof TimeoutException ? DeliveryFailure.Kind.TIMED_OUT : DeliveryFailure.Kind.UNREACHABLE;
    }

    /** Bytes this transport has sent to peers so far; 0 when it does not count them. */
    default long bytesSent() {
        return 0;
    }

    /** Bytes this transport has received from peers so far; 0 when it does not count them. */
    default long bytesReceived() {
        return 0;
    }

    /** What a future of this transport failed with, without the {@link CompletionException} wrappers around it. */
    static Throwable cause(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Receives what peers send unasked; returns false when it cannot take more now. */
    @FunctionalInterface
    interface InboundSink {
        boolean offer(ModelUpdate update);
    }
}
