package dev.chorus.gpu;

import dev.chorus.gpu.kernel.ActivationCode;
import dev.chorus.gpu.kernel.Kernel;
import dev.chorus.gpu.kernel.KernelArgs;
import dev.chorus.gpu.kernel.LaunchShape;
import dev.chorus.gpu.memory.AllocationStats;
import dev.chorus.gpu.memory.CachingAllocator;
import dev.chorus.gpu.memory.DeviceAllocator;
import dev.chorus.gpu.memory.DeviceBuffer;
import dev.chorus.gpu.memory.DeviceScope;
import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.ConvGeometry;
import dev.chorus.learning.tensor.PoolGeometry;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorChecks;
import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The tensor SPI on one CUDA device. Tensors live in device memory for their whole life: a model's
 * parameters, gradients and optimizer state stay on the device across steps, and the only traffic
 * with the host is what the SPI's signatures demand: {@code copyFromHost} (a batch, its labels),
 * {@code copyToHost} (the flat parameter vector when the averaging engine asks for it, through
 * page-locked memory), and the scalars that reductions and losses return.
 *
 * <p>Every op queues its work on the device's one stream and returns without waiting, except the
 * ops that return a value to the host. Matrix products go to cuBLAS; everything else runs the
 * kernels of {@code src/main/cuda}, fused where the SPI allows: one pass for the optimizer updates,
 * one for a loss with its gradient and probabilities.
 *
 * <p>Memory: tensors are allocated in the current {@link DeviceScope} (the backend's root scope
 * unless {@link #openScope()} opened a nested one), through a {@link CachingAllocator} over the
 * device's {@code cuMemAlloc}. Closing a tensor frees its memory at once; closing a scope frees
 * what is left in it; closing the backend frees everything.
 */
public final class CudaBackend implements TensorBackend {

    /** Row-chunk size of the column-sum kernel, and its cap on partial sums (doubles). */
    private static final int SUM_ROWS_CHUNK = 256;

    private static final long SUM_ROWS_MAX_PARTIALS = 1L << 22;

    private final CudaDevice device;
    private final CachingAllocator allocator;
    private final DeviceScope root;
    private final Deque<DeviceScope> scopes = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();
    private final KernelArgs args;
    private final HostStaging staging;
    private final int maxBlocks;
    private final int reduceBlocks;
    private final float[] scalar = new float[1];
    private GemmPrecision precision;
    private DeviceBuffer partials;
    private DeviceBuffer result;
    private boolean closed;

    /**
     * A backend on {@code device}, which it owns and closes.
     *
     * @param precision how {@link #gemm} multiplies; see {@link GemmPrecision}
     */
    public CudaBackend(CudaDevice device, GemmPrecision precision) {
        this(device, device.allocator(), precision);
    }

    /** As above, with device memory from {@code rawAllocator} (tests count what passes through it). */
    CudaBackend(CudaDevice device, DeviceAllocator rawAllocator, GemmPrecision precision) {
        this.device = device;
        this.precision = precision;
        this.allocator = new CachingAllocator(rawAllocator);
        this.root = new DeviceScope(allocator);
        this.scopes.push(root);
        this.args = new KernelArgs(arena);
        this.staging = new HostStaging(device);
        int sms = Math.max(1, device.multiprocessors());
        // Grid-stride kernels: enough blocks for several waves of full occupancy (8 blocks of 256
        // threads per multiprocessor), few enough that each thread handles several elements.
        this.maxBlocks = sms * 32;
        this.reduceBlocks = sms * 4;
        this.result = root.allocate(16);
    }

    @Override
    public String name() {
        return "cuda";
    }

    /** One host thread drives the device. */
    @Override
    public int threads() {
        return 1;
    }

    /** The device, e.g. {@code NVIDIA H200 (132 multiprocessors)}. */
    public String deviceDescription() {
        return device.description();
    }

    public GemmPrecision gemmPrecision() {
        return precision;
    }

    /** Changes how later {@link #gemm} calls multiply. */
    public void setGemmPrecision(GemmPrecision precision) {
        this.precision = java.util.Objects.requireNonNull(precision);
    }

    /** Device memory counters: blocks from the device, reuses, bytes live and cached. */
    public AllocationStats allocationStats() {
        return allocator.stats();
    }

    /** Host-device traffic and launches since the device was opened. */
    public TransferStats transferStats() {
        return device.stats();
    }

    /**
     * Opens a scope nested in the current one: tensors created until it is closed belong to it and
     * are freed with it (unless closed earlier).
     */
    public DeviceScope openScope() {
        enter();
        DeviceScope s = currentScope().child();
        scopes.push(s);
        return s;
    }

    private DeviceScope currentScope() {
        while (!scopes.peek().isOpen() && scopes.peek() != root) {
            scopes.pop();
        }
        return scopes.peek();
    }

    /** Waits until all queued work has run (for timing). */
    public void synchronize() {
        enter();
        device.synchronize();
    }

    private void enter() {
        if (closed) {
            throw new IllegalStateException("the CUDA backend is closed");
        }
        device.bind();
    }

    // ---------------------------------------------------------------- checks

    private CudaTensor t(Tensor x) {
        return TensorChecks.owned(x, CudaTensor.class, this);
    }

    private LaunchShape linear(long n) {
        return LaunchShape.linear(n, maxBlocks);
    }

    // ---------------------------------------------------------------- storage

    private CudaTensor allocate(int rows, int cols) {
        DeviceBuffer b = currentScope().allocate(4L * TensorChecks.checkedSize(rows, cols));
        return new CudaTensor(this, b, 0, rows, cols, true);
    }

    @Override
    public Tensor zeros(int rows, int cols) {
        enter();
        CudaTensor t = allocate(rows, cols);
        if (t.n() > 0) {
            device.fill32(t.address(), 0, t.n());
        }
        return t;
    }

    @Override
    public Tensor fromHost(float[] data, int rows, int cols) {
        enter();
        TensorChecks.hostRange(data, 0, TensorChecks.checkedSize(rows, cols));
        CudaTensor t = allocate(rows, cols);
        if (t.n() > 0) {
            staging.upload(data, 0, t.address(), (int) t.n());
        }
        return t;
    }

    @Override
    public Tensor view(Tensor base, long offset, int rows, int cols) {
        CudaTensor b = t(base);
        TensorChecks.viewRange(b, offset, rows, cols);
        return new CudaTensor(this, b.storage, b.offset + offset, rows, cols, false);
    }

    @Override
    public void copyFromHost(float[] src, int srcOffset, Tensor dst) {
        enter();
        CudaTensor d = t(dst);
        TensorChecks.hostRange(src, srcOffset, d.n());
        if (d.n() > 0) {
            staging.upload(src, srcOffset, d.address(), (int) d.n());
        }
    }

    @Override
    public void copyToHost(Tensor src, float[] dst, int dstOffset) {
        enter();
        CudaTensor s = t(src);
        TensorChecks.hostRange(dst, dstOffset, s.n());
        if (s.n() > 0) {
            staging.download(s.address(), dst, dstOffset, (int) s.n());
        }
    }

    @Override
    public void copy(Tensor src, Tensor dst) {
        enter();
        CudaTensor s = t(src), d = t(dst);
        TensorChecks.sameSize(s, d);
        if (s.n() == 0 || (s.storage == d.storage && s.offset == d.offset)) {
            return;
        }
        if (s.overlaps(d)) {
            // Overlapping device-to-device copies are undefined; go through a temporary.
            try (CudaTensor tmp = allocate(1, (int) s.n())) {
                device.copyOnDevice(s.address(), tmp.address(), 4 * s.n());
                device.copyOnDevice(tmp.address(), d.address(), 4 * s.n());
            }
            return;
        }
        device.copyOnDevice(s.address(), d.address(), 4 * s.n());
    }

    @Override
    public void fill(Tensor x, float value) {
        enter();
        CudaTensor a = t(x);
        if (a.n() > 0) {
            device.fill32(a.address(), Float.floatToRawIntBits(value), a.n());
        }
    }

    // ---------------------------------------------------------------- BLAS

    /**
     * Row-major {@code C = alpha op(A) op(B) + beta C} through column-major cuBLAS: a row-major
     * matrix is its transpose in column-major order, so cuBLAS is asked for {@code C^T = alpha
     * op(B)^T op(A)^T + beta C^T}, i.e. the operands swapped, with no copy or transpose. Leading
     * dimensions are the row-major column counts.
     */
    @Override
    public void gemm(boolean transA, boolean transB, float alpha, Tensor a, Tensor b, float beta, Tensor c) {
        enter();
        CudaTensor ta = t(a), tb = t(b), tc = t(c);
        int k = TensorChecks.gemm(transA, transB, ta, tb, tc, CudaTensor::overlaps);
        int m = tc.rows(), n = tc.cols();
        if (m == 0 || n == 0) {
            return;
        }
        if (k == 0) {
            scaleOrZero(beta, tc);
            return;
        }
        device.gemmColumnMajor(
                precision,
                transB,
                transA,
                n,
                m,
                k,
                alpha,
                tb.address(),
                Math.max(1, tb.cols()),
                ta.address(),
                Math.max(1, ta.cols()),
                beta,
                tc.address(),
                Math.max(1, tc.cols()));
    }

    /** {@code x = beta * x}, with {@code beta == 0} writing zeros whatever x held (even NaN). */
    private void scaleOrZero(float beta, CudaTensor x) {
        if (beta == 0f) {
            device.fill32(x.address(), 0, x.n());
        } else {
            device.launch(
                    linear(x.n()),
                    args.begin(Kernel.SCALE).ptr(x.address()).f32(beta).i64(x.n()));
        }
    }

    @Override
    public void axpy(float alpha, Tensor x, Tensor y) {
        enter();
        CudaTensor tx = t(x), ty = t(y);
        TensorChecks.sameSize(tx, ty);
        if (tx.n() == 0) {
            return;
        }
        device.launch(
                linear(tx.n()),
                args.begin(Kernel.AXPY)
                        .f32(alpha)
                        .ptr(tx.address())
                        .ptr(ty.address())
                        .i64(tx.n()));
    }

    @Override
    public void scale(float alpha, Tensor x) {
        enter();
        CudaTensor tx = t(x);
        if (tx.n() == 0) {
            return;
        }
        device.launch(
                linear(tx.n()),
                args.begin(Kernel.SCALE).ptr(tx.address()).f32(alpha).i64(tx.n()));
    }

    @Override
    public float dot(Tensor x, Tensor y) {
        enter();
        CudaTensor tx = t(x), ty = t(y);
        TensorChecks.sameSize(tx, ty);
        return reduce(tx, ty);
    }

    @Override
    public float sum(Tensor x) {
        enter();
        return reduce(t(x), null);
    }

    @Override
    public float sumOfSquares(Tensor x) {
        enter();
        CudaTensor tx = t(x);
        return reduce(tx, tx);
    }

    /** Sum of {@code x[i] * y[i]} (of {@code x[i]} when y is null), in two deterministic passes. */
    private float reduce(CudaTensor x, CudaTensor y) {
        if (x.n() == 0) {
            return 0f;
        }
        LaunchShape shape = LaunchShape.linear(x.n(), reduceBlocks);
        long partialsAt = partials(shape.gridX());
        device.launch(
                shape,
                args.begin(Kernel.DOT_PARTIAL)
                        .ptr(x.address())
                        .ptr(y == null ? 0 : y.address())
                        .i64(x.n())
                        .ptr(partialsAt));
        return finishSum(partialsAt, shape.gridX(), 1.0);
    }

    /** Adds {@code count} double partials on the device, scales, and returns the float result. */
    private float finishSum(long partialsAt, int count, double scaleBy) {
        device.launch(
                new LaunchShape(1, 1, Kernel.BLOCK, 1),
                args.begin(Kernel.FINISH_SUM)
                        .ptr(partialsAt)
                        .i32(count)
                        .f64(scaleBy)
                        .ptr(result.address()));
        staging.download(result.address(), scalar, 0, 1);
        return scalar[0];
    }

    /** The scratch buffer of partial sums, grown to at least {@code doubles}; its address. */
    private long partials(long doubles) {
        long bytes = 8 * Math.max(1, doubles);
        if (partials == null || partials.bytes() < bytes) {
            if (partials != null) {
                partials.close();
            }
            partials = root.allocate(Math.max(bytes, 8L * 4096));
        }
        return partials.address();
    }

    // ---------------------------------------------------------------- element-wise

    private void binary(Kernel k, Tensor a, Tensor b, Tensor out) {
        enter();
        CudaTensor ta = t(a), tb = t(b), to = t(out);
        TensorChecks.elementWise(ta, tb, to);
        if (ta.n() == 0) {
            return;
        }
        device.launch(
                linear(ta.n()),
                args.begin(k)
                        .ptr(ta.address())
                        .ptr(tb.address())
                        .ptr(to.address())
                        .i64(ta.n()));
    }

    @Override
    public void add(Tensor a, Tensor b, Tensor out) {
        binary(Kernel.ADD, a, b, out);
    }

    @Override
    public void sub(Tensor a, Tensor b, Tensor out) {
        binary(Kernel.SUB, a, b, out);
    }

    @Override
    public void mul(Tensor a, Tensor b, Tensor out) {
        binary(Kernel.MUL, a, b, out);
    }

    @Override
    public void addRowVector(Tensor m, Tensor row) {
        enter();
        CudaTensor tm = t(m), tr = t(row);
        TensorChecks.rowVector(tm, tr);
        if (tm.n() == 0) {
            return;
        }
        device.launch(
                linear(tm.n()),
                args.begin(Kernel.ADD_ROW_VECTOR)
                        .ptr(tm.address())
                        .ptr(tr.address())
                        .i32(tm.rows())
                        .i32(tm.cols()));
    }

    @Override
    public void sumRows(Tensor m, float beta, Tensor out) {
        enter();
        CudaTensor tm = t(m), to = t(out);
        TensorChecks.columnSums(tm, to);
        int rows = tm.rows(), cols = tm.cols();
        if (cols == 0) {
            return;
        }
        if (rows == 0) {
            scaleOrZero(beta, to);
            return;
        }
        long chunks = (rows + SUM_ROWS_CHUNK - 1) / SUM_ROWS_CHUNK;
        chunks = Math.max(1, Math.min(chunks, Math.min(LaunchShape.MAX_GRID_Y, SUM_ROWS_MAX_PARTIALS / cols)));
        int rowsPerChunk = (int) ((rows + chunks - 1) / chunks);
        long partialsAt = partials(chunks * cols);
        device.launch(
                new LaunchShape((cols + 31) / 32, (int) chunks, 32, 8),
                args.begin(Kernel.SUM_ROWS_PARTIAL)
                        .ptr(tm.address())
                        .i32(rows)
                        .i32(cols)
                        .i32(rowsPerChunk)
                        .ptr(partialsAt));
        device.launch(
                linear(cols),
                args.begin(Kernel.SUM_ROWS_FINISH)
                        .ptr(partialsAt)
                        .i32((int) chunks)
                        .i32(cols)
                        .f32(beta)
                        .ptr(to.address()));
    }

    @Override
    public void activation(Activation f, Tensor in, Tensor out) {
        enter();
        CudaTensor ti = t(in), to = t(out);
        TensorChecks.sameShape(ti, to);
        if (ti.n() == 0) {
            return;
        }
        if (f == Activation.IDENTITY) {
            copy(ti, to);
            return;
        }
        device.launch(
                linear(ti.n()),
                args.begin(Kernel.ACTIVATION)
                        .i32(ActivationCode.of(f))
                        .ptr(ti.address())
                        .ptr(to.address())
                        .i64(ti.n()));
    }

    @Override
    public void activationBackward(Activation f, Tensor out, Tensor gradOut, Tensor gradIn) {
        enter();
        CudaTensor y = t(out), go = t(gradOut), gi = t(gradIn);
        TensorChecks.elementWise(y, go, gi);
        if (y.n() == 0) {
            return;
        }
        device.launch(
                linear(y.n()),
                args.begin(Kernel.ACTIVATION_BACKWARD)
                        .i32(ActivationCode.of(f))
                        .ptr(y.address())
                        .ptr(go.address())
                        .ptr(gi.address())
                        .i64(y.n()));
    }

    // ---------------------------------------------------------------- losses

    @Override
    public float softmaxCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad) {
        enter();
        CudaTensor tl = t(logits), ty = t(targets);
        CudaTensor tp = probs == null ? null : t(probs);
        CudaTensor tg = grad == null ? null : t(grad);
        TensorChecks.loss(tl, ty, tp, tg);
        int rows = tl.rows(), cols = tl.cols();
        if (rows == 0) {
            return Float.NaN; // the mean over no rows, as the reference computes it
        }
        long rowLoss = partials(rows);
        int rowsPerBlock = Kernel.BLOCK / 32;
        device.launch(
                new LaunchShape((rows + rowsPerBlock - 1) / rowsPerBlock, 1, Kernel.BLOCK, 1),
                args.begin(Kernel.SOFTMAX_XENT)
                        .ptr(tl.address())
                        .ptr(ty.address())
                        .ptr(tp == null ? 0 : tp.address())
                        .ptr(tg == null ? 0 : tg.address())
                        .i32(rows)
                        .i32(cols)
                        .f32(1f / rows)
                        .ptr(rowLoss));
        return finishSum(rowLoss, rows, 1.0 / rows);
    }

    @Override
    public float sigmoidCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad) {
        enter();
        CudaTensor tl = t(logits), ty = t(targets);
        CudaTensor tp = probs == null ? null : t(probs);
        CudaTensor tg = grad == null ? null : t(grad);
        TensorChecks.loss(tl, ty, tp, tg);
        long n = tl.n();
        if (n == 0) {
            return Float.NaN;
        }
        LaunchShape shape = LaunchShape.linear(n, reduceBlocks);
        long partialsAt = partials(shape.gridX());
        device.launch(
                shape,
                args.begin(Kernel.SIGMOID_XENT)
                        .ptr(tl.address())
                        .ptr(ty.address())
                        .ptr(tp == null ? 0 : tp.address())
                        .ptr(tg == null ? 0 : tg.address())
                        .i64(n)
                        .f32((float) (1.0 / n))
                        .ptr(partialsAt));
        return finishSum(partialsAt, shape.gridX(), 1.0 / n);
    }

    // ---------------------------------------------------------------- convolution and pooling

    /**
     * {@code in} itself, or a copy of it when it shares memory with one of {@code outs}: the
     * gather kernels below read many input elements per output element, so they cannot run in
     * place.
     */
    private CudaTensor unaliased(CudaTensor in, CudaTensor... outs) {
        for (CudaTensor out : outs) {
            if (in.overlaps(out)) {
                CudaTensor copy = allocate(in.rows(), in.cols());
                device.copyOnDevice(in.address(), copy.address(), 4 * in.n());
                return copy;
            }
        }
        return in;
    }

    private static void release(CudaTensor maybeCopy, CudaTensor original) {
        if (maybeCopy != original) {
            maybeCopy.close();
        }
    }

    @Override
    public void im2col(Tensor images, ConvGeometry g, Tensor cols) {
        enter();
        CudaTensor ti = t(images), tc = t(cols);
        TensorChecks.conv(ti, g, tc);
        if (tc.n() == 0) {
            return;
        }
        CudaTensor src = unaliased(ti, tc);
        try {
            device.launch(linear(tc.n()), convArgs(Kernel.IM2COL, src, g, ti.rows(), tc));
        } finally {
            release(src, ti);
        }
    }

    @Override
    public void col2im(Tensor cols, ConvGeometry g, Tensor images) {
        enter();
        CudaTensor ti = t(images), tc = t(cols);
        TensorChecks.conv(ti, g, tc);
        if (ti.n() == 0) {
            return;
        }
        CudaTensor src = unaliased(tc, ti);
        try {
            device.launch(linear(ti.n()), convArgs(Kernel.COL2IM, src, g, ti.rows(), ti));
        } finally {
            release(src, tc);
        }
    }

    private KernelArgs convArgs(Kernel k, CudaTensor in, ConvGeometry g, int batch, CudaTensor out) {
        return args.begin(k)
                .ptr(in.address())
                .i32(batch)
                .i32(g.height())
                .i32(g.width())
                .i32(g.channels())
                .i32(g.kernelHeight())
                .i32(g.kernelWidth())
                .i32(g.stride())
                .i32(g.padding())
                .i32(g.outHeight())
                .i32(g.outWidth())
                .ptr(out.address());
    }

    @Override
    public void maxPool(Tensor in, PoolGeometry g, Tensor out, Tensor argmax) {
        enter();
        CudaTensor ti = t(in), to = t(out), ta = t(argmax);
        TensorChecks.maxPool(ti, g, to, ta);
        if (to.n() == 0) {
            return;
        }
        CudaTensor src = unaliased(ti, to, ta);
        try {
            device.launch(
                    linear(to.n()),
                    args.begin(Kernel.MAX_POOL)
                            .ptr(src.address())
                            .i32(ti.rows())
                            .i32(g.height())
                            .i32(g.width())
                            .i32(g.channels())
                            .i32(g.size())
                            .i32(g.stride())
                            .i32(g.outHeight())
                            .i32(g.outWidth())
                            .ptr(to.address())
                            .ptr(ta.address()));
        } finally {
            release(src, ti);
        }
    }

    @Override
    public void maxPoolBackward(Tensor gradOut, Tensor argmax, PoolGeometry g, Tensor gradIn) {
        enter();
        CudaTensor tg = t(gradOut), ta = t(argmax), ti = t(gradIn);
        TensorChecks.maxPoolBackward(tg, ta, g, ti);
        if (ti.n() == 0) {
            return;
        }
        CudaTensor go = unaliased(tg, ti);
        CudaTensor am = unaliased(ta, ti);
        try {
            device.launch(
                    linear(ti.n()),
                    args.begin(Kernel.MAX_POOL_BACKWARD)
                            .ptr(go.address())
                            .ptr(am.address())
                            .i32(ti.rows())
                            .i32(g.height())
                            .i32(g.width())
                            .i32(g.channels())
                            .i32(g.size())
                            .i32(g.stride())
                            .i32(g.outHeight())
                            .i32(g.outWidth())
                            .ptr(ti.address()));
        } finally {
            release(go, tg);
            release(am, ta);
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
        enter();
        CudaTensor p = t(params), g = t(grads);
        TensorChecks.sameSize(p, g);
        CudaTensor v = momentum == 0f ? null : t(velocity);
        if (v != null) TensorChecks.sameSize(p, v);
        if (p.n() == 0) {
            return;
        }
        device.launch(
                linear(p.n()),
                args.begin(Kernel.SGD)
                        .ptr(p.address())
                        .ptr(g.address())
                        .ptr(v == null ? 0 : v.address())
                        .i64(p.n())
                        .f32(learningRate)
                        .f32(momentum)
                        .f32(weightDecay)
                        .i32(nesterov ? 1 : 0));
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
        enter();
        TensorChecks.adamStep(step);
        CudaTensor p = t(params), g = t(grads), tm = t(m), tv = t(v);
        TensorChecks.adamState(p, g, tm, tv);
        if (p.n() == 0) {
            return;
        }
        double bc1 = 1 - Math.pow(beta1, step);
        double bc2Sqrt = Math.sqrt(1 - Math.pow(beta2, step));
        device.launch(
                linear(p.n()),
                args.begin(Kernel.ADAM)
                        .ptr(p.address())
                        .ptr(g.address())
                        .ptr(tm.address())
                        .ptr(tv.address())
                        .i64(p.n())
                        .f32((float) (learningRate / bc1))
                        .f32(beta1)
                        .f32(beta2)
                        .f32(epsilon)
                        .f32(weightDecay)
                        .f32((float) bc2Sqrt));
    }

    // ---------------------------------------------------------------- life cycle

    /**
     * Waits for the device, frees every tensor and scratch buffer, returns the cached memory and
     * closes the device. Tensors of this backend are unusable afterwards. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        device.bind();
        closed = true;
        try {
            device.synchronize();
            staging.close();
            root.close();
            allocator.close();
        } finally {
            try {
                device.close();
            } finally {
                arena.close();
            }
        }
    }
}
