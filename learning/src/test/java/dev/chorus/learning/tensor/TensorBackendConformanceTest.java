package dev.chorus.learning.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract every {@link TensorBackend} must meet: each SPI operation runs on seeded random
 * inputs in the backend under test and in {@link ReferenceBackend}, and the results must agree
 * within the tolerances below. Subclass it and implement {@link #backendUnderTest()}; other modules
 * reach it through this module's test-jar.
 *
 * <p>Inputs cover 1xN and Nx1 vectors, odd sizes, every transpose of GEMM, tensors that are views at
 * non-zero offsets of one flat buffer (with guard elements around them that must stay untouched),
 * outputs that alias inputs where the SPI allows it, and GEMM/sumRows with {@code beta == 0} over a
 * NaN-filled output. Every failure message carries the seed; run with {@code -Dchorus.seed=N} to
 * replay one seed.
 *
 * <p>Tolerances. {@code U = 2^-23} is twice the float unit roundoff.
 *
 * <ul>
 *   <li>Sums of products (gemm, dot, sum, sumOfSquares, sumRows, col2im): the classical bound for
 *       any summation order, {@code |computed - exact| <= gamma_k * sum|terms|} with {@code gamma_k
 *       ~ k u} (Higham, <i>Accuracy and Stability of Numerical Algorithms</i>, 2nd ed., section
 *       3.1). The test computes {@code sum|terms|} by running the reference op on absolute values and
 *       allows {@code (k + 2) * U} times it: a blocked, FMA-using or differently ordered BLAS stays
 *       inside, a wrong index or a dropped term does not.
 *   <li>Single-rounding element-wise ops (add, sub, mul, scale, axpy, addRowVector, copies, relu,
 *       pooling, im2col): {@code 2 U} relative to the operands' magnitude, which admits an FMA in
 *       place of a multiply-then-add and nothing else.
 *   <li>Transcendentals and losses (sigmoid, tanh, softmax, sigmoid cross-entropy): relative {@code
 *       1e-5} plus absolute {@code 1e-6}; the reference evaluates them in double, a backend may use
 *       float {@code exp}, whose error is a few ulp, i.e. around {@code 1e-6} relative.
 *   <li>Optimizer steps: relative {@code 1e-5} plus absolute {@code 1e-6} per step on values of order
 *       one; reordering {@code p - lr*(g + wd*p)} into {@code (1 - lr*wd)*p - lr*g} costs a few
 *       roundings, while a wrong term moves a parameter by {@code lr * g ~ 1e-2}.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TensorBackendConformanceTest {

    private static final double U = 0x1p-23;
    private static final double LOOSE_REL = 1e-5;
    private static final double LOOSE_ABS = 1e-6;

    /** The backend to check; called once per test class, and closed after the class. */
    protected abstract TensorBackend backendUnderTest();

    private TensorBackend backend;
    private final ReferenceBackend oracle = new ReferenceBackend();

    @BeforeAll
    void openBackend() {
        backend = backendUnderTest();
    }

    @AfterAll
    void closeBackend() {
        if (backend != null) {
            backend.close();
        }
    }

    /** Seeds of the random inputs; {@code -Dchorus.seed=N} runs only seed N. */
    static LongStream seeds() {
        String one = System.getProperty("chorus.seed");
        if (one != null && !one.isBlank()) {
            return LongStream.of(Long.parseLong(one.trim()));
        }
        return LongStream.of(1L, 42L, 20240611L, 0x5EEDL);
    }

    // ================================================================ fixtures

    /** The same data as a tensor in the backend under test and in the reference backend. */
    private final class Twin {
        final Tensor under;
        final Tensor ref;
        final Flat flat;

        Twin(Tensor under, Tensor ref, Flat flat) {
            this.under = under;
            this.ref = ref;
            this.flat = flat;
        }

        int rows() {
            return ref.rows();
        }

        int cols() {
            return ref.cols();
        }

        float[] actual() {
            float[] out = new float[(int) under.size()];
            backend.copyToHost(under, out, 0);
            return out;
        }

        float[] expected() {
            float[] out = new float[(int) ref.size()];
            oracle.copyToHost(ref, out, 0);
            return out;
        }

        void set(float[] values) {
            backend.copyFromHost(values, 0, under);
            oracle.copyFromHost(values, 0, ref);
        }
    }

    /**
     * One base buffer per backend holding several tensors as views, each at a random non-zero
     * offset, with random guard elements between and around them that no op may change.
     */
    private final class Flat {
        final Tensor underBase;
        final Tensor refBase;
        final float[] initial;
        final boolean[] covered;

        Flat(Tensor underBase, Tensor refBase, float[] initial, boolean[] covered) {
            this.underBase = underBase;
            this.refBase = refBase;
            this.initial = initial;
            this.covered = covered;
        }

        void checkGuards(long seed, String what) {
            float[] now = new float[initial.length];
            backend.copyToHost(underBase, now, 0);
            for (int i = 0; i < initial.length; i++) {
                if (!covered[i] && Float.floatToRawIntBits(now[i]) != Float.floatToRawIntBits(initial[i])) {
                    fail(
                            "seed=%d %s: element %d outside every view changed from %s to %s",
                            seed, what, i, initial[i], now[i]);
                }
            }
        }
    }

    private final List<Twin> opened = new ArrayList<>();

    /** Standalone tensors (or, when {@code asViews}, views of one flat buffer) with random contents. */
    private Twin[] make(Random rnd, boolean asViews, int[]... shapes) {
        Twin[] out = new Twin[shapes.length];
        if (!asViews) {
            for (int s = 0; s < shapes.length; s++) {
                float[] data = randoms(rnd, shapes[s][0] * shapes[s][1], 1f);
                out[s] = new Twin(
                        backend.fromHost(data, shapes[s][0], shapes[s][1]),
                        oracle.fromHost(data, shapes[s][0], shapes[s][1]),
                        null);
                opened.add(out[s]);
            }
            return out;
        }
        long[] offsets = new long[shapes.length];
        int total = 0;
        for (int s = 0; s < shapes.length; s++) {
            total += 1 + rnd.nextInt(17);
            offsets[s] = total;
            total += shapes[s][0] * shapes[s][1];
        }
        total += 1 + rnd.nextInt(17);
        float[] data = randoms(rnd, total, 1f);
        boolean[] covered = new boolean[total];
        Tensor underBase = backend.fromHost(data, 1, total);
        Tensor refBase = oracle.fromHost(data, 1, total);
        Flat flat = new Flat(underBase, refBase, data.clone(), covered);
        for (int s = 0; s < shapes.length; s++) {
            int rows = shapes[s][0], cols = shapes[s][1];
            Arrays.fill(covered, (int) offsets[s], (int) offsets[s] + rows * cols, true);
            out[s] = new Twin(
                    backend.view(underBase, offsets[s], rows, cols),
                    oracle.view(refBase, offsets[s], rows, cols),
                    flat);
        }
        opened.add(new Twin(underBase, refBase, null));
        return out;
    }

    private Twin make1(Random rnd, boolean asView, int rows, int cols) {
        return make(rnd, asView, new int[] {rows, cols})[0];
    }

    private void release() {
        for (Twin t : opened) {
            t.under.close();
        }
        opened.clear();
    }

    private static float[] randoms(Random rnd, int n, float scale) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (rnd.nextFloat() * 2 - 1) * scale;
        }
        return a;
    }

    private static int[] shape(int rows, int cols) {
        return new int[] {rows, cols};
    }

    // ================================================================ comparison

    private static void checkGuards(long seed, String what, Twin... ts) {
        for (Twin t : ts) {
            if (t.flat != null) {
                t.flat.checkGuards(seed, what);
            }
        }
    }

    /** {@code |actual - expected| <= bound[i]} element by element; NaN must meet NaN. */
    private static void assertWithin(long seed, String what, float[] expected, float[] actual, double[] bound) {
        assertThat(actual.length).as("seed=%d %s: length", seed, what).isEqualTo(expected.length);
        for (int i = 0; i < expected.length; i++) {
            float e = expected[i], a = actual[i];
            if (Float.isNaN(e) || Float.isNaN(a)) {
                if (Float.isNaN(e) != Float.isNaN(a)) {
                    fail("seed=%d %s: element %d is %s, expected %s", seed, what, i, a, e);
                }
                continue;
            }
            if (Float.isInfinite(e) || Float.isInfinite(a)) {
                if (e != a) {
                    fail("seed=%d %s: element %d is %s, expected %s", seed, what, i, a, e);
                }
                continue;
            }
            double err = Math.abs((double) a - e);
            if (!(err <= bound[i])) {
                fail(
                        "seed=%d %s: element %d is %s, expected %s (error %.3g > tolerance %.3g)",
                        seed, what, i, a, e, err, bound[i]);
            }
        }
    }

    private static void assertClose(long seed, String what, float[] expected, float[] actual, double rel, double abs) {
        double[] bound = new double[expected.length];
        for (int i = 0; i < bound.length; i++) {
            bound[i] = abs + rel * Math.abs(expected[i]);
        }
        assertWithin(seed, what, expected, actual, bound);
    }

    private static void assertClose(long seed, String what, float expected, float actual, double rel, double abs) {
        assertClose(seed, what, new float[] {expected}, new float[] {actual}, rel, abs);
    }

    /** Within {@code terms * U} of the reference, relative to the sums of magnitudes {@code magnitude}. */
    private static void assertSummed(
            long seed, String what, float[] expected, float[] actual, float[] magnitude, int terms) {
        double[] bound = new double[expected.length];
        for (int i = 0; i < bound.length; i++) {
            bound[i] = (terms + 2) * U * magnitude[i] + Float.MIN_NORMAL;
        }
        assertWithin(seed, what, expected, actual, bound);
    }

    private static void assertSameBits(long seed, String what, float[] expected, float[] actual) {
        assertClose(seed, what, expected, actual, 0, 0);
    }

    private static float[] abs(float[] a) {
        float[] out = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = Math.abs(a[i]);
        }
        return out;
    }

    private static void assertRejected(String what, ThrowingCallable call) {
        assertThatThrownBy(call)
                .as(what)
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage())
                        .as("%s: one-line message", what)
                        .isNotBlank()
                        .doesNotContain("\n"));
    }

    // ================================================================ storage

    @ParameterizedTest
    @MethodSource("seeds")
    void storageRoundTripsThroughHostAndViews(long seed) {
        Random rnd = new Random(seed);
        try {
            int rows = 1 + rnd.nextInt(9), cols = 1 + rnd.nextInt(40);
            Tensor z = backend.zeros(rows, cols);
            assertThat(z.rows()).isEqualTo(rows);
            assertThat(z.cols()).isEqualTo(cols);
            assertThat(z.size()).isEqualTo((long) rows * cols);
            assertThat(z.backend()).isSameAs(backend);
            float[] host = new float[rows * cols];
            Arrays.fill(host, Float.NaN);
            backend.copyToHost(z, host, 0);
            assertSameBits(seed, "zeros", new float[rows * cols], host);
            z.close();

            for (int[] s : new int[][] {{1, 1}, {1, 37}, {29, 1}, {rows, cols}}) {
                Twin[] ab = make(rnd, true, s, s);
                Twin a = ab[0], b = ab[1];
                assertSameBits(seed, "view contents", a.expected(), a.actual());

                float[] fresh = randoms(rnd, 3 + s[0] * s[1], 5f);
                int srcOffset = 1 + rnd.nextInt(2);
                backend.copyFromHost(fresh, srcOffset, a.under);
                oracle.copyFromHost(fresh, srcOffset, a.ref);
                float[] back = new float[2 + s[0] * s[1]];
                backend.copyToHost(a.under, back, 2);
                assertSameBits(
                        seed,
                        "copyToHost at an offset",
                        Arrays.copyOfRange(fresh, srcOffset, srcOffset + s[0] * s[1]),
                        Arrays.copyOfRange(back, 2, back.length));

                backend.copy(a.under, b.under);
                oracle.copy(a.ref, b.ref);
                assertSameBits(seed, "copy", b.expected(), b.actual());

                backend.fill(a.under, -2.5f);
                oracle.fill(a.ref, -2.5f);
                assertSameBits(seed, "fill", a.expected(), a.actual());
                backend.fill(b.under, 0f);
                oracle.fill(b.ref, 0f);
                assertSameBits(seed, "fill with zero", b.expected(), b.actual());
                checkGuards(seed, "copy/fill on views", a, b);
            }

            // A view of a view, and writes through it seen through the base.
            Twin base = make1(rnd, false, 4, 10);
            Tensor inner = backend.view(backend.view(base.under, 7, 3, 8), 5, 2, 3);
            Tensor innerRef = oracle.view(oracle.view(base.ref, 7, 3, 8), 5, 2, 3);
            float[] six = {1, 2, 3, 4, 5, 6};
            backend.copyFromHost(six, 0, inner);
            oracle.copyFromHost(six, 0, innerRef);
            assertSameBits(seed, "write through a view of a view", base.expected(), base.actual());

            // A reshaping view: the same 12 elements seen as 3x4 and 4x3.
            Twin flat = make1(rnd, false, 1, 12);
            Tensor r34 = backend.view(flat.under, 0, 3, 4);
            Tensor r43 = backend.view(flat.under, 0, 4, 3);
            float[] x34 = new float[12], x43 = new float[12];
            backend.copyToHost(r34, x34, 0);
            backend.copyToHost(r43, x43, 0);
            assertSameBits(seed, "reshaping views share storage", x34, x43);
        } finally {
            release();
        }
    }

    @Test
    void badStorageRequestsAreRejected() {
        Random rnd = new Random(7);
        try {
            Twin a = make1(rnd, false, 3, 4);
            assertRejected("view past the end", () -> backend.view(a.under, 5, 2, 4));
            assertRejected("view at a negative offset", () -> backend.view(a.under, -1, 1, 1));
            assertRejected("negative shape", () -> backend.zeros(-1, 3));
            assertRejected("copy between sizes", () -> backend.copy(a.under, backend.zeros(2, 2)));
            Tensor foreign = oracle.zeros(3, 4);
            assertRejected("a tensor of another backend", () -> backend.copy(foreign, a.under));
            assertThatThrownBy(() -> backend.copyFromHost(new float[5], 0, a.under))
                    .as("host array too short")
                    .isInstanceOf(RuntimeException.class);
        } finally {
            release();
        }
    }

    // ================================================================ BLAS

    @ParameterizedTest
    @MethodSource("seeds")
    void gemmMatchesReferenceForEveryTransposeAndShape(long seed) {
        Random rnd = new Random(seed);
        List<int[]> shapes = new ArrayList<>(List.of(
                new int[] {1, 1, 1},
                new int[] {1, 17, 5},
                new int[] {5, 17, 1},
                new int[] {7, 1, 9},
                new int[] {1, 300, 64},
                new int[] {33, 65, 17},
                new int[] {64, 129, 31},
                new int[] {128, 64, 1}));
        for (int r = 0; r < 3; r++) {
            shapes.add(new int[] {1 + rnd.nextInt(80), 1 + rnd.nextInt(80), 1 + rnd.nextInt(80)});
        }
        try {
            for (int[] mkn : shapes) {
                int m = mkn[0], k = mkn[1], n = mkn[2];
                for (int variant = 0; variant < 4; variant++) {
                    boolean transA = (variant & 1) != 0, transB = (variant & 2) != 0;
                    int[] sa = transA ? shape(k, m) : shape(m, k);
                    int[] sb = transB ? shape(n, k) : shape(k, n);
                    boolean asViews = rnd.nextBoolean();
                    Twin[] abc = make(rnd, asViews, sa, sb, shape(m, n));
                    Twin a = abc[0], b = abc[1], c = abc[2];
                    float[][] alphaBeta = {{1f, 0f}, {-0.5f, 1f}, {rnd.nextFloat() * 4 - 2, 0.25f}};
                    for (float[] ab : alphaBeta) {
                        float alpha = ab[0], beta = ab[1];
                        float[] prior = randoms(rnd, m * n, 1f);
                        if (beta == 0f) {
                            Arrays.fill(prior, Float.NaN);
                        }
                        c.set(prior);
                        backend.gemm(transA, transB, alpha, a.under, b.under, beta, c.under);
                        oracle.gemm(transA, transB, alpha, a.ref, b.ref, beta, c.ref);
                        String what = String.format(
                                "gemm(transA=%s, transB=%s, m=%d, k=%d, n=%d, alpha=%s, beta=%s, views=%s)",
                                transA, transB, m, k, n, alpha, beta, asViews);
                        assertSummed(
                                seed,
                                what,
                                c.expected(),
                                c.actual(),
                                gemmMagnitude(transA, transB, alpha, a, b, beta, prior, m, n),
                                k);
                        checkGuards(seed, what, a, b, c);
                    }
                }
                release();
            }
        } finally {
            release();
        }
    }

    /** {@code |alpha| |op(A)| |op(B)| + |beta| |C|}, by the reference backend. */
    private float[] gemmMagnitude(
            boolean transA, boolean transB, float alpha, Twin a, Twin b, float beta, float[] prior, int m, int n) {
        try (Tensor absA = oracle.fromHost(abs(a.expected()), a.rows(), a.cols());
                Tensor absB = oracle.fromHost(abs(b.expected()), b.rows(), b.cols());
                Tensor out = oracle.fromHost(beta == 0f ? new float[m * n] : abs(prior), m, n)) {
            oracle.gemm(transA, transB, Math.abs(alpha), absA, absB, Math.abs(beta), out);
            float[] mag = new float[m * n];
            oracle.copyToHost(out, mag, 0);
            return mag;
        }
    }

    @Test
    void gemmRejectsMismatchedShapesAndAliasedOutput() {
        Random rnd = new Random(11);
        try {
            Twin[] t = make(rnd, true, shape(3, 4), shape(4, 5), shape(3, 5), shape(5, 4));
            Tensor a = t[0].under, b = t[1].under, c = t[2].under, d = t[3].under;
            backend.gemm(false, false, 1f, a, b, 0f, c); // the well-formed call passes
            assertRejected("inner dimensions differ", () -> backend.gemm(false, false, 1f, a, d, 0f, c));
            assertRejected("output of the wrong shape", () -> backend.gemm(false, true, 1f, a, b, 0f, c));
            assertRejected("transposed A of the wrong shape", () -> backend.gemm(true, false, 1f, a, b, 0f, c));
            Tensor square = backend.zeros(4, 4);
            assertRejected("output equal to A", () -> backend.gemm(false, false, 1f, square, square, 0f, square));
            Tensor base = backend.zeros(1, 40);
            Tensor x = backend.view(base, 0, 4, 4),
                    y = backend.view(base, 16, 4, 4),
                    overlap = backend.view(base, 10, 4, 4);
            backend.gemm(false, false, 1f, x, x, 0f, y); // disjoint views of one buffer are fine
            assertRejected("output overlapping B", () -> backend.gemm(false, false, 1f, x, y, 0f, overlap));
            square.close();
            base.close();
        } finally {
            release();
        }
    }

    @Test
    void emptyTensorsAndEmptyInnerDimensionsAreHandled() {
        Random rnd = new Random(13);
        try {
            Twin[] t = make(rnd, false, shape(3, 0), shape(0, 4), shape(3, 4), shape(0, 4), shape(1, 4));
            Twin a = t[0], b = t[1], c = t[2], noRows = t[3], sums = t[4];
            c.set(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
            backend.gemm(false, false, 1f, a.under, b.under, 0.5f, c.under);
            oracle.gemm(false, false, 1f, a.ref, b.ref, 0.5f, c.ref);
            assertSameBits(0, "gemm with k == 0 scales C by beta", c.expected(), c.actual());
            float[] nan = new float[12];
            Arrays.fill(nan, Float.NaN);
            c.set(nan);
            backend.gemm(false, false, 1f, a.under, b.under, 0f, c.under);
            assertSameBits(0, "gemm with k == 0 and beta == 0 zeroes C", new float[12], c.actual());

            sums.set(new float[] {Float.NaN, 1, 2, 3});
            backend.sumRows(noRows.under, 0f, sums.under);
            assertSameBits(0, "sumRows over no rows, beta == 0", new float[4], sums.actual());
            sums.set(new float[] {1, 2, 3, 4});
            backend.sumRows(noRows.under, 2f, sums.under);
            assertSameBits(0, "sumRows over no rows, beta == 2", new float[] {2, 4, 6, 8}, sums.actual());

            assertThat(backend.sum(noRows.under)).isZero();
            assertThat(backend.dot(noRows.under, noRows.under)).isZero();
            backend.add(noRows.under, noRows.under, noRows.under);
            backend.activation(Activation.SIGMOID, noRows.under, noRows.under);
            backend.sgdStep(noRows.under, noRows.under, null, 0.1f, 0f, 0f, false);
        } finally {
            release();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void vectorOpsMatchReference(long seed) {
        Random rnd = new Random(seed);
        try {
            for (int[] s : new int[][] {{1, 1}, {1, 2}, {17, 1}, {1, 256}, {3, 333 + rnd.nextInt(700)}}) {
                int n = s[0] * s[1];
                boolean asViews = rnd.nextBoolean();
                Twin[] xy = make(rnd, asViews, s, s);
                Twin x = xy[0], y = xy[1];
                String shape = s[0] + "x" + s[1] + (asViews ? " views" : "");
                float alpha = rnd.nextFloat() * 4 - 2;

                float[] x0 = x.expected(), y0 = y.expected();
                backend.axpy(alpha, x.under, y.under);
                oracle.axpy(alpha, x.ref, y.ref);
                float[] mag = new float[n];
                for (int i = 0; i < n; i++) {
                    mag[i] = Math.abs(y0[i]) + Math.abs(alpha * x0[i]);
                }
                assertSummed(seed, "axpy " + shape, y.expected(), y.actual(), mag, 1);

                backend.scale(alpha, x.under);
                oracle.scale(alpha, x.ref);
                assertClose(seed, "scale " + shape, x.expected(), x.actual(), U, 0);

                float[] xs = x.expected(), ys = y.expected();
                double dotMag = 0, sumMag = 0, sqMag = 0;
                for (int i = 0; i < n; i++) {
                    dotMag += Math.abs((double) xs[i] * ys[i]);
                    sumMag += Math.abs(xs[i]);
                    sqMag += (double) xs[i] * xs[i];
                }
                assertSummed(
                        seed,
                        "dot " + shape,
                        new float[] {oracle.dot(x.ref, y.ref)},
                        new float[] {backend.dot(x.under, y.under)},
                        new float[] {(float) dotMag},
                        n);
                assertSummed(
                        seed,
                        "sum " + shape,
                        new float[] {oracle.sum(x.ref)},
                        new float[] {backend.sum(x.under)},
                        new float[] {(float) sumMag},
                        n);
                assertSummed(
                        seed,
                        "sumOfSquares " + shape,
                        new float[] {oracle.sumOfSquares(x.ref)},
                        new float[] {backend.sumOfSquares(x.under)},
                        new float[] {(float) sqMag},
                        n);
                checkGuards(seed, "vector ops " + shape, x, y);
            }
            Twin a = make1(rnd, false, 1, 5), b = make1(rnd, false, 1, 6);
            assertRejected("axpy of different sizes", () -> backend.axpy(1f, a.under, b.under));
            assertRejected("dot of different sizes", () -> backend.dot(a.under, b.under));
        } finally {
            release();
        }
    }

    // ================================================================ element-wise

    private interface Binary {
        void apply(TensorBackend on, Tensor a, Tensor b, Tensor out);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void elementWiseOpsMatchReferenceIncludingInPlace(long seed) {
        Random rnd = new Random(seed);
        String[] names = {"add", "sub", "mul"};
        Binary[] ops = {TensorBackend::add, TensorBackend::sub, TensorBackend::mul};
        try {
            for (int[] s : new int[][] {{1, 1}, {1, 31}, {31, 1}, {7, 13}, {64, 65}}) {
                for (int o = 0; o < ops.length; o++) {
                    for (int aliasing = 0; aliasing < 3; aliasing++) { // 0: fresh out, 1: out == a, 2: out == b
                        boolean asViews = rnd.nextBoolean();
                        Twin[] abo = make(rnd, asViews, s, s, s);
                        Twin a = abo[0], b = abo[1];
                        Twin out = aliasing == 0 ? abo[2] : aliasing == 1 ? a : b;
                        float[] av = a.expected(), bv = b.expected();
                        ops[o].apply(backend, a.under, b.under, out.under);
                        ops[o].apply(oracle, a.ref, b.ref, out.ref);
                        float[] mag = new float[av.length];
                        for (int i = 0; i < av.length; i++) {
                            mag[i] = o == 2 ? Math.abs(av[i] * bv[i]) : Math.abs(av[i]) + Math.abs(bv[i]);
                        }
                        String what =
                                names[o] + " " + s[0] + "x" + s[1] + " aliasing=" + aliasing + " views=" + asViews;
                        assertSummed(seed, what, out.expected(), out.actual(), mag, 0);
                        checkGuards(seed, what, a, b, out);
                    }
                }
            }
            Twin[] t = make(rnd, false, shape(2, 3), shape(3, 2), shape(2, 3));
            for (int o = 0; o < ops.length; o++) {
                Binary op = ops[o];
                assertRejected(
                        names[o] + " of transposed shapes",
                        () -> op.apply(backend, t[0].under, t[1].under, t[2].under));
                assertRejected(
                        names[o] + " into a wrong shape", () -> op.apply(backend, t[0].under, t[2].under, t[1].under));
            }
        } finally {
            release();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void rowVectorOpsMatchReference(long seed) {
        Random rnd = new Random(seed);
        try {
            for (int[] s :
                    new int[][] {{1, 1}, {1, 9}, {9, 1}, {64, 256}, {5 + rnd.nextInt(60), 1 + rnd.nextInt(70)}}) {
                int rows = s[0], cols = s[1];
                for (boolean column : new boolean[] {false, true}) {
                    boolean asViews = rnd.nextBoolean();
                    Twin[] t = make(rnd, asViews, s, column ? shape(cols, 1) : shape(1, cols), shape(1, cols));
                    Twin m = t[0], row = t[1], sums = t[2];
                    float[] m0 = m.expected(), r0 = row.expected();
                    backend.addRowVector(m.under, row.under);
                    oracle.addRowVector(m.ref, row.ref);
                    float[] mag = new float[m0.length];
                    for (int i = 0; i < m0.length; i++) {
                        mag[i] = Math.abs(m0[i]) + Math.abs(r0[i % cols]);
                    }
                    String what = "addRowVector " + rows + "x" + cols + (column ? " (column vector)" : "");
                    assertSummed(seed, what, m.expected(), m.actual(), mag, 0);

                    for (float beta : new float[] {0f, 0.5f}) {
                        float[] prior = randoms(rnd, cols, 1f);
                        if (beta == 0f) {
                            Arrays.fill(prior, Float.NaN);
                        }
                        sums.set(prior);
                        backend.sumRows(m.under, beta, sums.under);
                        oracle.sumRows(m.ref, beta, sums.ref);
                        float[] colMag = new float[cols];
                        float[] mv = m.expected();
                        for (int i = 0; i < mv.length; i++) {
                            colMag[i % cols] += Math.abs(mv[i]);
                        }
                        for (int j = 0; j < cols && beta != 0f; j++) {
                            colMag[j] += Math.abs(beta * prior[j]);
                        }
                        assertSummed(
                                seed,
                                "sumRows " + rows + "x" + cols + " beta=" + beta,
                                sums.expected(),
                                sums.actual(),
                                colMag,
                                rows);
                    }
                    checkGuards(seed, what, m, row, sums);
                }
            }
            Twin[] t = make(rnd, false, shape(3, 4), shape(1, 3));
            assertRejected("addRowVector with a short row", () -> backend.addRowVector(t[0].under, t[1].under));
            assertRejected("sumRows into a short output", () -> backend.sumRows(t[0].under, 0f, t[1].under));
        } finally {
            release();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void activationsAndTheirGradientsMatchReference(long seed) {
        Random rnd = new Random(seed);
        try {
            for (Activation f : Activation.values()) {
                for (int[] s : new int[][] {{1, 1}, {1, 40}, {40, 1}, {64, 33}}) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        boolean asViews = rnd.nextBoolean();
                        Twin[] t = make(rnd, asViews, s, s, s, s);
                        Twin in = t[0], out = inPlace ? t[0] : t[1], gradOut = t[2];
                        Twin gradIn = inPlace ? t[2] : t[3];
                        float[] wide = randoms(rnd, s[0] * s[1], 30f);
                        wide[0] = 0f;
                        in.set(wide);
                        String what = f + " " + s[0] + "x" + s[1] + " inPlace=" + inPlace + " views=" + asViews;

                        backend.activation(f, in.under, out.under);
                        oracle.activation(f, in.ref, out.ref);
                        assertClose(seed, what, out.expected(), out.actual(), LOOSE_REL, LOOSE_ABS);

                        // Backward from the reference's outputs, so that only the derivative is compared.
                        float[] y = out.expected();
                        out.set(y);
                        backend.activationBackward(f, out.under, gradOut.under, gradIn.under);
                        oracle.activationBackward(f, out.ref, gradOut.ref, gradIn.ref);
                        assertClose(seed, what + " backward", gradIn.expected(), gradIn.actual(), LOOSE_REL, LOOSE_ABS);
                        checkGuards(seed, what, t);
                    }
                }
            }
            Twin[] t = make(rnd, false, shape(2, 3), shape(3, 2));
            assertRejected(
                    "activation into a wrong shape", () -> backend.activation(Activation.RELU, t[0].under, t[1].under));
            assertRejected(
                    "activationBackward of mismatched shapes",
                    () -> backend.activationBackward(Activation.TANH, t[0].under, t[1].under, t[0].under));
        } finally {
            release();
        }
    }

    // ================================================================ losses

    @ParameterizedTest
    @MethodSource("seeds")
    void softmaxCrossEntropyMatchesReference(long seed) {
        Random rnd = new Random(seed);
        try {
            for (int[] s : new int[][] {{1, 1}, {1, 10}, {64, 10}, {7, 3}, {5, 1000}}) {
                int batch = s[0], classes = s[1];
                for (int mode = 0; mode < 4; mode++) {
                    // 0: one-hot, separate outputs; 1: soft labels, huge logits; 2: probs only; 3: grad over logits
                    boolean asViews = rnd.nextBoolean();
                    Twin[] t = make(rnd, asViews, s, s, s, s);
                    Twin logits = t[0], targets = t[1];
                    Twin probs = mode == 3 ? null : t[2];
                    Twin grad = mode == 2 ? null : mode == 3 ? logits : t[3];
                    logits.set(randoms(rnd, batch * classes, mode == 1 ? 1000f : 8f));
                    targets.set(labels(rnd, batch, classes, mode != 1));
                    float lossUnder = backend.softmaxCrossEntropy(
                            logits.under,
                            targets.under,
                            probs == null ? null : probs.under,
                            grad == null ? null : grad.under);
                    float lossRef = oracle.softmaxCrossEntropy(
                            logits.ref, targets.ref, probs == null ? null : probs.ref, grad == null ? null : grad.ref);
                    String what = "softmaxCrossEntropy " + batch + "x" + classes + " mode=" + mode;
                    assertClose(seed, what + " loss", lossRef, lossUnder, LOOSE_REL, LOOSE_ABS);
                    if (probs != null) {
                        assertClose(seed, what + " probs", probs.expected(), probs.actual(), LOOSE_REL, LOOSE_ABS);
                    }
                    if (grad != null) {
                        assertClose(seed, what + " grad", grad.expected(), grad.actual(), LOOSE_REL, LOOSE_ABS);
                    }
                    checkGuards(seed, what, t);
                }
            }
            Twin[] t = make(rnd, false, shape(2, 3), shape(3, 2));
            assertRejected(
                    "softmax targets of another shape",
                    () -> backend.softmaxCrossEntropy(t[0].under, t[1].under, null, null));
            assertRejected(
                    "softmax grad of another shape",
                    () -> backend.softmaxCrossEntropy(t[0].under, t[0].under, null, t[1].under));
        } finally {
            release();
        }
    }

    private static float[] labels(Random rnd, int batch, int classes, boolean oneHot) {
        float[] y = new float[batch * classes];
        for (int i = 0; i < batch; i++) {
            if (oneHot) {
                y[i * classes + rnd.nextInt(classes)] = 1f;
            } else {
                float total = 0;
                for (int j = 0; j < classes; j++) {
                    y[i * classes + j] = rnd.nextFloat();
                    total += y[i * classes + j];
                }
                for (int j = 0; j < classes; j++) {
                    y[i * classes + j] /= total;
                }
            }
        }
        return y;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void sigmoidCrossEntropyMatchesReference(long seed) {
        Random rnd = new Random(seed);
        try {
            for (int[] s : new int[][] {{1, 1}, {1, 50}, {50, 1}, {33, 7}}) {
                for (int mode = 0;
                        mode < 3;
                        mode++) { // 0: all outputs; 1: probs only, huge logits; 2: grad over logits
                    boolean asViews = rnd.nextBoolean();
                    Twin[] t = make(rnd, asViews, s, s, s, s);
                    Twin logits = t[0], targets = t[1];
                    Twin probs = mode == 2 ? null : t[2];
                    Twin grad = mode == 1 ? null : mode == 2 ? logits : t[3];
                    logits.set(randoms(rnd, s[0] * s[1], mode == 1 ? 60f : 6f));
                    float[] y = randoms(rnd, s[0] * s[1], 1f);
                    for (int i = 0; i < y.length; i++) {
                        y[i] = i % 3 == 0 ? Math.round(Math.abs(y[i])) : Math.abs(y[i]);
                    }
                    targets.set(y);
                    float lossUnder = backend.sigmoidCrossEntropy(
                            logits.under,
                            targets.under,
                            probs == null ? null : probs.under,
                            grad == null ? null : grad.under);
                    float lossRef = oracle.sigmoidCrossEntropy(
                            logits.ref, targets.ref, probs == null ? null : probs.ref, grad == null ? null : grad.ref);
                    String what = "sigmoidCrossEntropy " + s[0] + "x" + s[1] + " mode=" + mode;
                    assertClose(seed, what + " loss", lossRef, lossUnder, LOOSE_REL, LOOSE_ABS);
                    if (probs != null) {
                        assertClose(seed, what + " probs", probs.expected(), probs.actual(), LOOSE_REL, LOOSE_ABS);
                    }
                    if (grad != null) {
                        assertClose(seed, what + " grad", grad.expected(), grad.actual(), LOOSE_REL, LOOSE_ABS);
                    }
                    checkGuards(seed, what, t);
                }
            }
            Twin[] t = make(rnd, false, shape(2, 3), shape(3, 2));
            assertRejected(
                    "sigmoid targets of another shape",
                    () -> backend.sigmoidCrossEntropy(t[0].under, t[1].under, null, null));
            assertRejected(
                    "sigmoid probs of another shape",
                    () -> backend.sigmoidCrossEntropy(t[0].under, t[0].under, t[1].under, null));
        } finally {
            release();
        }
    }

    // ================================================================ convolution and pooling

    private static List<ConvGeometry> convGeometries(Random rnd) {
        List<ConvGeometry> list = new ArrayList<>(List.of(
                new ConvGeometry(5, 5, 1, 3, 3, 1, 0),
                new ConvGeometry(6, 7, 3, 3, 3, 2, 1),
                new ConvGeometry(8, 8, 2, 5, 5, 1, 2),
                new ConvGeometry(4, 4, 4, 1, 1, 1, 0),
                new ConvGeometry(7, 5, 3, 2, 3, 2, 1),
                new ConvGeometry(3, 3, 1, 3, 3, 1, 1),
                new ConvGeometry(12, 12, 8, 5, 5, 1, 2),
                new ConvGeometry(2, 9, 5, 1, 4, 3, 2)));
        int k = 1 + rnd.nextInt(4);
        list.add(new ConvGeometry(
                k + rnd.nextInt(8), k + rnd.nextInt(8), 1 + rnd.nextInt(6), k, k, 1 + rnd.nextInt(3), rnd.nextInt(k)));
        return list;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void im2colAndCol2imMatchReference(long seed) {
        Random rnd = new Random(seed);
        try {
            for (ConvGeometry g : convGeometries(rnd)) {
                int batch = 1 + rnd.nextInt(3);
                int patches = batch * g.outHeight() * g.outWidth();
                boolean asViews = rnd.nextBoolean();
                Twin[] t = make(
                        rnd,
                        asViews,
                        shape(batch, g.inputSize()),
                        shape(patches, g.taps()),
                        shape(batch, g.inputSize()));
                Twin images = t[0], cols = t[1], back = t[2];
                backend.im2col(images.under, g, cols.under);
                oracle.im2col(images.ref, g, cols.ref);
                assertSameBits(seed, "im2col " + g + " batch " + batch, cols.expected(), cols.actual());

                cols.set(randoms(rnd, patches * g.taps(), 1f));
                backend.col2im(cols.under, g, back.under);
                oracle.col2im(cols.ref, g, back.ref);
                float[] magnitude;
                try (Tensor absCols = oracle.fromHost(abs(cols.expected()), patches, g.taps());
                        Tensor absBack = oracle.zeros(batch, g.inputSize())) {
                    oracle.col2im(absCols, g, absBack);
                    magnitude = new float[batch * g.inputSize()];
                    oracle.copyToHost(absBack, magnitude, 0);
                }
                int overlaps = g.kernelHeight() * g.kernelWidth();
                assertSummed(
                        seed, "col2im " + g + " batch " + batch, back.expected(), back.actual(), magnitude, overlaps);
                checkGuards(seed, "im2col/col2im " + g, t);
            }
            ConvGeometry g = new ConvGeometry(4, 4, 1, 3, 3, 1, 0);
            Twin[] t = make(rnd, false, shape(2, 16), shape(8, 8), shape(2, 15));
            assertRejected("im2col into a wrong-size matrix", () -> backend.im2col(t[0].under, g, t[1].under));
            assertRejected("im2col of wrong-size images", () -> backend.im2col(t[2].under, g, t[1].under));
            assertRejected("col2im from a wrong-size matrix", () -> backend.col2im(t[1].under, g, t[0].under));
        } finally {
            release();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void maxPoolingMatchesReferenceIncludingTies(long seed) {
        Random rnd = new Random(seed);
        List<PoolGeometry> geometries = new ArrayList<>(List.of(
                new PoolGeometry(4, 4, 1, 2, 2),
                new PoolGeometry(7, 7, 3, 3, 2),
                new PoolGeometry(6, 5, 2, 2, 1),
                new PoolGeometry(5, 5, 1, 5, 1),
                new PoolGeometry(24, 24, 8, 2, 2)));
        geometries.add(new PoolGeometry(
                3 + rnd.nextInt(6), 3 + rnd.nextInt(6), 1 + rnd.nextInt(4), 1 + rnd.nextInt(3), 1 + rnd.nextInt(3)));
        try {
            for (PoolGeometry g : geometries) {
                int batch = 1 + rnd.nextInt(3);
                boolean asViews = rnd.nextBoolean();
                Twin[] t = make(
                        rnd,
                        asViews,
                        shape(batch, g.inputSize()),
                        shape(batch, g.outputSize()),
                        shape(batch, g.outputSize()),
                        shape(batch, g.inputSize()),
                        shape(batch, g.outputSize()));
                Twin in = t[0], out = t[1], argmax = t[2], gradIn = t[3], gradOut = t[4];
                float[] x = randoms(rnd, batch * g.inputSize(), 1f);
                for (int i = 0; i < x.length; i++) {
                    x[i] = Math.round(x[i] * 2); // few distinct values: many ties, first maximum wins
                }
                in.set(x);
                backend.maxPool(in.under, g, out.under, argmax.under);
                oracle.maxPool(in.ref, g, out.ref, argmax.ref);
                assertSameBits(seed, "maxPool " + g, out.expected(), out.actual());
                assertSameBits(seed, "maxPool argmax " + g, argmax.expected(), argmax.actual());

                backend.maxPoolBackward(gradOut.under, argmax.under, g, gradIn.under);
                oracle.maxPoolBackward(gradOut.ref, argmax.ref, g, gradIn.ref);
                float[] mag = new float[batch * g.inputSize()];
                float[] go = gradOut.expected(), am = argmax.expected();
                for (int i = 0; i < go.length; i++) {
                    mag[(i / g.outputSize()) * g.inputSize() + (int) am[i]] += Math.abs(go[i]);
                }
                assertSummed(
                        seed, "maxPoolBackward " + g, gradIn.expected(), gradIn.actual(), mag, g.size() * g.size());
                checkGuards(seed, "maxPool " + g, t);
            }
            PoolGeometry g = new PoolGeometry(4, 4, 1, 2, 2);
            Twin[] t = make(rnd, false, shape(2, 16), shape(2, 4), shape(2, 5));
            assertRejected(
                    "maxPool into a wrong-size output", () -> backend.maxPool(t[0].under, g, t[2].under, t[1].under));
            assertRejected(
                    "maxPool with a wrong-size argmax", () -> backend.maxPool(t[0].under, g, t[1].under, t[2].under));
        } finally {
            release();
        }
    }

    // ================================================================ optimizer updates

    @ParameterizedTest
    @MethodSource("seeds")
    void sgdStepsMatchReference(long seed) {
        Random rnd = new Random(seed);
        // {momentum, weightDecay, nesterov}
        float[][] configs = {
            {0f, 0f, 0}, {0f, 1e-2f, 0}, {0.9f, 0f, 0}, {0.9f, 5e-4f, 0}, {0.9f, 1e-2f, 1}, {0.5f, 0f, 1}
        };
        try {
            for (float[] config : configs) {
                float momentum = config[0], decay = config[1];
                boolean nesterov = config[2] != 0;
                int n = 1 + rnd.nextInt(3000);
                boolean asViews = rnd.nextBoolean();
                Twin[] t = make(rnd, asViews, shape(1, n), shape(1, n), shape(1, n));
                Twin params = t[0], grads = t[1], velocity = t[2];
                velocity.set(new float[n]);
                for (int step = 1; step <= 3; step++) {
                    grads.set(randoms(rnd, n, 1f));
                    backend.sgdStep(
                            params.under,
                            grads.under,
                            momentum == 0f ? null : velocity.under,
                            0.1f,
                            momentum,
                            decay,
                            nesterov);
                    oracle.sgdStep(
                            params.ref,
                            grads.ref,
                            momentum == 0f ? null : velocity.ref,
                            0.1f,
                            momentum,
                            decay,
                            nesterov);
                    String what = String.format(
                            "sgd momentum=%s decay=%s nesterov=%s n=%d step %d", momentum, decay, nesterov, n, step);
                    assertClose(seed, what + " params", params.expected(), params.actual(), LOOSE_REL, LOOSE_ABS);
                    if (momentum != 0f) {
                        assertClose(
                                seed, what + " velocity", velocity.expected(), velocity.actual(), LOOSE_REL, LOOSE_ABS);
                    }
                    // Continue both from the reference state, so that errors cannot compound.
                    params.set(params.expected());
                    velocity.set(velocity.expected());
                    checkGuards(seed, what, t);
                }
            }
            Twin[] t = make(rnd, false, shape(1, 4), shape(1, 5));
            assertRejected(
                    "sgd gradients of another size",
                    () -> backend.sgdStep(t[0].under, t[1].under, null, 0.1f, 0f, 0f, false));
        } finally {
            release();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void adamStepsMatchReference(long seed) {
        Random rnd = new Random(seed);
        try {
            for (float decay : new float[] {0f, 1e-2f}) {
                int n = 1 + rnd.nextInt(3000);
                boolean asViews = rnd.nextBoolean();
                Twin[] t = make(rnd, asViews, shape(n, 1), shape(n, 1), shape(n, 1), shape(n, 1));
                Twin params = t[0], grads = t[1], m = t[2], v = t[3];
                m.set(new float[n]);
                v.set(new float[n]);
                for (int step = 1; step <= 3; step++) {
                    grads.set(randoms(rnd, n, 1f));
                    backend.adamStep(
                            params.under, grads.under, m.under, v.under, 1e-2f, 0.9f, 0.999f, 1e-8f, decay, step);
                    oracle.adamStep(params.ref, grads.ref, m.ref, v.ref, 1e-2f, 0.9f, 0.999f, 1e-8f, decay, step);
                    String what = "adam decay=" + decay + " n=" + n + " step " + step;
                    assertClose(seed, what + " params", params.expected(), params.actual(), LOOSE_REL, LOOSE_ABS);
                    assertClose(seed, what + " m", m.expected(), m.actual(), LOOSE_REL, LOOSE_ABS);
                    assertClose(seed, what + " v", v.expected(), v.actual(), LOOSE_REL, LOOSE_ABS);
                    for (Twin state : new Twin[] {params, m, v}) {
                        state.set(state.expected());
                    }
                    checkGuards(seed, what, t);
                }
            }
            Twin[] t = make(rnd, false, shape(1, 4), shape(1, 4), shape(1, 4), shape(1, 4));
            assertRejected(
                    "adam step 0",
                    () -> backend.adamStep(
                            t[0].under, t[1].under, t[2].under, t[3].under, 1e-3f, 0.9f, 0.999f, 1e-8f, 0f, 0));
            Tensor shorter = backend.zeros(1, 3);
            assertRejected(
                    "adam moments of another size",
                    () -> backend.adamStep(
                            t[0].under, t[1].under, shorter, t[3].under, 1e-3f, 0.9f, 0.999f, 1e-8f, 0f, 1));
            shorter.close();
        } finally {
            release();
        }
    }
}
