package dev.chorus.learning.tensor.reference;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.ConvGeometry;
import dev.chorus.learning.tensor.PoolGeometry;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorChecks;

/**
 * The plain-Java backend: single-threaded, straightforward loops, double accumulators. It is the
 * oracle that every other backend is checked against, so it favours obviousness over speed.
 */
public final class ReferenceBackend implements TensorBackend {

    @Override
    public String name() {
        return "reference";
    }

    @Override
    public int threads() {
        return 1;
    }

    private ReferenceTensor t(Tensor x) {
        return TensorChecks.owned(x, ReferenceTensor.class, this);
    }

    /** Whether two tensors share an element; disjoint views of one buffer do not alias. */
    private static boolean overlap(ReferenceTensor a, ReferenceTensor b) {
        return a.data == b.data && a.n() > 0 && b.n() > 0 && a.offset < b.offset + b.n() && b.offset < a.offset + a.n();
    }

    // ---------------------------------------------------------------- storage

    @Override
    public Tensor zeros(int rows, int cols) {
        return new ReferenceTensor(this, new float[TensorChecks.checkedSize(rows, cols)], 0, rows, cols);
    }

    @Override
    public Tensor fromHost(float[] data, int rows, int cols) {
        int n = TensorChecks.checkedSize(rows, cols);
        float[] copy = new float[n];
        System.arraycopy(data, 0, copy, 0, n);
        return new ReferenceTensor(this, copy, 0, rows, cols);
    }

    @Override
    public Tensor view(Tensor base, long offset, int rows, int cols) {
        ReferenceTensor b = t(base);
        TensorChecks.viewRange(b, offset, rows, cols);
        return new ReferenceTensor(this, b.data, b.offset + (int) offset, rows, cols);
    }

    @Override
    public void copyFromHost(float[] src, int srcOffset, Tensor dst) {
        ReferenceTensor d = t(dst);
        System.arraycopy(src, srcOffset, d.data, d.offset, d.n());
    }

    @Override
    public void copyToHost(Tensor src, float[] dst, int dstOffset) {
        ReferenceTensor s = t(src);
        System.arraycopy(s.data, s.offset, dst, dstOffset, s.n());
    }

    @Override
    public void copy(Tensor src, Tensor dst) {
        ReferenceTensor s = t(src), d = t(dst);
        TensorChecks.sameSize(s, d);
        System.arraycopy(s.data, s.offset, d.data, d.offset, s.n());
    }

    @Override
    public void fill(Tensor x, float value) {
        ReferenceTensor a = t(x);
        for (int i = 0; i < a.n(); i++) {
            a.put(i, value);
        }
    }

    // ---------------------------------------------------------------- BLAS

