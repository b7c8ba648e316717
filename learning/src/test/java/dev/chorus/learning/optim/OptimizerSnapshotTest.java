package dev.chorus.learning.optim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A restored optimizer continues exactly as the one it was snapshotted from. */
class OptimizerSnapshotTest {

    private final TensorBackend backend = new ReferenceBackend();

    @ParameterizedTest
    @ValueSource(strings = {"adam:lr=0.1", "sgd:lr=0.1,momentum=0.9", "sgd:lr=0.1"})
    void restoredOptimizerTakesTheSameNextStep(String spec) {
        Supplier<Optimizer> make = () -> OptimizerSpec.parse(spec).create();
        Optimizer original = make.get();
        Tensor p = backend.fromHost(new float[] {1f, -2f, 0.5f}, 1, 3);
        original.step(p, backend.fromHost(new float[] {0.5f, -1f, 2f}, 1, 3));
        original.step(p, backend.fromHost(new float[] {-0.25f, 0.3f, 1f}, 1, 3));
        OptimizerSnapshot snap = original.snapshot();
        float[] host = new float[3];
        backend.copyToHost(p, host, 0);

        Optimizer restored = make.get();
        Tensor q = backend.fromHost(host, 1, 3);
        restored.restore(snap, q);
        assertThat(restored.steps()).isEqualTo(2);

        Tensor g = backend.fromHost(new float[] {0.7f, 0.1f, -0.4f}, 1, 3);
        original.step(p, g);
        restored.step(q, g);
        float[] a = new float[3], b = new float[3];
        backend.copyToHost(p, a, 0);
        backend.copyToHost(q, b, 0);
        assertThat(b).containsExactly(a);

        // A fresh optimizer (no restore) would have stepped differently whenever it keeps state.
        if (snap.slots().length > 0) {
            Optimizer fresh = make.get();
            Tensor r = backend.fromHost(host, 1, 3);
            fresh.step(r, g);
            float[] c = new float[3];
            backend.copyToHost(r, c, 0);
            assertThat(c).isNotEqualTo(a);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"adam:lr=0.1", "sgd:lr=0.1,momentum=0.9"})
    void snapshotOfTheWrongSizeIsRefused(String spec) {
        Optimizer o = OptimizerSpec.parse(spec).create();
        Tensor p = backend.zeros(1, 3);
        o.step(p, backend.fromHost(new float[] {1f, 1f, 1f}, 1, 3));
        OptimizerSnapshot snap = o.snapshot();
        Optimizer other = OptimizerSpec.parse(spec).create();
        assertThatThrownBy(() -> other.restore(snap, backend.zeros(1, 4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not fit 4 parameters");
    }
}
