package dev.chorus.gpu;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import java.lang.foreign.MemorySegment;

/**
 * Java transcriptions of the kernels in {@code src/main/cuda}, run by {@link FakeCuda} on its
 * emulated device memory. Each reads its arguments by position, in the order of the {@code
 * extern "C"} signature, and walks the grid the launch asked for (blocks, then threads, each
 * thread running the kernel's own loop), so that a wrong argument order, a wrong size or a grid
 * that the kernel cannot cover shows up as a wrong result or an out-of-bounds access. Float
 * arithmetic is Java's, which is IEEE single precision like the device's; {@code fmaf} is {@link
 * Math#fma}, {@code expf} and friends are the double functions rounded to float.
 */
final class EmulatedKernels {

    /** Grid and block of a launch. */
    record Grid(int gridX, int gridY, int blockX, int blockY) {
        int threads() {
            return blockX * blockY;
        }
    }

    /** Decoded launch arguments: Long (.u64), Integer (.u32), Float (.f32), Double (.f64). */
    record Args(Object[] values) {
        long ptr(int i) {
            return (Long) values[i];
        }

        long i64(int i) {
            return (Long) values[i];
        }

        int i32(int i) {
            return (Integer) values[i];
        }

        float f32(int i) {
            return (Float) values[i];
        }

        double f64(int i) {
            return (Double) values[i];
        }
    }

    /** Float32 device memory. */
    record Floats(MemorySegment segment) {
        float get(long i) {
            return segment.getAtIndex(JAVA_FLOAT, i);
        }

        void set(long i, float v) {
            segment.setAtIndex(JAVA_FLOAT, i, v);
        }
    }

    /** Float64 device memory. */
    record Doubles(MemorySegment segment) {
        double get(long i) {
            return segment.getAtIndex(JAVA_DOUBLE, i);
        }

        void set(long i, double v) {
            segment.setAtIndex(JAVA_DOUBLE, i, v);
        }
    }

    private static final int BLOCK = 256;

    private final FakeCuda cuda;

    EmulatedKernels(FakeCuda cuda) {
        this.cuda = cuda;
    }

    private interface Element {
        void at(long i);
    }

    /** Runs a grid-stride loop over {@code n} elements as every thread of the grid would. */
    private static void gridStride(Grid g, long n, Element body) {
        if (g.blockX() != BLOCK || g.blockY() != 1 || g.gridY() != 1) {
            throw new IllegalStateException("one-dimensional kernels run with 256-thread blocks, got " + g);
        }
        long stride = (long) g.blockX() * g.gridX();
        for (long block = 0; block < g.gridX(); block++) {
            for (int t = 0; t < g.blockX(); t++) {
                for (long i = block * g.blockX() + t; i < n; i += stride) {
                    body.at(i);
                }
            }
        }
    }

    private Floats f(long ptr, long count) {
        return cuda.floats(ptr, count);
    }