    @Override
    public void gemm(boolean transA, boolean transB, float alpha, Tensor a, Tensor b, float beta, Tensor c) {
        ReferenceTensor ta = t(a), tb = t(b), tc = t(c);
        int k = TensorChecks.gemm(transA, transB, ta, tb, tc, ReferenceBackend::overlap);
        int m = tc.rows(), n = tc.cols();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    float av = transA ? ta.get(p, i) : ta.get(i, p);
                    float bv = transB ? tb.get(j, p) : tb.get(p, j);
                    s += (double) av * bv;
                }
                double prior = beta == 0f ? 0 : (double) beta * tc.get(i, j);
                tc.set(i, j, (float) (alpha * s + prior));
            }
        }
    }

    @Override
    public void axpy(float alpha, Tensor x, Tensor y) {
        ReferenceTensor tx = t(x), ty = t(y);
        TensorChecks.sameSize(tx, ty);
        for (int i = 0; i < tx.n(); i++) {
            ty.put(i, ty.at(i) + alpha * tx.at(i));
        }
    }

    @Override
    public void scale(float alpha, Tensor x) {
        ReferenceTensor tx = t(x);
        for (int i = 0; i < tx.n(); i++) {
            tx.put(i, alpha * tx.at(i));
        }
    }

    @Override
    public float dot(Tensor x, Tensor y) {
        ReferenceTensor tx = t(x), ty = t(y);
        TensorChecks.sameSize(tx, ty);
        double s = 0;
        for (int i = 0; i < tx.n(); i++) {
            s += (double) tx.at(i) * ty.at(i);
        }
        return (float) s;
    }

    @Override
    public float sum(Tensor x) {
        ReferenceTensor tx = t(x);
        double s = 0;
        for (int i = 0; i < tx.n(); i++) {
            s += tx.at(i);
        }
        return (float) s;
    }

    @Override
    public float sumOfSquares(Tensor x) {
        return dot(x, x);
    }

    // ---------------------------------------------------------------- element-wise

    private interface Binary {
        float apply(float a, float b);
    }

    private void zip(Tensor a, Tensor b, Tensor out, Binary f) {
        ReferenceTensor ta = t(a), tb = t(b), to = t(out);
        TensorChecks.elementWise(ta, tb, to);
        for (int i = 0; i < ta.n(); i++) {
            to.put(i, f.apply(ta.at(i), tb.at(i)));
        }
    }

    @Override
    public void add(Tensor a, Tensor b, Tensor out) {
        zip(a, b, out, (x, y) -> x + y);
    }

    @Override
    public void sub(Tensor a, Tensor b, Tensor out) {
        zip(a, b, out, (x, y) -> x - y);
    }

    @Override
    public void mul(Tensor a, Tensor b, Tensor out) {
        zip(a, b, out, (x, y) -> x * y);
    }

    @Override
    public void addRowVector(Tensor m, Tensor row) {
        ReferenceTensor tm = t(m), tr = t(row);
        TensorChecks.rowVector(tm, tr);
        for (int i = 0; i < tm.rows(); i++) {
            for (int j = 0; j < tm.cols(); j++) {
                tm.set(i, j, tm.get(i, j) + tr.at(j));
            }
        }
    }

    @Override
    public void sumRows(Tensor m, float beta, Tensor out) {
        ReferenceTensor tm = t(m), to = t(out);
        TensorChecks.columnSums(tm, to);
        for (int j = 0; j < tm.cols(); j++) {
            double s = 0;
            for (int i = 0; i < tm.rows(); i++) {
                s += tm.get(i, j);
            }
            double prior = beta == 0f ? 0 : (double) beta * to.at(j);
            to.put(j, (float) (s + prior));
        }
    }

    static float apply(Activation f, float x) {
        return switch (f) {
            case IDENTITY -> x;
            case RELU -> x > 0 ? x : 0f;
            case SIGMOID -> (float) (1.0 / (1.0 + Math.exp(-x)));
            case TANH -> (float) Math.tanh(x);
        };
    }

    static float derivativeFromOutput(Activation f, float y) {
        return switch (f) {
            case IDENTITY -> 1f;
            case RELU -> y > 0 ? 1f : 0f;
            case SIGMOID -> y * (1f - y);
            case TANH -> 1f - y * y;
        };
    }

    @Override
    public void activation(Activation f, Tensor in, Tensor out) {
        ReferenceTensor ti = t(in), to = t(out);
        TensorChecks.sameShape(ti, to);
        for (int i = 0; i < ti.n(); i++) {
            to.put(i, apply(f, ti.at(i)));
        }
    }

    @Override
    public void activationBackward(Activation f, Tensor out, Tensor gradOut, Tensor gradIn) {
        zip(out, gradOut, gradIn, (y, g) -> g * derivativeFromOutput(f, y));
    }

    // ---------------------------------------------------------------- losses

    @Override
    public float softmaxCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad) {
        ReferenceTensor tl = t(logits), ty = t(targets);
        ReferenceTensor tp = probs == null ? null : t(probs);
        ReferenceTensor tg = grad == null ? null : t(grad);
        TensorChecks.loss(tl, ty, tp, tg);
        int batch = tl.rows(), classes = tl.cols();
        double total = 0;
        double[] p = new double[classes];
        for (int i = 0; i < batch; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < classes; j++) {
                max = Math.max(max, tl.get(i, j));
            }
            double z = 0;
            for (int j = 0; j < classes; j++) {
                p[j] = Math.exp(tl.get(i, j) - max);
                z += p[j];
            }
            double logZ = Math.log(z) + max;
            for (int j = 0; j < classes; j++) {
                double y = ty.get(i, j);
                if (y != 0) {
                    total -= y * (tl.get(i, j) - logZ);
                }
                p[j] /= z;
            }
            for (int j = 0; j < classes; j++) {
                float y = ty.get(i, j);
                if (tp != null) tp.set(i, j, (float) p[j]);
                if (tg != null) tg.set(i, j, (float) ((p[j] - y) / batch));
            }
        }
        return (float) (total / batch);
    }

    @Override
    public float sigmoidCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad) {
        ReferenceTensor tl = t(logits), ty = t(targets);
        ReferenceTensor tp = probs == null ? null : t(probs);
        ReferenceTensor tg = grad == null ? null : t(grad);
        TensorChecks.loss(tl, ty, tp, tg);
        int n = tl.n();
        double total = 0;
        for (int i = 0; i < n; i++) {
            double x = tl.at(i), y = ty.at(i);
            total += Math.max(x, 0) - x * y + Math.log1p(Math.exp(-Math.abs(x)));
            double s = 1.0 / (1.0 + Math.exp(-x));
            if (tp != null) tp.put(i, (float) s);
            if (tg != null) tg.put(i, (float) ((s - y) / n));
        }
        return (float) (total / n);
    }

    // ---------------------------------------------------------------- convolution and pooling

    @Override
    public void im2col(Tensor images, ConvGeometry g, Tensor cols) {
        ReferenceTensor ti = t(images), tc = t(cols);
        TensorChecks.conv(ti, g, tc);
        int oh = g.outHeight(), ow = g.outWidth(), c = g.channels();
        for (int n = 0; n < ti.rows(); n++) {
            for (int oy = 0; oy < oh; oy++) {
                for (int ox = 0; ox < ow; ox++) {
                    int row = (n * oh + oy) * ow + ox;
                    int col = 0;
                    for (int ky = 0; ky < g.kernelHeight(); ky++) {
                        int iy = oy * g.stride() - g.padding() + ky;
                        for (int kx = 0; kx < g.kernelWidth(); kx++) {
                            int ix = ox * g.stride() - g.padding() + kx;
                            boolean inside = iy >= 0 && iy < g.height() && ix >= 0 && ix < g.width();
                            for (int ch = 0; ch < c; ch++) {
                                float v = inside ? ti.get(n, (iy * g.width() + ix) * c + ch) : 0f;
                                tc.set(row, col++, v);
                            }
                        }
                    }
                }
            }
        }
    }

    @Override
    public void col2im(Tensor cols, ConvGeometry g, Tensor images) {
        ReferenceTensor ti = t(images), tc = t(cols);
        TensorChecks.conv(ti, g, tc);
        fill(ti, 0f);
        int oh = g.outHeight(), ow = g.outWidth(), c = g.channels();
        for (int n = 0; n < ti.rows(); n++) {
            for (int oy = 0; oy < oh; oy++) {
                for (int ox = 0; ox < ow; ox++) {
                    int row = (n * oh + oy) * ow + ox;
                    int col = 0;
                    for (int ky = 0; ky < g.kernelHeight(); ky++) {
                        int iy = oy * g.stride() - g.padding() + ky;
                        for (int kx = 0; kx < g.kernelWidth(); kx++) {
                            int ix = ox * g.stride() - g.padding() + kx;
                            boolean inside = iy >= 0 && iy < g.height() && ix >= 0 && ix < g.width();
                            for (int ch = 0; ch < c; ch++, col++) {
                                if (inside) {
                                    int p = (iy * g.width() + ix) * c + ch;
                                    ti.set(n, p, ti.get(n, p) + tc.get(row, col));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Override
    public void maxPool(Tensor in, PoolGeometry g, Tensor out, Tensor argmax) {
        ReferenceTensor ti = t(in), to = t(out), ta = t(argmax);
        TensorChecks.maxPool(ti, g, to, ta);
        int c = g.channels();
        for (int n = 0; n < ti.rows(); n++) {
            for (int oy = 0; oy < g.outHeight(); oy++) {
                for (int ox = 0; ox < g.outWidth(); ox++) {
                    for (int ch = 0; ch < c; ch++) {
                        float best = Float.NEGATIVE_INFINITY;
                        int bestIndex = -1;
                        for (int ky = 0; ky < g.size(); ky++) {
                            for (int kx = 0; kx < g.size(); kx++) {
                                int iy = oy * g.stride() + ky, ix = ox * g.stride() + kx;
                                int p = (iy * g.width() + ix) * c + ch;
                                float v = ti.get(n, p);
                                if (bestIndex < 0 || v > best) {
                                    best = v;
                                    bestIndex = p;
                                }
                            }
                        }
                        int o = (oy * g.outWidth() + ox) * c + ch;
                        to.set(n, o, best);
                        ta.set(n, o, bestIndex);
                    }
                }
            }
        }
    }

    @Override
    public void maxPoolBackward(Tensor gradOut, Tensor argmax, PoolGeometry g, Tensor gradIn) {
        ReferenceTensor tg = t(gradOut), ta = t(argmax), ti = t(gradIn);
        TensorChecks.maxPoolBackward(tg, ta, g, ti);
        fill(ti, 0f);
        for (int n = 0; n < tg.rows(); n++) {
            for (int o = 0; o < tg.cols(); o++) {
                int p = (int) ta.get(n, o);
                ti.set(n, p, ti.get(n, p) + tg.get(n, o));
            }
        }
    }

    // ---------------------------------------------------------------- optimizer updates

    @Override
    public void sgdStep(
            Tensor params,
            Tensor grads,
            Tensor velocity,
            float learningRate,
            float momentum,
            float weightDecay,
            boolean nesterov) {
        ReferenceTensor p = t(params), g = t(grads);
        TensorChecks.sameSize(p, g);
        ReferenceTensor v = momentum == 0f ? null : t(velocity);
        if (v != null) TensorChecks.sameSize(p, v);
        for (int i = 0; i < p.n(); i++) {
            float gi = g.at(i) + weightDecay * p.at(i);
            float step = gi;
            if (v != null) {
                float vi = momentum * v.at(i) + gi;
                v.put(i, vi);
                step = nesterov ? gi + momentum * vi : vi;
            }
            p.put(i, p.at(i) - learningRate * step);
        }
    }

    @Override
    public void adamStep(
            Tensor params,
            Tensor grads,
            Tensor m,
            Tensor v,
            float learningRate,
            float beta1,
            float beta2,
            float epsilon,
            float weightDecay,
            long step) {
        TensorChecks.adamStep(step);
        ReferenceTensor p = t(params), g = t(grads), tm = t(m), tv = t(v);
        TensorChecks.adamState(p, g, tm, tv);
        double bc1 = 1 - Math.pow(beta1, step);
        double bc2Sqrt = Math.sqrt(1 - Math.pow(beta2, step));
        for (int i = 0; i < p.n(); i++) {
            float gi = g.at(i) + weightDecay * p.at(i);
            float mi = beta1 * tm.at(i) + (1 - beta1) * gi;
            float vi = beta2 * tv.at(i) + (1 - beta2) * gi * gi;
            tm.put(i, mi);
            tv.put(i, vi);
            double denom = Math.sqrt(vi) / bc2Sqrt + epsilon;
            p.put(i, (float) (p.at(i) - learningRate / bc1 * mi / denom));
        }
    }

    @Override
    public void close() {}
}
