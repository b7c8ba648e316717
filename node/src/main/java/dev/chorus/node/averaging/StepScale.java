package dev.chorus.node.averaging;

/**
 * Straggler compensation: a node that trains slower than the consortium scales what it learns between two merges by
 * the ratio of the consortium's pace to its own, so that its shard gets its share of the descent per second.
 *
 * <p>Why: under asynchronous averaging every node's steps move the consensus, and a node that takes a fifth of the
 * others' steps moves it a fifth as much, so the consensus is trained on a mixture in which the slow nodes' shards
 * weigh less than in the pooled data (the objective inconsistency of Wang et al., FedNova, NeurIPS 2020). Scaling
 * the slow node's displacement by the pace ratio restores each shard's weight, and a fast node's ratio is 1.
 *
 * <p>The pace ratio needs no message of its own. The gossip strategies keep the larger of two merged versions, so a
 * node's version grows with the fastest pace it hears of, while its own steps grow with its own pace: the ratio is
 * the version's growth over the node's steps, in a window of about {@link #WINDOW_STEPS} own steps, clamped to
 * [1, max]. A version jump counts for at most {@code max - 1} versions per own step since the previous jump, so a
 * node that joins late, or a peer that claims a version far ahead, moves the ratio no further than a steady
 * consortium at the bound would.
 *
 * <p>Versions a node merges that are behind its own count too, against it ({@link #heard}). Keeping the larger version
 * takes, at every moment, whichever node happens to be ahead, so where nodes of the same pace run in bursts (sharing
 * processors, waiting on their exchanges) the version grows faster than any of them steps, and counting only the
 * jumps would scale every node up. A node as fast as the others is behind as often as it is ahead, so the gaps it
 * merges cancel, while a slow node's are ahead nearly always. A merge that brings only versions behind counts its
 * mean gap, weighted by the share of the model each update carries, times that share summed (at most a whole model),
 * within the same bound per step as a jump. A gap behind also holds the versions the consortium took while the update
 * travelled, which a jump does not (the next jump starts from the version taken), so only updates that left their
 * sender just before arriving tell of pace this way: the engine tells of replies to this node's own exchanges, not of
 * pushes, which may have waited a round in their sender's queue. A node as fast as the others then reads a little
 * under 1, which the clamp takes to 1; under a strategy that only pushes, the jumps alone count.
 *
 * <p>Used on the training thread only. The displacement is measured from the parameters the engine last put into
 * the model (its anchor); when something else replaces them (a revert to a checkpoint), {@link #forget} drops the
 * anchor, and the next displacement is taken from there unscaled.
 */
final class StepScale {

    /** Own steps over which the ratio is measured; older steps count half as much each time this many pass. */
    static final double WINDOW_STEPS = 1000;
    /** Own steps before the first ratio other than 1: a few merges' worth. */
    static final double MIN_STEPS = 50;

    private final double max;
    private double ownSteps;
    private double versions;
    private long stepsSinceJump;
    /** The updates merged since the last step: their shares of the model, and those times their version gaps. */
    private double heardShare;

    private double heardGapShare;
    private float[] anchor;

    /** @param max the largest scale, at least 1; 1 turns compensation off */
    StepScale(double max) {
        if (!(max >= 1) || Double.isInfinite(max)) {
            throw new IllegalArgumentException(
                    "the largest step scale must be a finite number of at least 1, got " + max);
        }
        this.max = max;
    }

    boolean enabled() {
        return max > 1;
    }

    /**
     * Notes an update merged before the coming {@link #afterStep}: {@code gap} is its version less the local version
     * before the merge, {@code share} the fraction of the model's coordinates it carries.
     */
    void heard(long gap, double share) {
        if (share > 0) {
            heardShare += share;
            heardGapShare += share * (double) gap;
        }
    }

    /**
     * Counts one own step, after which the local version grew by {@code versionGain} (1 for the step itself, more
     * when a merge took a newer version).
     */
    void afterStep(long versionGain) {
        ownSteps += 1;
        stepsSinceJump += 1;
        double seen = 1;
        double bound = (max - 1) * stepsSinceJump;
        if (versionGain > 1) {
            seen += Math.min(versionGain - 1, bound);
            stepsSinceJump = 0;
        } else if (heardShare > 0) {
            // No jump: every version merged was behind (one ahead is taken, and shows as a gain).
            double behind = Math.min(1, heardShare) * heardGapShare / heardShare;
            seen += Math.max(behind, -bound);
            stepsSinceJump = 0;
        }
        heardShare = 0;
        heardGapShare = 0;
        versions = Math.max(0, versions + seen);
        if (ownSteps >= 2 * WINDOW_STEPS) {
            ownSteps /= 2;
            versions /= 2;
        }
    }

    /**
     * The current scale: the version's growth over the own steps, less the gaps of versions merged from behind, in
     * [1, max]; 1 before {@link #MIN_STEPS}.
     */
    double factor() {
        if (!enabled() || ownSteps < MIN_STEPS) {
            return 1;
        }
        return Math.max(1, Math.min(max, versions / ownSteps));
    }

    /**
     * Scales the displacement of {@code params} (the model's parameters now) from the anchor by {@link #factor}, in
     * place; nothing without an anchor.
     */
    void scale(float[] params) {
        double f = factor();
        if (anchor == null || anchor.length != params.length || f <= 1) {
            return;
        }
        float s = (float) f;
        for (int i = 0; i < params.length; i++) {
            params[i] = anchor[i] + s * (params[i] - anchor[i]);
        }
    }

    /** Remembers {@code params}, just put into the model, as the point the next displacement is measured from. */
    void anchor(float[] params) {
        if (!enabled()) {
            return;
        }
        if (anchor == null || anchor.length != params.length) {
            anchor = params.clone();
        } else {
            System.arraycopy(params, 0, anchor, 0, params.length);
        }
    }

    /** The model's parameters were replaced outside the engine: the next displacement is not scaled. */
    void forget() {
        anchor = null;
    }
}
