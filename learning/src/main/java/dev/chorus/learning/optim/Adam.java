package dev.chorus.learning.optim;

import dev.chorus.learning.tensor.Tensor;

/**
 * Adam (Kingma and Ba, "Adam: A Method for Stochastic Optimization", ICLR 2015): per-parameter step
 * sizes from bias-corrected running means of the gradient and of its square. Weight decay is
 * classic L2 (added to the gradient), not the decoupled AdamW form. Per step {@code t = 1, 2, ...}:
 *
 * <pre>
 * g = grad + weightDecay * p
 * m = beta1 * m + (1 - beta1) * g
 * v = beta2 * v + (1 - beta2) * g^2
 * p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
 * </pre>
 *
 * Hyper-parameters (defaults from the paper): {@code lr} ({@value #DEFAULT_LEARNING_RATE}), {@code
 * beta1} in {@code [0, 1)} ({@value #DEFAULT_BETA1}), {@code beta2} in {@code [0, 1)} ({@value
 * #DEFAULT_BETA2}), {@code eps > 0} ({@value #DEFAULT_EPSILON}), {@code weight_decay >= 0} (0).
 */
public final class Adam implements Optimizer {

    public static final float DEFAULT_LEARNING_RATE = 0.001f;
    public static final float DEFAULT_BETA1 = 0.9f;
    public static final float DEFAULT_BETA2 = 0.999f;
    public static final float DEFAULT_EPSILON = 1e-8f;

    private final float beta1;
    private final float beta2;
    private final float epsilon;
    private final float weightDecay;
    private final OptimizerState state = new OptimizerState(2);
    private float learningRate;
    private long steps;

    /** Adam with the paper's defaults. */
    public Adam() {
        this(DEFAULT_LEARNING_RATE, DEFAULT_BETA1, DEFAULT_BETA2, DEFAULT_EPSILON, 0f);
    }

    /**
     * @throws IllegalArgumentException naming the hyper-parameter out of range
     */
    public Adam(float learningRate, float beta1, float beta2, float epsilon, float weightDecay) {
        Sgd.checkLearningRate(learningRate);
        if (!(beta1 >= 0f && beta1 < 1f)) {
            throw new IllegalArgumentException("adam beta1 must be in [0, 1), got " + beta1);
        }
        if (!(beta2 >= 0f && beta2 < 1f)) {
            throw new IllegalArgumentException("adam beta2 must be in [0, 1), got " + beta2);
        }
        if (!(epsilon > 0f) || Float.isInfinite(epsilon)) {
            throw new IllegalArgumentException("adam eps must be a finite number > 0, got " + epsilon);
        }
        if (!(weightDecay >= 0f) || Float.isInfinite(weightDecay)) {
            throw new IllegalArgumentException("adam weight_decay must be a finite number >= 0, got " + weightDecay);
        }
        this.learningRate = learningRate;
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.epsilon = epsilon;
        this.weightDecay = weightDecay;
    }

    public float beta1() {
        return beta1;
    }

    public float beta2() {
        return beta2;
    }

    public float epsilon() {
        return epsilon;
    }

    public float weightDecay() {
        return weightDecay;
    }

    @Override
    public void step(Tensor parameters, Tensor gradients) {
        Tensor[] mv = state.forParameters(parameters, gradients);
        parameters
                .backend()
                .adamStep(
                        parameters,
                        gradients,
                        mv[0],
                        mv[1],
                        learningRate,
                        beta1,
                        beta2,
                        epsilon,
                        weightDecay,
                        steps + 1);
        steps++;
    }

    @Override
    public long steps() {
        return steps;
    }

    @Override
    public float learningRate() {
        return learningRate;
    }

    @Override
    public void setLearningRate(float learningRate) {
        Sgd.checkLearningRate(learningRate);
        this.learningRate = learningRate;
    }

    @Override
    public void reset() {
        state.reset();
        steps = 0;
    }

    @Override
    public OptimizerSnapshot snapshot() {
        return new OptimizerSnapshot(steps, state.toHost());
    }

    @Override
    public void restore(OptimizerSnapshot snapshot, Tensor parameters) {
        state.fromHost(snapshot.slots(), parameters);
        steps = snapshot.steps();
    }

    @Override
    public void close() {
        state.close();
    }

    /** The command-line form, e.g. {@code adam:lr=0.001,beta1=0.9,beta2=0.999,eps=1.0E-8,weight_decay=0.0}. */
    @Override
    public String toString() {
        return "adam:lr=" + learningRate + ",beta1=" + beta1 + ",beta2=" + beta2 + ",eps=" + epsilon + ",weight_decay="
                + weightDecay;
    }
}