    void run(String name, Grid g, Args a) {
        switch (name) {
            case "chorus_add", "chorus_sub", "chorus_mul" -> {
                long n = a.i64(3);
                Floats x = f(a.ptr(0), n), y = f(a.ptr(1), n), out = f(a.ptr(2), n);
                gridStride(
                        g,
                        n,
                        i -> out.set(
                                i,
                                switch (name) {
                                    case "chorus_add" -> x.get(i) + y.get(i);
                                    case "chorus_sub" -> x.get(i) - y.get(i);
                                    default -> x.get(i) * y.get(i);
                                }));
            }
            case "chorus_scale" -> {
                long n = a.i64(2);
                float alpha = a.f32(1);
                Floats x = f(a.ptr(0), n);
                gridStride(g, n, i -> x.set(i, alpha * x.get(i)));
            }
            case "chorus_axpy" -> {
                long n = a.i64(3);
                float alpha = a.f32(0);
                Floats x = f(a.ptr(1), n), y = f(a.ptr(2), n);
                gridStride(g, n, i -> y.set(i, Math.fma(alpha, x.get(i), y.get(i))));
            }
            case "chorus_add_row_vector" -> {
                int rows = a.i32(2), cols = a.i32(3);
                long n = (long) rows * cols;
                Floats m = f(a.ptr(0), n), row = f(a.ptr(1), cols);
                gridStride(g, n, i -> m.set(i, m.get(i) + row.get(i % cols)));
            }
            case "chorus_activation" -> {
                int kind = a.i32(0);
                long n = a.i64(3);
                Floats in = f(a.ptr(1), n), out = f(a.ptr(2), n);
                gridStride(g, n, i -> out.set(i, activate(kind, in.get(i))));
            }
            case "chorus_activation_backward" -> {
                int kind = a.i32(0);
                long n = a.i64(4);
                Floats y = f(a.ptr(1), n), gradOut = f(a.ptr(2), n), gradIn = f(a.ptr(3), n);
                gridStride(g, n, i -> gradIn.set(i, gradOut.get(i) * derivative(kind, y.get(i))));
            }
            case "chorus_dot_partial" -> dotPartial(g, a);
            case "chorus_finish_sum" -> finishSum(g, a);
            case "chorus_sum_rows_partial" -> sumRowsPartial(g, a);
            case "chorus_sum_rows_finish" -> {
                int chunks = a.i32(1), cols = a.i32(2);
                float beta = a.f32(3);
                Doubles partials = cuda.doubles(a.ptr(0), (long) chunks * cols);
                Floats out = f(a.ptr(4), cols);
                gridStride(g, cols, j -> {
                    double total = 0;
                    for (int c = 0; c < chunks; c++) {
                        total += partials.get((long) c * cols + j);
                    }
                    if (beta != 0f) {
                        total += (double) beta * out.get(j);
                    }
                    out.set(j, (float) total);
                });
            }
            case "chorus_softmax_xent" -> softmax(g, a);
            case "chorus_sigmoid_xent" -> sigmoid(g, a);
            case "chorus_im2col" -> im2col(g, a);
            case "chorus_col2im" -> col2im(g, a);
            case "chorus_max_pool" -> maxPool(g, a);
            case "chorus_max_pool_backward" -> maxPoolBackward(g, a);
            case "chorus_sgd" -> {
                long n = a.i64(3);
                float lr = a.f32(4), momentum = a.f32(5), decay = a.f32(6);
                boolean nesterov = a.i32(7) != 0;
                Floats p = f(a.ptr(0), n), grad = f(a.ptr(1), n), v = f(a.ptr(2), n);
                gridStride(g, n, i -> {
                    float pi = p.get(i);
                    float gi = grad.get(i) + decay * pi;
                    float step = gi;
                    if (v != null) {
                        float vi = momentum * v.get(i) + gi;
                        v.set(i, vi);
                        step = nesterov ? gi + momentum * vi : vi;
                    }
                    p.set(i, pi - lr * step);
                });
            }
            case "chorus_adam" -> {
                long n = a.i64(4);
                float stepSize = a.f32(5), b1 = a.f32(6), b2 = a.f32(7), eps = a.f32(8), decay = a.f32(9);
                float bc2Sqrt = a.f32(10);
                Floats p = f(a.ptr(0), n), grad = f(a.ptr(1), n), m = f(a.ptr(2), n), v = f(a.ptr(3), n);
                gridStride(g, n, i -> {
                    float pi = p.get(i);
                    float gi = grad.get(i) + decay * pi;
                    float mi = b1 * m.get(i) + (1f - b1) * gi;
                    float vi = b2 * v.get(i) + (1f - b2) * gi * gi;
                    m.set(i, mi);
                    v.set(i, vi);
                    p.set(i, pi - stepSize * mi / ((float) Math.sqrt(vi) / bc2Sqrt + eps));
                });
            }
            default -> throw new IllegalStateException("no emulation of kernel " + name);
        }
    }

    private static float activate(int kind, float x) {
        return switch (kind) {
            case 1 -> x > 0f ? x : 0f;
            case 2 -> 1f / (1f + (float) Math.exp(-x));
            case 3 -> (float) Math.tanh(x);
            default -> x;
        };
    }

