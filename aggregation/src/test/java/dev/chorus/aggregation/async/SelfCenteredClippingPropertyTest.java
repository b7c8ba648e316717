package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Seeds;
import dev.chorus.aggregation.SelfCenteredClipping;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random models through self-centred clipping: a difference longer than the radius is merged as exactly the
 * radius along its own direction, a shorter one unchanged, one pointing away from the local model not at all; a
 * repeat is recognised; and attackers that send a minority of the models, however
 * far, never raise the radius above the multiplier times the largest honest distance.
 */
class SelfCenteredClippingPropertyTest {

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void aDifferenceIsShortenedToExactlyTheRadiusAShorterOnePassesAndAFarOneIsDropped(long seed) {
        Seeds.print("aDifferenceIsShortenedToExactlyTheRadiusAShorterOnePassesAndAFarOneIsDropped", seed);
        SplittableRandom random = new SplittableRandom(seed);
        int d = 1 + random.nextInt(50);
        // A warm history of distances around `typical`, so that the radius is the multiplier times their median.
        double typical = Math.exp(random.nextDouble(-3, 3));
        SelfCenteredClipping.Config config = SelfCenteredClipping.Config.defaults();
        SelfCenteredClipping c = new SelfCenteredClipping(config);
        for (int i = 0; i < config.history(); i++) {
            c.admit("h" + (i % 5), typical, 1, d, d, 0);
        }
        double tau = c.radius(1);
        assertThat(tau).isCloseTo(config.multiplier() * typical, within(1e-9 * typical));
        for (int trial = 0; trial < 20; trial++) {
            float[] x = new float[d];
            float[] y = new float[d];
            for (int i = 0; i < d; i++) {
                x[i] = (float) random.nextGaussian();
                y[i] = (float)
                        (x[i] + random.nextGaussian() * Math.exp(random.nextDouble(-4, 8)) * typical / Math.sqrt(d));
            }
            double raw = SelfCenteredClipping.distance(x, y);
            // Beyond the hard ratio the model is dropped: nothing of it is merged.
            double expected = raw > config.hardRatio() * tau ? 0 : Math.min(raw, tau);
            // A throw-away copy per trial, so that the check sees the radius tau and a trusted peer.
            SelfCenteredClipping probe = new SelfCenteredClipping(config);
            for (int i = 0; i < config.history(); i++) {
                probe.admit("h" + (i % 5), typical, 1, d, d, 0);
            }
            double factor = probe.admit("p" + trial, raw, SelfCenteredClipping.norm(x), d, d, 0);
            assertThat(factor * raw).isCloseTo(expected, within(1e-9 * Math.max(1, expected)));
            if (raw <= tau) {
                assertThat(factor).isEqualTo(1.0);
            }
            // Through the strategy: pushed and merged at rate 1/2, x moves by half the clipped difference.
            GossipAveraging g = new GossipAveraging(GossipAveraging.Config.defaults()
                    .withMode(GossipAveraging.Mode.PUSH)
                    .withScreening(config));
            for (int i = 0; i < config.history(); i++) {
                g.screening().orElseThrow().admit("h" + (i % 5), typical, 1, d, d, 0);
            }
            float[] before = x.clone();
            double inner = 0;
            for (int i = 0; i < d; i++) {
                inner += (double) x[i] * y[i];
            }
            g.receive(ModelUpdate.full("p", 1, 1, y), new LocalModel("me", x, 1, 1), new ManualClock(0));
            double moved = SelfCenteredClipping.distance(before, x);
            // A model pointing away from x is dropped whatever its distance (near a right angle either may hold).
            if (inner < -1e-6 * raw * raw) {
                assertThat(moved).isZero();
            } else if (inner > 1e-6 * raw * raw) {
                assertThat(moved).isCloseTo(expected / 2, within(1e-4 * Math.max(1, expected)));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void attackersInTheMinorityCannotInflateTheRadius(long seed) {
        Seeds.print("attackersInTheMinorityCannotInflateTheRadius", seed);
        SplittableRandom random = new SplittableRandom(seed);
        SelfCenteredClipping.Config config = SelfCenteredClipping.Config.defaults();
        SelfCenteredClipping c = new SelfCenteredClipping(config);
        double attackerShare = random.nextDouble(0, 0.45);
        int attackers = 1 + random.nextInt(3);
        double largestHonest = 0;
        for (int i = 0; i < 2000; i++) {
            if (random.nextDouble() < attackerShare) {
                String peer = "attacker-" + random.nextInt(attackers);
                if (!c.excluded(peer, i)) {
                    c.admit(peer, Math.exp(random.nextDouble(0, 70)), 1, 10, 10, i);
                }
            } else {
                double honest = random.nextDouble(0.5, 1.5);
                largestHonest = Math.max(largestHonest, honest);
                c.admit("honest-" + random.nextInt(6), honest, 1, 10, 10, i);
            }
            if (i >= config.warmup()) {
                assertThat(c.radius(1)).isLessThanOrEqualTo(config.multiplier() * largestHonest * (1 + 1e-12));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void aRepeatIsRecognisedWithinTheMemoryAndAModelThatMovedNever(long seed) {
        Seeds.print("aRepeatIsRecognisedWithinTheMemoryAndAModelThatMovedNever", seed);
        SplittableRandom random = new SplittableRandom(seed);
        int d = 1 + random.nextInt(40);
        SelfCenteredClipping c = new SelfCenteredClipping(SelfCenteredClipping.Config.defaults());
        java.util.List<float[]> sent = new java.util.ArrayList<>();
        float[] model = new float[d];
        for (int i = 0; i < d; i++) {
            model[i] = (float) random.nextGaussian();
        }
        int expectedRepeats = 0;
        for (int step = 0; step < 600; step++) {
            boolean replay = !sent.isEmpty() && random.nextInt(4) == 0;
            float[] values;
            if (replay) {
                // One of the models still remembered (the last REPEAT_MEMORY distinct ones).
                int back = random.nextInt(Math.min(sent.size(), SelfCenteredClipping.REPEAT_MEMORY));
                values = sent.get(sent.size() - 1 - back).clone();
                expectedRepeats++;
            } else {
                // A model that moved: one coordinate by at least one ulp.
                int i = random.nextInt(d);
                model[i] = random.nextBoolean() ? Math.nextUp(model[i]) : model[i] + (float) random.nextGaussian();
                values = model.clone();
                sent.add(values.clone());
            }
            double f = c.admit("p", null, values, 0, 1, d, 0);
            assertThat(f).as("step %d, replay %s", step, replay).isEqualTo(replay ? 0.0 : 1.0);
        }
        assertThat(c.repeats()).isEqualTo(expectedRepeats);
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void aModelIsDroppedForItsDirectionExactlyWhenItsInnerProductWithTheLocalOneIsNegative(long seed) {
        Seeds.print("aModelIsDroppedForItsDirectionExactlyWhenItsInnerProductWithTheLocalOneIsNegative", seed);
        SplittableRandom random = new SplittableRandom(seed);
        int d = 2 + random.nextInt(60);
        // A radius far larger than any distance here, so that only the direction can drop a model.
        SelfCenteredClipping c = new SelfCenteredClipping(SelfCenteredClipping.Config.defaults());
        for (int i = 0; i < 8; i++) {
            c.admit("h" + i, 1e6, 1e9, d, d, 0);
        }
        for (int trial = 0; trial < 50; trial++) {
            float[] x = new float[d];
            float[] y = new float[d];
            double inner = 0;
            for (int i = 0; i < d; i++) {
                x[i] = (float) random.nextGaussian();
                y[i] = (float) random.nextGaussian();
                inner += (double) x[i] * y[i];
            }
            if (Math.abs(inner) < 1e-3) {
                continue; // too near a right angle for the identity's rounding to decide
            }
            double f = c.admit(
                    "p" + trial, null, y, SelfCenteredClipping.distance(x, y), SelfCenteredClipping.norm(x), d, 0);
            assertThat(f).as("trial %d, inner product %s", trial, inner).isEqualTo(inner < 0 ? 0.0 : 1.0);
        }
    }
}
