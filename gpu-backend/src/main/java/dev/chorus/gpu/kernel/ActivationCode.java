package dev.chorus.gpu.kernel;

import dev.chorus.learning.tensor.Activation;

/** The {@code kind} argument of the activation kernels ({@code CHORUS_RELU} etc. in elementwise.cu). */
public final class ActivationCode {

    private ActivationCode() {}

    public static int of(Activation f) {
        return switch (f) {
            case IDENTITY -> 0;
            case RELU -> 1;
            case SIGMOID -> 2;
            case TANH -> 3;
        };
    }
}
