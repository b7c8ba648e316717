package dev.chorus.learning.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MlpStepBenchmarkTest {

    @Test
    void measuresThroughputAndEveryOpKindOfASmallNetwork() {
        MlpStepBenchmark.Result r = MlpStepBenchmark.run("nd4j", 1, new int[] {20, 16, 3}, 8, 0.05);
        assertThat(r.backend()).isEqualTo("nd4j");
        assertThat(r.threads()).isEqualTo(1);
        assertThat(r.batch()).isEqualTo(8);
        assertThat(r.samplesPerSecond()).isPositive();
        assertThat(r.samplesPerCpuSecond()).isPositive();
        assertThat(r.opMicros())
                .containsKeys(
                        "gemm forward",
                        "gemm weight grad",
                        "gemm input grad",
                        "addRowVector",
                        "relu",
                        "relu backward",
                        "softmaxCrossEntropy",
                        "sumRows",
                        "sgdStep");
        assertThat(r.opMicros().values()).allMatch(us -> us > 0);
    }

    @Test
    void rejectsADegenerateNetwork() {
        assertThatThrownBy(() -> MlpStepBenchmark.run("nd4j", 1, new int[] {5}, 8, 0.05))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least two positive sizes");
    }
}
