package dev.chorus.aggregation.secure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.aggregation.GroupRounds;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SecureGroupAveragingTest {

    /** Rounds driven by the test: it decides when an offer's round ends and how. */
    private static final class ScriptedRounds implements GroupRounds {
        final List<float[]> offers = new ArrayList<>();
        final Queue<GroupOutcome> outcomes = new ArrayDeque<>();
        boolean busy;
        boolean accept = true;

        @Override
        public boolean offer(float[] input, long sampleCount) {
            if (busy || !accept) {
                return false;
            }
            busy = true;
            offers.add(input);
            return true;
        }

        @Override
        public GroupOutcome poll() {
            GroupOutcome o = outcomes.poll();
            if (o != null) {
                busy = false;
            }
            return o;
        }
    }

    private final InstantSource clock = InstantSource.system();
    private final Random random = new Random(1);

    @Test
    void mergesTheGroupMeanAndKeepsWhatWasLearntWhileTheRoundRan() {
        SecureGroupAveraging s = new SecureGroupAveraging();
        ScriptedRounds rounds = new ScriptedRounds();
        s.attachGroupRounds(rounds);
        LocalModel local = new LocalModel("me", new float[] {1, 2, 3}, 0, 10);

        s.configure(local, List.of(), random, clock);
        assertThat(rounds.offers).hasSize(1);
        assertThat(rounds.offers.get(0)).containsExactly(1, 2, 3);
        assertThat(rounds.offers.get(0)).isNotSameAs(local.params());

        local.params()[0] += 0.5f; // a training step while the round runs
        s.configure(local, List.of(), random, clock);
        assertThat(rounds.offers).as("one round at a time").hasSize(1);

        rounds.outcomes.add(new GroupRounds.Completed(new float[] {3, 4, 5}, 4, 40));
        s.configure(local, List.of(), random, clock);
        assertThat(local.params()).containsExactly(3.5f, 4, 5);
        assertThat(s.completedRounds()).isEqualTo(1);
        assertThat(s.meanContributors()).isEqualTo(4);
        assertThat(rounds.offers).as("the next offer goes out at once").hasSize(2);
        assertThat(rounds.offers.get(1)).containsExactly(3.5f, 4, 5);
    }

    @Test
    void anAbandonedRoundLeavesTheModelAndTheNextRoundTakesTheNewerOne() {
        SecureGroupAveraging s = new SecureGroupAveraging();
        ScriptedRounds rounds = new ScriptedRounds();
        s.attachGroupRounds(rounds);
        LocalModel local = new LocalModel("me", new float[] {1, 1}, 0, 10);
        s.configure(local, List.of(), random, clock);
        local.params()[1] = 2;
        rounds.outcomes.add(new GroupRounds.Abandoned("fewer than t survived"));
        s.configure(local, List.of(), random, clock);
        assertThat(local.params()).containsExactly(1, 2);
        assertThat(s.abandonedRounds()).isEqualTo(1);
        assertThat(s.lastAbandonReason()).isEqualTo("fewer than t survived");
        assertThat(rounds.offers.get(1)).containsExactly(1, 2);
    }

    @Test
    void aMeanOfTheWrongLengthIsNotMerged() {
        SecureGroupAveraging s = new SecureGroupAveraging();
        ScriptedRounds rounds = new ScriptedRounds();
        s.attachGroupRounds(rounds);
        LocalModel local = new LocalModel("me", new float[] {1, 1}, 0, 10);
        s.configure(local, List.of(), random, clock);
        rounds.outcomes.add(new GroupRounds.Completed(new float[] {9}, 3, 30));
        s.configure(local, List.of(), random, clock);
        assertThat(local.params()).containsExactly(1, 1);
        assertThat(s.abandonedRounds()).isEqualTo(1);
    }

    @Test
    void doesNothingUntilAttachedSendsNothingAndRefusesModelsInTheClear() {
        SecureGroupAveraging s = new SecureGroupAveraging();
        LocalModel local = new LocalModel("me", new float[] {1, 1}, 0, 10);
        s.configure(local, List.of("a", "b"), random, clock);
        assertThat(s.pollOutbound()).isNull();
        assertThat(s.pendingOutbound()).isZero();
        assertThat(s.joinsGroupRounds()).isTrue();
        assertThatThrownBy(() -> s.receive(ModelUpdate.full("a", 1, 5, new float[] {0, 0}), local, clock))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("no model in the clear");
    }
}