    private static float derivative(int kind, float y) {
        return switch (kind) {
            case 1 -> y > 0f ? 1f : 0f;
            case 2 -> y * (1f - y);
            case 3 -> 1f - y * y;
            default -> 1f;
        };
    }

    /** Each block's threads accumulate their grid-stride share; the block's sum goes to partials. */
    private void dotPartial(Grid g, Args a) {
        long n = a.i64(2);
        Floats x = f(a.ptr(0), n), y = f(a.ptr(1), n);
        Doubles partials = cuda.doubles(a.ptr(3), g.gridX());
        if (g.blockX() != BLOCK || g.gridY() != 1) {
            throw new IllegalStateException("reduction launched with " + g);
        }
        long stride = (long) BLOCK * g.gridX();
        for (int block = 0; block < g.gridX(); block++) {
            double total = 0;
            for (int t = 0; t < BLOCK; t++) {
                double acc = 0;
                for (long i = (long) block * BLOCK + t; i < n; i += stride) {
                    acc += y == null ? x.get(i) : (double) x.get(i) * y.get(i);
                }
                total += acc;
            }
            partials.set(block, total);
        }
    }

    private void finishSum(Grid g, Args a) {
        int count = a.i32(1);
        double scale = a.f64(2);
        Doubles partials = cuda.doubles(a.ptr(0), count);
        Floats result = f(a.ptr(3), 1);
        if (g.gridX() != 1 || g.gridY() != 1 || g.blockX() != BLOCK) {
            throw new IllegalStateException("finish_sum runs as one block of 256, got " + g);
        }
        double total = 0;
        for (int t = 0; t < BLOCK; t++) {
            double acc = 0;
            for (int i = t; i < count; i += BLOCK) {
                acc += partials.get(i);
            }
            total += acc;
        }
        result.set(0, (float) (scale * total));
    }

    private void sumRowsPartial(Grid g, Args a) {
        int rows = a.i32(1), cols = a.i32(2), rowsPerChunk = a.i32(3);
        if (g.blockX() != 32 || g.blockY() != 8) {
            throw new IllegalStateException("sum_rows_partial runs with 32x8 blocks, got " + g);
        }
        Floats m = f(a.ptr(0), (long) rows * cols);
        Doubles partials = cuda.doubles(a.ptr(4), (long) g.gridY() * cols);
        for (int by = 0; by < g.gridY(); by++) {
            for (int bx = 0; bx < g.gridX(); bx++) {
                double[][] sums = new double[8][32];
                long first = (long) by * rowsPerChunk;
                long end = Math.min(first + rowsPerChunk, rows);
                for (int ty = 0; ty < 8; ty++) {
                    for (int tx = 0; tx < 32; tx++) {
                        int column = bx * 32 + tx;
                        double acc = 0;
                        if (column < cols) {
                            for (long r = first + ty; r < end; r += 8) {
                                acc += m.get(r * cols + column);
                            }
                        }
                        sums[ty][tx] = acc;
                    }
                }
                for (int tx = 0; tx < 32; tx++) {
                    int column = bx * 32 + tx;
                    if (column < cols) {
                        double total = 0;
                        for (int k = 0; k < 8; k++) {
                            total += sums[k][tx];
                        }
                        partials.set((long) by * cols + column, total);
                    }
                }
            }
        }
    }

