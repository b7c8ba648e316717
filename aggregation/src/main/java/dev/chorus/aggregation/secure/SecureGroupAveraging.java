package dev.chorus.aggregation.secure;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.GroupRounds;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Averaging through secure group rounds: every round of the engine this node offers its model to the next group
 * round when none of its own is running, and merges the group's mean once the round ends. The model never leaves the
 * node in the clear: the rounds ({@link GroupRounds}) send it masked, and what comes back is the sum over the group's
 * survivors. Training never waits for a round.
 *
 * <p>Merge rule: the node trained on while its round ran, so it takes the group's mean in place of the snapshot it
 * offered and keeps what it learnt since: {@code x <- mean + (x - offered)}. A round that is abandoned leaves the
 * model as it is, and the node offers its newer model to a later round: its contribution is late, never lost.
 *
 * <p>Nothing travels over the model exchange: this strategy queues no message and refuses any model that arrives
 * in the clear.
 */
public final class SecureGroupAveraging implements AveragingStrategy {

    private GroupRounds rounds;
    /** What this node offered to the round in progress; null when none is. */
    private float[] offered;

    private long completed;
    private long abandoned;
    private long contributorsSeen;
    private String lastAbandonReason = "";

    /** Connects the strategy to the node's rounds; until then it does nothing. */
    @Override
    public void attachGroupRounds(GroupRounds rounds) {
        this.rounds = Objects.requireNonNull(rounds, "rounds");
    }

    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        if (rounds == null) {
            return;
        }
        if (offered != null) {
            GroupRounds.GroupOutcome outcome = rounds.poll();
            if (outcome == null) {
                return; // still running: one round at a time
            }
            switch (outcome) {
                case GroupRounds.Completed c -> merge(local.params(), c);
                case GroupRounds.Abandoned a -> {
                    abandoned++;
                    lastAbandonReason = a.reason();
                }
            }
            offered = null;
        }
        float[] snapshot = local.params().clone();
        if (rounds.offer(snapshot, local.sampleCount())) {
            offered = snapshot;
        }
    }

    private void merge(float[] params, GroupRounds.Completed c) {
        float[] mean = c.mean();
        if (mean.length != params.length) {
            abandoned++;
            lastAbandonReason = "the group's mean has " + mean.length + " values, the model " + params.length;
            return;
        }
        for (int i = 0; i < params.length; i++) {
            params[i] = mean[i] + (params[i] - offered[i]);
        }
        completed++;
        contributorsSeen += c.contributors();
    }

    /** Rounds whose mean this node merged. */
    public long completedRounds() {
        return completed;
    }

    /** Offers that led to no mean. */
    public long abandonedRounds() {
        return abandoned;
    }

    /** The mean number of contributors of the merged rounds; 0 before the first. */
    public double meanContributors() {
        return completed == 0 ? 0 : (double) contributorsSeen / completed;
    }

    /** Why the latest abandoned offer led to no mean; empty before the first. */
    public String lastAbandonReason() {
        return lastAbandonReason;
    }

    @Override
    public boolean joinsGroupRounds() {
        return true;
    }

    @Override
    public Outbound pollOutbound() {
        return null;
    }

    @Override
    public int pendingOutbound() {
        return 0;
    }

    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        throw new InvalidUpdateException(
                "the secure strategy takes no model in the clear (from " + message.sender() + ")");
    }

    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {}
}
