package dev.chorus.learning.optim;

import dev.chorus.learning.tensor.Tensor;

/**
 * Stochastic gradient descent with optional heavy-ball momentum (Polyak, "Some methods of speeding
 * up the convergence of iteration methods", 1964), Nesterov momentum in the form of Sutskever,
 * Martens, Dahl and Hinton ("On the importance of initialization and momentum in deep learning",
 * ICML 2013), and L2 weight decay. Per step, as in PyTorch:
 *
 * <pre>
 * g = grad + weightDecay * p
 * v = momentum * v + g
 * p -= learningRate * (nesterov ? g + momentum * v : v)
 * </pre>
 *
 * Hyper-parameters: {@code lr} (learning rate, default {@value #DEFAULT_LEARNING_RATE}), {@code
 * momentum} in {@code [0, 1)} (default 0: plain SGD, no velocity kept), {@code weight_decay}
 * {@code >= 0} (default 0), {@code nesterov} (default false; needs momentum).
 */
public final class Sgd implements Optimizer {

    public static final float DEFAULT_LEARNING_RATE = 0.01f;

    private final float momentum;
    private final float weightDecay;
    private final boolean nesterov;
    private final OptimizerState state = new OptimizerState(1);
    private float learningRate;
    private long steps;

    /** Plain SGD at the default learning rate. */
    public Sgd() {
        this(DEFAULT_LEARNING_RATE, 0f, 0f, false);
    }

    /**
     * @throws IllegalArgumentException naming the hyper-parameter out of range
     */
    public Sgd(float learningRate, float momentum, float weightDecay, boolean nesterov) {
        checkLearningRate(learningRate);
        if (!(momentum >= 0f && momentum < 1f)) {
            throw new IllegalArgumentException("sgd momentum must be in [0, 1), got " + momentum);
        }
        if (!(weightDecay >= 0f) || Float.isInfinite(weightDecay)) {
            throw new IllegalArgumentException("sgd weight_decay must be a finite number >= 0, got " + weightDecay);
        }
        if (nesterov && momentum == 0f) {
            throw new IllegalArgumentException("sgd nesterov=true needs momentum > 0");
        }
        this.learningRate = learningRate;
        this.momentum = momentum;
        this.weightDecay = weightDecay;
        this.nesterov = nesterov;
    }

    static void checkLearningRate(float learningRate) {
        if (!(learningRate > 0f) || Float.isInfinite(learningRate)) {
            throw new IllegalArgumentException("learning rate must be a finite number > 0, got " + learningRate);
        }
    }

    public float momentum() {
        return momentum;
    }

    public float weightDecay() {
        return weightDecay;
    }

    public boolean nesterov() {
        return nesterov;
    }

    @Override
    public void step(Tensor parameters, Tensor gradients) {
        Tensor velocity = null;
        if (momentum > 0f) {
            velocity = state.forParameters(parameters, gradients)[0];
        } else if (parameters.size() != gradients.size()) {
            throw new IllegalArgumentException(
                    "parameters (" + parameters.size() + ") and gradients (" + gradients.size() + ") differ in size");
        }
        parameters.backend().sgdStep(parameters, gradients, velocity, learningRate, momentum, weightDecay, nesterov);
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
        checkLearningRate(learningRate);
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

    /** The command-line form, e.g. {@code sgd:lr=0.05,momentum=0.9,weight_decay=0,nesterov=false}. */
    @Override
    public String toString() {
        return "sgd:lr=" + learningRate + ",momentum=" + momentum + ",weight_decay=" + weightDecay + ",nesterov="
                + nesterov;
    }
}