    /** One warp (32 lanes) per row, 8 rows per 256-thread block. */
    private void softmax(Grid g, Args a) {
        int rows = a.i32(4), cols = a.i32(5);
        float invBatch = a.f32(6);
        long n = (long) rows * cols;
        Floats logits = f(a.ptr(0), n), targets = f(a.ptr(1), n), probs = f(a.ptr(2), n), grad = f(a.ptr(3), n);
        Doubles rowLoss = cuda.doubles(a.ptr(7), rows);
        if (g.blockX() != BLOCK || g.blockY() != 1 || g.gridY() != 1) {
            throw new IllegalStateException("softmax runs with 256-thread blocks, got " + g);
        }
        for (int block = 0; block < g.gridX(); block++) {
            for (int warp = 0; warp < BLOCK / 32; warp++) {
                long row = (long) block * (BLOCK / 32) + warp;
                if (row >= rows) {
                    continue;
                }
                long base = row * cols;
                float max = Float.NEGATIVE_INFINITY;
                for (int j = 0; j < cols; j++) {
                    max = Math.max(max, logits.get(base + j));
                }
                float z = 0f;
                for (int j = 0; j < cols; j++) {
                    z += (float) Math.exp(logits.get(base + j) - max);
                }
                double logZ = Math.log(z) + max;
                float invZ = 1f / z;
                double loss = 0;
                for (int j = 0; j < cols; j++) {
                    float xj = logits.get(base + j), yj = targets.get(base + j);
                    if (yj != 0f) {
                        loss -= (double) yj * ((double) xj - logZ);
                    }
                    float p = (float) Math.exp(xj - max) * invZ;
                    if (probs != null) {
                        probs.set(base + j, p);
                    }
                    if (grad != null) {
                        grad.set(base + j, (p - yj) * invBatch);
                    }
                }
                rowLoss.set(row, loss);
            }
        }
        // Rows past the grid would be skipped on the device too; make that visible.
        if ((long) g.gridX() * (BLOCK / 32) < rows) {
            throw new IllegalStateException(
                    "softmax grid of " + g.gridX() + " blocks covers fewer than " + rows + " rows");
        }
    }

    private void sigmoid(Grid g, Args a) {
        long n = a.i64(4);
        float invN = a.f32(5);
        Floats logits = f(a.ptr(0), n), targets = f(a.ptr(1), n), probs = f(a.ptr(2), n), grad = f(a.ptr(3), n);
        Doubles partials = cuda.doubles(a.ptr(6), g.gridX());
        long stride = (long) BLOCK * g.gridX();
        for (int block = 0; block < g.gridX(); block++) {
            double total = 0;
            for (int t = 0; t < BLOCK; t++) {
                for (long i = (long) block * BLOCK + t; i < n; i += stride) {
                    float x = logits.get(i), y = targets.get(i);
                    total += (double) Math.max(x, 0f)
                            - (double) x * y
                            + (double) (float) Math.log1p(Math.exp(-Math.abs(x)));
                    float s = 1f / (1f + (float) Math.exp(-x));
                    if (probs != null) {
                        probs.set(i, s);
                    }
                    if (grad != null) {
                        grad.set(i, (s - y) * invN);
                    }
                }
            }
            partials.set(block, total);
        }
    }

    private void im2col(Grid g, Args a) {
        int batch = a.i32(1), height = a.i32(2), width = a.i32(3), channels = a.i32(4), kh = a.i32(5), kw = a.i32(6);
        int stride = a.i32(7), pad = a.i32(8), outH = a.i32(9), outW = a.i32(10);
        long taps = (long) kh * kw * channels;
        long n = (long) batch * outH * outW * taps;
        Floats images = f(a.ptr(0), (long) batch * height * width * channels), cols = f(a.ptr(11), n);
        gridStride(g, n, i -> {
            long row = i / taps;
            int tap = (int) (i - row * taps);
            int ch = tap % channels;
            int kx = (tap / channels) % kw;
            int ky = tap / (channels * kw);
            int ox = (int) (row % outW);
            int oy = (int) ((row / outW) % outH);
            long image = row / ((long) outW * outH);
            int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            float v = 0f;
            if (iy >= 0 && iy < height && ix >= 0 && ix < width) {
                v = images.get(image * height * width * channels + ((long) iy * width + ix) * channels + ch);
            }
            cols.set(i, v);
        });
    }

