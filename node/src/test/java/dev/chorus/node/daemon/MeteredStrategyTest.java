package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.node.api.NodeMetrics;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MeteredStrategyTest {

    /** A default method left to the interface would answer for the wrapper, not for the strategy it wraps. */
    @Test
    void everyMethodOfTheStrategyGoesToTheWrappedOne() throws Exception {
        for (Method m : AveragingStrategy.class.getMethods()) {
            Method own = MeteredStrategy.class.getMethod(m.getName(), m.getParameterTypes());
            assertThat(own.getDeclaringClass()).as(m.getName()).isEqualTo(MeteredStrategy.class);
        }
    }

    @Test
    void aPullTheWrappedStrategyGivesUpIsReportedThroughTheWrapper() {
        AtomicLong millis = new AtomicLong(1_000);
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        MeteredStrategy metered = new MeteredStrategy(
                new GossipAveraging(new GossipAveraging.Config(
                        GossipAveraging.Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofSeconds(2))),
                new NodeMetrics(clock));
        LocalModel local = new LocalModel("a", new float[] {0}, 0, 1);
        SplittableRandom random = new SplittableRandom(1);
        metered.configure(local, List.of("b"), random, clock);
        Outbound pull = metered.pollOutbound();
        millis.addAndGet(2_000);
        metered.configure(local, List.of("b"), random, clock);
        assertThat(metered.pollAbandoned()).isSameAs(pull.message());
    }
}
