package dev.chorus.learning.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.SplittableRandom;

/**
 * Finite-difference gradient checks in float32: central differences {@code (f(x + eps) - f(x -
 * eps)) / 2 eps}, compared with the analytic gradient under {@code |a - n| <= ABS_TOL + REL_TOL *
 * max(|a|, |n|)}. With {@code eps = 1e-2} the float rounding of {@code f} contributes about
 * {@code 1e-5} and the truncation error of smooth functions {@code eps^2 f''' / 6 ~ 2e-5}, well
 * inside the tolerance; inputs are kept more than {@code eps} away from the kinks of ReLU and the
 * ties of max pooling.
 */
final class GradientCheck {

    static final float EPS = 1e-2f;
    static final double ABS_TOL = 1e-3;
    static final double REL_TOL = 1e-2;

    private GradientCheck() {}

    /** Uniform floats in {@code [lo, hi)}. */
    static float[] uniform(SplittableRandom random, int n, double lo, double hi) {
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = (float) (lo + (hi - lo) * random.nextDouble());
        }
        return out;
    }

    /** Analytic and numeric gradients of {@code sum(layer(x) * r)} for a random projection r. */
    record LayerGradients(float[] inputAnalytic, double[] inputNumeric, float[] paramAnalytic, double[] paramNumeric) {}

    /**
     * Binds {@code layer} to fresh flat tensors holding {@code params}, then computes the analytic
     * and numeric gradients of {@code sum(layer(x) * r)} with respect to the input and every
     * parameter.
     */
    static LayerGradients layer(
            TensorBackend backend, Layer layer, float[] input, int batch, float[] params, SplittableRandom random) {
        int p = layer.parameterCount();
        Tensor paramT = p > 0 ? backend.fromHost(params, 1, p) : null;
        Tensor gradT = p > 0 ? backend.zeros(1, p) : null;
        layer.bind(backend, paramT, gradT);
        float[] r = uniform(random, batch * layer.outputSize(), -1, 1);
        Tensor rT = backend.fromHost(r, batch, layer.outputSize());
        float[] x = input.clone();
        Tensor xT = backend.fromHost(x, batch, layer.inputSize());

        layer.forward(xT);
        Tensor dx = layer.backward(rT, true);
        float[] inputAnalytic = new float[x.length];
        backend.copyToHost(dx, inputAnalytic, 0);
        float[] paramAnalytic = new float[p];
        if (p > 0) {
            backend.copyToHost(gradT, paramAnalytic, 0);
        }

        double[] inputNumeric = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            float saved = x[i];
            x[i] = saved + EPS;
            backend.copyFromHost(x, 0, xT);
            double plus = projected(backend, layer.forward(xT), r);
            x[i] = saved - EPS;
            backend.copyFromHost(x, 0, xT);
            double minus = projected(backend, layer.forward(xT), r);
            x[i] = saved;
            inputNumeric[i] = (plus - minus) / (2 * EPS);
        }
        backend.copyFromHost(x, 0, xT);
        double[] paramNumeric = new double[p];
        float[] w = p > 0 ? params.clone() : new float[0];
        for (int i = 0; i < p; i++) {
            float saved = w[i];
            w[i] = saved + EPS;
            backend.copyFromHost(w, 0, paramT);
            double plus = projected(backend, layer.forward(xT), r);
            w[i] = saved - EPS;
            backend.copyFromHost(w, 0, paramT);
            double minus = projected(backend, layer.forward(xT), r);
            w[i] = saved;
            paramNumeric[i] = (plus - minus) / (2 * EPS);
        }
        layer.close();
        return new LayerGradients(inputAnalytic, inputNumeric, paramAnalytic, paramNumeric);
    }

    static double projected(TensorBackend backend, Tensor out, float[] r) {
        float[] y = new float[r.length];
        backend.copyToHost(out, y, 0);
        double s = 0;
        for (int i = 0; i < y.length; i++) {
            s += (double) y[i] * r[i];
        }
        return s;
    }

    /** Index of the first element outside tolerance, or -1. */
    static int firstMismatch(float[] analytic, double[] numeric) {
        for (int i = 0; i < analytic.length; i++) {
            double a = analytic[i], n = numeric[i];
            if (!(Math.abs(a - n) <= ABS_TOL + REL_TOL * Math.max(Math.abs(a), Math.abs(n)))) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Asserts agreement, and that the gradient is not trivially zero (a check of an all-zero
     * gradient against an all-zero difference would prove nothing).
     */
    static void assertAgree(String what, float[] analytic, double[] numeric) {
        assertThat(analytic).as(what + " length").hasSize(numeric.length);
        int bad = firstMismatch(analytic, numeric);
        assertThat(bad)
                .as(
                        "%s: first mismatch at %d: analytic %s vs numeric %s",
                        what, bad, bad < 0 ? "" : analytic[bad], bad < 0 ? "" : numeric[bad])
                .isEqualTo(-1);
        double largest = 0;
        for (double n : numeric) {
            largest = Math.max(largest, Math.abs(n));
        }
        assertThat(largest).as(what + ": largest numeric gradient").isGreaterThan(10 * ABS_TOL);
    }
}