    private void col2im(Grid g, Args a) {
        int batch = a.i32(1), height = a.i32(2), width = a.i32(3), channels = a.i32(4), kh = a.i32(5), kw = a.i32(6);
        int stride = a.i32(7), pad = a.i32(8), outH = a.i32(9), outW = a.i32(10);
        long pixels = (long) height * width * channels;
        long n = batch * pixels;
        long taps = (long) kh * kw * channels;
        Floats cols = f(a.ptr(0), (long) batch * outH * outW * taps), images = f(a.ptr(11), n);
        gridStride(g, n, i -> {
            long image = i / pixels;
            int p = (int) (i - image * pixels);
            int ch = p % channels;
            int ix = (p / channels) % width;
            int iy = p / (channels * width);
            int ay = iy + pad - kh + 1, ax = ix + pad - kw + 1;
            int oyLo = ay <= 0 ? 0 : (ay + stride - 1) / stride;
            int oyHi = Math.min((iy + pad) / stride, outH - 1);
            int oxLo = ax <= 0 ? 0 : (ax + stride - 1) / stride;
            int oxHi = Math.min((ix + pad) / stride, outW - 1);
            float sum = 0f;
            for (int oy = oyLo; oy <= oyHi; oy++) {
                int ky = iy + pad - oy * stride;
                for (int ox = oxLo; ox <= oxHi; ox++) {
                    int kx = ix + pad - ox * stride;
                    long row = (image * outH + oy) * outW + ox;
                    sum += cols.get(row * taps + ((long) ky * kw + kx) * channels + ch);
                }
            }
            images.set(i, sum);
        });
    }

    private void maxPool(Grid g, Args a) {
        int batch = a.i32(1), height = a.i32(2), width = a.i32(3), channels = a.i32(4), size = a.i32(5);
        int stride = a.i32(6), outH = a.i32(7), outW = a.i32(8);
        long outputs = (long) outH * outW * channels, inputs = (long) height * width * channels;
        long n = batch * outputs;
        Floats in = f(a.ptr(0), batch * inputs), out = f(a.ptr(9), n), argmax = f(a.ptr(10), n);
        gridStride(g, n, i -> {
            long image = i / outputs;
            int o = (int) (i - image * outputs);
            int ch = o % channels;
            int ox = (o / channels) % outW;
            int oy = o / (channels * outW);
            float best = 0f;
            int bestIndex = -1;
            for (int ky = 0; ky < size; ky++) {
                for (int kx = 0; kx < size; kx++) {
                    int p = ((oy * stride + ky) * width + ox * stride + kx) * channels + ch;
                    float v = in.get(image * inputs + p);
                    if (bestIndex < 0 || v > best) {
                        best = v;
                        bestIndex = p;
                    }
                }
            }
            out.set(i, best);
            argmax.set(i, bestIndex);
        });
    }

    private void maxPoolBackward(Grid g, Args a) {
        int batch = a.i32(2), height = a.i32(3), width = a.i32(4), channels = a.i32(5), size = a.i32(6);
        int stride = a.i32(7), outH = a.i32(8), outW = a.i32(9);
        long inputs = (long) height * width * channels, outputs = (long) outH * outW * channels;
        long n = batch * inputs;
        Floats gradOut = f(a.ptr(0), batch * outputs), argmax = f(a.ptr(1), batch * outputs);
        Floats gradIn = f(a.ptr(10), n);
        gridStride(g, n, i -> {
            long image = i / inputs;
            int p = (int) (i - image * inputs);
            int ch = p % channels;
            int ix = (p / channels) % width;
            int iy = p / (channels * width);
            int oyLo = iy < size ? 0 : (iy - size) / stride + 1;
            int oyHi = Math.min(iy / stride, outH - 1);
            int oxLo = ix < size ? 0 : (ix - size) / stride + 1;
            int oxHi = Math.min(ix / stride, outW - 1);
            float sum = 0f;
            for (int oy = oyLo; oy <= oyHi; oy++) {
                for (int ox = oxLo; ox <= oxHi; ox++) {
                    long o = image * outputs + ((long) oy * outW + ox) * channels + ch;
                    if ((int) argmax.get(o) == p) {
                        sum += gradOut.get(o);
                    }
                }
            }
            gradIn.set(i, sum);
        });
    }
}
