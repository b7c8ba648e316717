package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class DropoutScheduleTest {

    static Stream<Long> seeds() {
        return IntStream.range(0, 40).mapToObj(i -> 0xD0_0000L + i);
    }

    /** Over any n rounds the dropouts number floor or ceil of n times the fraction, and no two fall closer than 1/f. */
    @ParameterizedTest
    @MethodSource("seeds")
    void dropoutsAreTheFractionEvenlySpaced(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        double fraction = random.nextDouble(0.01, 0.99);
        double phase = random.nextDouble();
        DropoutSchedule schedule = new DropoutSchedule(fraction, phase);
        List<Integer> dropped = new ArrayList<>();
        List<Integer> silentAfter = new ArrayList<>();
        int rounds = 500;
        for (int k = 1; k <= rounds; k++) {
            int s = schedule.nextRound();
            if (s != Integer.MAX_VALUE) {
                dropped.add(k);
                silentAfter.add(s);
            }
        }
        assertThat((double) dropped.size())
                .as("fraction %s phase %s", fraction, phase)
                .isBetween(Math.floor(phase + rounds * fraction) - 1, Math.floor(phase + rounds * fraction));
        assertThat(dropped.getFirst()).isEqualTo((int) Math.ceil((1 - phase) / fraction - 1e-9));
        for (int i = 1; i < dropped.size(); i++) {
            int gap = dropped.get(i) - dropped.get(i - 1);
            assertThat(gap).isBetween((int) Math.floor(1 / fraction), (int) Math.ceil(1 / fraction));
        }
        for (int i = 0; i < silentAfter.size(); i++) {
            assertThat(silentAfter.get(i)).isEqualTo(i % DropoutSchedule.MESSAGES);
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.0, 0.5})
    void noFractionNoDropouts(double phase) {
        DropoutSchedule schedule = new DropoutSchedule(0, phase);
        for (int k = 0; k < 1000; k++) {
            assertThat(schedule.nextRound()).isEqualTo(Integer.MAX_VALUE);
        }
        assertThat(DropoutSchedule.NONE.nextRound()).isEqualTo(Integer.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(doubles = {-0.1, 1.0, Double.NaN})
    void outOfRangeIsRefused(double bad) {
        assertThatThrownBy(() -> new DropoutSchedule(bad, 0)).hasMessageContaining("fraction");
        assertThatThrownBy(() -> new DropoutSchedule(0.1, bad)).hasMessageContaining("phase");
    }
}
