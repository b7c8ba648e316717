package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.testsupport.TestLog;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** What each attack sends instead of a node's model, and that it never touches the model's own arrays. */
class ByzantineAttackTest {

    private static final float[] INITIAL = {0.5f, -0.5f, 0.25f, 0f};

    private static ModelUpdate model(float... values) {
        return ModelUpdate.full("node", 7, 100, values);
    }

    private static UnaryOperator<ModelUpdate> attack(String text) {
        return ByzantineAttack.parse("--byzantine", text).transform(INITIAL, 42);
    }

    @Test
    void signflipSendsMinusKTimesTheModelAndLeavesItsArrayAlone() {
        float[] values = {1, -2, 0.5f, 0};
        ModelUpdate sent = attack("signflip:4").apply(model(values));
        assertThat(sent.values()).containsExactly(-4, 8, -2, -0f);
        assertThat(values).containsExactly(1, -2, 0.5f, 0);
        assertThat(sent.sender()).isEqualTo("node");
        assertThat(sent.version()).isEqualTo(7);
        assertThat(sent.sampleCount()).isEqualTo(100);
    }

    @Test
    void scaleSendsKTimesTheModel() {
        assertThat(attack("scale:1000").apply(model(1, -2, 0.5f, 0)).values()).containsExactly(1000, -2000, 500, 0);
    }

    @Test
    void scaleOfAFragmentScalesTheValuesItHolds() {
        ModelUpdate fragment = ModelUpdate.fragment("node", 3, 10, 4, new int[] {1, 3}, new float[] {2, 3});
        ModelUpdate sent = attack("scale:2").apply(fragment);
        assertThat(sent.indices()).containsExactly(1, 3);
        assertThat(sent.values()).containsExactly(4, 6);
    }

    @Test
    void freerideSendsTheInitialModelForeverAtTheFragmentsCoordinates() {
        UnaryOperator<ModelUpdate> freeride = attack("freeride");
        assertThat(freeride.apply(model(9, 9, 9, 9)).values()).containsExactly(INITIAL);
        assertThat(freeride.apply(model(1, 2, 3, 4)).values()).containsExactly(INITIAL);
        ModelUpdate fragment = ModelUpdate.fragment("node", 3, 10, 4, new int[] {0, 2}, new float[] {7, 7});
        assertThat(freeride.apply(fragment).values()).containsExactly(0.5f, 0.25f);
        ModelUpdate delta = ModelUpdate.delta("node", 3, 10, new float[] {1, 1, 1, 1});
        assertThat(freeride.apply(delta).values()).containsExactly(0, 0, 0, 0);
    }

    @Test
    void staleReplaysEachCoordinateAsFirstSent() {
        UnaryOperator<ModelUpdate> stale = attack("stale");
        assertThat(stale.apply(ModelUpdate.fragment("n", 1, 1, 4, new int[] {1}, new float[] {5}))
                        .values())
                .containsExactly(5);
        assertThat(stale.apply(model(1, 2, 3, 4)).values()).containsExactly(1, 5, 3, 4);
        assertThat(stale.apply(model(8, 8, 8, 8)).values()).containsExactly(1, 5, 3, 4);
    }

    @Test
    void noiseAddsSeededGaussianNoiseOfTheGivenStandardDeviation() {
        int n = 200_000;
        float[] values = new float[n];
        java.util.Arrays.fill(values, 3f);
        ModelUpdate u = ModelUpdate.full("node", 1, 1, values);
        float[] sent = ByzantineAttack.parse("--byzantine", "noise:0.5")
                .transform(new float[n], 9)
                .apply(u)
                .values();
        double sum = 0, sumSq = 0;
        for (float v : sent) {
            sum += v - 3;
            sumSq += (v - 3) * (v - 3);
        }
        double mean = sum / n;
        double std = Math.sqrt(sumSq / n - mean * mean);
        TestLog.figures("noise:0.5 over %d coordinates: mean %.5f, std %.5f%n", n, mean, std);
        assertThat(mean).isBetween(-0.01, 0.01);
        assertThat(std).isBetween(0.49, 0.51);
        assertThat(values[0]).isEqualTo(3f);
        float[] again = ByzantineAttack.parse("--byzantine", "noise:0.5")
                .transform(new float[n], 9)
                .apply(u)
                .values();
        assertThat(again).containsExactly(sent);
    }

    @Test
    void badAttacksAreNamedWithTheirRule() {
        assertThatThrownBy(() -> ByzantineAttack.parse("--byzantine", "lie"))
                .hasMessage(
                        "--byzantine: unknown attack \"lie\" (signflip:K, scale:K, noise:SIGMA, freeride, stale, alie, ipm:EPS, labelflip)");
        assertThatThrownBy(() -> ByzantineAttack.parse("--byzantine", "scale"))
                .hasMessage("--byzantine attack scale expects scale:K with a positive number, got \"scale\"");
        assertThatThrownBy(() -> ByzantineAttack.parse("--byzantine", "noise:-1"))
                .hasMessage("--byzantine attack noise expects noise:SIGMA with a positive number, got \"noise:-1\"");
        assertThatThrownBy(() -> ByzantineAttack.parse("--byzantine", "freeride:2"))
                .hasMessage("--byzantine attack freeride takes no value, got \"freeride:2\"");
        assertThat(ByzantineAttack.parse("--byzantine", "signflip:4").text()).isEqualTo("signflip:4");
        assertThat(ByzantineAttack.parse("--byzantine", "noise:0.5").text()).isEqualTo("noise:0.5");
    }

