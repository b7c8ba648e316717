package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.node.config.NodeConfig;
import org.junit.jupiter.api.Test;

class EarlyStoppingTest {

    @Test
    void thePatienceRunsOutOnceAfterThatManyEvaluationsWithoutANewBest() {
        EarlyStopping e = new EarlyStopping(3);
        assertThat(e.observe(0.69, 10)).isEqualTo(EarlyStopping.Outcome.IMPROVED);
        assertThat(e.observe(0.50, 20)).isEqualTo(EarlyStopping.Outcome.IMPROVED);
        assertThat(e.observe(0.55, 30)).isEqualTo(EarlyStopping.Outcome.WAITING);
        assertThat(e.observe(0.50, 40)).as("equal is no improvement").isEqualTo(EarlyStopping.Outcome.WAITING);
        assertThat(e.observe(Double.NaN, 50)).isEqualTo(EarlyStopping.Outcome.EXHAUSTED);
        assertThat(e.exhausted()).isTrue();
        assertThat(e.observe(0.77, 60)).as("said once").isEqualTo(EarlyStopping.Outcome.WAITING);
        assertThat(e.bestLoss()).isEqualTo(0.50);
        assertThat(e.bestVersion()).isEqualTo(20);
        assertThat(e.evaluationsSinceBest()).isEqualTo(4);
        assertThat(e.observe(0.40, 70)).isEqualTo(EarlyStopping.Outcome.IMPROVED);
        assertThat(e.exhausted()).as("a new best re-arms it").isFalse();
        assertThatThrownBy(() -> new EarlyStopping(0)).hasMessageContaining("at least 1");
    }

    @Test
    void autoStopsANodeAloneBelowTheSmallDataBoundAndWarnsAtIt() {
        NodeConfig.EarlyStoppingPolicy auto = new NodeConfig.EarlyStoppingPolicy("auto", 20);
        int small = NodeConfig.EarlyStoppingPolicy.SMALL_DATA_ROWS;
        assertThat(auto.resolve(small - 1, false)).isEqualTo("stop");
        assertThat(auto.resolve(small, false)).isEqualTo("warn");
        assertThat(new NodeConfig.EarlyStoppingPolicy("off", 20).resolve(10, false))
                .isEqualTo("off");
        assertThat(new NodeConfig.EarlyStoppingPolicy("warn", 20).resolve(10, false))
                .isEqualTo("warn");
    }

    /**
     * A member's validation split is its own shard: under averaging its loss is no measure of the consortium's model,
     * so {@code auto} only warns there, whatever the size; an explicit {@code stop} is kept.
     */
    @Test
    void autoOnlyWarnsANodeThatAverages() {
        NodeConfig.EarlyStoppingPolicy auto = new NodeConfig.EarlyStoppingPolicy("auto", 20);
        assertThat(auto.resolve(10, true)).isEqualTo("warn");
        assertThat(auto.resolve(NodeConfig.EarlyStoppingPolicy.SMALL_DATA_ROWS - 1, true))
                .isEqualTo("warn");
        assertThat(new NodeConfig.EarlyStoppingPolicy("stop", 20).resolve(10, true))
                .isEqualTo("stop");
    }
}
