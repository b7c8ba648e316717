package dev.chorus.aggregation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.async.BufferedAsynchronousAggregation;
import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.sync.DeadlineAveraging;
import dev.chorus.aggregation.sync.SynchronousAveraging;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** What each strategy answers about itself: its versions, its barrier and its fragmentation. */
class AveragingStrategyTest {

    private static final Set<String> PARTICIPANTS = Set.of("a", "b");

    private static GossipAveraging gossip() {
        return new GossipAveraging(GossipAveraging.Config.defaults());
    }

    private static FragmentedGossip fragmented() {
        return new FragmentedGossip(new FragmentedGossip.Config(4, 2, 77, UpdateWeighting.uniform()), 40);
    }

    private static BufferedAsynchronousAggregation fedbuff(BufferedAsynchronousAggregation.Role role) {
        return new BufferedAsynchronousAggregation(BufferedAsynchronousAggregation.Config.defaults(), role, "a", 8);
    }

    private static SynchronousAveraging sync() {
        return new SynchronousAveraging(SynchronousAveraging.Config.of(PARTICIPANTS), "a");
    }

    private static DeadlineAveraging deadline() {
        return new DeadlineAveraging(DeadlineAveraging.Config.defaults(PARTICIPANTS, 5), "a");
    }

    @Test
    void versionsAreStepCountsForGossipAndTheFedBuffAggregatorOnly() {
        assertThat(gossip().versionsComparable()).isTrue();
        assertThat(fragmented().versionsComparable()).isTrue();
        assertThat(fedbuff(BufferedAsynchronousAggregation.Role.AGGREGATOR).versionsComparable())
                .isTrue();
        assertThat(fedbuff(BufferedAsynchronousAggregation.Role.CONTRIBUTOR).versionsComparable())
                .isFalse();
        assertThat(sync().versionsComparable()).isFalse();
        assertThat(deadline().versionsComparable()).isFalse();
    }

    @Test
    void onlyTheSynchronousStrategyHasABarrier() {
        assertThat(gossip().barrier()).isEmpty();
        assertThat(fragmented().barrier()).isEmpty();
        assertThat(fedbuff(BufferedAsynchronousAggregation.Role.AGGREGATOR).barrier())
                .isEmpty();
        assertThat(fedbuff(BufferedAsynchronousAggregation.Role.CONTRIBUTOR).barrier())
                .isEmpty();
        assertThat(deadline().barrier()).isEmpty();
        SynchronousAveraging sync = sync();
        assertThat(sync.barrier()).containsSame(sync);
    }

    /** The barrier is the strategy's own state: a contribution sent puts it there, the missing one ends it. */
    @Test
    void theSynchronousBarrierFollowsTheRound() {
        SynchronousAveraging sync = sync();
        Barrier barrier = sync.barrier().orElseThrow();
        LocalModel local = new LocalModel("a", new float[] {0, 0}, 0, 1);
        assertThat(barrier.atBarrier()).isFalse();
        sync.configure(local, List.of("b"), new SplittableRandom(1), InstantSource.system());
        assertThat(barrier.atBarrier()).isTrue();
        assertThat(barrier.missing()).containsExactly("b");
        sync.receive(ModelUpdate.full("b", 0, 1, new float[] {2, 2}), local, InstantSource.system());
        assertThat(barrier.atBarrier()).isFalse();
        assertThat(barrier.round()).isEqualTo(1);
    }

    @Test
    void onlyTheFragmentedStrategyHasAFragmentation() {
        assertThat(gossip().fragmentation()).isEmpty();
        assertThat(fedbuff(BufferedAsynchronousAggregation.Role.AGGREGATOR).fragmentation())
                .isEmpty();
        assertThat(fedbuff(BufferedAsynchronousAggregation.Role.CONTRIBUTOR).fragmentation())
                .isEmpty();
        assertThat(sync().fragmentation()).isEmpty();
        assertThat(deadline().fragmentation()).isEmpty();
        ModelFragmentation f = fragmented().fragmentation().orElseThrow();
        assertThat(f.fragmentCount()).isEqualTo(4);
        assertThat(f.seed()).isEqualTo(77);
        assertThat(f.dimension()).isEqualTo(40);
    }

    /** A transport names fragments by the very arrays the strategy sends: the same fragmentation every time. */
    @Test
    void theFragmentationIsTheOneTheStrategySendsFrom() {
        FragmentedGossip g = fragmented();
        assertThat(g.fragmentation().orElseThrow()).isSameAs(g.fragmentation().orElseThrow());
    }
}
