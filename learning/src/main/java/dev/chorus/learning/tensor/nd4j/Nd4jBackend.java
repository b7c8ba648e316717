package dev.chorus.learning.tensor.nd4j;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.ConvGeometry;
import dev.chorus.learning.tensor.PoolGeometry;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorChecks;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The CPU backend: storage in off-heap ND4J buffers, linear algebra in the OpenBLAS that ND4J ships,
 * called directly (see {@link OpenBlas}), and the rest in plain Java loops over the same memory.
 *
 * <p>How each op is computed was chosen by measurement on a 2-core AMD Zen 5 (JDK 25, OpenBLAS
 * 0.3.30 with the environment's {@code OPENBLAS_CORETYPE=Haswell}):
 *
 * <ul>
 *   <li>ND4J's own element-wise ops cost 9-34 us each on a 64x256 or 1x256 tensor (op dispatch,
 *       allocation of the op object, OpenMP), and far more when OpenMP threads compete with other
 *       processes for two cores; a Java loop on the same 1x256 tensor takes 0.2-0.6 us. ND4J ops are
 *       therefore not used on the hot path at all.
 *   <li>JDK 25's C2 does not vectorise loops over native {@link MemorySegment}s that may alias (a
 *       Java {@code y += a*x} over 16k floats: 6.3 us; OpenBLAS {@code saxpy}: 0.9 us; over 270k
 *       floats: 107 us against 24 us). So whatever BLAS can express goes to BLAS: {@code axpy},
 *       {@code scale}, {@code add}/{@code sub} (copy + axpy), {@code dot}/{@code sum} ({@code sdsdot},
 *       double accumulation), {@code addRowVector} ({@code sger} with a ones vector: 1.2 us against
 *       6.9 us at 64x256), {@code sumRows} ({@code sgemv}: 0.7 us) and SGD ({@code sscal} and
 *       {@code saxpy} passes; OpenBLAS's {@code saxpby} is avoided, being 3x slower than either).
 *   <li>Adam, {@code mul} and ReLU stage L1-sized tiles through heap {@code float[]}s, where C2 does
 *       vectorise; the copies in and out are memcpy. Adam over 270k floats: 244 us against 1.2 ms.
 *   <li>The rest (activations, losses, convolution layout, pooling) are scalar Java loops: nothing
 *       faster is reachable without native code of our own or an incubator module, and for the
 *       sizes of an MLP step they cost a few microseconds each.
 * </ul>
 *
 * <p>No op allocates on the Java heap once warm, except when a larger ones vector or loss scratch
 * is needed for the first time. The thread count applies to OpenBLAS (process-wide: the backend
 * re-applies its own count before a BLAS call when another backend changed it) and to ND4J's OpenMP
 * pool; the Java loops run on the calling thread.
 */
public final class Nd4jBackend implements TensorBackend {

    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private final int threads;
    /** Root tensors not yet closed, so that {@link #close} can free them; weak so GC still can. */
    private final Set<Nd4jTensor> live = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private Nd4jTensor ones;
    private double[] lossScratch = new double[0];
    /** Floats per heap tile of a staged loop: four tiles fit a 32 KB L1 data cache. */
    private static final int TILE = 1024;

    private final float[][] tiles = new float[4][TILE];
    private volatile boolean closed;

    /**
     * A backend whose ops use {@code threads} threads ({@code <= 0}: one per available processor).
     *
     * @throws dev.chorus.learning.tensor.BackendUnavailableException when ND4J cannot load here
     */
    public Nd4jBackend(int threads) {
        Nd4jBackendProvider.requireAvailable();
        this.threads = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        Nd4j.getEnvironment().setMaxThreads(this.threads);
        Nd4j.getEnvironment().setMaxMasterThreads(this.threads);
        OpenBlas.useThreads(this.threads);
    }

    @Override
    public String name() {
        return "nd4j";
    }

    @Override
    public int threads() {
        return threads;
    }

    /** The OpenBLAS build and the kernel family it runs, e.g. {@code OpenBLAS 0.3.30 ... (core Haswell)}. */
    public String blasDescription() {
        return OpenBlas.config() + " (core " + OpenBlas.coreName() + ")";
    }

    /** The OpenBLAS kernel family in use, e.g. {@code Haswell} or {@code SkylakeX}. */
    public String blasCore() {
        return OpenBlas.coreName();
    }

    // ---------------------------------------------------------------- checks

    /** A foreign tensor passed to a closed backend reports the closed backend, the likelier mistake. */
    private Nd4jTensor t(Tensor x) {
        if (closed && !TensorChecks.belongsTo(x, Nd4jTensor.class, this)) {
            throw new IllegalStateException("the nd4j backend is closed");
        }
        Nd4jTensor nt = TensorChecks.owned(x, Nd4jTensor.class, this);
        if (!nt.isOpen()) {
            throw new IllegalStateException("tensor " + nt + " is closed");
        }
        return nt;
    }

    /** An output may equal an input, element for element, but must not half-overlap it. */
    private static void equalOrDisjoint(Nd4jTensor out, Nd4jTensor in) {
        if (out.overlaps(in) && !out.sameElements(in)) {
            throw new IllegalArgumentException("output " + out + " partly overlaps input " + in);
        }
    }

    /** Element count from which a vector or matrix-vector BLAS call uses more than one thread. */
    static final int THREADED_VECTOR_MIN = 1 << 24;

    /** Multiply-adds ({@code m * n * k}) from which a GEMM uses more than one thread. */
    static final long THREADED_GEMM_MIN = 1L << 24;

    /**
     * Threads for a GEMM of {@code m * n * k} multiply-adds. Below {@link #THREADED_GEMM_MIN} one:
     * OpenBLAS's own threshold is far lower, and on the MLP benchmark (docs/benchmarks.md) batch 64
     * (products of 4 to 13 million multiply-adds) trained faster on one thread than on two, while
     * batch 256 (16 to 51 million) gained from the second.
     */
    private void gemmThreads(long multiplyAdds) {
        OpenBlas.useThreads(multiplyAdds < THREADED_GEMM_MIN ? 1 : threads);
    }

    /**
     * Threads for a memory-bound level-1/2 call over {@code n} elements. Below {@link
     * #THREADED_VECTOR_MIN} (16M elements) one: on 16k floats a two-thread {@code saxpy} took 2.2 us
     * against 0.95 us on one, with the cores oversubscribed it stalls for whole scheduler slices, and
     * on the MLP benchmark (784-256-256-10, two threads) a threshold of 64k elements trained batch 64
     * at 36k samples/s against 44k to 48k with every vector call on one thread, batch 256 no faster.
     * Switching the count costs about 30 ns.
     */
    private void blasThreads(long n) {
        OpenBlas.useThreads(n < THREADED_VECTOR_MIN ? 1 : threads);
    }

    // ---------------------------------------------------------------- storage

    @Override
    public Tensor zeros(int rows, int cols) {
        Nd4jTensor z = allocate(rows, cols);
        z.segment.fill((byte) 0);
        return z;
    }

    private Nd4jTensor allocate(int rows, int cols) {
        if (closed) {
            throw new IllegalStateException("the nd4j backend is closed");
        }
        int n = TensorChecks.checkedSize(rows, cols);
        INDArray array = null;
        if (n > 0) {
            try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
                array = Nd4j.createUninitialized(DataType.FLOAT, rows, cols);
            }
        }
        Nd4jTensor tensor = new Nd4jTensor(this, array, rows, cols);
        live.add(tensor);
        return tensor;
    }

    void forget(Nd4jTensor root) {
        live.remove(root);
    }

    @Override
    public Tensor fromHost(float[] data, int rows, int cols) {
        int n = TensorChecks.checkedSize(rows, cols);
        TensorChecks.hostRange(data, 0, n);
        Nd4jTensor tensor = allocate(rows, cols);
        MemorySegment.copy(data, 0, tensor.segment, F, 0, n);
        return tensor;
    }

    @Override
    public Tensor view(Tensor base, long offset, int rows, int cols) {
        Nd4jTensor b = t(base);
        TensorChecks.viewRange(b, offset, rows, cols);
        return new Nd4jTensor(b, offset, rows, cols);
    }

    @Override
    public void copyFromHost(float[] src, int srcOffset, Tensor dst) {
        Nd4jTensor d = t(dst);
        TensorChecks.hostRange(src, srcOffset, d.n);
        MemorySegment.copy(src, srcOffset, d.segment, F, 0, d.n);
    }

    @Override
    public void copyToHost(Tensor src, float[] dst, int dstOffset) {
        Nd4jTensor s = t(src);
        TensorChecks.hostRange(dst, dstOffset, s.n);
        MemorySegment.copy(s.segment, F, 0, dst, dstOffset, s.n);
    }

    @Override
    public void copy(Tensor src, Tensor dst) {
        Nd4jTensor s = t(src), d = t(dst);
        TensorChecks.sameSize(s, d);
        MemorySegment.copy(s.segment, 0, d.segment, 0, 4L * s.n);
    }

    @Override
    public void fill(Tensor x, float value) {
        Nd4jTensor a = t(x);
        if (Float.floatToRawIntBits(value) == 0) {
            a.segment.fill((byte) 0);
            return;
        }
        MemorySegment s = a.segment;
        for (int i = 0; i < a.n; i++) {
            s.setAtIndex(F, i, value);
        }
    }

    /** A ones vector of at least {@code n} floats, grown (rarely) on demand. */
    private long ones(int n) {
        if (ones == null || ones.n < n) {
            Nd4jTensor old = ones;
            ones = allocate(1, Math.max(n, old == null ? 256 : 2 * old.n));
            fill(ones, 1f);
            if (old != null) {
                old.close();
            }
        }
        return ones.address();
    }

    // ---------------------------------------------------------------- BLAS

    @Override
    public void gemm(boolean transA, boolean transB, float alpha, Tensor a, Tensor b, float beta, Tensor c) {
        Nd4jTensor ta = t(a), tb = t(b), tc = t(c);
        int k = TensorChecks.gemm(transA, transB, ta, tb, tc, Nd4jTensor::overlaps);
        int m = tc.rows, n = tc.cols;
        if (m == 0 || n == 0) {
            return;
        }
        if (k == 0) {
            // No product: C = beta * C, with beta == 0 ignoring the old contents (even NaN).
            if (beta == 0f) {
                tc.segment.fill((byte) 0);
            } else {
                scale(beta, tc);
            }
            return;
        }
        // With beta == 0 OpenBLAS overwrites C without reading it (NaN included); the conformance
        // suite checks that, so C is not zeroed here first.
        gemmThreads((long) m * n * k);
        OpenBlas.sgemm(
                transA,
                transB,
                m,
                n,
                k,
                alpha,
                ta.address(),
                Math.max(1, ta.cols),
                tb.address(),
                Math.max(1, tb.cols),
                beta,
                tc.address(),
                Math.max(1, tc.cols));
    }

    @Override
    public void axpy(float alpha, Tensor x, Tensor y) {
        Nd4jTensor tx = t(x), ty = t(y);
        TensorChecks.sameSize(tx, ty);
        if (tx.n > 0) {
            blasThreads(tx.n);
            OpenBlas.saxpy(tx.n, alpha, tx.address(), ty.address());
        }
    }

    @Override
    public void scale(float alpha, Tensor x) {
        Nd4jTensor tx = t(x);
        if (tx.n > 0) {
            blasThreads(tx.n);
            OpenBlas.sscal(tx.n, alpha, tx.address());
        }
    }

    @Override
    public float dot(Tensor x, Tensor y) {
        Nd4jTensor tx = t(x), ty = t(y);
        TensorChecks.sameSize(tx, ty);
        if (tx.n == 0) {
            return 0f;
        }
        blasThreads(tx.n);
        return OpenBlas.sdsdot(tx.n, tx.address(), ty.address());
    }

    @Override
    public float sum(Tensor x) {
        Nd4jTensor tx = t(x);
        if (tx.n == 0) {
            return 0f;
        }
        long one = ones(tx.n);
        blasThreads(tx.n);
        return OpenBlas.sdsdot(tx.n, tx.address(), one);
    }

    @Override
    public float sumOfSquares(Tensor x) {
        return dot(x, x);
    }

    // ---------------------------------------------------------------- element-wise

    @Override
    public void add(Tensor a, Tensor b, Tensor out) {
        addScaled(a, b, out, 1f);
    }

    @Override
    public void sub(Tensor a, Tensor b, Tensor out) {
        addScaled(a, b, out, -1f);
    }

    /** {@code out = a + sign * b}; exact like a plain float add, since BLAS uses {@code fma(±1, b, a)}. */
    private void addScaled(Tensor a, Tensor b, Tensor out, float sign) {
        Nd4jTensor ta = t(a), tb = t(b), to = t(out);
        TensorChecks.elementWise(ta, tb, to);
        equalOrDisjoint(to, ta);
        equalOrDisjoint(to, tb);
        if (to.n == 0) {
            return;
        }
        blasThreads(to.n);
        if (to.sameElements(ta)) {
            OpenBlas.saxpy(to.n, sign, tb.address(), to.address());
        } else if (to.sameElements(tb)) {
            // out = a + sign*out; negating first is exact, and OpenBLAS's saxpby is 3x slower than
            // sscal + saxpy (86 us against 25 us per pass over 270k floats).
            if (sign != 1f) {
                OpenBlas.sscal(to.n, sign, to.address());
            }
            OpenBlas.saxpy(to.n, 1f, ta.address(), to.address());
        } else {
            MemorySegment.copy(ta.segment, 0, to.segment, 0, 4L * ta.n);
            OpenBlas.saxpy(to.n, sign, tb.address(), to.address());
        }
    }

    @Override
    public void mul(Tensor a, Tensor b, Tensor out) {
        Nd4jTensor ta = t(a), tb = t(b), to = t(out);
        TensorChecks.elementWise(ta, tb, to);
        equalOrDisjoint(to, ta);
        equalOrDisjoint(to, tb);
        // Staged through heap tiles, where the product vectorises: 2.6 us against 5.8 us on 64x256.
        MemorySegment sa = ta.segment, sb = tb.segment, so = to.segment;
        float[] x = tiles[0], y = tiles[1];
        for (int start = 0; start < ta.n; start += TILE) {
            int len = Math.min(TILE, ta.n - start);
            long at = 4L * start;
            MemorySegment.copy(sa, F, at, x, 0, len);
            MemorySegment.copy(sb, F, at, y, 0, len);
            for (int i = 0; i < len; i++) {
                x[i] *= y[i];
            }
            MemorySegment.copy(x, 0, so, F, at, len);
        }
    }

    @Override
    public void addRowVector(Tensor m, Tensor row) {
        Nd4jTensor tm = t(m), tr = t(row);
        TensorChecks.rowVector(tm, tr);
        if (tm.n == 0) {
            return;
        }
        long one = ones(tm.rows);
        blasThreads(tm.n);
        OpenBlas.sger(tm.rows, tm.cols, 1f, one, tr.address(), tm.address(), tm.cols);
    }

    @Override
    public void sumRows(Tensor m, float beta, Tensor out) {
        Nd4jTensor tm = t(m), to = t(out);
        TensorChecks.columnSums(tm, to);
        if (to.n == 0) {
            return;
        }
        if (tm.rows == 0) {
            if (beta == 0f) {
                to.segment.fill((byte) 0); // the prior contents are ignored, even NaN
            } else {
                scale(beta, to);
            }
            return;
        }
        // As in gemm, OpenBLAS's gemv with beta == 0 does not read y (checked by the conformance suite).
        long one = ones(tm.rows);
        blasThreads(tm.n);
        OpenBlas.sgemv(true, tm.rows, tm.cols, 1f, tm.address(), tm.cols, one, beta, to.address());
    }

    @Override
    public void activation(Activation f, Tensor in, Tensor out) {
        Nd4jTensor ti = t(in), to = t(out);
        TensorChecks.sameShape(ti, to);
        equalOrDisjoint(to, ti);
        MemorySegment x = ti.segment, y = to.segment;
        int n = ti.n;
        switch (f) {
            case IDENTITY -> {
                if (!to.sameElements(ti)) {
                    MemorySegment.copy(x, 0, y, 0, 4L * n);
                }
            }
            case RELU -> {
                // Staged through a heap tile: 6.6 us against 9.5 us on 64x256 read in place.
                float[] t = tiles[0];
                for (int start = 0; start < n; start += TILE) {
                    int len = Math.min(TILE, n - start);
                    long at = 4L * start;
                    MemorySegment.copy(x, F, at, t, 0, len);
                    for (int i = 0; i < len; i++) {
                        t[i] = t[i] > 0 ? t[i] : 0f;
                    }
                    MemorySegment.copy(t, 0, y, F, at, len);
                }
            }
            case SIGMOID -> {
                for (int i = 0; i < n; i++) {
                    y.setAtIndex(F, i, (float) (1.0 / (1.0 + Math.exp(-x.getAtIndex(F, i)))));
                }
            }
            case TANH -> {
                // tanh|x| = (1 - e^-2|x|) / (1 + e^-2|x|): one exp, half the time of Math.tanh (89 against
                // 165 us on 16k floats), and equal to (float) Math.tanh on every input tried.
                for (int i = 0; i < n; i++) {
                    float v = x.getAtIndex(F, i);
                    double e = Math.exp(-2.0 * Math.abs(v));
                    y.setAtIndex(F, i, Math.copySign((float) ((1 - e) / (1 + e)), v));
                }
            }
        }
    }

    @Override
    public void activationBackward(Activation f, Tensor out, Tensor gradOut, Tensor gradIn) {
        Nd4jTensor ty = t(out), tg = t(gradOut), ti = t(gradIn);
        TensorChecks.elementWise(ty, tg, ti);
        MemorySegment y = ty.segment, g = tg.segment, d = ti.segment;
        int n = ty.n;
        switch (f) {
            case IDENTITY -> {
                if (!ti.sameElements(tg)) {
                    MemorySegment.copy(g, 0, d, 0, 4L * n);
                }
            }
            case RELU -> {
                // Staging through heap tiles (as in activation) gained nothing here: the select
                // does not vectorise either way.
                for (int i = 0; i < n; i++) {
                    d.setAtIndex(F, i, g.getAtIndex(F, i) * (y.getAtIndex(F, i) > 0 ? 1f : 0f));
                }
            }
            case SIGMOID -> {
                for (int i = 0; i < n; i++) {
                    float v = y.getAtIndex(F, i);
                    d.setAtIndex(F, i, g.getAtIndex(F, i) * (v * (1f - v)));
                }
            }
            case TANH -> {
                for (int i = 0; i < n; i++) {
                    float v = y.getAtIndex(F, i);
                    d.setAtIndex(F, i, g.getAtIndex(F, i) * (1f - v * v));
                }
            }
        }
    }

    // ---------------------------------------------------------------- losses

    @Override
    public float softmaxCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad) {
        Nd4jTensor tl = t(logits), ty = t(targets);
        Nd4jTensor tp = probs == null ? null : t(probs);
        Nd4jTensor tg = grad == null ? null : t(grad);
        TensorChecks.loss(tl, ty, tp, tg);
        int batch = tl.rows, classes = tl.cols;
        if (lossScratch.length < 2 * classes) {
            lossScratch = new double[2 * classes];
        }
        double[] s = lossScratch; // s[j]: logit j; s[classes + j]: exp(logit j - max)
        MemorySegment x = tl.segment, y = ty.segment;
        MemorySegment p = tp == null ? null : tp.segment, g = tg == null ? null : tg.segment;
        double total = 0;
        // Every read of row i happens before any write to row i, so probs/grad may alias the inputs.
        for (int i = 0; i < batch; i++) {
            long row = (long) i * classes;
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < classes; j++) {
                double v = x.getAtIndex(F, row + j);
                s[j] = v;
                max = Math.max(max, v);
            }
            double z = 0;
            for (int j = 0; j < classes; j++) {
                double e = Math.exp(s[j] - max);
                s[classes + j] = e;
                z += e;
            }
            double logZ = Math.log(z) + max;
            for (int j = 0; j < classes; j++) {
                float yj = y.getAtIndex(F, row + j);
                if (yj != 0) {
                    total -= yj * (s[j] - logZ);
                }
                double pj = s[classes + j] / z;
                if (p != null) p.setAtIndex(F, row + j, (float) pj);
                if (g != null) g.setAtIndex(F, row + j, (float) ((pj - yj) / batch));
            }
        }
        return (float) (total / batch);
    }

    @Override
    public float sigmoidCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad) {
        Nd4jTensor tl = t(logits), ty = t(targets);
        Nd4jTensor tp = probs == null ? null : t(probs);
        Nd4jTensor tg = grad == null ? null : t(grad);
        TensorChecks.loss(tl, ty, tp, tg);
        MemorySegment xs = tl.segment, ys = ty.segment;
        MemorySegment p = tp == null ? null : tp.segment, g = tg == null ? null : tg.segment;
        int n = tl.n;
        double total = 0;
        for (int i = 0; i < n; i++) {
            double x = xs.getAtIndex(F, i), y = ys.getAtIndex(F, i);
            double e = Math.exp(-Math.abs(x));
            total += Math.max(x, 0) - x * y + Math.log1p(e);
            double s = x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
            if (p != null) p.setAtIndex(F, i, (float) s);
            if (g != null) g.setAtIndex(F, i, (float) ((s - y) / n));
        }
        return (float) (total / n);
    }

    // ---------------------------------------------------------------- convolution and pooling

    /** Runs shorter than this many floats are copied by a loop; {@code MemorySegment.copy} costs more. */
    private static final int COPY_LOOP_MAX = 16;

    private static void copyRun(MemorySegment src, long from, MemorySegment dst, long to, int count) {
        if (count < COPY_LOOP_MAX) {
            for (int i = 0; i < count; i++) {
                dst.setAtIndex(F, to + i, src.getAtIndex(F, from + i));
            }
        } else {
            MemorySegment.copy(src, F, 4 * from, dst, F, 4 * to, count);
        }
    }

    private static void zeroRun(MemorySegment dst, long to, int count) {
        for (int i = 0; i < count; i++) {
            dst.setAtIndex(F, to + i, 0f);
        }
    }

    @Override
    public void im2col(Tensor images, ConvGeometry g, Tensor cols) {
        Nd4jTensor ti = t(images), tc = t(cols);
        TensorChecks.conv(ti, g, tc);
        if (ti.overlaps(tc)) {
            throw new IllegalArgumentException("im2col output must not alias the images");
        }
        MemorySegment src = ti.segment, dst = tc.segment;
        int oh = g.outHeight(), ow = g.outWidth(), c = g.channels(), kw = g.kernelWidth();
        int rowLength = kw * c;
        long at = 0;
        for (int n = 0; n < ti.rows; n++) {
            long image = (long) n * g.inputSize();
            for (int oy = 0; oy < oh; oy++) {
                for (int ox = 0; ox < ow; ox++) {
                    int ix0 = ox * g.stride() - g.padding();
                    int kxLo = Math.max(0, -ix0), kxHi = Math.min(kw, g.width() - ix0);
                    for (int ky = 0; ky < g.kernelHeight(); ky++) {
                        int iy = oy * g.stride() - g.padding() + ky;
                        if (iy < 0 || iy >= g.height() || kxLo >= kxHi) {
                            zeroRun(dst, at, rowLength);
                        } else {
                            zeroRun(dst, at, kxLo * c);
                            copyRun(
                                    src,
                                    image + ((long) iy * g.width() + ix0 + kxLo) * c,
                                    dst,
                                    at + (long) kxLo * c,
                                    (kxHi - kxLo) * c);
                            zeroRun(dst, at + (long) kxHi * c, (kw - kxHi) * c);
                        }
                        at += rowLength;
                    }
                }
            }
        }
    }

    @Override
    public void col2im(Tensor cols, ConvGeometry g, Tensor images) {
        Nd4jTensor ti = t(images), tc = t(cols);
        TensorChecks.conv(ti, g, tc);
        if (ti.overlaps(tc)) {
            throw new IllegalArgumentException("col2im output must not alias the columns");
        }
        MemorySegment src = tc.segment, dst = ti.segment;
        dst.fill((byte) 0);
        int oh = g.outHeight(), ow = g.outWidth(), c = g.channels(), kw = g.kernelWidth();
        int rowLength = kw * c;
        long at = 0;
        // Same visiting order as the reference, so each pixel sums its contributions in the same order.
        for (int n = 0; n < ti.rows; n++) {
            long image = (long) n * g.inputSize();
            for (int oy = 0; oy < oh; oy++) {
                for (int ox = 0; ox < ow; ox++) {
                    int ix0 = ox * g.stride() - g.padding();
                    int kxLo = Math.max(0, -ix0), kxHi = Math.min(kw, g.width() - ix0);
                    for (int ky = 0; ky < g.kernelHeight(); ky++) {
                        int iy = oy * g.stride() - g.padding() + ky;
                        if (iy >= 0 && iy < g.height() && kxLo < kxHi) {
                            long to = image + ((long) iy * g.width() + ix0 + kxLo) * c;
                            long from = at + (long) kxLo * c;
                            int count = (kxHi - kxLo) * c;
                            for (int i = 0; i < count; i++) {
                                dst.setAtIndex(F, to + i, dst.getAtIndex(F, to + i) + src.getAtIndex(F, from + i));
                            }
                        }
                        at += rowLength;
                    }
                }
            }
        }
    }

    @Override
    public void maxPool(Tensor in, PoolGeometry g, Tensor out, Tensor argmax) {
        Nd4jTensor ti = t(in), to = t(out), ta = t(argmax);
        TensorChecks.maxPool(ti, g, to, ta);
        if (to.overlaps(ti) || ta.overlaps(ti) || ta.overlaps(to)) {
            throw new IllegalArgumentException("max pool outputs must not alias each other or the input");
        }
        MemorySegment x = ti.segment, y = to.segment, idx = ta.segment;
        int c = g.channels(), w = g.width(), size = g.size(), stride = g.stride();
        int ow = g.outWidth(), oh = g.outHeight();
        for (int n = 0; n < ti.rows; n++) {
            long inRow = (long) n * ti.cols, outRow = (long) n * to.cols;
            for (int oy = 0; oy < oh; oy++) {
                for (int ox = 0; ox < ow; ox++) {
                    for (int ch = 0; ch < c; ch++) {
                        float best = Float.NEGATIVE_INFINITY;
                        int bestIndex = -1;
                        for (int ky = 0; ky < size; ky++) {
                            int base = ((oy * stride + ky) * w + ox * stride) * c + ch;
                            for (int kx = 0; kx < size; kx++) {
                                int p = base + kx * c;
                                float v = x.getAtIndex(F, inRow + p);
                                if (bestIndex < 0 || v > best) {
                                    best = v;
                                    bestIndex = p;
                                }
                            }
                        }
                        long o = outRow + (oy * ow + ox) * c + ch;
                        y.setAtIndex(F, o, best);
                        idx.setAtIndex(F, o, bestIndex);
                    }
                }
            }
        }
    }

    @Override
    public void maxPoolBackward(Tensor gradOut, Tensor argmax, PoolGeometry g, Tensor gradIn) {
        Nd4jTensor tg = t(gradOut), ta = t(argmax), ti = t(gradIn);
        TensorChecks.maxPoolBackward(tg, ta, g, ti);
        if (ti.overlaps(tg) || ti.overlaps(ta)) {
            throw new IllegalArgumentException("max pool backward output must not alias an input");
        }
        MemorySegment go = tg.segment, idx = ta.segment, gi = ti.segment;
        gi.fill((byte) 0);
        int inputSize = g.inputSize();
        for (int n = 0; n < tg.rows; n++) {
            long outRow = (long) n * tg.cols, inRow = (long) n * inputSize;
            for (int o = 0; o < tg.cols; o++) {
                float at = idx.getAtIndex(F, outRow + o);
                int p = (int) at;
                if (p != at || p < 0 || p >= inputSize) {
                    throw new IllegalArgumentException(
                            "argmax " + at + " at row " + n + " is not an index into an input row of " + inputSize);
                }
                gi.setAtIndex(F, inRow + p, gi.getAtIndex(F, inRow + p) + go.getAtIndex(F, outRow + o));
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
        Nd4jTensor p = t(params), g = t(grads);
        TensorChecks.sameSize(p, g);
        Nd4jTensor v = momentum == 0f ? null : t(velocity);
        if (v != null) {
            TensorChecks.sameSize(p, v);
            if (v.overlaps(p) || v.overlaps(g)) {
                throw new IllegalArgumentException("SGD velocity must not alias the parameters or gradients");
            }
        }
        equalOrDisjoint(p, g);
        int n = p.n;
        if (n == 0) {
            return;
        }
        blasThreads(n);
        // Two to five BLAS passes (sscal, saxpy at ~25 us each over 270k floats) beat one fused
        // scalar Java pass (~110 us); OpenBLAS's saxpby is avoided, being as slow as three passes.
        long pa = p.address(), ga = g.address();
        float decay = 1f - learningRate * weightDecay;
        if (v == null) {
            // p -= lr * (g + wd*p)  ==  p = (1 - lr*wd) * p - lr * g
            if (weightDecay != 0f) {
                OpenBlas.sscal(n, decay, pa);
            }
            OpenBlas.saxpy(n, -learningRate, ga, pa);
            return;
        }
        long va = v.address();
        // v = momentum*v + g + wd*p, with the parameters before the step
        OpenBlas.sscal(n, momentum, va);
        OpenBlas.saxpy(n, 1f, ga, va);
        if (weightDecay != 0f) {
            OpenBlas.saxpy(n, weightDecay, pa, va);
        }
        if (nesterov) {
            // p -= lr * (g + wd*p + momentum*v)
            if (weightDecay != 0f) {
                OpenBlas.sscal(n, decay, pa);
            }
            OpenBlas.saxpy(n, -learningRate, ga, pa);
            OpenBlas.saxpy(n, -learningRate * momentum, va, pa);
        } else {
            OpenBlas.saxpy(n, -learningRate, va, pa);
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
        Nd4jTensor tp = t(params), tg = t(grads), tm = t(m), tv = t(v);
        TensorChecks.adamState(tp, tg, tm, tv);
        MemorySegment p = tp.segment, g = tg.segment, ms = tm.segment, vs = tv.segment;
        float stepSize = (float) (learningRate / (1 - Math.pow(beta1, step)));
        float invBc2Sqrt = (float) (1 / Math.sqrt(1 - Math.pow(beta2, step)));
        float oneMinusB1 = 1 - beta1, oneMinusB2 = 1 - beta2;
        // Staged through L1-sized heap tiles: C2 vectorises this loop over float[] (0.14 ns per
        // element) but not over native segments (4.5 ns per element with sqrt and division), and
        // the copies in and out are memcpy.
        float[] tp0 = tiles[0], tg0 = tiles[1], tm0 = tiles[2], tv0 = tiles[3];
        for (int start = 0; start < tp.n; start += TILE) {
            int len = Math.min(TILE, tp.n - start);
            long at = 4L * start;
            MemorySegment.copy(p, F, at, tp0, 0, len);
            MemorySegment.copy(g, F, at, tg0, 0, len);
            MemorySegment.copy(ms, F, at, tm0, 0, len);
            MemorySegment.copy(vs, F, at, tv0, 0, len);
            for (int i = 0; i < len; i++) {
                float pi = tp0[i];
                float gi = tg0[i] + weightDecay * pi;
                float mi = beta1 * tm0[i] + oneMinusB1 * gi;
                float vi = beta2 * tv0[i] + oneMinusB2 * gi * gi;
                tm0[i] = mi;
                tv0[i] = vi;
                tp0[i] = pi - stepSize * mi / ((float) Math.sqrt(vi) * invBc2Sqrt + epsilon);
            }
            MemorySegment.copy(tm0, 0, ms, F, at, len);
            MemorySegment.copy(tv0, 0, vs, F, at, len);
            MemorySegment.copy(tp0, 0, p, F, at, len);
        }
    }

    /** Closes every tensor this backend still holds; later use of them or of the backend fails. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Nd4jTensor> roots;
        synchronized (live) {
            roots = new ArrayList<>(live);
        }
        for (Nd4jTensor root : roots) {
            root.close();
        }
        ones = null;
    }

    @Override
    public String toString() {
        return "Nd4jBackend[threads=" + threads + ", " + blasDescription() + "]";
    }
}