    private static ByzantineAttack.HonestModels honest(int nodes, int attackers, float[]... models) {
        return new ByzantineAttack.HonestModels() {
            @Override
            public int forEach(java.util.function.Consumer<float[]> visit) {
                for (float[] m : models) {
                    visit.accept(m);
                }
                return models.length;
            }

            @Override
            public int nodes() {
                return nodes;
            }

            @Override
            public int attackers() {
                return attackers;
            }
        };
    }

    @Test
    void ipmSendsMinusEpsTimesTheHonestMeanAtTheUpdatesCoordinates() {
        ByzantineAttack ipm = ByzantineAttack.parse("--byzantine", "ipm:0.5");
        UnaryOperator<ModelUpdate> t =
                ipm.transform(INITIAL, 1, honest(4, 1, new float[] {1, 2, 3, 4}, new float[] {3, 4, 5, 6}));
        assertThat(t.apply(model(9, 9, 9, 9)).values()).containsExactly(-1, -1.5f, -2, -2.5f);
        ModelUpdate fragment = ModelUpdate.fragment("node", 3, 10, 4, new int[] {1, 3}, new float[] {7, 7});
        assertThat(t.apply(fragment).values()).containsExactly(-1.5f, -2.5f);
        // Before any honest model is published, the model goes out as it is.
        assertThat(ipm.transform(INITIAL, 1).apply(model(1, 2, 3, 4)).values()).containsExactly(1, 2, 3, 4);
    }

    @Test
    void alieSendsTheHonestMeanMinusZStandardDeviations() {
        // n = 50, f = 12 (table 1 of Baruch et al. 2019): s = 26 - 12 = 14, z = Phi^-1(36 / 50) = 0.5828.
        assertThat(ByzantineAttack.alieZ(50, 12)).isCloseTo(0.5828, org.assertj.core.data.Offset.offset(1e-4));
        assertThat(ByzantineAttack.inverseNormal(0.975)).isCloseTo(1.959964, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(ByzantineAttack.inverseNormal(0.001))
                .isCloseTo(-3.090232, org.assertj.core.data.Offset.offset(1e-6));
        // n = 6, f = 2: s = 2, z = Phi^-1(4 / 6) = 0.430727; mean 2, std 1 on every coordinate.
        double z = ByzantineAttack.alieZ(6, 2);
        assertThat(z).isCloseTo(0.430727, org.assertj.core.data.Offset.offset(1e-6));
        UnaryOperator<ModelUpdate> t = ByzantineAttack.parse("--byzantine", "alie")
                .transform(INITIAL, 1, honest(6, 2, new float[] {1, 1, 1, 1}, new float[] {3, 3, 3, 3}));
        assertThat(t.apply(model(9, 9, 9, 9)).values()).containsOnly((float) (2 - z));
    }

    @Test
    void labelflipTrainsOnFlippedLabelsAndSendsItsModelAsItIs() {
        ByzantineAttack flip = ByzantineAttack.parse("--byzantine", "labelflip");
        dev.chorus.learning.data.Dataset shard = new dev.chorus.learning.data.Dataset(
                new float[] {1, 2, 3},
                3,
                1,
                new int[] {0, 1, 2},
                3,
                java.util.List.of("x"),
                java.util.List.of("a", "b", "c"));
        assertThat(flip.trainingShard(shard).labels()).containsExactly(2, 1, 0);
        assertThat(shard.labels()).containsExactly(0, 1, 2);
        ModelUpdate u = model(1, 2, 3, 4);
        assertThat(flip.transform(INITIAL, 1).apply(u)).isSameAs(u);
        assertThat(ByzantineAttack.parse("--byzantine", "scale:2").trainingShard(shard))
                .isSameAs(shard);
    }

    @Test
    void attackersAreASeededShareThatNeverIncludesNodeZero() {
        TestnetSettings.Byzantine b = new TestnetSettings.Byzantine(0.34, ByzantineAttack.parse("x", "scale:2"));
        for (long seed = 0; seed < 50; seed++) {
            int[] chosen = b.choose(6, seed, 3);
            assertThat(chosen).hasSize(2).doesNotContain(0);
            assertThat(b.choose(6, seed, 3)).containsExactly(chosen);
        }
        assertThat(TestnetSettings.Byzantine.NONE.choose(6, 1, 3)).isEmpty();
        assertThatThrownBy(() -> new TestnetSettings.Byzantine(0.5, ByzantineAttack.NONE))
                .hasMessageContaining("[0, 0.5)");
    }
}
