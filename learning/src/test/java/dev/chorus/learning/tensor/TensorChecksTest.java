package dev.chorus.learning.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.function.BiPredicate;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class TensorChecksTest {

    /** A shape with no storage: the checks read only rows, cols and size. */
    private record Shape(int rows, int cols) implements Tensor {
        @Override
        public TensorBackend backend() {
            return null;
        }

        @Override
        public void close() {}
    }

    private static final BiPredicate<Tensor, Tensor> NEVER = (x, y) -> false;

    private static Tensor shape(int rows, int cols) {
        return new Shape(rows, cols);
    }

    private static void assertRejected(ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void ownershipAcceptsOnlyTheBackendsOwnTensors() {
        try (ReferenceBackend backend = new ReferenceBackend();
                ReferenceBackend other = new ReferenceBackend()) {
            Tensor mine = backend.zeros(2, 3);
            assertThat(TensorChecks.belongsTo(mine, Tensor.class, backend)).isTrue();
            assertThat(TensorChecks.owned(mine, Tensor.class, backend)).isSameAs(mine);
            assertThat(TensorChecks.belongsTo(null, Tensor.class, backend)).isFalse();
            assertThat(TensorChecks.belongsTo(mine, Shape.class, backend)).isFalse();

            Tensor foreign = other.zeros(2, 3);
            assertThat(TensorChecks.belongsTo(foreign, Tensor.class, backend)).isFalse();
            assertRejected(
                    () -> TensorChecks.owned(foreign, Tensor.class, backend),
                    "tensor " + foreign + " does not belong to this reference backend");
            assertRejected(
                    () -> TensorChecks.owned(null, Tensor.class, backend),
                    "tensor null does not belong to this reference backend");
        }
    }

    @Test
    void checkedSizeRejectsNegativeAndOversizedShapes() {
        assertThat(TensorChecks.checkedSize(3, 4)).isEqualTo(12);
        assertThat(TensorChecks.checkedSize(0, 5)).isZero();
        assertThat(TensorChecks.checkedSize(1, TensorChecks.MAX_ELEMENTS)).isEqualTo(TensorChecks.MAX_ELEMENTS);
        assertRejected(() -> TensorChecks.checkedSize(-1, 3), "bad tensor shape -1x3");
        assertRejected(() -> TensorChecks.checkedSize(3, -1), "bad tensor shape 3x-1");
        assertRejected(() -> TensorChecks.checkedSize(65536, 65536), "bad tensor shape 65536x65536");
    }

    @Test
    void viewRangeStaysInsideItsBase() {
        Tensor base = shape(3, 4);
        assertThatCode(() -> TensorChecks.viewRange(base, 0, 3, 4)).doesNotThrowAnyException();
        assertThatCode(() -> TensorChecks.viewRange(base, 10, 1, 2)).doesNotThrowAnyException();
        assertThatCode(() -> TensorChecks.viewRange(base, 12, 0, 0)).doesNotThrowAnyException();
        assertRejected(() -> TensorChecks.viewRange(base, 5, 2, 4), "view [5, +8) outside " + base);
        assertRejected(() -> TensorChecks.viewRange(base, -1, 1, 1), "view [-1, +1) outside " + base);
        assertRejected(() -> TensorChecks.viewRange(base, 0, -1, 1), "bad tensor shape -1x1");
    }

    @Test
    void hostRangeStaysInsideTheArray() {
        float[] host = new float[5];
        assertThatCode(() -> TensorChecks.hostRange(host, 0, 5)).doesNotThrowAnyException();
        assertThatCode(() -> TensorChecks.hostRange(host, 5, 0)).doesNotThrowAnyException();
        assertRejected(() -> TensorChecks.hostRange(host, 1, 5), "host range [1, +5) outside an array of 5 floats");
        assertRejected(() -> TensorChecks.hostRange(host, -1, 1), "host range [-1, +1) outside an array of 5 floats");
        assertRejected(
                () -> TensorChecks.hostRange(host, Integer.MAX_VALUE, 2),
                "host range [" + Integer.MAX_VALUE + ", +2) outside an array of 5 floats");
        assertRejected(() -> TensorChecks.hostRange(null, 0, 0), "host array is null");
    }

    @Test
    void sizeComparesElementCountsAndShapeComparesDimensions() {
        Tensor a = shape(2, 6), b = shape(3, 4), c = shape(2, 6);
        assertThatCode(() -> TensorChecks.sameSize(a, b)).doesNotThrowAnyException();
        assertRejected(() -> TensorChecks.sameSize(a, shape(1, 11)), "size mismatch: " + a + " vs " + shape(1, 11));
        assertThatCode(() -> TensorChecks.sameShape(a, c)).doesNotThrowAnyException();
        assertRejected(() -> TensorChecks.sameShape(a, b), "shape mismatch: " + a + " vs " + b);
        assertThatCode(() -> TensorChecks.elementWise(a, c, c)).doesNotThrowAnyException();
        assertRejected(() -> TensorChecks.elementWise(a, b, c), "shape mismatch: " + a + " vs " + b);
        assertRejected(() -> TensorChecks.elementWise(a, c, b), "shape mismatch: " + a + " vs " + b);
    }

    @Test
    void gemmChecksThatTheOperandsChainForEveryTranspose() {
        Tensor a = shape(2, 3), aT = shape(3, 2), b = shape(3, 5), bT = shape(5, 3), c = shape(2, 5);
        assertThat(TensorChecks.gemm(false, false, a, b, c, NEVER)).isEqualTo(3);
        assertThat(TensorChecks.gemm(true, false, aT, b, c, NEVER)).isEqualTo(3);
        assertThat(TensorChecks.gemm(false, true, a, bT, c, NEVER)).isEqualTo(3);
        assertThat(TensorChecks.gemm(true, true, aT, bT, c, NEVER)).isEqualTo(3);
        assertThat(TensorChecks.gemm(false, false, shape(2, 0), shape(0, 5), c, NEVER))
                .isZero();
        assertRejected(
                () -> TensorChecks.gemm(false, false, a, bT, c, NEVER), "gemm shapes: op(A) 2x3, op(B) 5x3, C 2x5");
        assertRejected(
                () -> TensorChecks.gemm(false, false, a, b, shape(5, 2), NEVER),
                "gemm shapes: op(A) 2x3, op(B) 3x5, C 5x2");
    }

    @Test
    void gemmRejectsAnOutputThatAliasesEitherInput() {
        Tensor a = shape(2, 2), b = shape(2, 2), c = shape(2, 2);
        assertRejected(
                () -> TensorChecks.gemm(false, false, a, b, c, (x, y) -> x == c && y == a),
                "gemm output must not alias an input");
        assertRejected(
                () -> TensorChecks.gemm(false, false, a, b, c, (x, y) -> x == c && y == b),
                "gemm output must not alias an input");
    }

    @Test
    void rowVectorAndColumnSumsNeedOneElementPerColumn() {
        Tensor m = shape(4, 3);
        assertThatCode(() -> TensorChecks.rowVector(m, shape(1, 3))).doesNotThrowAnyException();
        assertThatCode(() -> TensorChecks.rowVector(m, shape(3, 1))).doesNotThrowAnyException();
        assertRejected(
                () -> TensorChecks.rowVector(m, shape(1, 4)), "row vector " + shape(1, 4) + " does not match " + m);
        assertThatCode(() -> TensorChecks.columnSums(m, shape(1, 3))).doesNotThrowAnyException();
        assertRejected(
                () -> TensorChecks.columnSums(m, shape(1, 4)),
                "output " + shape(1, 4) + " does not match the columns of " + m);
    }

    @Test
    void lossOutputsAreCheckedOnlyWhenGiven() {
        Tensor logits = shape(4, 3), targets = shape(4, 3), wrong = shape(3, 4);
        assertThatCode(() -> TensorChecks.loss(logits, targets, null, null)).doesNotThrowAnyException();
        assertThatCode(() -> TensorChecks.loss(logits, targets, shape(4, 3), shape(4, 3)))
                .doesNotThrowAnyException();
        assertRejected(
                () -> TensorChecks.loss(logits, wrong, null, null), "shape mismatch: " + logits + " vs " + wrong);
        assertRejected(
                () -> TensorChecks.loss(logits, targets, wrong, null), "shape mismatch: " + logits + " vs " + wrong);
        assertRejected(
                () -> TensorChecks.loss(logits, targets, null, wrong), "shape mismatch: " + logits + " vs " + wrong);
    }

    @Test
    void convMatchesImagesAndPatchMatrixToTheGeometry() {
        ConvGeometry g = new ConvGeometry(4, 4, 2, 3, 3, 1, 1); // 4x4 output, 18 taps
        Tensor images = shape(2, 32);
        assertThatCode(() -> TensorChecks.conv(images, g, shape(32, 18))).doesNotThrowAnyException();
        assertRejected(
                () -> TensorChecks.conv(shape(2, 31), g, shape(32, 18)),
                "images " + shape(2, 31) + " do not match " + g);
        assertRejected(
                () -> TensorChecks.conv(images, g, shape(31, 18)),
                "im2col matrix " + shape(31, 18) + " should be 32x18");
        assertRejected(
                () -> TensorChecks.conv(images, g, shape(32, 17)),
                "im2col matrix " + shape(32, 17) + " should be 32x18");
    }

    @Test
    void maxPoolMatchesInputOutputAndArgmaxToTheGeometry() {
        PoolGeometry g = new PoolGeometry(4, 4, 2, 2, 2); // 32 floats in, 8 out
        Tensor in = shape(3, 32), out = shape(3, 8);
        assertThatCode(() -> TensorChecks.maxPool(in, g, out, shape(3, 8))).doesNotThrowAnyException();
        assertRejected(
                () -> TensorChecks.maxPool(in, g, shape(2, 8), shape(2, 8)),
                "max pool shapes " + in + " -> " + shape(2, 8) + " do not match " + g);
        assertRejected(
                () -> TensorChecks.maxPool(in, g, out, shape(3, 7)), "shape mismatch: " + out + " vs " + shape(3, 7));

        assertThatCode(() -> TensorChecks.maxPoolBackward(out, shape(3, 8), g, in))
                .doesNotThrowAnyException();
        assertRejected(
                () -> TensorChecks.maxPoolBackward(out, shape(3, 8), g, shape(3, 31)),
                "max pool backward shapes do not match " + g);
        assertRejected(
                () -> TensorChecks.maxPoolBackward(out, shape(3, 7), g, in),
                "shape mismatch: " + out + " vs " + shape(3, 7));
    }

    @Test
    void adamCountsStepsFromOneAndNeedsStateOfTheParametersSize() {
        assertThatCode(() -> TensorChecks.adamStep(1)).doesNotThrowAnyException();
        assertRejected(() -> TensorChecks.adamStep(0), "Adam step counts from 1, got 0");
        Tensor p = shape(1, 6);
        assertThatCode(() -> TensorChecks.adamState(p, shape(2, 3), shape(6, 1), shape(3, 2)))
                .doesNotThrowAnyException();
        assertRejected(
                () -> TensorChecks.adamState(p, p, p, shape(1, 5)), "size mismatch: " + p + " vs " + shape(1, 5));
        assertRejected(
                () -> TensorChecks.adamState(p, p, shape(1, 5), p), "size mismatch: " + p + " vs " + shape(1, 5));
        assertRejected(
                () -> TensorChecks.adamState(p, shape(1, 5), p, p), "size mismatch: " + p + " vs " + shape(1, 5));
    }
}
