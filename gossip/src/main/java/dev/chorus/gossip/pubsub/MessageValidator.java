package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An application validator for one topic. It runs after the signature policy check, on the router's
 * thread, and may answer asynchronously; it must not block. At most
 * {@link GossipsubParams#maxPendingValidations()} validations are in flight at once: messages beyond that
 * are ignored. An exception or failed stage counts as {@link ValidationResult#IGNORE}.
 */
@FunctionalInterface
public interface MessageValidator {
    CompletionStage<ValidationResult> validate(PeerId receivedFrom, PubsubMessage message);

    /** A synchronous validator. */
    static MessageValidator of(java.util.function.BiFunction<PeerId, PubsubMessage, ValidationResult> f) {
        return (from, m) -> CompletableFuture.completedFuture(f.apply(from, m));
    }
}
