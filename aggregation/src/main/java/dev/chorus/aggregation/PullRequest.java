package dev.chorus.aggregation;

/**
 * Asks a peer for its current model. With an {@code offer} it is a push-pull exchange: the peer merges the
 * offered model and replies with its own model as it was before that merge, so both sides end with the same
 * average.
 *
 * @param sender the requesting node
 * @param version the requester's model version
 * @param offer the requester's model, or {@code null} for a plain pull
 */
public record PullRequest(String sender, long version, ModelUpdate offer) implements AveragingMessage {

    public PullRequest {
        if (sender == null || sender.isBlank()) {
            throw new InvalidUpdateException("pull request has no sender");
        }
        if (version < 0) {
            throw new InvalidUpdateException("pull request from " + sender + ": negative version " + version);
        }
        if (offer != null && !offer.sender().equals(sender)) {
            throw new InvalidUpdateException("pull request from " + sender + " offers a model from " + offer.sender());
        }
    }
}
