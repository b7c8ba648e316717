package dev.chorus.learning.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ModelSpecTest {

    private final TensorBackend backend = new ReferenceBackend();

    @Test
    void parsesTheCommandLineForms() {
        assertThat(ModelSpec.parse("logreg").kind()).isEqualTo(ModelSpec.Kind.LOGREG);
        assertThat(ModelSpec.parse(" CNN ").kind()).isEqualTo(ModelSpec.Kind.CNN);
        ModelSpec one = ModelSpec.parse("mlp:64");
        assertThat(one.hidden()).containsExactly(64);
        assertThat(one.activation()).isEqualTo(Activation.RELU);
        ModelSpec two = ModelSpec.parse("mlp:64,32:tanh");
        assertThat(two.hidden()).containsExactly(64, 32);
        assertThat(two.activation()).isEqualTo(Activation.TANH);
        assertThat(ModelSpec.parse("mlp:8:sigmoid").activation()).isEqualTo(Activation.SIGMOID);
        assertThat(two.toString()).isEqualTo("mlp:64,32:tanh");
        assertThat(ModelSpec.parse(two.toString())).isEqualTo(two);
    }

    @ParameterizedTest
    @ValueSource(strings = {"resnet", "", "mlp64", "logreg:3", "cnn:2", "mlp:4:relu:x"})
    void unknownSpecsNameTheForms(String text) {
        assertThatThrownBy(() -> ModelSpec.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "unknown model spec '" + text + "'; expected logreg, mlp:H[,H...][:relu|tanh|sigmoid] or cnn");
    }

    @Test
    void badPartsOfAnMlpAreNamed() {
        assertThatThrownBy(() -> ModelSpec.parse("mlp"))
                .hasMessage("model spec 'mlp' needs hidden widths, e.g. mlp:64 or mlp:64,32:tanh");
        assertThatThrownBy(() -> ModelSpec.parse("mlp:64,x"))
                .hasMessage("hidden width 'x' in model spec 'mlp:64,x' is not a positive integer");
        assertThatThrownBy(() -> ModelSpec.parse("mlp:0"))
                .hasMessage("hidden width '0' in model spec 'mlp:0' is not a positive integer");
        assertThatThrownBy(() -> ModelSpec.parse("mlp:8,:relu"))
                .hasMessage("hidden width '' in model spec 'mlp:8,:relu' is not a positive integer");
        assertThatThrownBy(() -> ModelSpec.parse("mlp:8:gelu"))
                .hasMessage("unknown activation 'gelu' in model spec 'mlp:8:gelu'; expected relu, tanh or sigmoid");
    }

    @Test
    void binaryTasksGetOneLogitAndMultiClassOnePerClass() {
        try (Sequential binary = ModelSpec.parse("logreg").build(backend, 30, 2, 1);
                Sequential multi = ModelSpec.parse("logreg").build(backend, 784, 10, 1)) {
            assertThat(binary.parameterCount()).isEqualTo(31);
            assertThat(binary.loss()).isInstanceOf(BinaryCrossEntropyLoss.class);
            assertThat(multi.parameterCount()).isEqualTo(7850);
            assertThat(multi.loss()).isInstanceOf(SoftmaxCrossEntropyLoss.class);
            assertThat(multi.classes()).isEqualTo(10);
        }
    }

    @Test
    void mlpStacksDenseAndActivationLayers() {
        try (Sequential model = ModelSpec.parse("mlp:64,32:tanh").build(backend, 20, 3, 1)) {
            List<Layer> layers = model.layers();
            assertThat(layers).hasSize(5);
            assertThat(layers.get(1)).isInstanceOfSatisfying(ActivationLayer.class, a -> assertThat(a.function())
                    .isEqualTo(Activation.TANH));
            assertThat(model.parameterCount()).isEqualTo(20 * 64 + 64 + 64 * 32 + 32 + 32 * 3 + 3);
        }
    }

    @Test
    void cnnForMnistShapedImages() {
        try (Sequential model = ModelSpec.parse("cnn").build(backend, 784, 10, 1)) {
            assertThat(model.layers()).hasSize(7);
            // conv 5x5x1x16 + 16, conv 5x5x16x32 + 32, dense 7*7*32 x 10 + 10
            assertThat(model.parameterCount()).isEqualTo(400 + 16 + 12800 + 32 + 1568 * 10 + 10);
            assertThat(model.layers().get(6).inputSize()).isEqualTo(7 * 7 * 32);
            float[] p = model.predictProbabilities(new float[2 * 784], 2);
            assertThat(p).hasSize(20);
        }
    }

    @Test
    void cnnRejectsDataThatIsNotSquareImages() {
        assertThatThrownBy(() -> ModelSpec.parse("cnn").build(backend, 30, 2, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("model spec 'cnn' expects square single-channel images of at least 4x4"
                        + " (e.g. 28x28x1 = 784 features), but the data has 30 features");
        assertThatThrownBy(() -> ModelSpec.parse("cnn").build(backend, 9, 2, 1))
                .hasMessageContaining("the data has 9 features");
    }

    @Test
    void buildRejectsImpossibleData() {
        assertThatThrownBy(() -> ModelSpec.parse("logreg").build(backend, 0, 2, 1))
                .hasMessage("need at least one feature, got 0");
        assertThatThrownBy(() -> ModelSpec.parse("logreg").build(backend, 3, 1, 1))
                .hasMessage("need at least 2 classes, got 1");
    }
}
