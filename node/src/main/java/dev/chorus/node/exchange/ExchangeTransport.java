package dev.chorus.node.exchange;

import dev.chorus.aggregation.ModelUpdate;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How the {@link AveragingEngine} reaches peers. {@link ModelExchange} implements it over libp2p streams; tests may
 * use an in-memory one. Methods return at once; futures complete on transport threads.
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
     * Asks {@code peer} for its latest model, offering {@code offer} (push-pull) unless it is null. Fails with an
     * {@link ExchangeException} when the peer refuses.
     */
    CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer);

    /** Sends {@code update} to {@code peer}; completes when the peer acknowledged it. */
    CompletableFuture<Void> push(String peer, ModelUpdate update);

    /** Receives what peers send unasked; returns false when it cannot take more now. */
    @FunctionalInterface
    interface InboundSink {
        boolean offer(ModelUpdate update);
    }
}
